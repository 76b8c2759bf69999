package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/manifest"
)

func checkCommand() *command {
	return &command{
		name:  "check",
		use:   "kriguard check PATH... [flags]",
		short: "judge Kubernetes manifests as the webhook judges their creation",
		long: `check reads Kubernetes manifests — files, folders (recursively, their .yaml, .yml and .json files)
and "-" for standard input; multi-document YAML, JSON, Lists; what "helm template" or "kustomize
build" print — and judges every guarded Kuma and Kong object as the admission webhook judges its
CREATE by a user no requester override names: the mutating webhook's patch first (a generateName
object is judged under the name it gets), then every validating rule, with the configuration
file the webhook uses (--config). Other objects are skipped. A document that cannot be read is
an error with its file and line; the others are still judged. Files in folders that are not
manifests (no apiVersion or kind: Helm values, tool configurations) are skipped with one note;
--strict makes them errors.

Kuma Universal resources, as kumactl applies them (type, mesh, name, labels, spec; no apiVersion
or kind), are judged beside them as that release's REST API judges their creation, with the same
rules (docs/universal.md).

Text output is one line per problem, "file:line: Kind namespace/name: field: message"; JSON is one
array with an element per guarded object (docs/cli.md).`,
		example: `  kriguard check examples/
  kriguard check -o json deploy/ extra.yaml
  kriguard check --strict deploy/
  kriguard check <(helm template charts/app)
  helm template charts/app | kriguard check --config kriguard.yaml -
  kustomize build overlays/prod | kriguard check -`,
		flags: func(a *app, fs *pflag.FlagSet) {
			outputFlags(a, fs)
			docFlags(a, fs)
			releaseFlag(a, fs)
			kumaZoneFlag(a, fs)
			zonePathsFlag(a, fs)
		},
		run: runCheck,
	}
}

func docFlags(a *app, fs *pflag.FlagSet) {
	fs.IntVar(&a.maxDocBytes, "max-document-bytes", manifest.DefaultMaxDocumentBytes, "largest document read; a larger one is an error")
	fs.BoolVar(&a.strictFiles, "strict", false, "a file in a folder that is not a Kubernetes manifest (no apiVersion or kind: Helm values, tool configurations) is an error, not skipped")
}

func runCheck(a *app, ctx context.Context, args []string) int {
	if len(args) == 0 {
		return a.fail("kriguard check", usagef("no PATH given (use - for standard input)"))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail("kriguard check", err)
	}
	zones, err := parseZonePaths(a.zonePaths)
	if err != nil {
		return a.fail("kriguard check", err)
	}
	a.zones = zones
	w, err := a.resultWriters(objectResults, "kriguard check", formatText, formatJSON, formatSARIF, formatJUnit, formatGitHub)
	if err != nil {
		return a.fail("kriguard check", err)
	}
	var t tally
	err = a.judgeManifests(ctx, args, &t, func(r Result, _ rules.Decision) error { return w.write(r) })
	if err == nil {
		err = w.close()
	}
	if err != nil {
		return a.fail("kriguard check", fmt.Errorf("writing output: %w", err))
	}
	return t.exitCode()
}

// judgeManifests judges every guarded object of paths and hands each result to emit, then a
// result per clash between objects (docs/unique.md); documents that cannot be read or judged are
// reported on standard error and counted. It returns emit's
// error, or the context's.
func (a *app) judgeManifests(ctx context.Context, paths []string, t *tally, emit func(Result, rules.Decision) error) error {
	o := manifest.Options{MaxDocumentBytes: a.maxDocBytes, Stdin: a.streams.In}
	skipped := map[string]bool{} // files found in folders that are not manifests
	across := newAcrossObjects(a.cfg, a)
	err := manifest.Walk(paths, o, func(d manifest.Document) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Err != nil {
			if d.InFolder && !a.strictFiles && errors.Is(d.Err, manifest.ErrNotObject) {
				skipped[d.Source] = true
				return nil
			}
			t.errors++
			a.reportInput(location(d.Source, d.Line), d.Err)
			return nil
		}
		gk := d.GroupVersionKind().GroupKind()
		if d.Universal {
			if !kumaType(d.Kind) {
				// type and name, but no Kuma type: a Helm values file or another configuration.
				if d.InFolder && !a.strictFiles {
					skipped[d.Source] = true
					return nil
				}
				t.errors++
				a.reportInput(location(d.Source, d.Line), fmt.Errorf("%w: type %q is no Kuma resource type", manifest.ErrNotObject, d.Kind))
				return nil
			}
			gk = schema.GroupKind{Group: rules.KumaGroup, Kind: d.Kind}
		}
		at := placed{source: d.Source, apiVersion: d.APIVersion, line: d.Line}
		// A Universal resource is created on the zone control plane --zone or --kuma-zone names,
		// else on global; a Kubernetes object without a kuma.io/zone label is of --zone's zone,
		// else of global (docs/unique.md).
		zone := zoneOf(a.zones, d.Source, a.kumaZone)
		compare := func(v *rules.Decision) {
			if d.Universal {
				across.addUniversal(zone, gk, d.Object, v, at, d.Position)
			} else {
				across.add(zoneOf(a.zones, d.Source, ""), gk, d.Object, v, at, d.Position)
			}
		}
		if !a.cfg.Judges(gk, a.release) {
			compare(nil)
			return nil
		}
		v, err := a.cfg.Decide(ctx, rules.Request{Phase: rules.Admit, Kind: gk, Object: d.Object, Release: a.release, Universal: d.Universal, Zone: zone})
		if err != nil {
			compare(nil)
		} else {
			compare(&v)
		}
		if err != nil {
			t.errors++
			a.reportInput(location(d.Source, d.Line)+": "+d.Kind, err)
			return nil
		}
		t.objects++
		if !v.Allowed {
			t.denied++
		}
		if err := emit(newResult(d.Source, d.Line, d.APIVersion, v, d.Position), v); err != nil {
			return err
		}
		// Printed as decided: the next document may be long in coming down a pipe.
		return a.out.Flush()
	})
	if err == nil {
		// The clashes between objects, once all are read.
		for _, r := range across.results(t) {
			if err = emit(r, rules.Decision{}); err != nil {
				break
			}
		}
	}
	if n := len(skipped); n > 0 && err == nil {
		files := "files"
		if n == 1 {
			files = "file"
		}
		fmt.Fprintf(a.errOut, "kriguard: note: skipped %d %s found in folders that are not Kubernetes manifests (no apiVersion or kind, such as Helm values); --strict makes them errors\n", n, files)
	}
	return err
}

// reportInput prints an input error on standard error (after what is already on standard output:
// a.errOut flushes it first, so that the two read in order on a terminal).
func (a *app) reportInput(where string, err error) {
	fmt.Fprintf(a.errOut, "%s: error: %v\n", where, err)
}

// kumaType reports whether t is a type of Kuma resource some release knows: one with a KRI, or one
// a release removed.
func kumaType(t string) bool {
	for _, r := range naming.Releases() {
		if _, ok := r.Registry().ByKind(t); ok {
			return true
		}
		if _, ok := r.Removed(t); ok {
			return true
		}
	}
	return false
}
