package cli

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"syscall"
)

// Interrupted is the cause of a context that a signal canceled (context.WithCancelCause). Main
// then returns at once, 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM), even
// while the command is blocked reading a pipe, a FIFO or standard input.
type Interrupted struct{ Signal syscall.Signal }

func (e Interrupted) Error() string { return e.Signal.String() + " signal received" }

// ExitCode is the status a shell gives a process the signal ended.
func (e Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// errStopped is what writes return once Main has returned.
var errStopped = errors.New("the command was interrupted")

// streams are the command's standard output, buffered, and standard error, shared by the command
// and Main. When the command is interrupted Main stops them: what was written is flushed and
// later writes fail, so a command still blocked on its input cannot write once Main has returned.
type streams struct {
	mu      sync.Mutex
	out     *bufio.Writer
	err     io.Writer
	stopped bool
	// trailer ends what is open on out (the "]" of a JSON array) when Main stops the streams.
	trailer string
}

// stdout is the buffered standard output of a run.
type stdout struct{ s *streams }

func (o stdout) Write(p []byte) (int, error) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if o.s.stopped {
		return 0, errStopped
	}
	return o.s.out.Write(p)
}

func (o stdout) WriteString(p string) (int, error) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if o.s.stopped {
		return 0, errStopped
	}
	return o.s.out.WriteString(p)
}

// Flush writes what is buffered.
func (o stdout) Flush() error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if o.s.stopped {
		return errStopped
	}
	return o.s.out.Flush()
}

// Buffered is the number of bytes not yet flushed.
func (o stdout) Buffered() int {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	return o.s.out.Buffered()
}

// setTrailer sets what stop writes to close the output.
func (o stdout) setTrailer(t string) {
	o.s.mu.Lock()
	o.s.trailer = t
	o.s.mu.Unlock()
}

// stderr is the unbuffered standard error of a run. What is buffered on standard output is
// flushed first, so that the two read in order on a terminal.
type stderr struct{ s *streams }

func (e stderr) Write(p []byte) (int, error) {
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	if e.s.stopped {
		return 0, errStopped
	}
	_ = e.s.out.Flush()
	return e.s.err.Write(p)
}

// stop flushes standard output, closed with its trailer, writes msg on standard error and
// refuses every later write.
func (s *streams) stop(msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	s.out.WriteString(s.trailer)
	err := s.out.Flush()
	if msg != "" {
		io.WriteString(s.err, msg)
	}
	return err
}
