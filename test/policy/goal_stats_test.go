package policy

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestGoalOrder(t *testing.T) {
	modes := []string{"i", "e", "b"}
	order := goalOrder(modes, 100, rand.New(rand.NewPCG(goalSeed, 0)))
	if len(order) != 300 {
		t.Fatalf("%d slots, want 300", len(order))
	}
	orders := map[string]bool{}
	for g := 0; g < len(order); g += len(modes) {
		group := slices.Clone(order[g : g+len(modes)])
		orders[group[0]+group[1]+group[2]] = true
		slices.Sort(group)
		if !slices.Equal(group, []string{"b", "e", "i"}) {
			t.Fatalf("group at slot %d holds %v, want each mode once", g, order[g:g+len(modes)])
		}
	}
	if len(orders) < 2 {
		t.Errorf("every group in the same order %v", orders)
	}
	if again := goalOrder(modes, 100, rand.New(rand.NewPCG(goalSeed, 0))); !slices.Equal(order, again) {
		t.Error("the same seed gave another order")
	}
}

func TestP99Interval(t *testing.T) {
	// x is y plus 2 ms in every pair of neighbouring slots, whatever the moment costs both: every
	// resample of whole blocks holds the same moments for both, so the difference is 2 ms exactly.
	rng := rand.New(rand.NewPCG(1, 2))
	var round []timedCreate
	for range 1000 {
		base := time.Duration(1+rng.IntN(30)) * time.Millisecond
		round = append(round,
			timedCreate{mode: "x", latency: base + 2*time.Millisecond},
			timedCreate{mode: "y", latency: base})
	}
	lo, hi := p99Interval(round, "x", "y", 100, 200, rand.New(rand.NewPCG(3, 4)))
	if lo != 2 || hi != 2 {
		t.Errorf("interval %v … %v ms, want 2 … 2", lo, hi)
	}
	// With independent moments, the interval is wide but holds the plain difference.
	round = round[:0]
	for range 2000 {
		for _, m := range []string{"x", "y"} {
			round = append(round, timedCreate{mode: m, latency: time.Duration(rng.ExpFloat64() * float64(3*time.Millisecond))})
		}
	}
	lo, hi = p99Interval(round, "x", "y", 100, 200, rand.New(rand.NewPCG(3, 4)))
	d := quantileMS(latencies(round, "x"), 0.99) - quantileMS(latencies(round, "y"), 0.99)
	if lo > d || d > hi || lo == hi {
		t.Errorf("interval %v … %v ms, plain difference %v ms", lo, hi, d)
	}
}

func TestTailOf(t *testing.T) {
	var round []timedCreate
	modes := []string{"i", "e", "b"}
	for k := range 300 {
		round = append(round, timedCreate{mode: modes[k%3], start: time.Duration(k) * 10 * time.Millisecond, latency: time.Millisecond})
	}
	// Of the three slowest, two in a row (one burst) and one alone much later.
	for k, d := range map[int]time.Duration{100: 20, 101: 21, 102: 22, 250: 30} {
		round[k].latency = d * time.Millisecond
	}
	got := tailOf(round, 50*time.Millisecond)
	if got.threshold != 21*time.Millisecond || got.bursts != 2 || got.largest != 2 || got.perMode["i"] != 1 || got.perMode["e"] != 1 || got.perMode["b"] != 1 {
		t.Errorf("tail %+v, want the 3 slowest from 21 ms: 2 bursts, the largest of 2, one of each mode", got)
	}
	if got.slowest[0].start != 1010*time.Millisecond || got.slowest[2].start != 2500*time.Millisecond {
		t.Errorf("tail %+v, want it in send order", got.slowest)
	}
}

func TestMetricValue(t *testing.T) {
	raw := `# HELP x_seconds a histogram
x_seconds_count{resource="meshtimeouts",subresource="",verb="POST"} 3
x_seconds_count{resource="pods",subresource="meshtimeouts",verb="POST"} 100
x_seconds_count{resource="meshtimeouts",subresource="",verb="GET"} 1000
x_seconds_count{group="kuma.io",resource="meshtimeouts",verb="POST"} 4
go_gc_duration_seconds_count 7
`
	if got := metricValue(raw, "x_seconds_count", map[string]string{"verb": "POST", "resource": "meshtimeouts"}); got != 7 {
		t.Errorf("POSTs of meshtimeouts: %v, want 7", got)
	}
	if got := metricValue(raw, "go_gc_duration_seconds_count", nil); got != 7 {
		t.Errorf("collections: %v, want 7", got)
	}
	if got := metricValue(raw, "x_seconds", nil); got != 0 {
		t.Errorf("a name that is only a prefix: %v, want 0", got)
	}
}
