package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kriguard/kriguard/internal/envoydump"
	"github.com/kriguard/kriguard/naming"
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

Text output is one line per problem, "source: JSON path: what "name": problem"; JSON is one
array with an element per name. Embedded configurations of types kriguard does not read are
skipped with a note on standard error.`,
		example: `  kriguard envoy http://127.0.0.1:9901/config_dump?include_eds
  kubectl exec deploy/backend -c kuma-sidecar -- wget -qO- localhost:9901/config_dump | kriguard envoy -
  kriguard envoy --strict -o json dump.json`,
		flags: func(a *app, fs *pflag.FlagSet) {
			outputFlags(a, fs)
			fs.BoolVar(&a.strict, "strict", false, "also report legacy names (neither KRI, internal, nor under an accepted prefix)")
			fs.StringSliceVar(&a.prefixes, "prefix", naming.DefaultEnvoyPrefixes(), "accepted name prefixes besides kri_ and _ (repeat, or separate with commas)")
			fs.DurationVar(&a.timeout, "timeout", 30*time.Second, "time limit of a request to an admin URL")
			fs.IntVar(&a.maxBytes, "max-bytes", 512<<20, "largest config dump read")
		},
		run: runEnvoy,
	}
}

// envoyResult is one name, as -o json prints it.
type envoyResult struct {
	Source   string         `json:"source"`
	Path     string         `json:"path"`
	What     string         `json:"what"`
	Name     string         `json:"name"`
	Allowed  bool           `json:"allowed"`
	Problems []envoyProblem `json:"problems"`
}

type envoyProblem struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func runEnvoy(a *app, ctx context.Context, args []string) int {
	const path = "kriguard envoy"
	if len(args) != 1 {
		return a.fail(path, usagef("want one FILE, URL or -, got %d arguments", len(args)))
	}
	if err := a.loadConfig(); err != nil {
		return a.fail(path, err)
	}
	source := args[0]
	data, err := a.readDump(ctx, source)
	if err != nil {
		return a.fail(path, err)
	}
	prefixes := a.prefixes
	if prefixes == nil {
		prefixes = []string{}
	}
	d, err := envoydump.Parse(data, naming.EnvoyNameOptions{Strict: a.strict, Prefixes: prefixes, Registry: a.cfg.Registry()})
	if err != nil {
		return a.fail(path, fmt.Errorf("%s: %w", source, err))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(a.errOut, "%s: note: %s\n", source, n)
	}
	var t tally
	jw := newJSONWriter(a.out)
	for _, n := range d.Names {
		t.objects++
		if len(n.Problems) > 0 {
			t.denied++
		}
		if a.output == "json" {
			r := envoyResult{Source: source, Path: n.Path, What: n.What, Name: n.Name, Allowed: len(n.Problems) == 0, Problems: []envoyProblem{}}
			for _, p := range n.Problems {
				r.Problems = append(r.Problems, envoyProblem{Rule: p.Rule.String(), Message: p.Message})
			}
			err = jw.element(r)
		} else {
			for _, p := range n.Problems {
				if _, err = fmt.Fprintf(a.out, "%s: %s: %s %q %s\n", source, n.Path, n.What, n.Name, p.Message); err != nil {
					break
				}
			}
		}
		if err != nil {
			return a.fail(path, fmt.Errorf("writing output: %w", err))
		}
	}
	if a.output == "json" {
		if err := jw.close(); err != nil {
			return a.fail(path, fmt.Errorf("writing output: %w", err))
		}
	}
	return t.exitCode()
}

// readDump reads a config dump from a file, standard input or an admin URL, up to --max-bytes.
func (a *app) readDump(ctx context.Context, source string) ([]byte, error) {
	var r io.Reader
	switch {
	case source == "-":
		r = a.streams.In
	case strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://"):
		ctx, cancel := context.WithTimeout(ctx, a.timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
		if err != nil {
			return nil, fmt.Errorf("admin URL: %w", err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetching the config dump: %w", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return nil, fmt.Errorf("fetching the config dump: %s: %s", resp.Status, strings.TrimSpace(string(body)))
		}
		return readLimited(resp.Body, a.maxBytes, source)
	default:
		f, err := os.Open(source)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%s: reading: %w", source, err)
		}
		defer f.Close()
		r = f
	}
	return readLimited(r, a.maxBytes, source)
}

func readLimited(r io.Reader, max int, source string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", source, err)
	}
	if len(b) > max {
		return nil, fmt.Errorf("%s: config dump is larger than %d bytes (--max-bytes)", source, max)
	}
	return b, nil
}
