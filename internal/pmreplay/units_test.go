package pmreplay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// TestInteropUnits is the proof of unit/scale conversion: for each
// metricspec's unit/scale (the compact form's fourth field) and each of
// -q/-Q (count), -b/-B (space) and -y/-Y (time), pmreplay prints what the
// real pmrep -o csv prints, byte for byte, and exits as it does, with
// its standard error (its name for pmrep's). Instant, discrete and
// counter metrics of every type, raw (-r, type raw, -R) and converted
// to rates, space, time and count dimensions and none, multipliers
// ("2 MB"), rates of other time units ("sec/min"), instant metrics
// converted to rates ("MB/s"), pmconfig's abbreviation of the label
// ("second / second" is "sond/sond", which libpcp refuses), and the
// errors: a unit pmParseUnitsStr refuses, and one of other dimensions.
// The shared archives are replayed whole with the options.
func TestInteropUnits(t *testing.T) {
	if !testenv.Interop() {
		t.Skip("PCP_INTEROP=1 compares with the real pmrep")
	}
	pmrep := testenv.RealTool(t, "pmrep")
	root := testenv.RepoRoot(t)
	pmcd := filepath.Join(root, "testdata", "archives", "pmcd-v3")
	pmcd2 := filepath.Join(root, "testdata", "archives", "pmcd-v2")
	sample := filepath.Join(root, "testdata", "archives", "sample-v3")
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	pmcdAll := []string{"mem.util.used", "hinv.physmem", "kernel.all.cpu.user", "kernel.all.pswitch", "kernel.all.nprocs",
		"network.interface.in.bytes", "kernel.all.load", "pmcd.pdu_in.total", "kernel.uname.release"}
	sampleAll := []string{"sample.seconds", "sample.milliseconds", "sample.step", "sample.ulong.count.kilo", "sample.float.ten",
		"sample.double.million", "sample.wrap.ulonglong", "sample.string.hullo"}
	type unitCase struct {
		archive string
		args    []string
		fails   bool // pmrep refuses it
	}
	cases := []unitCase{
		// instant, space (U64 Kbyte)
		{pmcd, []string{"mem.util.used,,,MB"}, false},
		{pmcd, []string{"mem.util.used,,,GB"}, false},
		{pmcd, []string{"mem.util.used,,,2 MB"}, false},
		{pmcd, []string{"mem.util.used,,,2 KB"}, false},
		{pmcd, []string{"mem.util.used,,,byte"}, false},
		{pmcd, []string{"mem.util.used,,,Kbyte"}, false},
		{pmcd, []string{"mem.util.used,,,1024 byte"}, false},
		{pmcd, []string{"mem.util.used,,,MB/s"}, false},
		{pmcd, []string{"mem.util.free,,,MB/min"}, false},
		{pmcd, []string{"mem.util.used,,,count"}, true},
		{pmcd, []string{"mem.util.used,,,MB,raw"}, false},
		// discrete (U32 Mbyte), none
		{pmcd, []string{"hinv.physmem,,,GB"}, false},
		{pmcd, []string{"hinv.physmem,,,KB"}, false},
		{pmcd, []string{"hinv.physmem,,,0.5 MB"}, false},
		{pmcd, []string{"hinv.ncpu,,,10"}, false},
		{pmcd, []string{"hinv.ncpu,,,count"}, true},
		// counters: time (U64 millisec), count, space, 32 bits
		{pmcd, []string{"kernel.all.cpu.user,,,sec"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,sec/s"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,sec/min"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,min/hour"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,us / sec"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,ns"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,second / second"}, true},
		{pmcd, []string{"kernel.all.cpu.user,,,ms,raw"}, false},
		{pmcd, []string{"kernel.all.cpu.user,,,s,raw"}, false},
		{pmcd, []string{"kernel.percpu.cpu.user,,,hour"}, false},
		{pmcd, []string{"kernel.all.pswitch,,,count x 10^3/s"}, false},
		{pmcd, []string{"kernel.all.pswitch,,,count/min"}, false},
		{pmcd, []string{"kernel.all.pswitch,,,count x 10^-2"}, false},
		{pmcd, []string{"kernel.all.pswitch,,,count,raw"}, false},
		{pmcd, []string{"kernel.all.pswitch,,,count x 10^3,raw"}, false},
		{pmcd, []string{"kernel.all.pswitch,,,Kcount"}, true},
		{pmcd, []string{"pmcd.pdu_in.total,,,count x 10^2"}, false},
		{pmcd, []string{"pmcd.pdu_in.total,,,count x 10^2,raw"}, false},
		{pmcd, []string{"network.interface.in.bytes,,,KB"}, false},
		{pmcd, []string{"network.interface.in.bytes,,,KB,raw"}, false},
		{pmcd, []string{"network.interface.in.bytes,,,byte,raw"}, false},
		{pmcd, []string{"network.interface.in.bytes,,,Mbit"}, true},
		// none: float, double, U32; strings
		{pmcd, []string{"kernel.all.load,,,100"}, false},
		{pmcd, []string{"kernel.all.load,,,/min"}, false},
		{pmcd, []string{"kernel.all.load,,,count"}, true},
		{pmcd, []string{"kernel.all.load,,,0.01"}, false},
		{pmcd, []string{"kernel.all.nprocs,,,2"}, false},
		{pmcd, []string{"kernel.uname.release,,,MB"}, true},
		// the options, and the specification's unit under them
		{pmcd, append([]string{"-b", "MB"}, pmcdAll...), false},
		{pmcd, append([]string{"-B", "MB", "hinv.physmem,,,KB"}, pmcdAll...), false},
		{pmcd, append([]string{"-b", "GB", "-r"}, pmcdAll...), false},
		{pmcd, append([]string{"-b", "GB", "-R", "network.interface.in.bytes,,,,rate"}, pmcdAll...), false},
		{pmcd, append([]string{"-y", "sec"}, pmcdAll...), false},
		{pmcd, append([]string{"-Y", "min", "kernel.all.cpu.user,,,ms"}, pmcdAll...), false},
		{pmcd, append([]string{"-y", "ms/s", "-r"}, pmcdAll...), false},
		{pmcd, append([]string{"-q", "count x 10^3"}, pmcdAll...), false},
		{pmcd, append([]string{"-Q", "count x 10^-2", "-q", "count x 10^6"}, pmcdAll...), false},
		{pmcd, append([]string{"-b", "MB/s"}, pmcdAll...), false},
		{pmcd, append([]string{"-q", "Kcount"}, pmcdAll...), true},
		{pmcd, append([]string{"-b", "count"}, pmcdAll...), true},
		{pmcd, append([]string{"-y", "hour", "-b", "TB", "-q", "count x 10^2", "-t", "3", "-P", "9"}, pmcdAll...), false},
		{pmcd2, append([]string{"-b", "MB", "-y", "s"}, pmcdAll...), false},
		// the errors' order: an unknown metric first, then the metrics in order
		{pmcd, []string{"mem.util.used,,,count", "no.such.metric"}, true},
		{pmcd, []string{"mem.util.used,,,MB", "kernel.all.pswitch,,,Kcount", "hinv.physmem,,,count"}, true},
		{pmcd, []string{"mem.util.used,,,count", "kernel.all.pswitch,,,Kcount"}, true},
		// sample: U32 and double counters of seconds and milliseconds,
		// count x 10^3 / Mbyte, wrapping U64 counters
		{sample, append([]string{"-y", "ms", "-q", "count x 10^-1"}, sampleAll...), false},
		{sample, append([]string{"-Y", "min", "-r"}, sampleAll...), false},
		{sample, []string{"sample.ulong.count.kilo,,,count / Kbyte", "sample.seconds,,,ms/s", "sample.milliseconds,,,s/min"}, false},
		{sample, []string{"sample.ulong.count.kilo,,,count"}, true},
		{sample, []string{"sample.wrap.ulonglong,,,/min", "sample.wrap.ulonglong,,,/min,raw"}, false},
		{sample, []string{"sample.step,,,count x 10^1", "sample.seconds,,,nanosec,raw"}, false},
	}
	for _, set := range []struct {
		name string
		opts []string
	}{
		{"20190628.04.03", []string{"-b", "MB", "-y", "sec", "-q", "count x 10^3", "-t", "7"}},
		{"20190628.04.03", []string{"-B", "GB", "-Y", "min", "-Q", "count x 10^-3", "-r", "-t", "11"}},
		{"pcp-pidstat", []string{"-b", "KB", "-y", "us", "-t", "3"}},
		{"ok-foo_v3", []string{"-B", "byte", "-Y", "hour", "-Q", "count x 10^1", "-t", "2"}},
		{"sample-secs", []string{"-y", "min", "-q", "count x 10^2"}},
	} {
		a := filepath.Join(qa, set.name)
		cases = append(cases, unitCase{a, append(set.opts, reportable(t, a)...), false})
	}
	for _, c := range cases {
		args := append([]string{"-a", c.archive, "-o", "csv"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "-t") {
			args = append([]string{"-s", "6"}, args...)
		}
		wout, werr, wrc := testenv.RunCommand(t, "", testenv.RealEnv(), "/usr/bin/python3", append([]string{pmrep}, args...)...)
		out, errs, rc := run(t, args...)
		name := filepath.Base(c.archive) + " " + strings.Join(c.args, " ")
		if len(name) > 200 {
			name = name[:200] + "..."
		}
		if d := cmp.Diff(string(wout), out); d != "" {
			t.Errorf("%s: standard output differs from pmrep's (-pmrep +pmreplay):\n%s", name, d)
		}
		if want := strings.ReplaceAll(string(werr), "pmrep: ", "pmreplay: "); errs != want || rc != wrc {
			t.Errorf("%s: exit %d, stderr %q; pmrep: exit %d, stderr %q", name, rc, errs, wrc, werr)
		}
		if c.fails != (wrc != 0) {
			t.Errorf("%s: pmrep exit %d (%s), the case expects failure %v", name, wrc, werr, c.fails)
		}
	}
}

// reportable are the metrics of archive a that pmrep reports (of the
// types it can, with their instance domain in the archive), in traversal
// order.
func reportable(t *testing.T, a string) []string {
	t.Helper()
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	meta := c.Meta()
	var names []string
	for _, n := range meta.Traverse("") {
		if p, ok := meta.Lookup(n); ok {
			d, ok := meta.Desc(p)
			if ok && d.Type >= pmapi.Type32 && d.Type <= pmapi.TypeString && (d.InDom == pmapi.InDomNull || len(meta.InDomHistory(d.InDom)) > 0) {
				names = append(names, n)
			}
		}
	}
	return names
}
