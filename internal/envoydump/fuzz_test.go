package envoydump

import (
	"fmt"
	"testing"

	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
	"github.com/kriguard/kriguard/naming"
)

// FuzzParse: any input gives names or an error, never a panic, and every name's problems are
// naming.CheckEnvoyName's.
func FuzzParse(f *testing.F) {
	f.Add(dumptest.KumaSidecar(true))
	f.Add(withUnknownFilter(f, dumptest.KumaSidecar(false)))
	f.Add([]byte(`{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump", "static_clusters": [{"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "a:b"}}]}]}`))
	f.Add([]byte(`{"configs": [{"@type": "x"}, {"@type": 1}, null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o := naming.EnvoyNameOptions{Strict: true}
		d, err := Parse(data, o)
		if err != nil {
			return
		}
		for _, n := range d.Names {
			if n.Path == "" || n.What == "" || n.Name == "" {
				t.Fatalf("incomplete name %+v", n)
			}
			if fmt.Sprint(n.Problems) != fmt.Sprint(naming.CheckEnvoyName(n.Name, o)) {
				t.Fatalf("problems of %q differ from CheckEnvoyName", n.Name)
			}
		}
	})
}
