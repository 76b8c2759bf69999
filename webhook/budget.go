package webhook

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/semaphore"
)

// The memory value (docs/limits.md): one number, the container's memory limit, from which the Go
// runtime's soft limit and the byte budget of the reviews in flight are derived. The chart
// passes its resources.limits.memory as --memory-limit.
const (
	// DefaultMemoryLimit is the memory limit assumed without --memory-limit: the chart's default.
	DefaultMemoryLimit = 256 << 20
	// memoryReserve is what the process needs besides the reviews in flight: the runtime, the
	// manager's caches, TLS, the binary's resident pages. An idle webhook holds about 40 MiB.
	memoryReserve = 48 << 20
	// reviewCostFactor is the memory one review takes per byte of its body while it is decided,
	// at worst: the body, the copies of object and oldObject the decoder makes, and what the
	// checks decode. The worst is an update whose objects are full of invalid references: both
	// specs are decoded into maps, every problem is built twice (test/serverbench
	// BenchmarkLargeReviews measures it: about 13 bytes per byte). A valid object needs 2.
	reviewCostFactor = 16
	// reviewCostFixed is the memory of a request besides its body: buffers, the answer.
	reviewCostFixed = 64 << 10
)

// GoMemoryLimit is the Go runtime's soft memory limit for a container limit: nine tenths, so
// that memory the runtime does not manage (the binary, thread stacks) fits under the limit.
func GoMemoryLimit(memoryLimit int64) int64 { return memoryLimit / 10 * 9 }

// Budget is the memory the reviews in flight may take, shared by the webhooks of one process.
// Each request takes its share, reviewCost of its body's size, before it reads its body, and
// gives it back once answered; a request that does not fit waits for room until its deadline.
type Budget struct {
	sem  *semaphore.Weighted
	size int64
}

// NewBudget returns the budget of a process whose container may use memoryLimit bytes. The
// budget must hold at least one review of the largest size, or no such review could be
// answered.
func NewBudget(memoryLimit int64) (*Budget, error) {
	size := GoMemoryLimit(memoryLimit) - memoryReserve
	if need := reviewCost(maxReviewBytes); size < need {
		return nil, fmt.Errorf("memory limit %d bytes leaves %d bytes for reviews, less than the %d bytes one review of %d bytes needs: the limit must be at least %d bytes",
			memoryLimit, max(size, 0), need, maxReviewBytes, minMemoryLimit())
	}
	return &Budget{sem: semaphore.NewWeighted(size), size: size}, nil
}

// minMemoryLimit is the smallest memory limit NewBudget accepts.
func minMemoryLimit() int64 {
	return ((reviewCost(maxReviewBytes)+memoryReserve)/9 + 1) * 10
}

// Size is the number of bytes the budget holds.
func (b *Budget) Size() int64 { return b.size }

// reviewCost is the share of the budget a review of n bytes takes.
func reviewCost(n int64) int64 { return reviewCostFactor*n + reviewCostFixed }

// acquireBy takes n bytes of the budget, waiting for room until a little before deadline (a
// tenth of the time left, at most a second), so that a refusal still reaches the caller in time.
func (b *Budget) acquireBy(ctx context.Context, n int64, deadline time.Time) error {
	if b == nil || b.sem.TryAcquire(n) {
		return nil
	}
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(-min(time.Second, time.Until(deadline)/10)))
	defer cancel()
	return b.sem.Acquire(ctx, n)
}

func (b *Budget) acquire(ctx context.Context, n int64) error {
	if b == nil {
		return nil
	}
	return b.sem.Acquire(ctx, n)
}

func (b *Budget) release(n int64) {
	if b != nil && n > 0 {
		b.sem.Release(n)
	}
}
