package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// Exit statuses.
const (
	// ExitOK: nothing was denied.
	ExitOK = 0
	// ExitDenied: at least one object or name would be denied.
	ExitDenied = 1
	// ExitError: a usage or input error; the reason is on standard error.
	ExitError = 2
)

// Streams are the command's input and outputs.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// ErrIsTerminal turns on audit's progress line on Err.
	ErrIsTerminal bool
	// Version is the release the binary was built as; "" reads it from the build information.
	Version string
}

// Main runs the kriguard command with args (without the program name) and returns its exit status.
//
// When ctx is canceled with an Interrupted cause (a signal), Main returns at once with the
// signal's exit status, after flushing what was decided, whatever the command was doing: reading
// a pipe or a FIFO cannot be interrupted otherwise. The command may go on in the background; it
// can no longer write, and the process is about to exit.
func Main(ctx context.Context, args []string, s Streams) int {
	st := &streams{out: bufio.NewWriterSize(s.Out, 64<<10), err: s.Err}
	a := &app{streams: s, out: stdout{st}, errOut: stderr{st}}
	done := make(chan int, 1)
	go func() { done <- a.run(ctx, args) }()
	select {
	case code := <-done:
		return a.finish(code)
	case <-ctx.Done():
	}
	select {
	case code := <-done: // a command that was not blocked has ended on its own
		var in Interrupted
		if !errors.As(context.Cause(ctx), &in) {
			return a.finish(code)
		}
	default:
	}
	code, msg := ExitError, "kriguard: "+context.Cause(ctx).Error()+"\n"
	var in Interrupted
	if errors.As(context.Cause(ctx), &in) {
		code, msg = in.ExitCode(), "kriguard: interrupted\n"
	}
	_ = st.stop(msg)
	return code
}

// finish flushes standard output and returns the exit status of a command that ended.
func (a *app) finish(code int) int {
	if err := a.out.Flush(); err != nil && code != ExitError {
		fmt.Fprintf(a.errOut, "kriguard: writing output: %v\n", err)
		code = ExitError
	}
	return code
}

// app holds one run's flags and outputs.
type app struct {
	streams Streams
	out     stdout
	errOut  io.Writer

	// outputs are the -o values of the commands that write formats (check, audit, envoy, kri);
	// output is kri name's -o.
	outputs    []string
	output     string
	configPath string
	cfg        *rules.Config
	// kumaVersion is --kuma-version of check, audit and kri of, release what it names.
	kumaVersion string
	release     naming.Release

	// audit
	namespace string
	// kubeconfigs and kubeContexts are audit's, one cluster (zone) per pair.
	kubeconfigs, kubeContexts []string
	allNamespaces             bool
	chunkSize                 int64
	report                    string
	reportConcurrency         int
	kumaAPI                   kumaAPIFlags
	// kumaZone is check's and kri of's --kuma-zone.
	kumaZone string
	// zonePaths is check's --zone, zones the zones it gives.
	zonePaths []string
	zones     []zonePath

	// envoy
	// dumpFile is the config dump's file, "" for standard input and admin URLs.
	dumpFile string
	strict   bool
	prefixes []string
	timeout  time.Duration
	maxBytes int

	// kri name
	mesh, name, zone, nameNamespace string

	// check, kri of
	maxDocBytes int
	strictFiles bool

	// policy
	policy admissionpolicy.Options

	fix fixFlags
}

// command is one subcommand.
type command struct {
	name, use, short, long, example string
	flags                           func(a *app, fs *pflag.FlagSet)
	run                             func(a *app, ctx context.Context, args []string) int
	subs                            []*command
}

// usageError is a mistake in the command line: it is printed with a pointer to --help.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func commands() *command {
	return &command{
		name:  "kriguard",
		use:   "kriguard COMMAND [flags]",
		short: "keep Kuma and Kong resource names well-formed, before admission, in a cluster and on a live Envoy",
		long: `kriguard applies the rules of the kriguard admission webhook outside of admission: to manifests
(check), to the objects already in a cluster (audit) and to the names an Envoy received (envoy), and
prints them as ValidatingAdmissionPolicies for clusters without the webhook (policy).
The same rules and the same configuration file as the webhook, over the same code.

Exit status: 0 nothing denied, 1 at least one object or name denied, 2 usage or input error.`,
		example: `  kriguard check examples/
  helm template charts/app | kriguard check -
  kriguard audit -A -o json
  kriguard envoy http://127.0.0.1:9901/config_dump?include_eds
  kriguard kri explain kri_mt_default__kuma-demo_timeouts_
  kriguard policy --config kriguard.yaml > policies.yaml
  kriguard fix --kuma-version 3.0 --diff deploy/`,
		subs: []*command{checkCommand(), auditCommand(), envoyCommand(), kriCommand(), policyCommand(), fixCommand()},
	}
}

func (a *app) run(ctx context.Context, args []string) int {
	root := commands()
	cmd, path := root, []string{root.name}
	// Walk down to the subcommand: every argument before the first flag that names one.
	rest := args
	for len(rest) > 0 {
		sub := cmd.sub(rest[0])
		if sub == nil {
			break
		}
		cmd, path, rest = sub, append(path, sub.name), rest[1:]
	}
	fs := pflag.NewFlagSet(strings.Join(path, " "), pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	help := fs.BoolP("help", "h", false, "show this help")
	var version bool
	if cmd == root {
		fs.BoolVar(&version, "version", false, "print the version and exit")
	}
	if cmd.flags != nil {
		cmd.flags(a, fs)
	}
	if err := fs.Parse(rest); err != nil {
		return a.usageFail(path, err)
	}
	if cmd.run == nil && fs.NArg() > 0 { // also with --help: "kriguard frobnicate --help" is a mistake
		return a.usageFail(path, usagef("unknown command %q", fs.Arg(0)))
	}
	switch {
	case *help:
		a.printHelp(a.out, cmd, path, fs)
		return ExitOK
	case version:
		fmt.Fprintln(a.out, versionString(a.streams.Version))
		return ExitOK
	case cmd.run == nil:
		a.printHelp(a.errOut, cmd, path, fs)
		return ExitError
	}
	if f := fs.Lookup("output"); f != nil && f.Value.Type() == "string" && a.output != formatText && a.output != formatJSON {
		return a.usageFail(path, usagef(`--output must be "text" or "json", not %q`, a.output))
	}
	return cmd.run(a, ctx, fs.Args())
}

func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (a *app) usageFail(path []string, err error) int {
	fmt.Fprintf(a.errOut, "%s: %v\nRun '%s --help' for usage.\n", strings.Join(path, " "), err, strings.Join(path, " "))
	return ExitError
}

// fail reports an error that ends the command.
func (a *app) fail(path string, err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return a.usageFail(strings.Fields(path), err)
	}
	fmt.Fprintf(a.errOut, "%s: %v\n", path, err)
	return ExitError
}

func (a *app) printHelp(w io.Writer, c *command, path []string, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "%s — %s\n\nUsage:\n  %s\n", strings.Join(path, " "), c.short, c.use)
	if c.long != "" {
		fmt.Fprintf(w, "\n%s\n", c.long)
	}
	if len(c.subs) > 0 {
		fmt.Fprintf(w, "\nCommands:\n")
		for _, s := range c.subs {
			fmt.Fprintf(w, "  %-8s %s\n", s.name, s.short)
		}
	}
	if c.example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.example)
	}
	fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	if len(c.subs) > 0 {
		fmt.Fprintf(w, "\nRun '%s COMMAND --help' for a command's flags.\n", strings.Join(path, " "))
	}
}

// outputFlags are the flags every judging command has.
func outputFlags(a *app, fs *pflag.FlagSet) {
	outputFlag(a, fs, `output format: "text" (one line per problem) or "json" (one array)`)
	configFlag(a, fs)
}

// outputFlag is -o of a command that writes formats, repeatable as FORMAT=FILE where the command
// writes several (docs/cli.md).
func outputFlag(a *app, fs *pflag.FlagSet, usage string) {
	fs.StringArrayVarP(&a.outputs, "output", "o", []string{formatText}, usage)
}

func configFlag(a *app, fs *pflag.FlagSet) {
	fs.StringVar(&a.configPath, "config", "", "kriguard configuration file, as the webhook's --config (default: the built-in configuration)")
}

// releaseFlag is the flag of the commands that judge objects against a Kuma release.
func releaseFlag(a *app, fs *pflag.FlagSet) {
	fs.StringVar(&a.kumaVersion, "kuma-version", "", `Kuma release to judge against: "`+releaseNames()+`" (default: the configuration's kuma.version, else `+naming.DefaultRelease.String()+`); 3.0 on 2.14 objects reports what 3.0 would refuse or silently change`)
}

func releaseNames() string {
	var names []string
	for _, r := range naming.Releases() {
		names = append(names, r.String())
	}
	return strings.Join(names, `", "`)
}

// loadConfig reads --config and --kuma-version.
func (a *app) loadConfig() error {
	if a.kumaVersion != "" {
		rel, err := naming.ParseRelease(a.kumaVersion)
		if err != nil {
			return usagef("--kuma-version: %v", err)
		}
		a.release = rel
	}
	c, err := rules.LoadConfig(a.configPath)
	if err != nil {
		return err
	}
	a.cfg = c
	return nil
}

func versionString(v string) string {
	return fmt.Sprintf("kriguard %s (%s, %s/%s)", version(v), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// version is the release the binary was built as: v, else the module's version in the build
// information, else "devel".
func version(v string) string {
	if v == "" || v == "devel" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return v
}
