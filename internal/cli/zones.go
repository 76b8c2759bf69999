package cli

import (
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// zonePathsFlag is check's --zone: which zone the files under a path come from.
func zonePathsFlag(a *app, fs *pflag.FlagSet) {
	fs.StringArrayVar(&a.zonePaths, "zone", nil, "ZONE=PATH: the objects read from PATH (a file, or a folder and what it holds) are of the Kuma zone ZONE, as if labelled kuma.io/zone, when they carry no such label; repeated, the files of several zones are compared (KDS copy names, docs/unique.md)")
}

// zonePath is one --zone: a cleaned path and its zone.
type zonePath struct{ path, zone string }

// parseZonePaths reads the --zone values, each ZONE=PATH with a zone name Kuma accepts.
func parseZonePaths(values []string) ([]zonePath, error) {
	var out []zonePath
	for _, v := range values {
		zone, path, ok := strings.Cut(v, "=")
		if !ok || zone == "" || path == "" {
			return nil, usagef("--zone %q: want ZONE=PATH", v)
		}
		if errs := naming.FieldZone.Validate(zone, field.NewPath("zone")); len(errs) > 0 {
			return nil, usagef("--zone %q: zone %q: %s", v, zone, errs[0].Detail)
		}
		out = append(out, zonePath{path: filepath.Clean(path), zone: zone})
	}
	return out, nil
}

// zoneOf returns the zone of the file source: that of the longest --zone path it is or lies
// under, else def.
func zoneOf(paths []zonePath, source, def string) string {
	best, zone := -1, def
	src := filepath.Clean(source)
	for _, p := range paths {
		under := src == p.path || strings.HasPrefix(src, p.path+string(filepath.Separator)) || p.path == "."
		if under && len(p.path) > best {
			best, zone = len(p.path), p.zone
		}
	}
	return zone
}
