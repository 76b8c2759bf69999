// Package layers holds the test that keeps kriguard's packages in their layers
// (docs/architecture.md): naming at the bottom, the rules over it, the front ends over the rules,
// and the webhook's transport private to the webhook's command.
//
//	go test ./test/layers/
package layers
