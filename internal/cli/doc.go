// Package cli is the kriguard command (cmd/kriguard): check, audit, envoy and kri. It applies
// the rules of the admission webhook outside of admission — to manifests, to the objects already
// in a cluster and to the names in an Envoy config dump — through the same code: objects are
// decided by rules.Config.Decide (rules.Admit), the mutating and validating rules the webhook runs,
// and Envoy names by naming.CheckEnvoyName, which krilint runs too. Nothing here re-implements a
// rule.
//
// Main runs the command over explicit streams, so that tests drive it like a user. Output is
// "-o text" (one line per problem, file:line: Kind namespace/name: field: message) or "-o json"
// (one array); the exit status is 0 when nothing is denied, 1 when something is, 2 for a usage or
// input error, which wins over 1. docs/cli.md is the reference; docs/architecture.md follows one
// check run through the layers.
package cli
