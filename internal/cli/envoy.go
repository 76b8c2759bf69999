package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/envoydump"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

func envoyCommand() *command {
	return &command{
		name:  "envoy",
		use:   "kriguard envoy FILE|URL|- [flags]",
		short: "check the resource names in an Envoy config dump",
		long: `envoy reads an Envoy admin config dump — a file, "-" for standard input, or the admin URL
(http://127.0.0.1:9901/config_dump, with or without ?include_eds) — and checks every resource
name and name reference in it: listeners, filter chains, clusters and their alt_stat_name, route
configurations, virtual hosts, routes, secrets, cluster load assignments, stat_prefix, and the
references to clusters, route configurations and secrets. A name must not contain ':'; a name
that starts with "kri_" must be a valid KRI; "_…" names are internal; other names are legacy,
reported only with --strict. This is the rule krilint applies to Go code, from the same code.
Names Envoy puts into its stats (cluster names without an alt_stat_name, alt_stat_name,
virtual-host names, the stat_prefix of listeners, HTTP connection managers and TCP proxies) get
a warning, stat-unsafe, when they hold characters outside [a-zA-Z0-9_-]; warnings deny nothing.
An alt_stat_name that is its cluster's name sanitized, as Kuma writes it, is held to no rule.

Text output is one line per problem, "source: JSON path: what "name" problem [rule]" ("[rule,
warning]" for a warning), then a summary line per rule that found something; JSON is one array
with an element per name, each problem with its rule and level. Embedded configurations of types kriguard does not read are
skipped with a note on standard error.`,
		example: `  kriguard envoy http://127.0.0.1:9901/config_dump?include_eds
  kubectl exec deploy/backend -c kuma-sidecar -- wget -qO- localhost:9901/config_dump | kriguard envoy -
  kriguard envoy --strict -o json dump.json`,
		flags: func(a *app, fs *pflag.FlagSet) {
			outputFlags(a, fs)
			fs.BoolVar(&a.strict, "strict", false, "also report legacy names (neither KRI, internal, nor under an accepted prefix)")
			fs.StringSliceVar(&a.prefixes, "prefix", naming.DefaultEnvoyPrefixes(), "accepted name prefixes besides kri_ and _ (repeat, or separate with commas)")
			fs.DurationVar(&a.timeout, "timeout", 30*time.Second, "time limit of a request to an admin URL")
			fs.IntVar(&a.maxBytes, "max-bytes", defaultMaxDumpBytes, "largest config dump read")
		},
		run: runEnvoy,
	}
}

// defaultMaxDumpBytes bounds a dump: the dump is read one config at a time, and the largest
// config (all of a proxy's clusters, or endpoints with include_eds) costs about 8 bytes of memory
// per byte (docs/cli.md), so 256 MiB fits the 7 GiB of a hosted CI runner.
const defaultMaxDumpBytes = 256 << 20

func runEnvoy(a *app, ctx context.Context, args []string) int {
	const path = "kriguard envoy"
	if len(args) != 1 {
		return a.fail(path, usagef("want one FILE, URL or -, got %d arguments", len(args)))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail(path, err)
	}
	source := args[0]
	r, err := a.openDump(ctx, source)
	if err != nil {
		return a.fail(path, err)
	}
	defer r.Close()
	if source != "-" && !strings.Contains(source, "://") {
		a.dumpFile = source // read again to place the findings of the formats that show lines
	}
	w, err := a.resultWriters(envoyResults, "kriguard envoy", formatText, formatJSON, formatSARIF, formatJUnit, formatGitHub)
	if err != nil {
		return a.fail(path, err)
	}
	prefixes := a.prefixes
	if prefixes == nil {
		prefixes = []string{}
	}
	var t tally
	// Each name is printed as its config is read: the dump is never held whole.
	err = envoydump.Read(r, naming.EnvoyNameOptions{Strict: a.strict, Prefixes: prefixes, Registry: a.cfg.Registry()}, func(n envoydump.Name) error {
		t.objects++
		fs := slices.DeleteFunc(rules.EnvoyFindings(n.What, n.Name, n.Path, n.Problems), func(f rules.Finding) bool { return !a.cfg.Enabled(f.Rule) })
		res := Result{Source: source, Path: n.Path, Allowed: true, Object: rules.Object{Kind: schema.GroupKind{Kind: n.What}, Name: n.Name},
			Findings: fs}
		for _, f := range res.Findings {
			if f.Level == rules.LevelError {
				res.Allowed = false
			}
		}
		if !res.Allowed {
			t.denied++
		}
		if err := w.write(res); err != nil {
			return writeError{err}
		}
		return nil
	}, func(note string) {
		fmt.Fprintf(a.errOut, "%s: note: %s\n", source, note)
	})
	var we writeError
	switch {
	case errors.As(err, &we):
		return a.fail(path, fmt.Errorf("writing output: %w", we.err))
	case err != nil:
		var tl tooLarge
		if errors.As(err, &tl) {
			err = tl
		}
		t.errors++
		fmt.Fprintf(a.errOut, "%s: %s: %v\n", path, source, err)
	}
	if err := w.close(); err != nil {
		return a.fail(path, fmt.Errorf("writing output: %w", err))
	}
	return t.exitCode()
}

// openDump opens a config dump: a file, standard input or an admin URL, read up to --max-bytes.
func (a *app) openDump(ctx context.Context, source string) (io.ReadCloser, error) {
	var rc io.ReadCloser
	switch {
	case source == "-":
		rc = io.NopCloser(a.streams.In)
	case strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://"):
		ctx, cancel := context.WithTimeout(ctx, a.timeout)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("admin URL: %w", err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("fetching the config dump: %w", err)
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			cancel()
			return nil, fmt.Errorf("fetching the config dump: %s: %s", resp.Status, strings.TrimSpace(string(body)))
		}
		rc = cancelCloser{resp.Body, cancel}
	default:
		f, err := os.Open(source)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%s: reading: %w", source, err)
		}
		rc = f
	}
	return &limitedReader{rc: rc, left: int64(a.maxBytes), max: a.maxBytes}, nil
}

// cancelCloser closes a response body and cancels its request's context.
type cancelCloser struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelCloser) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// limitedReader fails once more than max bytes are read.
type limitedReader struct {
	rc   io.ReadCloser
	left int64
	max  int
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, tooLarge{l.max}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, tooLarge{l.max}
	}
	return n, err
}

func (l *limitedReader) Close() error { return l.rc.Close() }

// tooLarge ends a dump larger than --max-bytes.
type tooLarge struct{ max int }

func (e tooLarge) Error() string {
	return fmt.Sprintf("config dump is larger than %d bytes (--max-bytes)", e.max)
}
