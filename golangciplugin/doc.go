// Package golangciplugin makes krilint a golangci-lint v2 module plugin. Importing it registers the linter
// "krilint" with github.com/golangci/plugin-module-register; golangci-lint then calls [New] with the
// settings of .golangci.yml and runs an analyzer of package analyzer, the same analysis cmd/krilint runs.
//
// Build a golangci-lint that contains the plugin with `golangci-lint custom` and a .custom-gcl.yml:
//
//	version: v2.15.0                # the golangci-lint release to build on (v2.15.0 is tested)
//	plugins:
//	  - module: github.com/kriguard/kriguard
//	    import: github.com/kriguard/kriguard/golangciplugin
//	    version: v0.1.0             # a kriguard release, or path: ./kriguard for a checkout
//
// and enable it in .golangci.yml:
//
//	version: "2"
//	linters:
//	  enable:
//	    - krilint
//	  settings:
//	    custom:
//	      krilint:
//	        type: module
//	        description: Envoy resource names without ':' and valid KRIs
//	        settings:
//	          strict: false
//	          prefixes: [self_, system_]
//	          sinks:
//	            - example.com/cp/builders.NewListenerBuilder:1
//	          types:
//	            - kind: MeshWidget
//	              shortName: mw
//	              scope: Mesh
//
// The settings are those of krilint's flags ([Settings]), checked by the same parser. Each plugin builds
// its own analyzer with analyzer.New, so several configurations can live in one process and none of them
// touches the flags of analyzer.Analyzer.
package golangciplugin
