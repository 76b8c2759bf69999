package dumptest_test

import (
	"encoding/json"
	"fmt"

	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
)

func ExampleKumaSidecar() {
	var d struct {
		Configs []struct {
			Type string `json:"@type"`
		} `json:"configs"`
	}
	if err := json.Unmarshal(dumptest.KumaSidecar(true), &d); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range d.Configs {
		fmt.Println(c.Type)
	}
	// Output:
	// type.googleapis.com/envoy.admin.v3.ListenersConfigDump
	// type.googleapis.com/envoy.admin.v3.ClustersConfigDump
	// type.googleapis.com/envoy.admin.v3.RoutesConfigDump
	// type.googleapis.com/envoy.admin.v3.SecretsConfigDump
	// type.googleapis.com/envoy.admin.v3.EndpointsConfigDump
}
