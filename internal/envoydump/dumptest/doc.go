// Package dumptest builds Envoy config dumps from go-control-plane types, shaped like the ones
// Envoy prints for a Kuma sidecar (protojson with proto field names), for the tests of the
// kriguard command and the demo. The names in them cover every case of the Envoy-name rule: valid
// and broken KRIs, legacy names with ':', "_" internal names and accepted prefixes.
package dumptest
