// Package constfix checks that a fix never changes what a shared constant means elsewhere.
package constfix

import (
	"log"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
)

// adminListener is also logged: its declaration stays, each Envoy use gets the fixed value.
const adminListener = "admin:9901"

// statsListener is only ever an Envoy name: its declaration is fixed.
const statsListener = "stats:9902"

// AdminAddress is exported: importers may use it for anything.
const AdminAddress = "127.0.0.1:9901"

func Listeners(suffix string) []*listenerv3.Listener {
	log.Printf("admin listener %s", adminListener)
	return []*listenerv3.Listener{
		{Name: adminListener},          // want `listenerv3\.Listener\.Name gets "admin:9901" \(constant adminListener = "admin:9901"\): contains ':'`
		{Name: adminListener + suffix}, // want `listenerv3\.Listener\.Name gets "admin:9901\*" \(constant adminListener = "admin:9901"\): contains ':'`
		{Name: statsListener},          // want `listenerv3\.Listener\.Name gets "stats:9902" \(constant statsListener = "stats:9902"\): contains ':'`
		{StatPrefix: statsListener},    // want `listenerv3\.Listener\.StatPrefix gets "stats:9902"`
		{Name: AdminAddress},           // want `listenerv3\.Listener\.Name gets "127\.0\.0\.1:9901" \(constant AdminAddress = "127\.0\.0\.1:9901"\): contains ':'`
	}
}
