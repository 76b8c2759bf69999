package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/rules"
)

func kriCommand() *command {
	return &command{
		name:  "kri",
		use:   "kriguard kri COMMAND [flags]",
		short: "explain KRIs, print the KRI of objects, compute hash-suffix names",
		long: `A KRI (Kuma resource identifier) is kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>
(docs/kri.md).`,
		example: `  kriguard kri explain kri_mt_default__kuma-demo_timeouts_
  kriguard kri of examples/
  kriguard kri name --mesh default --name backend --zone east --namespace kuma-demo`,
		subs: []*command{kriExplainCommand(), kriOfCommand(), kriNameCommand()},
	}
}

func kriExplainCommand() *command {
	return &command{
		name:  "explain",
		use:   "kriguard kri explain KRI... [flags]",
		short: "show a KRI field by field, or every problem it has",
		long: `explain parses each KRI strictly (exactly seven '_'-separated segments, each field's rules, a
type the registry knows with the scope it asks for) and prints its fields, the kind and scope of
its type, or every problem. Types added by --config are known too. Exits 1 when a KRI is invalid.`,
		example: `  kriguard kri explain kri_mt_default__kuma-demo_timeouts_
  kriguard kri explain -o json kri_msvc_Mesh-1__kuma-demo_backend_http`,
		flags: outputFlags,
		run:   runKRIExplain,
	}
}

// explained is a KRI as -o json prints it.
type explained struct {
	KRI       string `json:"kri"`
	Valid     bool   `json:"valid"`
	Type      string `json:"type,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Mesh      string `json:"mesh"`
	Zone      string `json:"zone"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Section   string `json:"section"`
	// Problems are the findings of rule kuma/kri in the KRI, the field a KRI segment.
	Problems []jsonFinding `json:"problems"`
}

func runKRIExplain(a *app, _ context.Context, args []string) int {
	if len(args) == 0 {
		return a.fail("kriguard kri explain", usagef("no KRI given"))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail("kriguard kri explain", err)
	}
	format, err := a.stdoutFormat()
	if err != nil {
		return a.fail("kriguard kri explain", err)
	}
	reg := a.cfg.Registry()
	var t tally
	jw := newJSONWriter(a.out, nil)
	for _, s := range args {
		e := explain(reg, s)
		if !e.Valid {
			t.denied++
		}
		if format == formatJSON {
			err = jw.encode(e)
		} else {
			err = writeExplained(a, e)
		}
		if err != nil {
			return a.fail("kriguard kri explain", fmt.Errorf("writing output: %w", err))
		}
	}
	if format == formatJSON {
		if err := jw.close(); err != nil {
			return a.fail("kriguard kri explain", fmt.Errorf("writing output: %w", err))
		}
	}
	return t.exitCode()
}

func explain(reg *naming.Registry, s string) explained {
	e := explained{KRI: s, Problems: []jsonFinding{}}
	k, err := reg.Parse(s)
	if err != nil {
		errs := field.ErrorList{field.Invalid(field.NewPath(naming.Prefix), s, err.Error())}
		var pe *naming.ParseError
		if errors.As(err, &pe) {
			errs = pe.Errs
		}
		r := Result{}
		var fs []rules.Finding
		for _, fe := range errs {
			fs = append(fs, rules.Finding{Rule: rules.RuleKRI, Level: rules.LevelError, Problem: fe})
		}
		var m more
		fs, m = shown(nil, fs, nil)
		e.Problems = jsonFindings(&r, fs, m)
		return e
	}
	e.Valid = true
	e.Type, e.Mesh, e.Zone, e.Namespace, e.Name, e.Section = k.Type, k.Mesh, k.Zone, k.Namespace, k.Name, k.Section
	if rt, ok := reg.ByShortName(k.Type); ok {
		e.Kind, e.Scope = rt.Kind, rt.Scope.String()
	}
	return e
}

func writeExplained(a *app, e explained) error {
	w := a.out
	if !e.Valid {
		fmt.Fprintf(w, "%s: not a valid KRI:\n", e.KRI)
		for _, p := range e.Problems {
			fmt.Fprintf(w, "  %s: %s\n", p.Field, p.Message)
		}
		return nil
	}
	fmt.Fprintf(w, "%s\n", e.KRI)
	fmt.Fprintf(w, "  type       %s (%s, %s scope)\n", e.Type, e.Kind, e.Scope)
	for _, f := range []struct{ name, v string }{
		{"mesh", e.Mesh}, {"zone", e.Zone}, {"namespace", e.Namespace}, {"name", e.Name}, {"section", e.Section},
	} {
		v := f.v
		if v == "" {
			v = "(none)"
		}
		if _, err := fmt.Fprintf(w, "  %-10s %s\n", f.name, v); err != nil {
			return err
		}
	}
	return nil
}

func kriOfCommand() *command {
	return &command{
		name:  "of",
		use:   "kriguard kri of PATH... [flags]",
		short: "print the KRI of each Kuma object in manifests",
		long: `of reads manifests as check does and prints the KRI of each guarded Kuma object exactly as
Kuma computes it for the object as stored (after the webhook's mutation: a generateName object
has its deterministic name) and, when that KRI is not a valid one, every problem (then it exits
1). A kind the release (--kuma-version) removed has no KRI: "no KRI" and why, and exit 1. Text
output is "file:line: Kind namespace/name: KRI".`,
		example: `  kriguard kri of examples/
  kubectl get meshtimeouts -A -o yaml | kriguard kri of -`,
		flags: func(a *app, fs *pflag.FlagSet) {
			outputFlags(a, fs)
			docFlags(a, fs)
			releaseFlag(a, fs)
			kumaZoneFlag(a, fs)
		},
		run: runKRIOf,
	}
}

// removedKind reports whether v refuses its object's kind as one the release removed.
func removedKind(v rules.Decision) bool {
	for _, f := range v.Findings() {
		if f.Rule == rules.RuleRemovedKind {
			return true
		}
	}
	return false
}

// kriOf is an object's KRI as kri of -o json prints it.
type kriOf struct {
	Source     string `json:"source"`
	Line       int    `json:"line"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	// Mesh is the mesh of a Kuma Universal resource, left out for Kubernetes objects.
	Mesh string `json:"mesh,omitempty"`
	Name string `json:"name"`
	// KRI is the KRI Kuma computes for the object, valid or not; "" for a kind the release removed
	// (then Problems says so).
	KRI   string `json:"kri"`
	Valid bool   `json:"valid"`
	// Problems are those of the KRI: the object's other problems (spec, status) are check's.
	Problems []jsonFinding `json:"problems"`
}

func runKRIOf(a *app, ctx context.Context, args []string) int {
	const path = "kriguard kri of"
	if len(args) == 0 {
		return a.fail(path, usagef("no PATH given (use - for standard input)"))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail(path, err)
	}
	format, err := a.stdoutFormat()
	if err != nil {
		return a.fail(path, err)
	}
	var t, invalid tally
	jw := newJSONWriter(a.out, nil)
	err = a.judgeManifests(ctx, args, &t, func(r Result, v rules.Decision) error {
		k := kriOf{Source: r.Source, Line: r.Line, APIVersion: r.APIVersion, Kind: r.Object.Kind.Kind, Namespace: r.Object.Namespace,
			Mesh: r.Object.Mesh, Name: r.Name(), KRI: v.KRI(), Valid: v.KRIValid, Problems: []jsonFinding{}}
		switch {
		case k.KRI == "" && removedKind(v):
			// A kind the release removed has no KRI there: say so rather than print none.
			invalid.denied++
			k.Problems = slices.DeleteFunc(jsonFindings(&r, r.Errors(), r.MoreErrors), func(c jsonFinding) bool {
				return c.Rule != rules.RuleRemovedKind
			})
		case k.KRI == "":
			return nil // a Kong kind: no KRI
		case !v.KRIValid:
			invalid.denied++
			k.Problems = slices.DeleteFunc(jsonFindings(&r, r.Errors(), r.MoreErrors), func(c jsonFinding) bool {
				return strings.HasPrefix(c.Field, "spec.") || strings.HasPrefix(c.Field, "status.")
			})
		}
		if format == formatJSON {
			return jw.encode(k)
		}
		where := location(k.Source, k.Line) + ": " + r.ref() + ": "
		if k.Valid {
			_, err := fmt.Fprintln(a.out, where+k.KRI)
			return err
		}
		what := k.KRI + ": not a valid KRI"
		if k.KRI == "" {
			what = "no KRI"
		}
		for _, c := range k.Problems {
			if _, err := fmt.Fprintf(a.out, "%s%s: %s: %s\n", where, what, c.Field, c.Message); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && format == formatJSON {
		err = jw.close()
	}
	if err != nil {
		return a.fail(path, fmt.Errorf("writing output: %w", err))
	}
	// Here 1 means "an object has no valid KRI", whatever the enforcement.
	invalid.errors = t.errors
	return invalid.exitCode()
}

func kriNameCommand() *command {
	return &command{
		name:  "name",
		use:   "kriguard kri name --mesh MESH --name NAME [--zone ZONE] [--namespace NS] [flags]",
		short: "compute the hash-suffix name Kuma's KDS gives a synced resource",
		long: `name prints the name Kuma's KDS gives the copy of a resource synced to another control plane:
the name cut to 236 bytes, "-" and 16 characters of an FNV-1a 64 hash of mesh, name, zone and
namespace (zone and namespace only when given), byte for byte as Kuma computes it
(docs/kri.md). The name hashed is the full one.`,
		example: `  kriguard kri name --mesh default --name backend --zone east --namespace kuma-demo
  # backend-4dv9w4x47w8w98v4
  kriguard kri name --mesh "" --name foo`,
		flags: func(a *app, fs *pflag.FlagSet) {
			fs.StringVarP(&a.output, "output", "o", "text", `output format: "text" or "json"`)
			fs.StringVar(&a.mesh, "mesh", "", "the resource's mesh (required; may be empty for global resources)")
			fs.StringVar(&a.name, "name", "", "the resource's display name on its origin control plane, as its release stores it (required)")
			fs.StringVar(&a.zone, "zone", "", "its zone, when it has one")
			fs.StringVar(&a.nameNamespace, "namespace", "", "its namespace on its origin zone, when it has one")
		},
		run: runKRIName,
	}
}

func runKRIName(a *app, _ context.Context, args []string) int {
	const path = "kriguard kri name"
	if len(args) > 0 {
		return a.fail(path, usagef("unexpected argument %q", args[0]))
	}
	if a.name == "" {
		return a.fail(path, usagef("--name is required"))
	}
	var extra []string
	if a.zone != "" {
		extra = append(extra, a.zone)
	}
	if a.nameNamespace != "" {
		extra = append(extra, a.nameNamespace)
	}
	n := hashsuffix.Name(a.mesh, a.name, extra...)
	if a.output == "json" {
		_ = json.NewEncoder(a.out).Encode(struct {
			Mesh      string `json:"mesh"`
			Name      string `json:"name"`
			Zone      string `json:"zone"`
			Namespace string `json:"namespace"`
			Result    string `json:"result"`
		}{a.mesh, a.name, a.zone, a.nameNamespace, n})
		return ExitOK
	}
	fmt.Fprintln(a.out, n)
	return ExitOK
}
