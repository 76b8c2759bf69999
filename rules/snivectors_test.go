package rules

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// Every problem Kuma's sni.ValidateKRI finds in a KRI of ../naming/testdata/kuma-sni.jsonl is one
// kriguard reports for a port of that section on an object of that KRI: as kuma/sni, or as
// kuma/kri for a part no KRI may hold; and kriguard reports no other. MeshExternalService sections
// are port numbers only; a MeshMultiZoneService port cannot have an empty section.
func TestSNIProblemVectors(t *testing.T) {
	f, err := os.Open("../naming/testdata/kuma-sni.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[string]string{"msvc": "MeshService", "extsvc": "MeshExternalService", "mzsvc": "MeshMultiZoneService"}
	fields := map[string]naming.Field{"mesh": naming.FieldMesh, "name": naming.FieldName, "zone": naming.FieldZone, "namespace": naming.FieldNamespace}
	checked := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		var v struct {
			Release, KRI string
			Problems     []string
		}
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		p := strings.Split(v.KRI, "_")
		k := naming.KRI{Type: p[1], Mesh: p[2], Zone: p[3], Namespace: p[4], Name: p[5]}
		kind, section := kinds[k.Type], p[6]
		n, numErr := strconv.Atoi(section)
		var spec string
		switch {
		case kind == "MeshExternalService" && numErr == nil:
			spec = fmt.Sprintf(`{"match":{"port":%d}}`, n)
		case kind == "MeshExternalService", kind == "MeshMultiZoneService" && section == "":
			continue
		case numErr == nil:
			spec = fmt.Sprintf(`{"ports":[{"port":%d}]}`, n)
		default:
			spec = fmt.Sprintf(`{"ports":[{"name":%q,"port":80}]}`, section)
		}
		raw := fmt.Sprintf(`{"apiVersion":"kuma.io/v1alpha1","kind":%q,"metadata":{"name":"x","namespace":"ns"},"spec":%s}`, kind, spec)
		obj, err := decodeObject(runtime.RawExtension{Raw: []byte(raw)}, "object", schema.GroupKind{Group: KumaGroup, Kind: kind}, true)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		add := func(what string) {
			if !slices.Contains(got, what) {
				got = append(got, what)
			}
		}
		for _, e := range sniErrors(kind, k, obj, nil) {
			switch d := e.Detail; {
			case strings.Contains(d, "must not be empty"):
				add("empty")
			case strings.Contains(d, "more than the DNS host-name limit"):
				add("length")
			case strings.Contains(d, "needs the object's "):
				add(strings.Fields(strings.SplitAfter(d, "needs the object's ")[1])[0])
			case strings.Contains(d, "needs a DNS-1123 label"):
				add("section")
			default:
				t.Errorf("%s: unexpected %v", v.KRI, e)
			}
		}
		// The parts of the SNI the KRI check reports (kuma/kri), which kuma/sni leaves to it.
		parts := []string{"mesh", "name"}
		if k.Zone != "" {
			parts = append(parts, "zone")
			if k.Namespace != "" {
				parts = append(parts, "namespace")
			}
		}
		values := map[string]string{"mesh": k.Mesh, "name": k.Name, "zone": k.Zone, "namespace": k.Namespace}
		for _, part := range parts {
			switch {
			case values[part] == "":
				add("empty")
			case !fields[part].Valid(values[part]):
				add(part)
			}
		}
		slices.Sort(got)
		checked++
		if slices.Contains(v.Problems, "empty") {
			// Kuma stops at the first: mesh, name and section must be set.
			if !slices.Contains(got, "empty") {
				t.Errorf("%s %s: kriguard reports %q, Kuma an empty part", v.Release, v.KRI, got)
			}
			continue
		}
		if !slices.Equal(got, v.Problems) {
			t.Errorf("%s %s: kriguard reports %q, Kuma %q", v.Release, v.KRI, got, v.Problems)
		}
	}
	if checked < 70 {
		t.Errorf("checked %d vectors", checked)
	}
}
