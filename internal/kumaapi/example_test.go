package kumaapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/kriguard/kriguard/internal/kumaapi"
)

// List every MeshTimeout a control plane holds, whatever the number of pages.
func ExampleClient_List() {
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("offset") {
		case "":
			fmt.Fprint(w, `{"total":2,"items":[{"type":"MeshTimeout","mesh":"default","name":"a"}],"next":"http://cp/meshtimeouts?offset=1&size=1"}`)
		default:
			fmt.Fprint(w, `{"total":2,"items":[{"type":"MeshTimeout","mesh":"default","name":"b"}],"next":null}`)
		}
	}))
	defer cp.Close()

	c, err := kumaapi.New(kumaapi.Options{URL: cp.URL, PageSize: 1})
	if err != nil {
		panic(err)
	}
	n, err := c.List(context.Background(), kumaapi.ResourceType{Name: "MeshTimeout", Path: "meshtimeouts"}, func(raw json.RawMessage) error {
		fmt.Println(string(raw))
		return nil
	})
	fmt.Println(n, err)
	// Output:
	// {"type":"MeshTimeout","mesh":"default","name":"a"}
	// {"type":"MeshTimeout","mesh":"default","name":"b"}
	// 2 <nil>
}
