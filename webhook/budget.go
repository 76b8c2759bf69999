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

// Budget is the memory the reviews in flight may take, shared by the webhooks of one process, in
// two parts taken in turn, so that a slow sender holds no more than its body:
//
//   - bodies: a request takes the size of its body (Content-Length, or the largest allowed when
//     unknown) before it reads it, and keeps it until answered;
//   - decisions: once its body is complete, it takes what deciding it needs besides the body
//     (reviewCost less the body), for the short time it is decided.
//
// A request that does not fit waits for room, in arrival order, until a little before its
// deadline. The parts are always taken in this order, so no two requests wait on each other.
type Budget struct {
	bodies, decisions *semaphore.Weighted
	size              int64
	bodiesSize        int64
}

// NewBudget returns the budget of a process whose container may use memoryLimit bytes: its Go soft
// limit less memoryReserve, a quarter of it for bodies. The budget must hold one review of the
// largest size, or no such review could be answered.
func NewBudget(memoryLimit int64) (*Budget, error) {
	size := GoMemoryLimit(memoryLimit) - memoryReserve
	bodies := size / 4
	if bodies < maxReviewBytes || size-bodies < decisionCost(maxReviewBytes) {
		return nil, fmt.Errorf("memory limit %d bytes leaves %d bytes for reviews, less than one review of %d bytes needs: the limit must be at least %d bytes",
			memoryLimit, max(size, 0), maxReviewBytes, minMemoryLimit())
	}
	return &Budget{
		bodies:     semaphore.NewWeighted(bodies),
		decisions:  semaphore.NewWeighted(size - bodies),
		size:       size,
		bodiesSize: bodies,
	}, nil
}

// minMemoryLimit is the smallest memory limit NewBudget accepts.
func minMemoryLimit() int64 {
	size := max(4*int64(maxReviewBytes), decisionCost(maxReviewBytes)*4/3+1)
	return ((size+memoryReserve)/9 + 1) * 10
}

// Size is the number of bytes the budget holds.
func (b *Budget) Size() int64 { return b.size }

// reviewCost is the memory a review of n bytes takes while it is decided, its body included.
func reviewCost(n int64) int64 { return reviewCostFactor*n + reviewCostFixed }

// decisionCost is reviewCost less the body, which the bodies part holds.
func decisionCost(n int64) int64 { return reviewCost(n) - n }

// acquireBy takes n bytes of part sem, waiting for room until a little before deadline (a tenth
// of the time left, at most a second), so that a refusal still reaches the caller in time.
func acquireBy(ctx context.Context, sem *semaphore.Weighted, n int64, deadline time.Time) error {
	if sem.TryAcquire(n) {
		return nil
	}
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(-min(time.Second, time.Until(deadline)/10)))
	defer cancel()
	return sem.Acquire(ctx, n)
}

// acquireBody and acquireDecision take their parts; a nil budget bounds nothing.
func (b *Budget) acquireBody(ctx context.Context, n int64, deadline time.Time) error {
	if b == nil {
		return nil
	}
	return acquireBy(ctx, b.bodies, n, deadline)
}

func (b *Budget) acquireDecision(ctx context.Context, n int64, deadline time.Time) error {
	if b == nil {
		return nil
	}
	return acquireBy(ctx, b.decisions, n, deadline)
}

func (b *Budget) releaseBody(n int64) {
	if b != nil && n > 0 {
		b.bodies.Release(n)
	}
}

func (b *Budget) releaseDecision(n int64) {
	if b != nil && n > 0 {
		b.decisions.Release(n)
	}
}
