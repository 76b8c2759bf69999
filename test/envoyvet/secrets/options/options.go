// Package options writes the tracker it is handed to the configurer's field in a functional
// option, as Kuma's clusters.ClientSideMTLS does: the field's sink becomes one of its parameter.
package options

import (
	"github.com/kriguard/kriguard/test/envoyvet/secrets/core"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/mtls"
)

type Builder struct{ Configurers []*mtls.ClientSideConfigurer }

type Opt func(*Builder)

func ClientSideMTLS(tracker core.SecretsTracker, mesh string) Opt {
	return func(b *Builder) {
		b.Configurers = append(b.Configurers, &mtls.ClientSideConfigurer{SecretsTracker: tracker, Mesh: mesh})
	}
}
