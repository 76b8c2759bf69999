package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/kumaapi"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// kumaZoneFlag is check's and kri of's --kuma-zone.
func kumaZoneFlag(a *app, fs *pflag.FlagSet) {
	fs.StringVar(&a.kumaZone, "kuma-zone", "", "judge kumactl YAML as created on the zone control plane of this name: the KRI is the one it stores, with the zone (default: as written, as a global control plane stores it)")
}

// kumaAPIFlags are audit's flags for a Kuma control plane's REST API.
type kumaAPIFlags struct {
	// urls are the control planes audited in one run: global's and zones', whose resources are
	// compared with one another (docs/unique.md).
	urls                                 []string
	tokenFile, caFile, certFile, keyFile string
}

func kumaAPIFlagSet(a *app, fs *pflag.FlagSet) {
	fs.StringArrayVar(&a.kumaAPI.urls, "kuma-api", nil, "audit the resources of this Kuma control plane's REST API (http://127.0.0.1:5681, https://cp:5682) instead of a Kubernetes cluster; repeated, several control planes (global and zones) whose KDS copy names are compared; URL,token-file=F,ca-file=F,client-cert=F,client-key=F gives one control plane its own token, CA or client certificate instead of the flags'")
	fs.StringVar(&a.kumaAPI.tokenFile, "kuma-token-file", "", "file holding a Kuma user token, sent as a Bearer token (default: $KUMA_API_TOKEN; none needed on the control plane's own loopback)")
	fs.StringVar(&a.kumaAPI.caFile, "kuma-ca-file", "", "PEM file of the CAs that sign the control plane's certificate (default: the system's)")
	fs.StringVar(&a.kumaAPI.certFile, "kuma-client-cert", "", "client certificate (PEM) for the control plane's TLS")
	fs.StringVar(&a.kumaAPI.keyFile, "kuma-client-key", "", "the client certificate's key (PEM)")
}

// runKumaAudit is audit --kuma-api: every resource each control plane holds, of every type it
// serves that is judged under the release (its index's version unless --kuma-version says
// otherwise), judged as its release's REST API judges its creation (docs/universal.md); then the
// KDS copy names of the resources of all of them are compared (docs/unique.md).
func runKumaAudit(a *app, ctx context.Context) int {
	const path = "kriguard audit"
	if a.namespace != "" || a.allNamespaces || len(a.kubeconfigs) > 0 || len(a.kubeContexts) > 0 || a.report != reportNone {
		return a.fail(path, usagef("--kuma-api reads a control plane, not a cluster: drop --namespace, --all-namespaces, --kubeconfig, --context and --report"))
	}
	if a.chunkSize <= 0 || a.chunkSize > kumaapi.MaxPageSize {
		return a.fail(path, usagef("--chunk-size must be 1 to %d with --kuma-api (the control plane's largest page)", kumaapi.MaxPageSize))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail(path, err)
	}
	token, err := a.kumaToken()
	if err != nil {
		return a.fail(path, err)
	}
	// Every control plane's options are read, and its files loaded, before any request.
	clients := make([]*kumaapi.Client, 0, len(a.kumaAPI.urls))
	for _, v := range a.kumaAPI.urls {
		t, err := parseKumaAPI(v)
		if err != nil {
			return a.fail(path, usagef("%v", err))
		}
		c, err := a.kumaClient(t, token)
		if err != nil {
			return a.fail(path, err)
		}
		clients = append(clients, c)
	}
	var p *progressLine
	if a.streams.ErrIsTerminal {
		p = &progressLine{w: a.errOut, start: time.Now()}
	}
	w, err := a.resultWriters(objectResults, path, formatText, formatJSON, formatJUnit)
	if err != nil {
		return a.fail(path, err)
	}
	var t tally
	// A zone's resources carry their zone in the kuma.io/zone label; global's copies of them too.
	across := newAcrossObjects(a.cfg, a)
	for _, c := range clients {
		if err = a.auditKumaAPI(ctx, c, w, p, &t, across); err != nil {
			break
		}
	}
	if p != nil {
		p.done(t)
	}
	if err == nil {
		// The clashes between resources, once every control plane is listed.
		for _, r := range across.results(&t) {
			if err = w.write(r); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = w.close()
	} else if ctx.Err() == nil {
		// A listing that failed part way: what was judged is printed, and the run fails, so that
		// no one reads it as the whole control plane.
		_ = w.close()
		err = fmt.Errorf("%w; the audit is incomplete: %d resources judged before it stopped", err, t.objects)
	}
	if err != nil {
		return a.fail(path, err)
	}
	return t.exitCode()
}

// auditKumaAPI judges every resource of the control plane of c, writes each result to w, and
// hands each resource to across.
func (a *app) auditKumaAPI(ctx context.Context, c *kumaapi.Client, w resultWriter, p *progressLine, t *tally, across *acrossObjects) error {
	ix, err := c.Index(ctx)
	if err != nil {
		return err
	}
	rel := a.release
	if a.kumaVersion == "" {
		if rel, err = releaseOfVersion(ix.KumaVersion()); err != nil {
			return fmt.Errorf("%s: %w", c.URL(), err)
		}
	}
	based := ""
	if ix.BasedOnKuma != "" {
		based = " (based on Kuma " + ix.BasedOnKuma + ")"
	}
	if p != nil {
		p.clear()
	}
	fmt.Fprintf(a.errOut, "audit: %s is %s %s%s; judged as Kuma %s\n", c.URL(), ix.Product, ix.Version, based, rel)
	types, err := c.Types(ctx)
	if err != nil {
		return err
	}
	var judged []kumaapi.ResourceType
	for _, t := range types {
		if a.cfg.Judges(schema.GroupKind{Group: rules.KumaGroup, Kind: t.Name}, rel) {
			judged = append(judged, t)
		}
	}
	source := c.URL()
	for i, typ := range judged {
		gk := schema.GroupKind{Group: rules.KumaGroup, Kind: typ.Name}
		// Each page's results are written at once, then the progress, as audit does for a cluster.
		_, err = c.ListPages(ctx, typ, func(items [][]byte) error {
			for _, raw := range items {
				d, err := a.cfg.Decide(ctx, rules.Request{Phase: rules.Admit, Kind: gk, Object: raw, Release: rel, Universal: true})
				if err != nil {
					across.addUniversal("", gk, raw, nil, placed{source: source}, nil)
				} else {
					across.addUniversal("", gk, raw, &d, placed{source: source}, nil)
				}
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					t.errors++
					a.kumaError(p, fmt.Errorf("%s %s: %w", source, typ.Name, err))
					continue
				}
				t.objects++
				if !d.Allowed {
					t.denied++
				}
				if err := w.write(newResult(source, 0, "", d, nil)); err != nil {
					return fmt.Errorf("writing output: %w", err)
				}
			}
			if p != nil && a.out.Buffered() > 0 {
				p.clear() // results and progress may share a terminal: results first, the line after them
			}
			if err := a.out.Flush(); err != nil {
				return err
			}
			if p != nil {
				p.update(i, len(judged), t.objects)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *app) kumaError(p *progressLine, err error) {
	if p != nil {
		p.clear()
	}
	_ = a.out.Flush()
	fmt.Fprintf(a.errOut, "kriguard audit: %v\n", err)
}

// kumaToken reads the user token: --kuma-token-file, else $KUMA_API_TOKEN, else none.
func (a *app) kumaToken() (string, error) {
	if f := a.kumaAPI.tokenFile; f != "" {
		tok, err := readToken(f)
		if err != nil {
			return "", usagef("--kuma-token-file: %v", err)
		}
		return tok, nil
	}
	return strings.TrimSpace(os.Getenv("KUMA_API_TOKEN")), nil
}

// releaseOfVersion returns the release a control plane of version v runs: its minor version
// ("2.14.3" is 2.14), or for a development build ("0.0.0-348b6528b") the release whose facts were
// read from that very commit.
func releaseOfVersion(v string) (naming.Release, error) {
	if rel, err := naming.ParseRelease(v); err == nil {
		return rel, nil
	}
	if commit, ok := strings.CutPrefix(v, "0.0.0-"); ok && len(commit) >= 7 {
		for _, r := range naming.Releases() {
			_, at, ok := strings.Cut(r.Upstream(), "-")
			if ok && len(at) >= 7 && (strings.HasPrefix(commit, at) || strings.HasPrefix(at, commit)) {
				return r, nil
			}
		}
	}
	return naming.Release{}, fmt.Errorf("version %q names no Kuma release kriguard knows (%q): say which to judge against with --kuma-version", v, releaseNames())
}
