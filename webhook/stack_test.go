package webhook

import (
	"runtime/debug"
	"testing"
	"unsafe"
)

// stackNeeded returns the bytes of goroutine stack f needs below the frame that calls it: the
// deepest its calls go. A server's connection goroutine runs every review of its connection; the
// collector halves the stack of one that idles using less than a quarter of it, and the next
// review that needs more than the half copies the stack to a larger one again (runtime.newstack,
// copystack). What one review needs, against what an allow-all review needs, says whether the
// webhook pays that copy (docs/performance.md, "Change 19").
//
// It is measured, not estimated: in a goroutine whose stack is 16 KiB, f runs below pad bytes of
// frames, and the stack was copied when the address of a local of the goroutine changed. The
// smallest pad that makes f grow the stack, against the one that makes an empty f grow it, is
// what f needs, to within stackPadSmall's frame (40 bytes). It follows the frames the compiler laid
// out, not the machine: runs of one binary agree within a frame or so (what f calls may differ a
// little from one call to the next: a pool's or the allocator's slower path).
func stackNeeded(tb testing.TB, f func()) int {
	tb.Helper()
	// A collection could shrink the stack while f runs, which moves it too.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	big, small := stackFrame(stackPadBig), stackFrame(stackPadSmall)
	const size = 16 << 10
	grows := func(f func(), nb, ns int) bool {
		moved := make(chan bool)
		go func() {
			// A new goroutine's stack starts smaller than size (runtime.startingStackSize, the
			// average of the stacks the collector saw): frames of more than half of it make it
			// size.
			stackSink += stackPadBig(size*5/8/big, func() {})
			top := stackAddr()
			stackSink += stackPadBig(nb, func() { stackSink += stackPadSmall(ns, f) })
			moved <- stackAddr() != top
		}()
		return <-moved
	}
	// pad returns the most bytes of frames below which f runs without growing the stack.
	pad := func(f func()) int {
		lo, hi := 0, size/big // grows(lo) is false, grows(hi) true
		if grows(f, 0, 0) || !grows(f, hi, 0) {
			tb.Fatalf("stackNeeded: the goroutine's stack is not %d bytes, or f needs more", size)
		}
		for hi-lo > 1 {
			if m := (lo + hi) / 2; grows(f, m, 0) {
				hi = m
			} else {
				lo = m
			}
		}
		nb := lo
		lo, hi = 0, big/small+1
		for hi-lo > 1 {
			if m := (lo + hi) / 2; grows(f, nb, m) {
				hi = m
			} else {
				lo = m
			}
		}
		return nb*big + lo*small
	}
	return pad(func() {}) - pad(f)
}

// stackSink keeps the pads' frames from being optimized away.
var stackSink byte

// stackAddr returns the address of a local: it changes when the goroutine's stack is copied.
//
//go:noinline
func stackAddr() uintptr {
	var x byte
	return uintptr(unsafe.Pointer(&x))
}

// stackPadBig and stackPadSmall run f below n frames of their own, of a few hundred and a few tens
// of bytes.
func stackPadBig(n int, f func()) byte {
	var b [256]byte
	b[n%len(b)] = byte(n)
	if n > 0 {
		return stackPadBig(n-1, f) + b[(n*7)%len(b)]
	}
	f()
	return b[(n*3)%len(b)]
}

func stackPadSmall(n int, f func()) byte {
	var b [8]byte
	b[n%len(b)] = byte(n)
	if n > 0 {
		return stackPadSmall(n-1, f) + b[(n*7)%len(b)]
	}
	f()
	return b[(n*3)%len(b)]
}

// stackFrame returns the bytes of one frame of pad.
func stackFrame(pad func(int, func()) byte) int {
	var d0, d100 uintptr
	done := make(chan struct{})
	go func() {
		stackSink += pad(200, func() {}) // the stack is large enough now: nothing below moves it
		top := stackAddr()
		stackSink += pad(0, func() { d0 = top - stackAddr() })
		stackSink += pad(100, func() { d100 = top - stackAddr() })
		close(done)
	}()
	<-done
	return int(d100-d0) / 100
}

// TestStackNeeded holds stackNeeded to what frames of a known size need.
func TestStackNeeded(t *testing.T) {
	big := stackFrame(stackPadBig)
	if big < 256 || big > 512 {
		t.Fatalf("stackPadBig's frame is %d bytes, want a little more than its 256-byte array", big)
	}
	for _, n := range []int{1, 5, 20} {
		got := stackNeeded(t, func() { stackSink += stackPadBig(n-1, func() {}) })
		if want := n * big; got < want-64 || got > want+64 {
			t.Errorf("%d frames of %d bytes need %d bytes of stack, want %d ± 64", n, big, got, want)
		}
	}
}

// TestServeAllocationsWithoutHeader holds each allocation a review's serve makes for itself to at
// most 512 bytes: above that, the runtime allocates an object with pointers through a path of its
// own (a header of the type's layout), which an allow-all server's reviews never run and whose
// code every review would then bring back into the instruction cache (docs/performance.md,
// "Change 22").
func TestServeAllocationsWithoutHeader(t *testing.T) {
	const largestWithoutHeader = 512 // runtime's minSizeForMallocHeader, on 64-bit
	for name, size := range map[string]uintptr{
		"served":        unsafe.Sizeof(served{}),
		"servedObjects": unsafe.Sizeof(servedObjects{}),
		"readObjects":   unsafe.Sizeof(readObjects{}),
	} {
		if size > largestWithoutHeader {
			t.Errorf("%s is %d bytes, more than %d", name, size, largestWithoutHeader)
		}
	}
}
