package pmval

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// realCrashes reports whether the real pmval dies of a signal with args
// (libpcp 6.0.3 crashes on a few derived expressions, e.g. scalar() over
// several instances in pmval): those runs are not compared.
func realCrashes(t *testing.T, dir string, args []string, env ...string) bool {
	t.Helper()
	cmd := exec.Command(testenv.RealTool(t, "pmval"), args...)
	cmd.Dir = dir
	cmd.Env = testenv.RealEnv(env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() < 0 {
		t.Logf("the real pmval crashes (%v): pmval %s: not compared", err, strings.Join(args, " "))
		return true
	}
	return false
}

// Derived metrics in pmval (--derived=FILE and $PCP_DERIVED_CONFIG),
// compared with the real pmval: every construct libpcp 6.0.3 accepts, over
// archives, in interpolated (-t) and raw (-r) and record (-U) modes and in
// time windows.

// derivedConfigs are configuration files by archive, and the metrics of
// each to report.
var derivedConfigs = []struct {
	archive string // in ../shared/pcp-made-archives, or qa/NAME
	config  string
	metrics []string
}{
	{"sample3", `d.add = sample.mirage + sample.mirage
d.mix = sample.mirage * 2 - 1
d.div = sample.mirage / 3
d.neg = -sample.seconds
d.fl = sample.float.bin * sample.step
d.dbl = sample.float.ten + sample.double.million
d.sc = sample.mirage + mkconst(1, type=32, semantics=instant, units="Mbyte/sec")
d.sc3 = sample.milliseconds + sample.seconds
d.gt = sample.mirage > 100
d.and = sample.float.bin > 200 && sample.float.bin < 700
d.not = !(sample.mirage > 100)
d.t = sample.mirage > 100 ? sample.mirage : -sample.mirage
d.tb = sample.float.bin > 450 ? sample.float.bin : sample.float.ten
d.one = sample.float.bin[bin-200]
d.m = matchinst(/^bin-[1-3]/, sample.float.bin)
d.nm = matchinst(!/00$/, sample.mirage)
d.sca = scalar(sample.float.bin)
d.avg = avg(sample.float.bin)
d.cnt = count(sample.mirage)
d.sum = sum(sample.float.bin)
d.inst = instant(sample.seconds)
d.def = defined(sample.seconds)
d.r1 = rescale(sample.mirage, "Mbyte/hour")
d.r2 = rescale(sample.milliseconds, "sec")
d.k = mkconst(42, type=double, semantics=discrete)
d.dl = delta(sample.wrap.long)
d.dul = delta(sample.wrap.ulong)
d.rul = rate(sample.wrap.ulong)
d.rms = rate(sample.milliseconds)
d.dm = delta(sample.mirage)
d.ratio = delta(sample.milliseconds) / delta(sample.seconds)
d.ctr = sample.seconds * 2
d.bad = sample.seconds + sample.mirage
d.str = sample.string.hullo
`, nil},
	{"basic3", `b.load = kernel.all.load[1 minute]
b.lm = matchinst(/^1/, kernel.all.load)
b.ratio = delta(network.interface.in.bytes) / delta(kernel.all.pswitch)
b.io = rate(disk.dev.read)
b.cpu = rate(kernel.all.cpu.user)
b.pct = 100 * mem.util.free / hinv.physmem
b.sum = sum(network.interface.in.bytes)
b.ctr = network.interface.in.bytes + network.interface.in.bytes
`, nil},
	{"synth3", `y.m = synth.multi * 2
y.d = delta(synth.ctrms)
y.r = rate(synth.ctrms)
y.r32 = rate(synth.ctr32)
y.a = avg(synth.multi)
y.max = max(synth.multi)
y.min = min(synth.multi)
y.sum = sum(synth.multi)
y.cnt = count(synth.multi)
y.i = synth.inst / synth.disc
`, nil},
	{"derived3", `my.cpu.busy = 42
my.x = my.cpu.busy + 1
`, nil},
	{"qa/sample_expr", `e.a = sample.mirage + sample.mirage_longlong
e.b = sample.scale_step.bytes_up / sample.scale_step.time_up_secs
e.c = sample.byte_ctr + sample.kbyte_ctr
e.d = rate(sample.byte_ctr)
e.e = sample.byte_rate + sample.byte_rate_perhour
`, nil},
	{"qa/bad-derived", `n.in = rate(network.interface.in.bytes)
n.tot = network.interface.in.bytes + network.interface.out.bytes
`, nil},
	{"qa/derive", `v.a = sample.derived.a + 1
v.aw = disk.dev.await * 2
v.r = rate(disk.dev.total_rawactive)
`, nil},
	{"qa/log-derived", `g.a = mem.util.allcache * 2
g.b = mem.util.bin * 3
g.c = sum(mem.util.bin)
mem.util.allcache = 7
`, nil},
	{"qa/instant-1", `i.r = rate(sample.seconds)
i.d = delta(disk.dev.read)
i.x = instant(disk.dev.read)
`, nil},
}

// metricsOf lists the names a configuration defines.
func metricsOf(config string) []string {
	var out []string
	for _, l := range strings.Split(config, "\n") {
		if name, _, ok := strings.Cut(l, "="); ok {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

func derivedArchive(t *testing.T, name string) string {
	t.Helper()
	if a, ok := strings.CutPrefix(name, "qa/"); ok {
		return filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), a)
	}
	return filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), name)
}

// TestDerivedInterop compares pmval --derived=FILE with the real pmval
// for every metric of derivedConfigs in several modes.
func TestDerivedInterop(t *testing.T) {
	testenv.RealTool(t, "pmval")
	modes := [][]string{{}, {"-r"}, {"-t", "0.5"}, {"-U"}, {"-t", "2", "-S", "+2", "-T", "+9"}, {"-X", "-f", "2", "-w", "14", "-O", "+3"}}
	n, same, crashed := 0, 0, 0
	archives := make([]string, len(derivedConfigs))
	for i, c := range derivedConfigs {
		archives[i] = derivedArchive(t, c.archive)
	}
	for i, c := range derivedConfigs {
		arch := archives[i]
		dir := t.TempDir()
		cfg := filepath.Join(dir, "derived.conf")
		if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, m := range metricsOf(c.config) {
			for _, mode := range modes {
				args := []string{"--derived=" + cfg}
				if len(mode) > 0 && mode[0] == "-U" {
					args = append(args, "-U", arch)
				} else {
					args = append(args, "-a", arch)
					args = append(args, mode...)
				}
				args = append(args, m)
				if realCrashes(t, dir, args) {
					crashed++
					continue
				}
				n++
				if compareReal(t, dir, args) {
					same++
				}
			}
		}
	}
	t.Logf("pmval --derived: %d runs compared with the real pmval, %d identical (%d more crashed the real pmval)", n, same, crashed)
}

// TestDerivedInteropEnv covers $PCP_DERIVED_CONFIG, errors in the files,
// a file that cannot be read, semantic errors and instance selection.
func TestDerivedInteropEnv(t *testing.T) {
	testenv.RealTool(t, "pmval")
	arch := derivedArchive(t, "sample3")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.conf", "my.x = sample.mirage * 2\nmy.r = rate(sample.seconds)\n")
	bad := write("bad.conf", "my.y = sample.step + 1\nmy.bad = 3 *\n# comment\nnot a definition\n")
	sem := write("sem.conf", "my.s = sample.seconds + sample.mirage\nmy.miss = no.such + 1\n")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	write("sub/a.conf", "my.z = sample.float.bin * 3\n")
	cases := []struct {
		env  []string
		args []string
	}{
		{nil, []string{"--derived=" + ok, "-a", arch, "my.x"}},
		{nil, []string{"--derived=" + bad, "-a", arch, "my.y"}},
		{nil, []string{"--derived=" + bad, "-a", arch, "my.bad"}},
		{nil, []string{"--derived=/no/such/file", "-a", arch, "my.x"}},
		{nil, []string{"--derived=" + ok + ":/no/such", "-a", arch, "my.x"}},
		{nil, []string{"--derived=" + ok + ":" + bad, "-a", arch, "my.r"}},
		{nil, []string{"--derived=" + sub, "-a", arch, "-i", "bin-200", "my.z"}},
		{nil, []string{"--derived=" + sem, "-a", arch, "my.s"}},
		{nil, []string{"--derived=" + sem, "-a", arch, "my.miss"}},
		{nil, []string{"--derived=" + ok, "-a", arch, "-i", "m-00", "my.x"}},
		{nil, []string{"--derived=" + ok, "-a", arch, "-z", "-Z", "UTC", "my.x"}},
		{nil, []string{"--derived=" + ok, "--derived=" + sem, "-a", arch, "my.x"}},
		{[]string{"PCP_DERIVED_CONFIG=" + ok}, []string{"-a", arch, "my.x"}},
		{[]string{"PCP_DERIVED_CONFIG=" + bad}, []string{"-a", arch, "my.y"}},
		{[]string{"PCP_DERIVED_CONFIG=" + bad}, []string{"-a", arch, "no.such"}},
		{[]string{"PCP_DERIVED_CONFIG=" + bad}, []string{"--derived=" + ok, "-a", arch, "my.x"}},
		{[]string{"PCP_DERIVED_CONFIG=/no/such:" + ok}, []string{"-a", arch, "-r", "my.r"}},
		{[]string{"PCP_DERIVED_CONFIG=" + ok}, []string{"-a", arch, "-s", "x", "my.x"}},
	}
	n, same := 0, 0
	for _, c := range cases {
		n++
		if compareReal(t, dir, c.args, c.env...) {
			same++
		}
	}
	t.Logf("pmval derived configuration: %d runs compared with the real pmval, %d identical", n, same)
}
