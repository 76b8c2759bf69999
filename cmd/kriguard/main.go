// Command kriguard applies kriguard's naming rules to manifests, clusters and Envoy config dumps;
// see docs/cli.md. The command itself lives in internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/kriguard/kriguard/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		signal.Stop(sigs) // a second signal ends the process even if flushing the output blocks
		cancel(cli.Interrupted{Signal: s.(syscall.Signal)})
	}()
	code := cli.Main(ctx, os.Args[1:], cli.Streams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		ErrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Version:       version,
	})
	os.Exit(code)
}
