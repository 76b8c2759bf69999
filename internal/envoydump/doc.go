// Package envoydump reads an Envoy admin config dump (the JSON of /config_dump, with or without
// ?include_eds) and lists every resource name and name reference it holds, each with its JSON path
// and the problems the Envoy-name rule of package naming finds in it (docs/cli.md).
//
// The dump is decoded with go-control-plane's admin/v3 types and protojson, and walked by
// reflection: a table says which field of which message is a name (Listener.name, Cluster.name and
// alt_stat_name, RouteAction.cluster, …) and every string field named stat_prefix is one too, so
// that names inside filters embedded as typed_config are found wherever they sit. Embedded
// configurations of a type this package does not register (see types.go) are skipped, each with
// a note, instead of failing the whole dump. The bootstrap section is left out: it repeats the
// static listeners and clusters that their own sections list.
//
// Locate maps the JSON paths of Name.Path back to lines and columns of the dump, for the report
// formats that show them (docs/reports.md).
package envoydump
