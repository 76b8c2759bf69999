package naming_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// SNIVector is one line of testdata/kuma-sni.jsonl (testdata/README.md).
type sniVector struct {
	Release, KRI, SNI string
	Problems          []string
}

// The SNI naming.SNI builds from each KRI of testdata/kuma-sni.jsonl is the one its release's
// sni.FromKRIE gave.
func TestSNIVectors(t *testing.T) {
	f, err := os.Open("testdata/kuma-sni.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perRelease := map[string]int{}
	for s := bufio.NewScanner(f); s.Scan(); {
		var v sniVector
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		perRelease[v.Release]++
		p := strings.Split(v.KRI, "_")
		if len(p) != 7 {
			t.Fatalf("%s: not seven parts", v.KRI)
		}
		k := naming.KRI{Type: p[1], Mesh: p[2], Zone: p[3], Namespace: p[4], Name: p[5]}
		if got := naming.SNI(k, p[6]); got != v.SNI {
			t.Errorf("%s %s: SNI %q, Kuma's is %q", v.Release, v.KRI, got, v.SNI)
		}
	}
	if perRelease["2.14"] < 39 || perRelease["3.0"] < 39 {
		t.Errorf("read %v", perRelease)
	}
}
