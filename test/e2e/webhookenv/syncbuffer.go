package webhookenv

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that a child process (as its Stdout or Stderr) and a test can
// share: exec copies into it from another goroutine while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
