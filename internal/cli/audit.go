package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kriguard/kriguard/internal/jsonpage"
	"github.com/kriguard/kriguard/internal/kumarelease"
	"github.com/kriguard/kriguard/internal/served"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

func auditCommand() *command {
	return &command{
		name:  "audit",
		use:   "kriguard audit [flags]",
		short: "judge the Kuma and Kong objects already in a cluster",
		long: `audit finds every guarded kind the cluster serves (discovery), lists its objects in pages of
--chunk-size, and judges each as check does: as the webhook would judge its creation now. Objects
created before kriguard was installed, or while it only warned, show up here. Results are printed
as they come, with no cap on their number. On a terminal, standard error shows the progress
(kinds done, objects checked, objects per second).

With kuma.version auto (the default) and no --kuma-version, the Kuma release is detected as the
webhook detects it: from the control plane's Deployment (kuma.controlPlane, default
kuma-system/kuma-control-plane), cross-checked with the served kinds; when it cannot be, objects are
judged against the default release with a warning (docs/releases.md).

It needs only to read: list on the guarded kinds (the chart's audit ClusterRole, off by default,
grants exactly that; docs/cli.md), and get on the control plane's Deployment for the detection.

--report=cluster also writes an OpenReports Report (ClusterReport for a cluster-scoped object) for
each object with findings, owned by it, and deletes kriguard's reports of objects that no longer
have any; it writes only what changed. --report=yaml prints those reports on standard output
instead of the results, which go only to the outputs given a file (-o junit=FILE; docs/reports.md). --report=cluster needs to list, create, update and delete reports too.

With --kuma-api it reads a Kuma control plane's REST API instead (Universal, or any control plane
whose API it can reach): its version from the index (the release judged against, unless
--kuma-version says otherwise), the types it serves from /_resources, then every resource of each
guarded type, page by page, each judged as check judges kumactl YAML. A user token comes from
--kuma-token-file or $KUMA_API_TOKEN; --kuma-ca-file, --kuma-client-cert and --kuma-client-key set
up TLS; a control plane that needs others gives them after its URL
(URL,token-file=F,ca-file=F,client-cert=F,client-key=F). An unreachable or refusing control plane, or a listing that fails part way, is exit 2 with
the URL and the status (docs/universal.md).

Several --context (or --kubeconfig) audit several clusters in one run, each a zone named after its
context: besides each object's findings, the names that must stay unique across them (KDS copy
names, Kong SNIs; docs/unique.md) are compared, and each clash is reported naming both objects.`,
		example: `  kriguard audit -A
  kriguard audit -n kuma-demo -o json
  kriguard audit --kubeconfig ~/.kube/prod --context prod -A --config kriguard.yaml
  kriguard audit -A --context zone-1 --context zone-2
  kriguard audit -A --report=cluster
  kriguard audit -n kuma-demo --report=yaml > reports.yaml
  kriguard audit --kuma-api http://127.0.0.1:5681
  KUMA_API_TOKEN=$(cat token) kriguard audit --kuma-api https://cp.example:5682 --kuma-ca-file ca.pem --kuma-version 3.0
  kriguard audit --kuma-api https://global:5682,token-file=global.token,ca-file=global.pem --kuma-api https://zone-1:5682,token-file=zone-1.token,ca-file=zone-1.pem`,
		flags: func(a *app, fs *pflag.FlagSet) {
			outputFlags(a, fs)
			releaseFlag(a, fs)
			fs.StringArrayVar(&a.kubeconfigs, "kubeconfig", nil, "path of the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config); repeated, one cluster each")
			fs.StringArrayVar(&a.kubeContexts, "context", nil, "kubeconfig context to use (default: the current one); repeated, one cluster each, audited as zones of one deployment")
			fs.StringVarP(&a.namespace, "namespace", "n", "", "audit this namespace only (default: the context's); cluster-scoped kinds are skipped")
			fs.BoolVarP(&a.allNamespaces, "all-namespaces", "A", false, "audit every namespace and the cluster-scoped kinds")
			fs.Int64Var(&a.chunkSize, "chunk-size", 500, "objects per LIST page (with --kuma-api, resources per page, at most 1000)")
			reportFlags(a, fs)
			kumaAPIFlagSet(a, fs)
		},
		run: runAudit,
	}
}

func runAudit(a *app, ctx context.Context, args []string) int {
	const path = "kriguard audit"
	if len(args) > 0 {
		return a.fail(path, usagef("unexpected argument %q", args[0]))
	}
	if os.Getenv("GOGC") == "" {
		// An audit's live heap is small and steady, two pages: collected at three times its size
		// rather than twice, the collector costs a seventh fewer instructions of the whole run for
		// a few MiB (docs/performance.md).
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	if len(a.kumaAPI.urls) > 0 {
		return runKumaAudit(a, ctx)
	}
	if a.allNamespaces && a.namespace != "" {
		return a.fail(path, usagef("--namespace and --all-namespaces exclude each other"))
	}
	if a.chunkSize <= 0 {
		return a.fail(path, usagef("--chunk-size must be positive"))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail(path, err)
	}
	var w resultWriter = discard{}
	if a.report == reportYAML {
		// The reports take standard output; results go only to the outputs given a file.
		if slices.Equal(a.outputs, []string{formatText}) {
			a.outputs = nil // the default
		}
		for _, o := range a.outputs {
			if f, file, _ := strings.Cut(o, "="); file == "" || file == "-" {
				return a.fail(path, usagef("--report=yaml prints the reports on standard output: give -o %s a file (-o %s=FILE)", f, f))
			}
		}
	}
	if len(a.outputs) > 0 {
		var err error
		if w, err = a.resultWriters(objectResults, "kriguard audit", formatText, formatJSON, formatJUnit); err != nil {
			return a.fail(path, err)
		}
	}
	zones, err := a.auditZones()
	if err != nil {
		return a.fail(path, err)
	}
	if len(zones) > 1 && a.report != reportNone {
		return a.fail(path, usagef("--report audits one cluster: give one --context"))
	}
	var p *progressLine
	if a.streams.ErrIsTerminal {
		p = &progressLine{w: a.errOut, start: time.Now()}
	}
	var t tally
	across := newAcrossObjects(a.cfg, a)
	for _, z := range zones {
		ns := z.namespace
		if a.allNamespaces {
			ns = ""
		}
		au := &auditor{rest: z.rest, rules: a.cfg, release: a.release, namespace: ns, chunk: a.chunkSize}
		client, disc, err := au.connect()
		if err != nil {
			return a.fail(path, err)
		}
		if au.release == (naming.Release{}) && a.cfg.Auto() {
			// Each cluster runs its own control plane, of its own release.
			au.release = a.detectRelease(ctx, client, disc, z.prefix)
		}
		zone := z.name
		au.listedItem = func(gk schema.GroupKind, item []byte, d *rules.Decision) {
			across.add(zone, gk, item, d, placed{source: SourceCluster}, nil)
		}
		au.note = func(err error) {
			if p != nil {
				p.clear()
			}
			_ = a.out.Flush()
			fmt.Fprintf(a.errOut, "%s: note: %s%v\n", path, z.prefix, err)
		}
		rep, err := a.newReporter(ctx, au)
		if err != nil {
			return a.fail(path, err)
		}
		if p != nil {
			au.progress = p.update
		}
		err = au.run(ctx, &t, func(r Result) error { return w.write(r) }, func(err error) {
			t.errors++
			if p != nil {
				p.clear()
			}
			_ = a.out.Flush()
			fmt.Fprintf(a.errOut, "%s: %s%v\n", path, z.prefix, err)
		}, func() error {
			if p != nil && a.out.Buffered() > 0 {
				p.clear() // results and progress may share a terminal: results first, the line after them
			}
			return a.out.Flush()
		})
		if err == nil && rep != nil {
			err = rep.finish(ctx, &t)
		}
		if err != nil {
			return a.fail(path, fmt.Errorf("%s%w", z.prefix, err))
		}
	}
	if p != nil {
		p.done(t)
	}
	// The clashes between objects, once every cluster is listed.
	for _, r := range across.results(&t) {
		if err = w.write(r); err != nil {
			break
		}
	}
	if err == nil {
		err = w.close()
	}
	if err != nil {
		return a.fail(path, err)
	}
	return t.exitCode()
}

// detectRelease finds the Kuma release of a cluster's control plane as the webhook does with
// kuma.version auto (internal/kumarelease). An unknown one gives the default release, with a
// warning on standard error; so does a served kind that disagrees.
func (a *app) detectRelease(ctx context.Context, client rest.Interface, dc *apiDiscovery, prefix string) naming.Release {
	ns, name := a.cfg.ControlPlaneDeployment()
	// Detect asks the served Kuma kinds without a context: the groups' question, which answers
	// them, is asked with ctx first (its error is the audit's to report, when it lists).
	_, _ = dc.ServerGroupsWithContext(ctx)
	d := kumarelease.Detect(ctx, kumarelease.FromClient(client), dc, kumarelease.Options{Namespace: ns, Deployment: name})
	if !d.Known {
		fmt.Fprintf(a.errOut, "kriguard audit: %swarning: the Kuma release is unknown (%s): judging against %s, the most permissive; --kuma-version chooses one\n", prefix, d.Problem, d.Release)
	}
	if d.CrossCheck != "" {
		fmt.Fprintf(a.errOut, "kriguard audit: %swarning: Kuma %s: %s\n", prefix, d.Release, d.CrossCheck)
	}
	return d.Release
}

// auditZone is one cluster audit reads: a zone of a deployment when there are several.
type auditZone struct {
	// name is the zone's: its context's, "" for a single cluster.
	name, prefix string
	rest         *rest.Config
	namespace    string
}

// auditZones returns the clusters of the --kubeconfig and --context flags: one per context of one
// kubeconfig, one per kubeconfig with one context, or pairs when both are repeated alike.
func (a *app) auditZones() ([]auditZone, error) {
	configs, contexts := a.kubeconfigs, a.kubeContexts
	n := max(len(configs), len(contexts), 1)
	if len(configs) > 1 && len(contexts) > 1 && len(configs) != len(contexts) {
		return nil, usagef("%d --kubeconfig and %d --context: give one of either, or as many of each", len(configs), len(contexts))
	}
	var out []auditZone
	names := map[string]bool{}
	for i := range n {
		config, context := pick(configs, i), pick(contexts, i)
		cfg, ns, name, err := a.restConfigFor(config, context)
		if err != nil {
			return nil, err
		}
		z := auditZone{rest: cfg, namespace: ns}
		if n > 1 {
			if names[name] {
				return nil, usagef("two clusters of one context name %q: each is a zone named after its context", name)
			}
			names[name] = true
			z.name, z.prefix = name, "zone "+name+": "
		}
		out = append(out, z)
	}
	return out, nil
}

// pick returns s[i], the only element of s, or "".
func pick(s []string, i int) string {
	switch {
	case len(s) == 1:
		return s[0]
	case i < len(s):
		return s[i]
	}
	return ""
}

// restConfigFor loads kubeconfig (its default when "") as kubectl does and returns the client
// configuration of context (the current one when ""), its namespace and the context's name.
func (a *app) restConfigFor(kubeconfig, context string) (*rest.Config, string, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", "", fmt.Errorf("loading the kubeconfig: %w", err)
	}
	name := context
	if name == "" {
		raw, err := cc.RawConfig()
		if err != nil {
			return nil, "", "", fmt.Errorf("loading the kubeconfig: %w", err)
		}
		name = raw.CurrentContext
	}
	ns := a.namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, "", "", fmt.Errorf("loading the kubeconfig: %w", err)
		}
	}
	return cfg, ns, name, nil
}

// auditKind is a guarded kind the cluster serves.
type auditKind = served.Kind

// auditor lists and judges the guarded objects of a cluster.
type auditor struct {
	rest      *rest.Config
	rules     *rules.Config
	release   naming.Release // the Kuma release objects are judged against
	namespace string         // "" for every namespace and the cluster-scoped kinds
	chunk     int64
	progress  func(kindsDone, kinds, objects int)
	// decided, when set, gets each decided object, as listed, with its decision.
	decided func(k auditKind, item []byte, d *rules.Decision)
	// listedItem, when set, gets each object listed, once judged, with its decision (nil when it
	// could not be decided), and the objects of the peerKinds, which are not judged, without one.
	listedItem func(gk schema.GroupKind, item []byte, d *rules.Decision)
	// note, when set, is told why the peerKinds could not be listed.
	note func(error)
	// listed, when set, is told of each kind whether its objects were all listed and judged.
	listed func(k auditKind, all bool)
	// client is the REST client of every request of the audit, one connection; disc answers
	// its discovery questions over it. Both nil until connect.
	client rest.Interface
	disc   *apiDiscovery
}

// connect returns au.client and au.disc, built from au.rest (with audit's rate limit) when nil.
func (au *auditor) connect() (rest.Interface, *apiDiscovery, error) {
	if au.client == nil {
		client, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(clientConfig(au.rest)))
		if err != nil {
			return nil, nil, fmt.Errorf("building the API client: %w", err)
		}
		au.client, au.disc = client, newAPIDiscovery(client)
	}
	return au.client, au.disc, nil
}

// run audits the cluster: emit gets each result, fail each error that ends one kind's listing
// (the others go on), flush is called after each page. It returns an error only when nothing can
// be listed, or emit or flush fail.
func (au *auditor) run(ctx context.Context, t *tally, emit func(Result) error, fail func(error), flush func() error) error {
	client, _, err := au.connect()
	if err != nil {
		return err
	}
	kinds, err := au.discover(ctx)
	if err != nil {
		return err
	}
	for i, k := range kinds {
		if au.progress != nil {
			au.progress(i, len(kinds), t.objects)
		}
		all := true
		gk := schema.GroupKind{Group: k.GVR.Group, Kind: k.Kind}
		apiVersion := k.APIVersion()
		err := au.listKind(ctx, client, k, func(item []byte) error {
			v, err := au.rules.Decide(ctx, rules.Request{Phase: rules.Admit, Kind: gk, Object: item, Release: au.release})
			if au.listedItem != nil {
				if err != nil {
					au.listedItem(gk, item, nil)
				} else {
					au.listedItem(gk, item, &v)
				}
			}
			if err != nil {
				all = false
				t.errors++
				fail(fmt.Errorf("%s: %w", k.Kind, err))
				return nil
			}
			t.objects++
			if !v.Allowed {
				t.denied++
			}
			if au.decided != nil {
				au.decided(k, item, &v)
			}
			return emit(newResult(SourceCluster, 0, apiVersion, v, nil))
		}, func() error {
			if err := flush(); err != nil {
				return err
			}
			if au.progress != nil {
				au.progress(i, len(kinds), t.objects)
			}
			return nil
		})
		var we writeError
		switch {
		case errors.As(err, &we):
			return we.err
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			all = false
			fail(err)
		}
		if au.listed != nil {
			au.listed(k, all)
		}
	}
	if au.listedItem != nil {
		if err := au.listPeers(ctx); err != nil {
			var we writeError
			if errors.As(err, &we) || ctx.Err() != nil {
				return err
			}
			if au.note != nil {
				au.note(err)
			}
		}
	}
	if au.progress != nil {
		au.progress(len(kinds), len(kinds), t.objects)
	}
	return nil
}

// peerKinds are the Gateway API kinds the rules across objects read and no rule judges: Kong's
// operator names KongCertificates after Gateways, Kuma names MeshHTTPRoutes after HTTPRoutes
// (docs/unique.md).
var peerKinds = []string{"GatewayClass", "Gateway", "HTTPRoute"}

// listPeers lists the peerKinds the cluster serves, in its preferred version of their group, and
// hands each object to listedItem. Its error (none served, forbidden) only means they are not
// compared.
func (au *auditor) listPeers(ctx context.Context) error {
	client, dc, err := au.connect()
	if err != nil {
		return err
	}
	groups, err := dc.ServerGroupsWithContext(ctx)
	if err != nil {
		return fmt.Errorf("not comparing the Gateway API objects: discovering the API groups: %w", err)
	}
	for _, g := range groups.Groups {
		if g.Name != rules.GatewayGroup {
			continue
		}
		gv := schema.GroupVersion{Group: g.Name, Version: g.PreferredVersion.Version}
		rl, err := dc.ServerResourcesForGroupVersionWithContext(ctx, gv.String())
		if err != nil {
			return fmt.Errorf("not comparing the Gateway API objects: discovering %s: %w", gv, err)
		}
		for _, kind := range peerKinds {
			for _, r := range rl.APIResources {
				if r.Kind != kind || strings.Contains(r.Name, "/") || (!r.Namespaced && au.namespace != "") {
					continue
				}
				k := auditKind{GVR: gv.WithResource(r.Name), Kind: r.Kind, Namespaced: r.Namespaced}
				gk := k.GroupKind()
				if err := au.listKind(ctx, client, k, func(item []byte) error {
					au.listedItem(gk, item, nil)
					return nil
				}, func() error { return nil }); err != nil {
					return fmt.Errorf("not comparing the Gateway API objects: %w", err)
				}
			}
		}
	}
	return nil
}

// clientConfig is c with audit's rate limit: client-go's default of 5 requests/s would make the
// client, not the API server, the limit.
func clientConfig(c *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(c)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	return cfg
}

// writeError wraps an error of the output, which ends the audit or the envoy command.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// discover returns the kinds the cluster serves with the list verb that the rules judge under
// au.release: the guarded ones, then the Kuma kinds the release removed (served.KindsFor).
func (au *auditor) discover(ctx context.Context) ([]auditKind, error) {
	_, dc, err := au.connect()
	if err != nil {
		return nil, err
	}
	return served.KindsFor(ctx, dc, au.rules, au.release, au.namespace != "", "list")
}

// page is one LIST response.
type page struct {
	items [][]byte
	err   error
}

// listKind lists k in pages and calls judge with each object, then flush after each page. The
// next page is fetched while one is judged; at most two pages are held at once.
func (au *auditor) listKind(ctx context.Context, client rest.Interface, k auditKind, judge func([]byte) error, flush func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan page, 1)
	go func() {
		defer close(pages)
		token := ""
		for {
			items, next, err := au.listPage(ctx, client, k, token)
			select {
			case pages <- page{items: items, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil || next == "" {
				return
			}
			token = next
		}
	}()
	for p := range pages {
		if p.err != nil {
			return p.err
		}
		for _, item := range p.items {
			if err := judge(item); err != nil {
				return writeError{err}
			}
		}
		if err := flush(); err != nil {
			return writeError{err}
		}
	}
	return nil
}

// listPage fetches one page of k.
func (au *auditor) listPage(ctx context.Context, client rest.Interface, k auditKind, token string) ([][]byte, string, error) {
	segs := []string{"/apis", k.GVR.Group, k.GVR.Version}
	if k.GVR.Group == "" {
		segs = []string{"/api", k.GVR.Version}
	}
	if k.Namespaced && au.namespace != "" {
		segs = append(segs, "namespaces", au.namespace)
	}
	segs = append(segs, k.GVR.Resource)
	req := client.Get().AbsPath(segs...).Param("limit", strconv.FormatInt(au.chunk, 10))
	if token != "" {
		req = req.Param("continue", token)
	}
	res := req.Do(ctx)
	// Error, unlike Raw, reads the API server's Status: "… is forbidden: User …", not "unknown".
	err := res.Error()
	raw, _ := res.Raw()
	if err != nil {
		return nil, "", fmt.Errorf("listing %s%s: %w", k.GVR.GroupResource().String(), au.where(k), err)
	}
	// The items stay the page's bytes: each is decoded once, by the rules.
	var meta struct {
		Continue string `json:"continue"`
	}
	items, err := jsonpage.Split(nil, raw, "items", func(key string, value []byte) error {
		if jsonpage.Is(key, "metadata") {
			return jsonpage.Member(key, value, &meta)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("listing %s%s: decoding the page: %w", k.GVR.GroupResource().String(), au.where(k), err)
	}
	return items, meta.Continue, nil
}

func (au *auditor) where(k auditKind) string {
	if k.Namespaced && au.namespace != "" {
		return " in namespace " + au.namespace
	}
	return ""
}

// progressLine keeps one line of progress on a terminal.
type progressLine struct {
	w     interface{ Write([]byte) (int, error) }
	start time.Time
	last  time.Time
	shown bool
}

func (p *progressLine) update(kindsDone, kinds, objects int) {
	now := time.Now()
	if p.shown && now.Sub(p.last) < 200*time.Millisecond && kindsDone < kinds {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.w, "\r\x1b[Kaudit: %d/%d kinds, %d objects, %.0f objects/s", kindsDone, kinds, objects, rate(objects, now.Sub(p.start)))
}

func (p *progressLine) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func (p *progressLine) done(t tally) {
	p.clear()
	fmt.Fprintf(p.w, "audit: %d objects checked in %s (%.0f objects/s), %d denied, %d errors\n",
		t.objects, time.Since(p.start).Round(time.Millisecond), rate(t.objects, time.Since(p.start)), t.denied, t.errors)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
