package golangciplugin_test

import (
	"fmt"

	"github.com/kriguard/kriguard/golangciplugin"
)

// golangci-lint decodes .golangci.yml and hands krilint's settings to New.
func ExampleNew() {
	p, err := golangciplugin.New(map[string]any{
		"strict":   true,
		"prefixes": []any{"self_", "system_"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	analyzers, err := p.BuildAnalyzers()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(analyzers[0].Name, p.GetLoadMode())

	_, err = golangciplugin.New(map[string]any{"sinks": []any{"example.com/cp/builders.NewListenerBuilder"}})
	fmt.Println(err)
	// Output:
	// krilint typesinfo
	// krilint settings: sinks[0]: "example.com/cp/builders.NewListenerBuilder": want pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex
}
