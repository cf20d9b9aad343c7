package replay_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// The derived-metric oracle is testdata/oracle/derive.py: it loads a
// derived metric configuration into the real libpcp, opens an archive,
// fetches a list of names in a script of modes and prints the results;
// dmScript does the same with replay.Context.UseDerived and prints them
// the same way.

func dmOracle(t testing.TB) string {
	t.Helper()
	needOracle(t)
	return filepath.Join(testenv.RepoRoot(t), "testdata", "oracle", "derive.py")
}

// runDerivedOracle runs derive.py; config is the configuration text.
func runDerivedOracle(t testing.TB, archive, config, names, ops string) (out string, crashed bool) {
	t.Helper()
	script := dmOracle(t)
	cfg := filepath.Join(t.TempDir(), "derived.conf")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script, archive, cfg, names)
	var env []string
	if noFree != "" {
		env = append(env, "LD_PRELOAD="+noFree)
	}
	cmd.Env = testenv.RealEnv(env...)
	return runDMOracle(t, cmd, archive, ops)
}

// runDMOracle runs a derive.py command with ops on its standard input: its
// output, and whether it crashed (then out is what it printed before).
func runDMOracle(t testing.TB, cmd *exec.Cmd, archive, ops string) (out string, crashed bool) {
	t.Helper()
	cmd.Stdin = strings.NewReader(ops)
	var outb, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() < 0 {
			t.Logf("oracle crashed; comparing what it printed")
			return outb.String(), true
		}
		t.Fatalf("oracle %s: %v\n%s", archive, err, errb.String())
	}
	return outb.String(), false
}

// dmScript runs ops on a replay context with the derived metrics of
// config and prints what derive.py prints.
func dmScript(t testing.TB, archive, config, names, ops string, opts derive.EvalOptions) string {
	t.Helper()
	return dmScriptIn(t, derive.Dialect603, archive, config, names, ops, opts)
}

// dmScriptIn is dmScript in dialect d.
func dmScriptIn(t testing.TB, d derive.Dialect, archive, config, names, ops string, opts derive.EvalOptions) string {
	t.Helper()
	var b strings.Builder
	reg := derive.NewRegistry(d)
	reg.RegisterEventMetrics()
	n := reg.LoadConfigData("derived.conf", []byte(config), io.Discard)
	fmt.Fprintf(&b, "load %d\n", n)
	c, err := replay.Open(archive)
	if err != nil {
		fmt.Fprintf(&b, "open err %d\n", archiveCode(err))
		return b.String()
	}
	defer c.Close()
	c.UseDerived(reg, opts)
	var pmids []pmapi.PMID
	types := map[pmapi.PMID]pmapi.Type{}
	for _, name := range strings.Split(names, ",") {
		p, err := c.LookupName(name)
		if err != nil {
			fmt.Fprintf(&b, "name %s err %d\n", name, archiveCode(err))
			continue
		}
		fmt.Fprintf(&b, "name %s %s\n", name, p)
		pmids = append(pmids, p)
		d, err := c.Desc(p)
		if err != nil {
			fmt.Fprintf(&b, "desc %s err %d\n", p, archiveCode(err))
			continue
		}
		types[p] = d.Type
		u := d.Units
		fmt.Fprintf(&b, "desc %s %d %d %d %d,%d,%d,%d,%d,%d\n", p, d.Type, uint32(d.InDom), d.Sem,
			u.DimSpace, u.DimTime, u.DimCount, u.ScaleSpace, u.ScaleTime, u.CountScale())
	}
	runOps(t, &b, c, pmids, ops, func(res *pmapi.Result) { dmShow(&b, res, types) }, nil)
	return b.String()
}

func dmShow(b *strings.Builder, res *pmapi.Result, types map[pmapi.PMID]pmapi.Type) {
	fmt.Fprintf(b, "F %d.%09d %d\n", res.Timestamp.Sec, res.Timestamp.Nsec, len(res.VSets))
	for _, vs := range res.VSets {
		vf := vs.ValFmt
		if vs.NumVal <= 0 {
			vf = 0
		}
		fmt.Fprintf(b, " %s %d %d\n", vs.PMID, vs.NumVal, vf)
		if vs.NumVal <= 0 {
			continue
		}
		for i := range vs.Values {
			fmt.Fprintf(b, "  %d %s\n", vs.Values[i].Inst, dmValue(types[vs.PMID], &vs.Values[i]))
		}
	}
}

// dmCFloat is C's %.17g, with C's spelling of infinities and NaN, then
// "/" and the bits in hex.
func dmCFloat(f float64, bits string) string {
	var s string
	switch {
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	case f != f:
		s = "nan"
	default:
		s = string(pmapi.AppendFloatG(nil, f, 17))
	}
	return s + "/" + bits
}

func dmValue(t pmapi.Type, v *pmapi.Value) string {
	if v.Block == nil {
		switch t {
		case pmapi.TypeU32:
			return strconv.FormatUint(uint64(uint32(v.Insitu)), 10)
		case pmapi.TypeFloat:
			u := uint32(v.Insitu)
			return dmCFloat(float64(math.Float32frombits(u)), fmt.Sprintf("%08x", u))
		}
		return strconv.FormatInt(int64(v.Insitu), 10)
	}
	b := v.Block
	switch t {
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		if len(b) != 8 {
			return fmt.Sprintf("?%d:%x", v.BlockType, b)
		}
		u := binary.BigEndian.Uint64(b)
		switch t {
		case pmapi.Type64:
			return strconv.FormatInt(int64(u), 10)
		case pmapi.TypeU64:
			return strconv.FormatUint(u, 10)
		}
		return dmCFloat(math.Float64frombits(u), fmt.Sprintf("%016x", u))
	case pmapi.TypeFloat:
		if len(b) != 4 {
			return fmt.Sprintf("?%d:%x", v.BlockType, b)
		}
		u := binary.BigEndian.Uint32(b)
		return dmCFloat(float64(math.Float32frombits(u)), fmt.Sprintf("%08x", u))
	case pmapi.TypeString:
		return fmt.Sprintf("s:%x", b)
	}
	return fmt.Sprintf("b%d:%x", v.BlockType, b)
}

// dmCompare runs both and reports the first difference.
func dmCompare(t *testing.T, archive, config, names, ops string) bool {
	t.Helper()
	want, crashed := runDerivedOracle(t, archive, config, names, ops)
	got := dmScript(t, archive, config, names, ops, derive.EvalOptions{Literal: true})
	return dmDiff(t, &dm603, "libpcp", archive, config, names, ops, want, got, crashed)
}

// dmCounts count the oracle comparisons of one libpcp.
type dmCounts struct{ compared, matched, lines atomic.Int64 }

var dm603 dmCounts

// dmDiff compares what libpcp (who) printed with what pcpkit did, and
// reports the first difference (saving both in $DM_SAVE when set).
func dmDiff(t *testing.T, n *dmCounts, who, archive, config, names, ops, want, got string, crashed bool) bool {
	t.Helper()
	if crashed {
		// compare what libpcp printed before it died
		n := strings.Count(want, "\n")
		if gl := strings.SplitAfter(got, "\n"); len(gl) > n {
			got = strings.Join(gl[:n], "")
		}
	}
	n.compared.Add(1)
	n.lines.Add(int64(strings.Count(want, "\n")))
	if want == got {
		n.matched.Add(1)
		return true
	}
	if dir := os.Getenv("DM_SAVE"); dir != "" {
		os.WriteFile(filepath.Join(dir, "want"), []byte(want), 0o644)
		os.WriteFile(filepath.Join(dir, "got"), []byte(got), 0o644)
		os.WriteFile(filepath.Join(dir, "ops"), []byte(ops), 0o644)
		os.WriteFile(filepath.Join(dir, "config"), []byte(config), 0o644)
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	lo := max(i-10, 0)
	ctx := func(l []string) string { return strings.Join(l[lo:min(i+6, len(l))], "\n") }
	t.Errorf("%s [%s]: %s and pcpkit differ at line %d\nconfig:\n%s--- %s:\n%s\n--- pcpkit:\n%s\n--- ops:\n%s",
		archive, names, who, i+1, config, who, ctx(wl), ctx(gl), ops)
	return false
}

// dmOps is a script visiting an archive in every mode: FORW from the
// start, BACK from the end, INTERP forwards from the start and backwards
// from the end with interval step (ns), n fetches each.
func dmOps(t testing.TB, archive string, step int64, n int) string {
	t.Helper()
	c, err := replay.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := c.Start()
	e, err := c.End()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mode forw %d %d 0 0\nfetch %d\n", s.Sec, s.Nsec, n)
	fmt.Fprintf(&b, "mode back %d %d 0 0\nfetch %d\n", e.Sec, e.Nsec, n)
	fmt.Fprintf(&b, "mode interp %d %d %d %d\nfetch %d\n", s.Sec, s.Nsec, step/1e9, step%1e9, n)
	fmt.Fprintf(&b, "mode interp %d %d %d %d\nfetch %d\n", e.Sec, e.Nsec, -step/1e9, -step%1e9, n)
	return b.String()
}

// dmCase is one oracle comparison: an archive (relative to the shared QA
// or made archives), a configuration, the names fetched together.
type dmCase struct {
	archive string
	config  string
	names   string
	step    int64 // interpolation interval, ns (default 1s)
	n       int   // fetches per mode (default 12)
}

var dmCases = []dmCase{
	{archive: "qa/instant-1", config: "my.a = sample.seconds * 2\nmy.r = rate(sample.seconds)\nmy.d = delta(disk.dev.read)\nmy.n = my.a + 1\n",
		names: "my.a,my.r,my.d,my.n,sample.seconds"},
	// arithmetic, promotion, scale conversion, unary minus
	{archive: "sample3", config: `a.add = sample.mirage + sample.mirage
a.mix = sample.mirage * 2 - 1
a.div = sample.mirage / 3
a.zero = 0 / sample.mirage
a.neg = -sample.seconds
a.negf = -sample.float.bin
a.fl = sample.float.bin * sample.step
a.dbl = sample.float.ten + sample.double.million
a.bc = sample.float.bin * sample.float.ten - sample.float.bin
a.u = sample.seconds - sample.seconds * 3
a.cnt = sample.ulong.count.kilo * 1000
`, names: "a.add,a.mix,a.div,a.zero,a.neg,a.negf,a.fl,a.dbl,a.bc,a.u,a.cnt"},
	{archive: "sample3", config: `a.sc = sample.mirage + mkconst(1, type=32, semantics=instant, units="Mbyte/sec")
a.sc2 = mkconst(3, type=u64, units="Kbyte/hour") * sample.mirage
a.sc3 = sample.milliseconds + sample.seconds
a.sc4 = sample.seconds - sample.milliseconds
a.m64 = mkconst(500000000, type=64) + sample.step
a.dflt = 2.5 * sample.step
`, names: "a.sc,a.sc2,a.sc3,a.sc4,a.m64,a.dflt"},
	// relational and boolean
	{archive: "sample3", config: `r.gt = sample.mirage > 100
r.le = sample.float.bin <= 500
r.eq = sample.float.bin == 300
r.ne = sample.step != 0
r.and = sample.float.bin && sample.double.million
r.or = sample.float.ten || 0
r.not = !(sample.mirage > 100)
r.not2 = !sample.step
r.mix = sample.float.bin > 200 && sample.float.bin < 700 || sample.float.bin == 900
`, names: "r.gt,r.le,r.eq,r.ne,r.and,r.or,r.not,r.not2,r.mix"},
	// ternary
	{archive: "sample3", config: `t.s = sample.step > 0 ? sample.mirage : -sample.mirage
t.v = sample.mirage > 100 ? sample.mirage : -sample.mirage
t.b = sample.float.bin > 450 ? sample.float.bin : sample.float.ten
t.c = sample.step > 0 ? 1 : 2
t.str = sample.step > 0 ? sample.string.hullo : sample.string.null
`, names: "t.s,t.v,t.b,t.c,t.str"},
	// instances: [name], matchinst, scalar
	{archive: "sample3", config: `i.one = sample.float.bin[bin-200]
i.none = sample.float.bin[bin-301]
i.m = matchinst(/^bin-[1-3]/, sample.float.bin)
i.nm = matchinst(!/00$/, sample.float.bin)
i.inv = matchinst(!/^bin-[1-3]/, sample.float.bin)
i.mir = matchinst(/m-0[12]/, sample.mirage)
i.sc = scalar(sample.float.bin[bin-700])
i.sca = scalar(sample.float.bin)
i.scm = scalar(sample.mirage) + 1
`, names: "i.one,i.none,i.m,i.nm,i.inv,i.mir,i.sc,i.sca,i.scm"},
	// functions
	{archive: "sample3", config: `f.avg = avg(sample.float.bin)
f.cnt = count(sample.float.bin)
f.sum = sum(sample.float.bin)
f.max = max(sample.float.bin)
f.min = min(sample.float.bin)
f.cm = count(sample.mirage)
f.mm = max(sample.mirage)
f.sm = sum(sample.mirage)
f.am = avg(sample.mirage)
f.nm = min(sample.mirage)
f.inst = instant(sample.seconds)
f.def = defined(sample.seconds)
f.undef = defined(no.such.metric)
f.cnov = count(sample.bad.novalues)
f.bare = sample.string.hullo
f.bare2 = sample.float.bin
`, names: "f.avg,f.cnt,f.sum,f.max,f.min,f.cm,f.mm,f.sm,f.am,f.nm,f.inst,f.def,f.undef,f.cnov,f.bare,f.bare2"},
	// rescale and mkconst
	{archive: "sample3", config: `s.r1 = rescale(sample.mirage, "Mbyte/hour")
s.r2 = rescale(sample.milliseconds, "sec")
s.r3 = rescale(sample.seconds, "millisec")
s.r4 = rescale(sample.ulong.count.kilo, "count/Kbyte")
s.r5 = rescale(sample.float.bin, "count x 10^2")
s.k1 = mkconst(42, type=double, semantics=discrete)
s.k2 = -mkconst(7, type=32)
s.k3 = mkconst(1.75, type=float, units="Kbyte")
`, names: "s.r1,s.r2,s.r3,s.r4,s.r5,s.k1,s.k2,s.k3"},
	// delta and rate, counter wrap
	{archive: "sample3", config: `h.dl = delta(sample.wrap.long)
h.dul = delta(sample.wrap.ulong)
h.rl = rate(sample.wrap.long)
h.rul = rate(sample.wrap.ulong)
h.rms = rate(sample.milliseconds)
h.rs = rate(sample.seconds)
h.df = delta(sample.float.bin)
h.dm = delta(sample.mirage)
h.dd = delta(sample.double.million)
h.ratio = delta(sample.milliseconds) / delta(sample.seconds)
`, names: "h.dl,h.dul,h.rl,h.rul,h.rms,h.rs,h.df,h.dm,h.dd,h.ratio"},
	{archive: "basic3", config: `b.load = kernel.all.load[1 minute]
b.load1 = kernel.all.load[1]
b.lm = matchinst(/^1/, kernel.all.load)
b.ratio = delta(network.interface.in.bytes) / delta(kernel.all.pswitch)
b.io = rate(disk.dev.read)
b.cpu = rate(kernel.all.cpu.user)
b.pct = 100 * mem.util.free / hinv.physmem
b.sum = sum(network.interface.in.bytes)
b.dsum = delta(disk.dev.read) + delta(disk.dev.read)
`, names: "b.load,b.load1,b.lm,b.ratio,b.io,b.cpu,b.pct,b.sum,b.dsum"},
	{archive: "synth3", config: `y.m = synth.multi * 2
y.d = delta(synth.ctrms)
y.r = rate(synth.ctrms)
y.r32 = rate(synth.ctr32)
y.d32 = delta(synth.ctr32)
y.a = avg(synth.multi)
y.i = synth.inst / synth.disc
`, names: "y.m,y.d,y.r,y.r32,y.d32,y.a,y.i"},
	// the archive's own names win over definitions
	{archive: "derived3", config: `my.cpu.busy = 42
my.x = my.cpu.busy + 1
my.y = rate(my.cpu.busy)
`, names: "my.cpu.busy,my.x,my.y,my.free.pct"},
	{archive: "qa/sample_expr", config: `e.a = sample.mirage + sample.mirage_longlong
e.b = sample.scale_step.bytes_up / sample.scale_step.time_up_secs
e.c = sample.byte_ctr + sample.kbyte_ctr
e.d = rate(sample.byte_ctr)
e.e = sample.byte_rate + sample.byte_rate_perhour
e.f = sample.scale_step.time_up_nanosecs + sample.scale_step.time_up_secs
`, names: "e.a,e.b,e.c,e.d,e.e,e.f"},
	{archive: "qa/bad-derived", config: `n.in = rate(network.interface.in.bytes)
n.tot = network.interface.in.bytes + network.interface.out.bytes
n.util = delta(network.interface.in.bytes) / network.interface.baudrate
`, names: "n.in,n.tot,n.util"},
	{archive: "qa/derive", config: `v.a = sample.derived.a + 1
v.b = sample.colour * sample.derived.b
v.aw = disk.dev.await * 2
v.r = rate(disk.dev.total_rawactive)
v.d = delta(disk.dev.total)
`, names: "v.a,v.b,v.aw,v.r,v.d"},
	// ternary rules: singular guard over set-valued operands, per-instance
	// guards, singular and set-valued branches
	{archive: "qa/ok-foo_v3", config: `t.a = sample.drift > 0 ? sample.bin : -sample.bin
t.b = sample.colour > 150 ? sample.colour : sample.drift
t.c = sample.drift > 0 ? sample.drift : sample.colour
t.d = sample.bin > 500 ? 1 : sample.bin
t.e = sample.colour > 150 && sample.drift > 0 ? sample.colour * 2 : sample.colour
t.f = sample.bin > 300 ? sample.bin : mkconst(7, type=32, semantics=instant)
t.g = (sample.drift > 0 ? sample.drift : -sample.drift) + sample.bin
t.h = delta(sample.seconds) > 0 ? sample.bin : -sample.bin
t.l = sample.lights
t.r = rate(sample.seconds)
t.m = matchinst(!/^bin-[2-4]00$/, sample.bin) * sample.drift
t.n = count(sample.colour) + sum(sample.bin)
`, names: "t.a,t.b,t.c,t.d,t.e,t.f,t.g,t.h,t.l,t.r,t.m,t.n", step: 750e6, n: 30},
	{archive: "qa/changeinst", config: `c.a = irix.network.interface.total.packets + 1
c.d = delta(irix.network.interface.total.packets)
c.r = rate(irix.network.interface.total.packets)
c.b = sample.bin * 2
c.db = delta(sample.bin)
c.m = max(sample.bin)
c.s = scalar(sample.bin)
c.ms = rate(sample.milliseconds)
`, names: "c.a,c.d,c.r,c.b,c.db,c.m,c.s,c.ms", step: 5e9, n: 40},
	// matchinst() over changing instances for long enough to compact its
	// cache
	{archive: "qa/changeinst", config: `c.mi = matchinst(/^[ef]/, irix.network.interface.total.packets)
c.nm = matchinst(!/^lo/, irix.network.interface.total.packets)
c.sb = sample.bin[bin-500]
`, names: "c.mi,c.nm,c.sb", step: 2e9, n: 160},
	{archive: "qa/dyninsts", config: `y.d = delta(disk.dev.read) + delta(disk.dev.write)
y.r = rate(disk.dev.read) / rate(disk.dev.write)
y.u = mem.util.free * 100 / (mem.util.free + mem.util.used)
y.c = count(disk.dev.read)
y.i = instant(disk.dev.read) - instant(disk.dev.write)
`, names: "y.d,y.r,y.u,y.c,y.i", step: 2500e6, n: 30},
	{archive: "qa/ok-mv-bar", config: `z.r = rate(sampledso.milliseconds)
z.b = sampledso.bin + sampledso.dupnames.two.bin
z.m = matchinst(/^bin-[1-4]/, sampledso.bin)
`, names: "z.r,z.b,z.m", step: 3e9, n: 25},
	{archive: "basic3", config: `l.full = kernel.all.load[5 minute]
l.word = kernel.all.load[15]
l.re = matchinst(/^(1|15)$/, kernel.all.load)
l.sp = matchinst(/minute/, kernel.all.load)
l.nsp = matchinst(!/minute/, kernel.all.load)
l.all = matchinst(/.*/, kernel.all.load) * 2
`, names: "l.full,l.word,l.re,l.sp,l.nsp,l.all", step: 300e6, n: 40},
	// ?: whose guard and operands have different instances
	{archive: "sample3", config: `q.a = matchinst(/m-0[01]/, sample.mirage) > 0 ? sample.mirage : -sample.mirage
q.b = sample.mirage > 0 ? matchinst(/m-0[12]/, sample.mirage) : matchinst(/m-00/, sample.mirage)
q.d = matchinst(!/m-01/, sample.mirage) > 0 ? 1 : 0
q.e = sample.float.bin[bin-200] > 0 ? sample.float.bin : -sample.float.bin
`, names: "q.a,q.b,q.d,q.e", n: 14},
	// the same metric twice in a fetch (evaluated twice, as libpcp does),
	// the anonymous event metrics, a derived operand of a derived metric
	{archive: "sample3", config: `d.r = rate(sample.seconds)
d.d = delta(sample.wrap.ulong)
d.x = sample.float.bin * 2
d.n = d.x + d.x
`, names: "d.r,d.d,d.r,d.x,d.d,event.flags,event.missed,d.n,d.x"},
	// a set of archives (a directory), across the <mark>s between them
	{archive: "qa/multi_v3", config: `m.r = rate(disk.dev.read)
m.d = delta(disk.dev.blkread) / delta(disk.dev.read)
m.q = proc.runq.runnable + proc.runq.blocked
m.t = max(disk.dev.write)
`, names: "m.r,m.d,m.q,m.t", step: 30e9, n: 40},
	{archive: "qa/log-derived", config: `w.a = mem.util.allcache + 1
`, names: "w.a"},
}

func dmArchive(t testing.TB, name string) string {
	t.Helper()
	if a, ok := strings.CutPrefix(name, "qa/"); ok {
		return filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), a)
	}
	return filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), name)
}

func TestDerivedOracle(t *testing.T) {
	dmOracle(t)
	for i, c := range dmCases {
		c := c
		t.Run(fmt.Sprintf("%d-%s", i, filepath.Base(c.archive)), func(t *testing.T) {
			a := dmArchive(t, c.archive)
			var msgs strings.Builder
			reg := derive.NewRegistry(derive.Dialect603)
			reg.LoadConfigData("check", []byte(c.config), &msgs)
			if msgs.Len() > 0 {
				t.Errorf("the configuration has errors:\n%s", msgs.String())
			}
			step, n := c.step, c.n
			if step == 0 {
				step = 1e9
			}
			if n == 0 {
				n = 12
			}
			dmCompare(t, a, c.config, c.names, dmOps(t, a, step, n))
			// and again on another interpolation grid
			dmCompare(t, a, c.config, c.names, dmOps(t, a, step*7/20+1e6, 2*n))
		})
	}
	t.Logf("derived oracle: %d comparisons, %d identical, %d lines of libpcp output", dm603.compared.Load(), dm603.matched.Load(), dm603.lines.Load())
}
