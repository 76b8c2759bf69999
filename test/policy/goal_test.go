package policy

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The goal's own benchmark (BenchmarkCreate/goal; docs/performance.md, "The goal's own benchmark"):
// only the configurations issue 28's goal compares, the default install (i) and the do-nothing pair
// (e), with the opt-in (b) beside them, interleaved request by request at the rate of the rate part,
// with enough CREATEs per mode that a p99 rests on 20 samples above it.
var goalModes = []string{"i", "e", "b"}

const (
	goalPerSecond = 100  // all modes together, as the rate part
	goalPerMode   = 2000 // a p99 with 20 samples above it; 6,000 CREATEs, a minute a round
	// goalSeed fixes the order of the modes within each group of len(goalModes) slots.
	goalSeed = 28
	// goalBlock is the bootstrap's block: one second of consecutive slots, so that a stall that
	// delayed the CREATEs of a moment is drawn for every mode at once, as it happened.
	goalBlock = goalPerSecond
	// goalResamples is the number of bootstrap resamples of a round.
	goalResamples = 1000
	// goalWindow is the width of the windows in which the CPU of each process is sampled.
	goalWindow = 100 * time.Millisecond
	// goalBurstGap: the slowest CREATEs sent within it of one another are one burst.
	goalBurstGap = 50 * time.Millisecond
)

// timedCreate is one CREATE of a round: its mode, when it was sent (from the round's start) and
// how long it took.
type timedCreate struct {
	mode           string
	start, latency time.Duration
}

// goalOrder returns the mode of each of n*len(modes) slots: every group of len(modes) consecutive
// slots holds each mode once, in an order drawn from rng, so that no mode always follows another
// (a strict alternation would alias with anything periodic) and every mode sees the same moments.
func goalOrder(modes []string, n int, rng *rand.Rand) []string {
	out := make([]string, 0, n*len(modes))
	group := slices.Clone(modes)
	for range n {
		rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
		out = append(out, group...)
	}
	return out
}

// quantileMS is the q-quantile of l in milliseconds, as sample.quantile takes it (the element at
// q*(len-1), rounded down: with 2,000 samples, the p99 has 20 above it). It sorts l.
func quantileMS(l []time.Duration, q float64) float64 {
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return float64(l[int(q*float64(len(l)-1))].Microseconds()) / 1000
}

// latencies returns the latencies of mode's CREATEs in round.
func latencies(round []timedCreate, mode string) []time.Duration {
	var out []time.Duration
	for _, c := range round {
		if c.mode == mode {
			out = append(out, c.latency)
		}
	}
	return out
}

// p99Interval is a 90 % interval of p99(x) − p99(y) in milliseconds, by a block bootstrap of the
// round: the round in send order cut into blocks of block slots, as many blocks drawn with
// replacement, both modes taken from the same blocks. Drawing blocks rather than single CREATEs
// keeps what a moment did to all the CREATEs sent in it together (a stall delays several at once),
// which an independent resampling of each mode would treat as luck.
func p99Interval(round []timedCreate, x, y string, block, resamples int, rng *rand.Rand) (lo, hi float64) {
	n := len(round) / block
	if n == 0 {
		return 0, 0
	}
	diffs := make([]float64, resamples)
	var xs, ys []time.Duration
	for r := range diffs {
		xs, ys = xs[:0], ys[:0]
		for range n {
			start := rng.IntN(n) * block
			for _, c := range round[start : start+block] {
				switch c.mode {
				case x:
					xs = append(xs, c.latency)
				case y:
					ys = append(ys, c.latency)
				}
			}
		}
		diffs[r] = quantileMS(xs, 0.99) - quantileMS(ys, 0.99)
	}
	slices.Sort(diffs)
	return diffs[resamples*5/100], diffs[resamples*95/100-1]
}

// tail describes the slowest 1 % of a round's CREATEs, all modes together: how many of each mode,
// and in how many bursts they came (CREATEs sent within gap of the previous one of the tail).
type tail struct {
	threshold time.Duration // the fastest of the tail
	perMode   map[string]int
	slowest   []timedCreate // in send order
	bursts    int
	largest   int // CREATEs in the largest burst
}

func tailOf(round []timedCreate, gap time.Duration) tail {
	t := tail{perMode: map[string]int{}}
	t.slowest = slices.Clone(round)
	slices.SortStableFunc(t.slowest, func(a, b timedCreate) int { return cmp.Compare(b.latency, a.latency) })
	t.slowest = t.slowest[:len(round)/100]
	if len(t.slowest) == 0 {
		return t
	}
	t.threshold = t.slowest[len(t.slowest)-1].latency
	slices.SortFunc(t.slowest, func(a, b timedCreate) int { return cmp.Compare(a.start, b.start) })
	size := 0
	for i, c := range t.slowest {
		t.perMode[c.mode]++
		if i == 0 || c.start-t.slowest[i-1].start > gap {
			t.bursts++
			size = 0
		}
		size++
		t.largest = max(t.largest, size)
	}
	return t
}

// cpuSample is the CPU time, in clock ticks, each process of the run and the whole machine had
// used at a moment.
type cpuSample struct {
	at                         time.Duration
	apiServer, etcd, self      float64
	machineBusy, machineStolen float64
	gcCycles                   uint64 // this process's
}

// controlPlanePids finds the kube-apiserver and etcd this process started (envtest starts them as
// its children).
func controlPlanePids() (apiServer, etcd int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, ppid, _, ok := procStat(pid)
		if !ok || ppid != os.Getpid() {
			continue
		}
		switch comm {
		case "kube-apiserver":
			apiServer = pid
		case "etcd":
			etcd = pid
		}
	}
	return apiServer, etcd
}

// procStat reads a process's name, parent and CPU time (user and system, in clock ticks) from
// /proc/<pid>/stat.
func procStat(pid int) (comm string, ppid int, ticks float64, ok bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0, 0, false
	}
	open, closing := strings.IndexByte(string(raw), '('), strings.LastIndexByte(string(raw), ')')
	if open < 0 || closing < open {
		return "", 0, 0, false
	}
	// After the name: state, ppid (4th field), ... utime (14th), stime (15th).
	f := strings.Fields(string(raw[closing+1:]))
	if len(f) < 13 {
		return "", 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return string(raw[open+1 : closing]), ppid, utime + stime, true
}

// machineCPU reads the machine's busy and stolen CPU time, all cores, in clock ticks, from
// /proc/stat.
func machineCPU() (busy, stolen float64) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	for i := 1; i < len(f); i++ {
		v, _ := strconv.ParseFloat(f[i], 64)
		switch i {
		case 4, 5: // idle, iowait
		case 8:
			stolen = v
			busy += v
		default:
			busy += v
		}
	}
	return busy, stolen
}

// sampleCPU samples the CPU of the control plane, this process and the machine every window until
// stop is called, which returns the samples.
func sampleCPU(window time.Duration) (stop func() []cpuSample) {
	apiServer, etcd := controlPlanePids()
	gc := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	start := time.Now()
	take := func() cpuSample {
		s := cpuSample{at: time.Since(start)}
		_, _, s.apiServer, _ = procStat(apiServer)
		_, _, s.etcd, _ = procStat(etcd)
		_, _, s.self, _ = procStat(os.Getpid())
		s.machineBusy, s.machineStolen = machineCPU()
		metrics.Read(gc)
		s.gcCycles = gc[0].Value.Uint64()
		return s
	}
	var out []cpuSample
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(window)
		defer tick.Stop()
		out = append(out, take())
		for {
			select {
			case <-done:
				out = append(out, take())
				return
			case <-tick.C:
				out = append(out, take())
			}
		}
	}()
	return func() []cpuSample {
		close(done)
		wg.Wait()
		return out
	}
}

// clockTick is the length of the clock tick /proc counts CPU time in (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpuShares splits the windows between samples into those some CREATE of the tail was in flight
// in and the others, and returns, for each, the mean CPU of each process and of the machine in
// cores (a window's CPU time over its length), and this process's collections per second.
func cpuShares(samples []cpuSample, slowest []timedCreate) (inTail, rest cpuUse) {
	var nTail, nRest int
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		span := (b.at - a.at).Seconds()
		if span <= 0 {
			continue
		}
		cores := func(d float64) float64 { return d * clockTick.Seconds() / span }
		u := cpuUse{
			apiServer: cores(b.apiServer - a.apiServer), etcd: cores(b.etcd - a.etcd), self: cores(b.self - a.self),
			stolen: cores(b.machineStolen - a.machineStolen),
			gc:     float64(b.gcCycles-a.gcCycles) / span,
		}
		u.others = cores(b.machineBusy-a.machineBusy) - u.apiServer - u.etcd - u.self - u.stolen
		slow := slices.ContainsFunc(slowest, func(c timedCreate) bool {
			return c.start < b.at && c.start+c.latency > a.at
		})
		if slow {
			inTail.add(u)
			nTail++
		} else {
			rest.add(u)
			nRest++
		}
	}
	inTail.scale(nTail)
	rest.scale(nRest)
	inTail.windows, rest.windows = nTail, nRest
	return inTail, rest
}

// cpuUse is the CPU of the run's processes in cores, the machine's other processes and what the
// hypervisor stole, over some windows.
type cpuUse struct {
	apiServer, etcd, self, others, stolen float64
	gc                                    float64 // this process's collections per second
	windows                               int
}

func (u *cpuUse) add(o cpuUse) {
	u.apiServer += o.apiServer
	u.etcd += o.etcd
	u.self += o.self
	u.others += o.others
	u.stolen += o.stolen
	u.gc += o.gc
}

func (u *cpuUse) scale(n int) {
	if n == 0 {
		return
	}
	f := 1 / float64(n)
	u.apiServer, u.etcd, u.self, u.others, u.stolen, u.gc = u.apiServer*f, u.etcd*f, u.self*f, u.others*f, u.stolen*f, u.gc*f
}

func (u cpuUse) String() string {
	return fmt.Sprintf("kube-apiserver %.2f, etcd %.2f, this process (clients, webhooks) %.2f, the machine's other processes %.2f, stolen %.2f; this process's collections %.1f/s",
		u.apiServer, u.etcd, u.self, u.others, u.stolen, u.gc)
}

// metricValue sums the series of name in raw (Prometheus text) whose labels include every pair
// of match.
func metricValue(raw, name string, match map[string]string) float64 {
	var sum float64
	for line := range strings.Lines(raw) {
		series, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(series, "#") {
			continue
		}
		n, labels, _ := strings.Cut(series, "{")
		if n != name {
			continue
		}
		matched := true
		for k, v := range match {
			// After "{" or ",": resource="x" is not subresource="x".
			if !strings.Contains(","+labels, ","+k+`="`+v+`"`) {
				matched = false
				break
			}
		}
		if !matched {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			sum += v
		}
	}
	return sum
}

// serverMetrics fetches the API server's and etcd's /metrics.
func serverMetrics(b *testing.B) (apiServer, etcd string) {
	b.Helper()
	resp, err := http.Get(env.Environment.ControlPlane.Etcd.URL.String() + "/metrics")
	if err != nil {
		b.Fatalf("etcd's metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", resp.Status, body)
	}
	if err != nil {
		b.Fatalf("etcd's metrics: %v", err)
	}
	return apiServerMetrics(b), string(body)
}

// benchGoal runs one round of the goal's benchmark: goalPerMode CREATEs of each of goalModes,
// interleaved in goalOrder's order and paced at goalPerSecond, from the clients in turn.
func benchGoal(b *testing.B, clients []client.Client) {
	namespace := map[string]string{}
	for _, m := range benchModes {
		if slices.Contains(goalModes, m.key) {
			namespace[m.key] = m.namespace
		}
	}
	order := goalOrder(goalModes, goalPerMode, rand.New(rand.NewPCG(goalSeed, 0)))
	round := make([]timedCreate, len(order))
	before := admissionDurations(b)
	apiBefore, etcdBefore := serverMetrics(b)
	stopSampling := sampleCPU(goalWindow)

	start := time.Now()
	pacedCreates(b, clients, goalPerSecond, len(order), func(i int) string { return namespace[order[i]] },
		func(i int, t time.Time, latency time.Duration) {
			round[i] = timedCreate{mode: order[i], start: t.Sub(start), latency: latency}
		})
	elapsed := time.Since(start)
	samples := stopSampling()
	after := admissionDurations(b)
	apiAfter, etcdAfter := serverMetrics(b)

	p := map[string][2]float64{}
	for _, m := range goalModes {
		l := latencies(round, m)
		p[m] = [2]float64{quantileMS(l, 0.5), quantileMS(l, 0.99)}
		b.ReportMetric(p[m][0], m+"-p50-ms")
		b.ReportMetric(p[m][1], m+"-p99-ms")
	}
	for _, m := range []string{"i", "b"} {
		b.ReportMetric(p[m][0]-p["e"][0], m+"-over-e-p50-ms")
		b.ReportMetric(p[m][1]-p["e"][1], m+"-over-e-p99-ms")
	}
	rng := rand.New(rand.NewPCG(goalSeed, 1))
	lo, hi := p99Interval(round, "i", "e", goalBlock, goalResamples, rng)
	b.ReportMetric(lo, "i-over-e-p99-lo-ms")
	b.ReportMetric(hi, "i-over-e-p99-hi-ms")
	fmt.Printf("goal round: %d CREATEs in %.1f s, load average %s; i-over-e p99 %+.3f ms, 90 %% interval (block bootstrap, %d resamples of 1 s blocks) %+.3f … %+.3f ms\n",
		len(round), elapsed.Seconds(), loadAverage(), p["i"][1]-p["e"][1], goalResamples, lo, hi)

	// Where the tail comes from.
	t := tailOf(round, goalBurstGap)
	fmt.Printf("tail: the slowest 1 %% (%d CREATEs, %.3f ms and over): i %d, e %d, b %d; %d bursts (sent within %v of one another), the largest %d CREATEs\n",
		len(t.slowest), float64(t.threshold.Microseconds())/1000, t.perMode["i"], t.perMode["e"], t.perMode["b"], t.bursts, goalBurstGap, t.largest)
	// The paired figure beside the p99 difference: how many of each mode's CREATEs are among the
	// slowest 1 % of all (len(round)/100/len(goalModes) each when the modes cost the same).
	for _, m := range goalModes {
		b.ReportMetric(float64(t.perMode[m]), m+"-in-tail")
	}
	inTail, rest := cpuShares(samples, t.slowest)
	fmt.Printf("CPU in cores, the %v windows a CREATE of the tail was in flight in (%d): %s\n", goalWindow, inTail.windows, inTail)
	fmt.Printf("CPU in cores, the other windows (%d): %s\n", rest.windows, rest)
	n := float64(len(round))
	first, last := samples[0], samples[len(samples)-1]
	perCreate := func(ticks float64) float64 { return ticks * float64(clockTick.Milliseconds()) / n }
	for _, c := range []struct {
		name  string
		ticks float64
	}{
		{"apiserver", last.apiServer - first.apiServer},
		{"etcd", last.etcd - first.etcd},
		{"test-process", last.self - first.self},
	} {
		b.ReportMetric(perCreate(c.ticks), c.name+"-cpu-ms/create")
	}
	gcs := func(before, after string) float64 {
		return metricValue(after, "go_gc_duration_seconds_count", nil) - metricValue(before, "go_gc_duration_seconds_count", nil)
	}
	// The API server's heap grows from round to round, and its collections' marking with it
	// (docs/performance.md, "Where the tail comes from").
	heap := func(raw string) float64 { return metricValue(raw, "go_memstats_heap_inuse_bytes", nil) / (1 << 20) }
	fmt.Printf("collections in the round: kube-apiserver %.0f (heap in use %.0f -> %.0f MiB), etcd %.0f (%.0f -> %.0f MiB), this process %d\n",
		gcs(apiBefore, apiAfter), heap(apiBefore), heap(apiAfter), gcs(etcdBefore, etcdAfter), heap(etcdBefore), heap(etcdAfter), last.gcCycles-first.gcCycles)
	// The server's own time, all three modes together: the whole request, its etcd part.
	mean := func(before, after, name string, match map[string]string) (float64, float64) {
		c := metricValue(after, name+"_count", match) - metricValue(before, name+"_count", match)
		s := metricValue(after, name+"_sum", match) - metricValue(before, name+"_sum", match)
		return c, 1000 * s / c
	}
	reqN, reqMean := mean(apiBefore, apiAfter, "apiserver_request_duration_seconds", map[string]string{"verb": "POST", "resource": "meshtimeouts"})
	etcdN, etcdMean := mean(apiBefore, apiAfter, "etcd_request_duration_seconds", map[string]string{"operation": "create"})
	walN, walMean := mean(etcdBefore, etcdAfter, "etcd_disk_wal_fsync_duration_seconds", nil)
	commitN, commitMean := mean(etcdBefore, etcdAfter, "etcd_disk_backend_commit_duration_seconds", nil)
	var clientSum time.Duration
	for _, c := range round {
		clientSum += c.latency
	}
	fmt.Printf("means: the client's CREATE %.3f ms; the API server's (apiserver_request_duration_seconds, %.0f POSTs) %.3f ms, its etcd creates (%.0f) %.3f ms; etcd's WAL fsyncs %.0f, mean %.3f ms, backend commits %.0f, mean %.3f ms\n",
		float64(clientSum.Microseconds())/1000/n, reqN, reqMean, etcdN, etcdMean, walN, walMean, commitN, commitMean)
	for _, key := range []string{"validate.record-off.kriguard.io/validating", "mutate.nop.kriguard.io/admit", "validate.nop.kriguard.io/validating", "mutate.kriguard.io/admit", "validate.kriguard.io/validating"} {
		h, old := after[webhookMetric+" "+key], before[webhookMetric+" "+key]
		if h == nil {
			continue
		}
		calls, mean := calls(before, after, webhookMetric+" "+key)
		fmt.Printf("%s: %.0f calls, mean %.3f ms, over 5 ms %.2f %%\n", key, calls, mean, 100*h.over(old, 0.005))
	}
}
