// Package tracker implements core.SecretsTracker: the CA secret's name holds ':' (Kuma's legacy
// "mesh_ca:secret:<mesh>"), the identity secret's does not.
package tracker

import "github.com/kriguard/kriguard/test/envoyvet/secrets/core"

type caRequest struct{ mesh string }

func (r caRequest) Name() string { return "mesh_ca:secret:" + r.mesh }

func (r caRequest) MeshNames() []string { return []string{r.mesh} }

// allInOneCaRequest is the other implementation of core.CaRequest, with a name without ':': a
// call of RequestAllInOneCa().Name() runs this one only, RequestCa(…).Name() caRequest's only.
type allInOneCaRequest struct{ meshes []string }

func (r *allInOneCaRequest) Name() string { return "mesh_ca_secret_all" }

func (r *allInOneCaRequest) MeshNames() []string { return r.meshes }

type identityRequest struct{ mesh string }

func (r identityRequest) Name() string { return "identity_cert_secret_" + r.mesh }

func (r identityRequest) MeshName() string { return r.mesh }

type tracker struct{ mesh string }

func (t *tracker) RequestCa(mesh string) core.CaRequest { return &caRequest{mesh: mesh} }

func (t *tracker) RequestAllInOneCa() core.CaRequest { return &allInOneCaRequest{} }

func (t *tracker) RequestIdentity() core.IdentityRequest { return identityRequest{mesh: t.mesh} }

func New(mesh string) core.SecretsTracker { return &tracker{mesh: mesh} }

// Kind is the only type of tracker that secrets/wire's API mentions: the importers of wire know
// this package, but not its request types.
type Kind string

const CA Kind = "ca"
