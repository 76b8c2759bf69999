// Package wire makes a proxy with the tracker: it imports secrets/tracker, but its API mentions
// only secrets/core and tracker.Kind, so a package that imports wire knows secrets/tracker only in
// part: not its request types, nor any fact about their methods.
package wire

import (
	"github.com/kriguard/kriguard/test/envoyvet/secrets/core"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/tracker"
)

func NewProxy(mesh string) core.Proxy {
	return core.Proxy{Mesh: mesh, SecretsTracker: tracker.New(mesh)}
}

func Kind() tracker.Kind { return tracker.CA }
