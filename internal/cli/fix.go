package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kriguard/kriguard/internal/fix"
	"github.com/kriguard/kriguard/naming"
)

// fixFlags are the flags of fix.
type fixFlags struct {
	kumaVersion string
	release     naming.Release // what kumaVersion names, once parsed
	diff        bool
}

func fixCommand() *command {
	return &command{
		name:  "fix",
		use:   "kriguard fix --kuma-version 3.0 PATH... [flags]",
		short: "rewrite manifests for a Kuma upgrade: only what is mechanical, never a rename",
		long: `fix rewrites Kubernetes manifests and kumactl YAML (Kuma Universal resources: type, mesh, name,
labels, spec) — files, folders (recursively, their .yaml and .yml files) and "-"
for standard input, written to standard output — for the Kuma release --kuma-version names. For 3.0:
a targetRef or backendRef that selects by name and namespace selects by the labels
kuma.io/display-name and k8s.kuma.io/namespace instead, and a kuma.io/mesh annotation without the label
becomes the label on the objects whose mesh Kuma read from it. Comments, order and every document
it does not edit are kept byte for byte; running it again changes nothing.

It never renames: a rename changes KRIs, SNIs and metric names. Every object a human must change —
a name 3.0 refuses, a kind 3.0 removed, a reference it cannot translate without guessing — is
named on standard error, "file:line: Kind namespace/name: field: needs a human: why", with the
edits it made. --diff prints a unified diff instead of writing (docs/upgrade-3.0.md).

Exit status: 0 nothing is left to do, 1 something needs a human (or, with --diff, an edit is still
to be made), 2 usage or input error.`,
		example: `  kriguard fix --kuma-version 3.0 --diff deploy/
  kriguard fix --kuma-version 3.0 deploy/ policies.yaml
  helm template charts/app | kriguard fix --kuma-version 3.0 - > app-3.0.yaml`,
		flags: func(a *app, fs *pflag.FlagSet) {
			fs.StringVar(&a.fix.kumaVersion, "kuma-version", "", `Kuma release to rewrite for: "`+fixReleaseNames()+`"`)
			fs.BoolVar(&a.fix.diff, "diff", false, "print a unified diff of the edits instead of writing them")
		},
		run: runFix,
	}
}

func runFix(a *app, ctx context.Context, args []string) int {
	const path = "kriguard fix"
	if a.fix.kumaVersion == "" {
		return a.fail(path, usagef("--kuma-version is required (%s)", fixReleaseNames()))
	}
	rel, err := naming.ParseRelease(a.fix.kumaVersion)
	if err != nil || !slices.Contains(fix.Releases(), rel) {
		return a.fail(path, usagef("--kuma-version %q: fix rewrites for %s only", a.fix.kumaVersion, fixReleaseNames()))
	}
	a.fix.release = rel
	if len(args) == 0 {
		return a.fail(path, usagef("no PATH given (use - for standard input)"))
	}
	files, err := fix.Expand(args)
	if err != nil {
		return a.fail(path, err)
	}
	var s fixSummary
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return a.fail(path, err)
		}
		if err := a.fixFile(f, &s); err != nil {
			s.errors++
			_ = a.out.Flush()
			fmt.Fprintf(a.errOut, "%s: error: %v\n", f, err)
		}
	}
	_ = a.out.Flush()
	if s.changes > 0 || s.findings > 0 {
		verb := "made"
		if a.fix.diff {
			verb = "to make"
		}
		fmt.Fprintf(a.errOut, "kriguard fix: %s %s in %s; %s for a human\n", plural(s.changes, "edit"), verb, plural(s.files, "file"), plural(s.findings, "finding"))
	}
	switch {
	case s.errors > 0:
		return ExitError
	case s.findings > 0, a.fix.diff && s.changes > 0:
		return ExitDenied
	}
	return ExitOK
}

type fixSummary struct{ files, changes, findings, errors int }

// fixFile rewrites one file, or standard input to standard output.
func (a *app) fixFile(name string, s *fixSummary) error {
	var src []byte
	var err error
	if name == fix.Stdin {
		src, err = io.ReadAll(a.streams.In)
	} else {
		src, err = os.ReadFile(name)
	}
	if err != nil {
		return fmt.Errorf("reading: %w", unwrapPath(err))
	}
	res, err := fix.Rewrite(src, fix.Options{Release: a.fix.release})
	var de *fix.DocumentError
	if errors.As(err, &de) {
		return fmt.Errorf("line %d: %w (the file is left as it is)", de.Line, de.Err)
	}
	if err != nil {
		return err
	}
	done := "fixed"
	switch {
	case a.fix.diff:
		done = "to fix"
		if _, err := io.WriteString(a.out, fix.UnifiedDiff(name, src, res.Output)); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	case name == fix.Stdin:
		if _, err := a.out.Write(res.Output); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	case len(res.Changes) > 0:
		if err := fix.WriteFile(name, res.Output); err != nil {
			return fmt.Errorf("writing: %w", unwrapPath(err))
		}
	}
	_ = a.out.Flush()
	for _, c := range res.Changes {
		fmt.Fprintf(a.errOut, "%s:%d: %s: %s: %s: %s\n", name, c.Line, c.Object, c.Field, done, c.Message)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(a.errOut, "%s:%d: %s: %s: needs a human: %s\n", name, f.Line, f.Object, f.Field, f.Message)
	}
	if len(res.Changes) > 0 {
		s.files++
	}
	s.changes += len(res.Changes)
	s.findings += len(res.Findings)
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// fixReleaseNames lists the releases fix rewrites for, as --kuma-version takes them.
func fixReleaseNames() string {
	var names []string
	for _, r := range fix.Releases() {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
}
