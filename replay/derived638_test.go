package replay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// The derived metric oracle again, with libpcp 6.3.8: derive.py runs with
// the python3-pcp of the PCP 6.3.8 chroot (testenv.Real638) over a copy
// of the archive inside it, and pcpkit's replay context evaluates the
// same configuration in DialectCurrent.

var dm638 dmCounts

// chrootArchive copies an archive (a base name, or a directory of
// archives) into dir, a directory of the chroot, and returns its name
// there (relative to dir).
func chrootArchive(t testing.TB, archive, dir string) string {
	t.Helper()
	if st, err := os.Stat(archive); err == nil && st.IsDir() {
		sub := filepath.Join(dir, filepath.Base(archive))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(archive)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(archive, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Base(archive)
	}
	testenv.CopyArchive(t, archive, dir)
	return filepath.Base(archive)
}

// runDerivedOracle638 runs derive.py in the chroot.
func runDerivedOracle638(t testing.TB, archive, config, names, ops string) (out string, crashed bool) {
	t.Helper()
	c := testenv.Real638(t)
	host, inside := c.TempDir(t)
	script, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "oracle", "derive.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(host, "derive.py"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(host, "derived.conf"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	name := chrootArchive(t, archive, host)
	// as for 6.0.3, libpcp runs with a free(3) that frees nothing and a
	// malloc(3) of fresh (zeroed) memory, so that where it reads memory it
	// never wrote (the holes novalue() leaves in ?:) it reads zeros
	var env []string
	if so := noFree638(t); so != "" {
		b, err := os.ReadFile(so)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(host, "nofree.so"), b, 0o755); err != nil {
			t.Fatal(err)
		}
		env = append(env, "LD_PRELOAD="+inside+"/nofree.so")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return runDMOracle(t, c.CommandContext(ctx, inside, env, "python3", "derive.py", name, "derived.conf", names), archive, ops)
}

var (
	noFree638Once sync.Once
	noFree638Path string
)

// noFree638 builds testdata/oracle/nofree.c (on the host: the chroot has
// no compiler; the object runs with the chroot's newer C library), or
// returns "" when it cannot.
func noFree638(t testing.TB) string {
	noFree638Once.Do(func() {
		noFree638Path = buildNoFree(filepath.Join(testenv.RepoRoot(t), "testdata", "oracle", "nofree.c"))
	})
	return noFree638Path
}

// dmCompare638 runs both and reports the first difference.
func dmCompare638(t *testing.T, archive, config, names, ops string) bool {
	t.Helper()
	want, crashed := runDerivedOracle638(t, archive, config, names, ops)
	got := dmScriptIn(t, derive.DialectCurrent, archive, config, names, ops, derive.EvalOptions{Literal: true})
	return dmDiff(t, &dm638, "libpcp 6.3.8", archive, config, names, ops, want, got, crashed)
}

// dm638Cases are the constructs of PCP 6.3.8's pmRegisterDerived(3), over
// archives with instance changes, marks, several volumes and counters that
// wrap or go backwards.
var dm638Cases = []dmCase{
	// functions of expressions
	{archive: "qa/ok-foo", config: `f.r = rate(sample.seconds + sample.seconds)
f.d = delta(sample.bin * 2)
f.i = instant(sample.seconds - 1)
f.rr = rate(rate(sample.seconds))
f.dm = delta(matchinst(/^bin-[1-3]/, sample.bin) + 0)
f.ds = delta(scalar(sample.bin))
f.di = delta(sample.bin[bin-400] + sample.bin[bin-500])
f.rc = rate(sample.colour)
f.dd = delta(delta(sample.seconds))
f.k = delta(3)
f.x = delta(sample.bin[bin-400])
f.df = rate(defined(sample.bin))
f.dc = delta(count(sample.bin))
f.max = max(sample.bin)
f.min = min(sample.colour)
f.avg = avg(sample.bin)
f.sum = sum(sample.colour)
`, names: "f.r,f.d,f.i,f.rr,f.dm,f.ds,f.di,f.rc,f.dd,f.k,f.x,f.df,f.dc,f.max,f.min,f.avg,f.sum,sample.bin"},
	// the ternary operator: by position, novalue() (where libpcp's holes
	// come last), statically evaluated guards
	{archive: "qa/ok-foo", config: `t.a = sample.drift > 0 ? sample.bin : -sample.bin
t.b = sample.bin < 500 ? sample.bin : novalue()
t.c = sample.bin >= 500 ? novalue() : sample.bin * 2
t.d = sample.drift > 0 ? novalue() : sample.drift
t.e = defined(sample.bin) ? sample.bin : no.such
t.f = defined(no.such) ? no.such : sample.colour
t.g = !defined(no.a) || !defined(no.b) ? novalue() : no.a + no.b
t.h = defined(sample.colour) ? count(sample.colour) : novalue()
t.i = 0 ? no.such : sample.drift
t.j = sample.colour > 150 ? sample.colour : 0
t.k = sample.bin > 450 ? sample.bin : mkconst(7, type=u32, semantics=instant)
t.l = sample.drift > 0 ? sample.drift : novalue(type=32)
`, names: "t.a,t.b,t.c,t.d,t.e,t.f,t.g,t.h,t.i,t.j,t.k,t.l"},
	// mkconst(..., meta=...), constants with an instance domain
	{archive: "qa/ok-foo", config: `k.a = mkconst(1, meta=sample.bin)
k.b = sample.bin + mkconst(1, meta=sample.bin)
k.c = mkconst(2.5, meta=sample.drift) * sample.drift
k.d = mkconst(3, meta=sample.seconds, semantics=instant)
k.e = mkconst(4, meta=sample.colour, type=u64)
`, names: "k.a,k.b,k.c,k.d,k.e"},
	// instance changes: rate() and delta() of expressions, matchinst()
	{archive: "qa/changeinst", config: `c.r = rate(irix.network.interface.total.packets * 2)
c.d = delta(irix.network.interface.total.packets + 1)
c.m = rate(matchinst(/^[ef]/, irix.network.interface.total.packets) * 1)
c.x = rate(irix.network.interface.total.packets[ec0])
c.b = delta(sample.bin) > 0 ? sample.bin : novalue()
c.k = mkconst(9, meta=sample.bin)
`, names: "c.r,c.d,c.m,c.x,c.b,c.k", n: 10},
	// counters that wrap: 6.3.8 drops a decreasing counter's rate (but
	// for 32-bit signed ones)
	{archive: "qa/wrap", config: `w.r = rate(sample.wrap.long)
w.d = delta(sample.wrap.long)
w.e = rate(sample.wrap.long + sample.wrap.long)
`, names: "w.r,w.d,w.e"},
	{archive: "sample3", config: `w.rl = rate(sample.wrap.long)
w.rul = rate(sample.wrap.ulong)
w.rull = rate(sample.wrap.ulonglong)
w.rs = rate(sample.wrap.ulong + sample.wrap.ulong)
w.ri = rate(instant(sample.wrap.ulong))
w.dul = delta(sample.wrap.ulong)
`, names: "w.rl,w.rul,w.rull,w.rs,w.ri,w.dul"},
	{archive: "qa/buggy_archive", config: `b.r = rate(disk.dev.read)
b.s = rate(disk.dev.read + disk.dev.write)
b.a = rate(kernel.all.cpu.user)
`, names: "b.r,b.s,b.a"},
	// several volumes
	{archive: "qa/ok-mv-foo", config: `v.r = rate(sample.seconds * 3)
v.d = delta(sample.bin) + 1
v.t = sample.bin > 200 ? sample.bin : novalue()
`, names: "v.r,v.d,v.t", step: 750e6, n: 20},
	// marks
	{archive: "qa/gap2", config: `g.r = rate(sample.milliseconds + sample.milliseconds)
g.d = delta(sample.bin)
`, names: "g.r,g.d", step: 2e9, n: 30},
	// a set of archives
	{archive: "qa/multi_v3", config: `m.r = rate(disk.dev.read + disk.dev.write)
m.d = delta(disk.dev.blkread) / delta(disk.dev.read)
m.t = defined(disk.dev.read) ? disk.dev.read : novalue()
`, names: "m.r,m.d,m.t", step: 30e9, n: 40},
	// derived metrics the archive logged
	{archive: "qa/derive", config: `l.a = rate(sample.derived.a + 1)
l.b = defined(sample.derived.b) ? sample.derived.b : novalue()
`, names: "l.a,l.b"},
	// strings through ?:, a guard that has no values, guards with and
	// without instances
	{archive: "sample3", config: `q.s = sample.step > 0 ? sample.string.hullo : sample.string.null
q.n = sample.step > 0 ? sample.string.hullo : novalue()
q.b = sample.float.bin * 2
q.g = no.such > 1 ? sample.float.bin : sample.float.bin
q.i = sample.float.bin > 300 ? 1 : 0
q.m = sample.mirage > 100 ? sample.mirage : -sample.mirage
q.e = event.flags
`, names: "q.s,q.n,q.b,q.g,q.i,q.m,q.e"},
	// scalar, rescale, instance selection on expressions
	{archive: "sample3", config: `s.sc = scalar(sample.float.bin * 2)
s.r = rescale(rate(sample.milliseconds), "count")
s.i = (sample.float.bin + sample.float.bin)[bin-300]
s.m = matchinst(!/00$/, sample.mirage * 2)
s.ms = scalar(matchinst(/^m-01/, sample.mirage))
`, names: "s.sc,s.r,s.i,s.m,s.ms"},
}

// dmOpsRecords visits the archive's records: n fetches FORW from the
// start, n BACK from the end. (libpcp 6.3.8 interpolates differently from
// 6.0.3, whose interpolation pcpkit's replay reproduces, so INTERP is not
// compared with 6.3.8.)
func dmOpsRecords(t testing.TB, archive string, n int) string {
	t.Helper()
	ops := dmOps(t, archive, 1e9, n)
	i := strings.Index(ops, "mode interp")
	return ops[:i]
}

func TestDerivedOracle638(t *testing.T) {
	testenv.Real638(t)
	for i, c := range dm638Cases {
		c := c
		t.Run(fmt.Sprintf("%d-%s", i, filepath.Base(c.archive)), func(t *testing.T) {
			a := dmArchive(t, c.archive)
			n := c.n
			if n == 0 {
				n = 12
			}
			dmCompare638(t, a, c.config, c.names, dmOpsRecords(t, a, 3*n))
		})
	}
	t.Logf("derived oracle 6.3.8: %d comparisons, %d identical, %d lines of libpcp 6.3.8 output", dm638.compared.Load(), dm638.matched.Load(), dm638.lines.Load())
}

// pminfo638Configs are configurations for pminfo -f with semantic errors
// (which pminfo prints as it looks the descriptors up).
var pminfo638Configs = []dmCase{
	{archive: "qa/ok-foo", config: `e.a = sample.seconds + sample.bin
e.b = no.such + 1
e.c = delta(sample.bin + sample.seconds)
e.d = sample.bin > 1 ? sample.bin : sample.seconds
e.e = defined(no.such) ? no.such : sample.bin
e.f = sample.bin > 1 ? no.such : sample.bin
e.g = sample.bin > 1 ? novalue(units="Kbyte") : sample.seconds
e.h = sample.colour
e.i = e.h + 1
e.j = mkconst(1, meta=sample.bin)
e.k = rate(instant(sample.lights))
e.l = matchinst(/x/, sample.seconds)
e.m = rate(sample.bin * sample.bin)
`},
}

// pminfo638Format undoes what pminfo 6.3.8 prints differently from 6.0.3
// (whose output pminfoValues makes) for reasons other than derived
// metrics: an error value's line is not indented, pmErrStr says "PCP
// archive" for 6.0.3's "PCP archive log", and an instance with no name
// gets a line of its own rather than "???".
var pminfo638Format = replacers{strings.NewReplacer(
	"\nError: ", "\n    Error: ",
	"identifier not defined in the PCP archive\n", "identifier not defined in the PCP archive log\n"),
	regexpReplacer{regexp.MustCompile(`pmNameIndom: indom=[0-9.]+ inst=(-?[0-9]+): Unknown or illegal instance identifier\n    inst \[-?[0-9]+\]`), "    inst [$1 or ???]"},
}

type replacers []interface{ Replace(string) string }

func (rs replacers) Replace(s string) string {
	for _, r := range rs {
		s = r.Replace(s)
	}
	return s
}

type regexpReplacer struct {
	re   *regexp.Regexp
	repl string
}

func (r regexpReplacer) Replace(s string) string { return r.re.ReplaceAllString(s, r.repl) }

func copyTo(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestDerivedPminfo638 compares PCP_DERIVED_CONFIG=FILE pminfo -a ARCHIVE
// -f NAMES of the real PCP 6.3.8 with the same from a replay context in
// DialectCurrent: semantic errors, descriptors that fail, and the values
// of one fetch at the start of the archive (libpcp with fresh memory, as
// for TestDerivedOracle638, and EvalOptions.Literal).
func TestDerivedPminfo638(t *testing.T) {
	c638 := testenv.Real638(t)
	n, same := 0, 0
	for i, c := range append(append([]dmCase(nil), dm638Cases...), pminfo638Configs...) {
		archive := dmArchive(t, c.archive)
		host, inside := c638.TempDir(t)
		name := chrootArchive(t, archive, host)
		if err := os.WriteFile(filepath.Join(host, "derived.conf"), []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range strings.Split(c.config, "\n") {
			if n, _, ok := strings.Cut(l, "="); ok {
				names = append(names, strings.TrimSpace(n))
			}
		}
		env := []string{"PCP_DERIVED_CONFIG=" + inside + "/derived.conf"}
		if so := noFree638(t); so != "" {
			copyTo(t, so, filepath.Join(host, "nofree.so"))
			env = append(env, "LD_PRELOAD="+inside+"/nofree.so")
		}
		wout, werr, rc := c638.Run(t, inside, env, "pminfo", append([]string{"-a", name, "-f"}, names...)...)
		if rc < 0 {
			t.Logf("case %d (%s): the real pminfo 6.3.8 crashed: not compared", i, c.archive)
			continue
		}
		wout = []byte(pminfo638Format.Replace(string(wout)))
		gout, gerr := pminfoValuesIn(t, derive.DialectCurrent, derive.EvalOptions{Literal: true}, archive, "derived.conf", c.config, names)
		n++
		if samePminfo(t, fmt.Sprintf("case %d (%s): pminfo 6.3.8 -f", i, c.archive), string(wout), string(werr), gout, gerr) {
			same++
		}
	}
	t.Logf("pminfo 6.3.8 -f: %d configurations compared, %d identical", n, same)
}
