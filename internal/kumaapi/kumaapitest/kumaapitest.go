// Package kumaapitest serves a Kuma control plane's REST API to tests and benchmarks of the audit:
// the index and the types of a recorded control plane, and many stored MeshTimeouts, paged as Kuma
// pages them (size, offset, next).
package kumaapitest

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
)

// TimeoutsPath is the path of the type whose resources Handler lists.
const TimeoutsPath = "/meshtimeouts"

// Timeouts returns n MeshTimeouts as a Kuma v2.14.3 zone control plane lists them, one in ten
// (those whose index is a multiple of 10) with a kuma.io/display-name label no KRI can hold.
func Timeouts(n int) [][]byte {
	items := make([][]byte, n)
	for i := range n {
		label := ""
		if i%10 == 0 {
			label = `,"kuma.io/display-name":"Timeout_` + strconv.Itoa(i) + `"`
		}
		items[i] = fmt.Appendf(nil, `{"type":"MeshTimeout","mesh":"default","name":"timeout-%[1]d",`+
			`"creationTime":"2026-11-25T20:19:30.436334032Z","modificationTime":"2026-11-25T20:19:30.436334032Z",`+
			`"labels":{"kuma.io/env":"universal","kuma.io/mesh":"default","kuma.io/origin":"zone","kuma.io/zone":"default"%[2]s},`+
			`"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","labels":{"kuma.io/display-name":"backend-%[1]d"},"sectionName":"http"},`+
			`"default":{"idleTimeout":"20s","connectionTimeout":"2s","http":{"requestTimeout":"5s"}}}]},`+
			`"kri":"kri_mt_default_default__timeout-%[1]d_"}`, i, label)
	}
	return items
}

// Handler answers "/" and "/_resources" with index and types, the recorded bodies of a control
// plane's index and type list, and TimeoutsPath with items, a page at a time as Kuma pages: the
// size and offset query parameters, and next, the URI of the next page or null. Every other path
// lists no items.
func Handler(index, types []byte, items [][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			_, _ = w.Write(index)
			return
		case "/_resources":
			_, _ = w.Write(types)
			return
		}
		var all [][]byte
		if r.URL.Path == TimeoutsPath {
			all = items
		}
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		end := min(max(offset, 0)+max(size, 0), len(all))
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"total":%d,"items":[`, len(all))
		for i, it := range all[min(max(offset, 0), end):end] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(it)
		}
		next := "null"
		if end < len(all) {
			next = strconv.Quote(fmt.Sprintf("http://%s%s?offset=%d&size=%d", r.Host, r.URL.Path, end, size))
		}
		fmt.Fprintf(&b, `],"next":%s}`, next)
		_, _ = w.Write(b.Bytes())
	})
}
