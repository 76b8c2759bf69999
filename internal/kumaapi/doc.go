// Package kumaapi reads a Kuma control plane's REST API, as kriguard audit --kuma-api does: the
// index (the control plane's version), the resource types it serves (/_resources), and every
// resource of a type, page by page (size, offset, next). It authenticates with a Kuma user token
// (Bearer) and, over TLS, with a CA bundle and a client certificate; it keeps nothing on disk.
//
// A listing that returns without an error is complete: an error answer, an unreachable control
// plane, or resources that changed while they were read end it with an error that names the URL
// and the status (docs/universal.md).
package kumaapi
