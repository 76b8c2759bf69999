package envoydump_test

import (
	"fmt"

	"github.com/kriguard/kriguard/internal/envoydump"
	"github.com/kriguard/kriguard/naming"
)

func ExampleParse() {
	dump := []byte(`{"configs": [{
	  "@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump",
	  "dynamic_active_clusters": [{"cluster": {
	    "@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
	    "name": "outbound:backend:8080",
	    "alt_stat_name": "kri_msvc_default__kuma-demo_backend_http"
	  }}]
	}]}`)
	d, err := envoydump.Parse(dump, naming.EnvoyNameOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range d.Names {
		for _, p := range n.Problems {
			fmt.Printf("%s: %s %q %s\n", n.Path, n.What, n.Name, p.Message)
		}
	}
	// Output:
	// configs[0].dynamic_active_clusters[0].cluster.name: cluster "outbound:backend:8080" contains ':', which Envoy resource names must not (use '_')
}
