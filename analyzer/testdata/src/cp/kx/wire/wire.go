package wire // want package:`implements cp/kx/core.CaRequest.Name=\(\*envoy.allInOneCaRequest\).Name "mesh_ca:secret:all" cp/kx/core.CaRequest.Name=\(envoy.caRequest\).Name "mesh_ca:secret:\*" cp/kx/core.IdentityCertRequest.Name=\(envoy.identityCertRequest\).Name "identity_cert:secret:\*" .*cp/kx/core.SecretsTracker.RequestCa=\(envoy.tracker\).RequestCa returns envoy.caRequest`

// wire makes a proxy with the secrets tracker of cp/kx/envoy; its API mentions only
// cp/kx/core. It neither writes a name nor returns one, yet it forwards the implementations that
// cp/kx/envoy exports, for the packages above it that go vet gives no fact of cp/kx/envoy.

import (
	"cp/kx/core"
	"cp/kx/envoy"
)

func NewProxy() core.Proxy { return core.Proxy{SecretsTracker: envoy.NewSecretsTracker()} }
