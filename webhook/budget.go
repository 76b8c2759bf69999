package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
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
	// decisionCostPerByte and decisionCostPerNode are the memory deciding a review takes, besides
	// its body, per byte of the body and per JSON value in it (jsonscan.Count), at worst: the copies
	// of object and oldObject the review's decoder makes, and the specs the checks decode into
	// maps and lists, whose cost follows the number of values more than their bytes (a list of
	// 1,000,000 empty objects is 3 MB of JSON and 60 MB decoded). Finding problems costs nothing
	// per node, and only the problems an answer shows are built (refWalk). test/serverbench
	// (TestHostileShapes) measures the shapes: docs/limits.md lists them.
	decisionCostPerByte = 4
	decisionCostPerNode = 64
	// reviewCostFixed is the memory of a request besides its body: buffers, the answer.
	reviewCostFixed = 64 << 10
)

// The bounds of what one request, and one client, hold while a body arrives (docs/limits.md).
const (
	// bodyChunk is the first buffer a body is read into; a larger body grows it, taking the
	// budget for what it grows to before it grows.
	bodyChunk = 64 << 10
	// minBodyRate is the slowest a body may arrive, after bodyGrace: a sender slower than that is
	// cut off, as one that does not finish by the deadline is. It is low: an API server on a busy
	// node sends 30 large reviews at once, and a slow sender holds only what it has sent anyway.
	minBodyRate = 16 << 10 // bytes per second
	bodyGrace   = 2 * time.Second
)

// GoMemoryLimit is the Go runtime's soft memory limit for a container limit: nine tenths, so
// that memory the runtime does not manage (the binary, thread stacks) fits under the limit.
func GoMemoryLimit(memoryLimit int64) int64 { return memoryLimit / 10 * 9 }

// Budget is the memory the reviews in flight may take, shared by the webhooks of one process, in
// two parts taken in turn, so that a slow sender holds no more than what it has sent:
//
//   - bodies: a request takes the memory of its body as the body arrives, a buffer at a time,
//     and keeps it until answered; what one client address holds is bounded (half of the part),
//     so one client cannot take all of it;
//   - decisions: once its body is complete, it takes what deciding it needs besides the body
//     (decisionCost), for the short time it is decided.
//
// A request that does not fit waits for room until a little before its deadline; a smaller one
// that fits is not held up behind it. The parts are always taken in this order, so no two
// requests wait on each other.
type Budget struct {
	bodies, decisions *pool
	size              int64
	// perClient bounds the bodies part one client address holds.
	perClient int64
}

// NewBudget returns the budget of a process whose container may use memoryLimit bytes: its Go soft
// limit less memoryReserve, a quarter of it for bodies. The budget must hold one review of the
// largest size, or no such review could be answered.
func NewBudget(memoryLimit int64) (*Budget, error) { return newBudget(memoryLimit, 0) }

// NewBudgetBeside is NewBudget for a process that also holds up to held bytes for as long as it
// runs (a PeerCache: PeerCacheMemory): the reviews get what is left.
func NewBudgetBeside(memoryLimit, held int64) (*Budget, error) { return newBudget(memoryLimit, held) }

func newBudget(memoryLimit, held int64) (*Budget, error) {
	size := GoMemoryLimit(memoryLimit) - memoryReserve - held
	bodies := size / 4
	if bodies/2 < maxBodyHeld || size-bodies < minDecisions {
		if held > 0 {
			return nil, fmt.Errorf("memory limit %d bytes less %d bytes held beside the reviews leaves %d bytes for reviews, less than one review of %d bytes needs: the limit must be at least %d bytes",
				memoryLimit, held, max(size, 0), maxReviewBytes, minMemoryLimitBeside(held))
		}
		return nil, fmt.Errorf("memory limit %d bytes leaves %d bytes for reviews, less than one review of %d bytes needs: the limit must be at least %d bytes",
			memoryLimit, max(size, 0), maxReviewBytes, minMemoryLimit())
	}
	return &Budget{
		bodies:    newPool(bodies),
		decisions: newPool(size - bodies),
		size:      size,
		perClient: bodies / 2,
	}, nil
}

// maxBodyHeld is the most one body holds: its buffer grows by doubling, up to the largest body
// and the byte that tells it is too large (growBody), and holds the old buffer, at most half of
// that, while it copies it.
const maxBodyHeld = 2 * (maxReviewBytes + 1)

// minDecisions is the smallest decisions part: one review of the largest size, of an ordinary
// shape (a value every 16 bytes). A review that costs more than the part is decided alone.
var minDecisions = decisionCost(maxReviewBytes, maxReviewBytes/16)

// minMemoryLimit is the smallest memory limit NewBudget accepts.
func minMemoryLimit() int64 { return minMemoryLimitBeside(0) }

// minBudget is the smallest budget: one body of the largest size in one client's share, one
// review of the largest size decided.
func minBudget() int64 {
	return max(4*2*int64(maxBodyHeld), minDecisions*4/3+1) // bodies a quarter, one client half of it
}

// minMemoryLimitBeside is the smallest memory limit NewBudgetBeside accepts with held.
func minMemoryLimitBeside(held int64) int64 {
	return ((minBudget()+memoryReserve+held)/9 + 1) * 10
}

// MinMemoryLimitFor is the smallest memory limit that holds a PeerCache of peerCacheMaxObjects
// objects at its bound beside the reviews (0: no cache): what --peer-cache-max-objects asks of
// --memory-limit.
func MinMemoryLimitFor(peerCacheMaxObjects int) int64 {
	return minMemoryLimitBeside(PeerCacheMemory(peerCacheMaxObjects))
}

// maxPeersFor is the most objects a PeerCache may hold beside the reviews within memoryLimit.
func maxPeersFor(memoryLimit int64) int64 {
	return max(GoMemoryLimit(memoryLimit)-memoryReserve-minBudget(), 0) / peerObjectCost
}

// Size is the number of bytes the budget holds.
func (b *Budget) Size() int64 { return b.size }

// decisionCost is the memory deciding a review of n bytes and nodes JSON values takes, its body
// aside.
func decisionCost(n, nodes int64) int64 {
	return decisionCostPerByte*n + decisionCostPerNode*nodes + reviewCostFixed
}

// errNoRoom is returned when a request asks for more than a part holds.
var errNoRoom = errors.New("more than the budget holds")

// pool is a number of bytes that requests take and give back. Unlike a FIFO semaphore, a request
// that fits takes its bytes at once, even while a larger one waits: a large waiter does not hold
// up the small reviews behind it.
type pool struct {
	mu   sync.Mutex
	free int64
	size int64
	// held is what each client address holds, when bounded.
	held map[string]int64
	// wake is closed, and replaced, whenever bytes are given back.
	wake chan struct{}
}

func newPool(size int64) *pool {
	return &pool{free: size, size: size, held: map[string]int64{}, wake: make(chan struct{})}
}

// take takes n bytes for client (when perClient > 0, client may hold at most perClient), waiting
// for room until ctx ends.
func (p *pool) take(ctx context.Context, n int64, client string, perClient int64) error {
	if n > p.size || perClient > 0 && n > perClient {
		return errNoRoom
	}
	for {
		p.mu.Lock()
		if n <= p.free && (perClient <= 0 || p.held[client]+n <= perClient) {
			p.free -= n
			if perClient > 0 {
				p.held[client] += n
			}
			p.mu.Unlock()
			return nil
		}
		wake := p.wake
		p.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// give gives back n bytes taken for client.
func (p *pool) give(n int64, client string, perClient int64) {
	if n <= 0 {
		return
	}
	p.mu.Lock()
	p.free += n
	if perClient > 0 {
		if p.held[client] -= n; p.held[client] <= 0 {
			delete(p.held, client)
		}
	}
	close(p.wake)
	p.wake = make(chan struct{})
	p.mu.Unlock()
}

// waitCtx is ctx ending a little before deadline (a tenth of the time left, at most a second), so
// that a refusal still reaches the caller in time.
func waitCtx(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, deadline.Add(-min(time.Second, time.Until(deadline)/10)))
}

// takeBody and takeDecision take their parts, waiting until a little before deadline; giveBody
// and giveDecision give them back. A nil budget bounds nothing.
func (b *Budget) takeBody(ctx context.Context, n int64, client string, deadline time.Time) error {
	if b == nil {
		return nil
	}
	ctx, cancel := waitCtx(ctx, deadline)
	defer cancel()
	return b.bodies.take(ctx, n, client, b.perClient)
}

func (b *Budget) giveBody(n int64, client string) {
	if b != nil {
		b.bodies.give(n, client, b.perClient)
	}
}

func (b *Budget) takeDecision(ctx context.Context, n int64, deadline time.Time) error {
	if b == nil {
		return nil
	}
	ctx, cancel := waitCtx(ctx, deadline)
	defer cancel()
	return b.decisions.take(ctx, min(n, b.decisions.size), "", 0)
}

func (b *Budget) giveDecision(n int64) {
	if b != nil {
		b.decisions.give(min(n, b.decisions.size), "", 0)
	}
}
