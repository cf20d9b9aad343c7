package pmval

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/replay"
)

// run runs pmval in-process in dir, as the real tool is run.
func run(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	t.Chdir(dir)
	t.Setenv("TZ", "UTC")
	// --container sets it for the process, as libpcp does
	t.Setenv(pmcd.ContainerEnv, "")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// knownRealCrashes are runs in which PCP 6.0.3's pmval dies of SIGABRT after
// printing every value (glibc: "double free or corruption (out)"): its
// stdout is compared, and pcpkit's pmval must end normally. QA gfs holds
// records stamped earlier than the one before them; in this window the
// real pmval frees something twice when it finishes.
var knownRealCrashes = map[string]string{
	"-a gfs -t 5720000msec -S +49028571msec -T -49028571msec gfs.fmb": "double free or corruption (out)",
}

// compareReal runs the real pmval and pcpkit's with args in dir and
// reports any difference.
func compareReal(t *testing.T, dir string, args []string, env ...string) bool {
	t.Helper()
	if msg, ok := knownRealCrashes[strings.Join(args, " ")]; ok {
		return compareRealCrash(t, dir, args, msg)
	}
	wout, werr, wrc := testenv.RunCommand(t, dir, testenv.RealEnv(env...), testenv.RealTool(t, "pmval"), args...)
	out, errs, rc := run(t, dir, args, env...)
	out, errs = testenv.AsReal(out), testenv.AsReal(errs)
	ok := true
	what := "pmval " + strings.Join(args, " ")
	if d := cmp.Diff(string(wout), out); d != "" {
		t.Errorf("%s: stdout differs from the real pmval (-real +pcpkit):\n%s", what, d)
		ok = false
	}
	if d := cmp.Diff(string(werr), errs); d != "" {
		t.Errorf("%s: stderr differs from the real pmval (-real +pcpkit):\n%s", what, d)
		ok = false
	}
	if wrc != rc {
		t.Errorf("%s: exit status %d, real pmval %d", what, rc, wrc)
		ok = false
	}
	return ok
}

// compareRealCrash runs a case of knownRealCrashes: the real pmval must die
// of a signal with msg on stderr; its stdout is compared.
func compareRealCrash(t *testing.T, dir string, args []string, msg string) bool {
	t.Helper()
	cmd := exec.Command(testenv.RealTool(t, "pmval"), args...)
	cmd.Dir, cmd.Env = dir, testenv.RealEnv()
	var wout, werr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &wout, &werr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 || !strings.Contains(werr.String(), msg) {
		t.Errorf("the real pmval %s no longer crashes (%v, stderr %q): drop it from knownRealCrashes", strings.Join(args, " "), err, werr.String())
		return false
	}
	out, errs, rc := run(t, dir, args)
	if d := cmp.Diff(wout.String(), out); d != "" || errs != "" || rc != 0 {
		t.Errorf("pmval %s: stdout differs from the crashing real pmval's (-real +pcpkit):\n%s\nstderr %q, exit %d", strings.Join(args, " "), d, errs, rc)
		return false
	}
	return true
}

// TestInteropAdhoc compares the command line in $PMVAL_ARGS (run in
// $PMVAL_DIR), for investigating.
func TestInteropAdhoc(t *testing.T) {
	args := os.Getenv("PMVAL_ARGS")
	if args == "" {
		t.Skip("set PMVAL_ARGS")
	}
	compareReal(t, os.Getenv("PMVAL_DIR"), strings.Fields(args))
}

// TestInteropErrors covers command-line failures and the options that
// change no values, against the real pmval.
func TestInteropErrors(t *testing.T) {
	interopWith(t, real603, interopErrors)
}

func interopErrors(t *testing.T, p pmvalOracle) {
	p.need(t)
	dir := testenv.SharedDir(t, "pcp-made-archives")
	for _, args := range [][]string{
		{}, {"-V"}, {"--version"}, {"-?"}, {"--help"}, {"-Q", "synth.ctr32"}, {"--bogus", "-a", "synth3", "synth.ctr32"},
		{"-a", "synth3"}, {"-a", "synth3", "a", "b"}, {"-a", "nosuch", "synth.ctr32"}, {"-a", "synth3", "no.such"},
		{"-a", "synth3", "synth"}, {"-a", "synth3", "-t", "1x", "synth.ctr32"}, {"-a", "synth3", "-S", "foo", "synth.ctr32"},
		{"-a", "synth3", "-T", "@x", "synth.ctr32"}, {"-a", "synth3", "-A", "0", "synth.ctr32"},
		{"-a", "synth3", "-s", "0", "synth.ctr32"}, {"-a", "synth3", "-s", "-1", "synth.ctr32"}, {"-a", "synth3", "-s", "x", "synth.ctr32"},
		{"-a", "synth3", "-s", "3x", "synth.ctr32"}, {"-a", "synth3", "-w", "0", "synth.ctr32"}, {"-a", "synth3", "-f", "x", "synth.ctr32"},
		{"-a", "synth3", "-f", "12", "synth.inst"}, {"-a", "synth3", "-f", "20", "synth.inst"}, {"-a", "synth3", "-i", "foo", "synth.multi"},
		{"-a", "synth3", "-i", "alpha", "synth.ctr32"}, {"-a", "synth3", "-z", "-Z", "UTC", "synth.ctr32"},
		{"-a", "synth3", "-h", "localhost", "synth.ctr32"}, {"-s", "x", "-V"}, {"-V", "-s", "x"}, {"-Q", "-V"},
		{"-t", "1x", "-S", "foo", "-a", "synth3", "synth.ctr32"}, {"-a", "synth3", "-A", "1000d", "synth.ctr32"},
		{"-n", "/nonexistent", "-Q", "-a", "synth3", "synth.ctr32"}, {"-a", "synth3", "-D", "foo", "synth.ctr32"},
		{"-a", "synth3", "synth.multi["}, {"-a", "synth3", "synth.multi[alpha]x"}, {"-a", "synth3", "synth.multi[\"alpha]"},
		{"-a", "synth3", "synth.m,ulti"}, {"-a", "synth3", "synth3/"}, {"-a", "synth3", "/synth.ctr32"},
		{"-a", "synth3", "-s", "2", "synth.multi[beta,alpha]"}, {"-a", "synth3", "-s", "2", "-i", "beta,'alpha'", "synth.multi"},
		{"-a", "synth3", "-s", "3", "--samples=2", "synth.ctr32"}, {"--arch", "synth3", "--sam", "3", "synth.ctr32"},
		{"--s", "3", "-a", "synth3", "synth.ctr32"},
		{"-a", "synth3,synth3", "-t", "10", "synth.ctr32"}, {"-a", "synth3", "-a", "synth3", "-t", "10", "synth.ctr32"},
		{"-a", "bad/empty3", "synth.ctr32"}, {"-a", "bad/notarch", "synth.ctr32"}, {"-a", "bad/nometa3", "synth.ctr32"},
		{"-a", "bad/trunc3", "-t", "2", "kernel.all.load"}, {"-a", "bad/corrupt3", "-t", "2", "synth.inst"},
		{"-a", "synth3", "-x", "5", "-s", "3", "synth.inst"},
		// an empty archive or host name (PCP QA test 552)
		{"-a", "", "synth.ctr32"}, {"-h", "", "synth.ctr32"},
		// -L wins over -a and -h; the checks of a source that is not an archive
		{"-L", "-S", "+1", "-d", "synth.ctr32"}, {"-L", "-S", "+1", "-U", "synth3", "synth.ctr32"},
		{"-L", "-a", "synth3", "-S", "+1", "synth.ctr32"}, {"-a", "synth3", "-L", "-z", "synth.ctr32"},
		{"-O", "+1", "-h", "localhost", "synth.ctr32"}, {"-L", "-S", "+1", "-z", "synth.ctr32"},
		{"-L", "-z", "-U", "synth3", "synth.ctr32"}, {"-L", "-z", "-d", "synth.ctr32"},
		{"-h", "localhost", "-z", "-S", "+1", "synth.ctr32"}, {"-S", "+1", "synth.ctr32["},
		{"-S", "+1", "-a", "synth3", "localhost:synth.ctr32["}, {"-U", "synth3", "-L", "synth.ctr32["},
		{"-S", "+1", "localhost:synth.ctr32"}, {"-S", "+1", "-a", "synth3", "localhost:synth.ctr32"},
		{"-L", "-S", "+1", "-Z", "UTC", "-z", "synth.ctr32"}, {"-L", "-S", "+1", "-a", "synth3", "-h", "x", "synth.ctr32"},
		{"-L", "-U", "synth3", "-d", "synth.ctr32"}, {"-S", "+1", "-s", "2", "synth3/synth.ctr32"},
		{"-z", "-s", "2", "synth3/synth.ctr32"}, {"-L", "-S", "1", "-g", "synth.ctr32"}, {"-A", "1", "synth.ctr32"},
		{"-T", "+1", "-A", "2", "-d", "synth.ctr32"}, {"-U", "synth3", "-h", "localhost", "synth.ctr32"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			p.compare(t, dir, args)
		})
	}
}

// pickMetrics chooses from an archive up to one metric of each kind: a
// counter, an instant, a discrete and a string metric (the first of each
// in the metadata), preferring ones with instance domains for the
// counter and the instant.
func pickMetrics(t *testing.T, path string) []string {
	t.Helper()
	c, err := replay.Open(path)
	if err != nil {
		return nil
	}
	defer c.Close()
	meta := c.Meta()
	kinds := map[string]string{}
	for _, d := range meta.Descs {
		names := meta.Names(d.PMID)
		if len(names) == 0 || d.Type == pmapi.TypeEvent || d.Type == pmapi.TypeHighresEvent || d.Type == pmapi.TypeNoSupport {
			continue
		}
		name := names[0]
		if _, ok := meta.Lookup(name); !ok {
			continue
		}
		kind := ""
		switch {
		case d.Type == pmapi.TypeString:
			kind = "string"
		case d.Sem == pmapi.SemCounter:
			kind = "counter"
		case d.Sem == pmapi.SemInstant:
			kind = "instant"
		case d.Sem == pmapi.SemDiscrete:
			kind = "discrete"
		}
		if kind == "" {
			continue
		}
		if old, ok := kinds[kind]; !ok || (kind == "counter" || kind == "instant") && d.InDom != pmapi.InDomNull && !strings.HasPrefix(old, "+") {
			if d.InDom != pmapi.InDomNull {
				kinds[kind] = "+" + name
			} else if !ok {
				kinds[kind] = name
			}
		}
	}
	var out []string
	for _, k := range []string{"counter", "instant", "discrete", "string"} {
		if n, ok := kinds[k]; ok {
			out = append(out, strings.TrimPrefix(n, "+"))
		}
	}
	return out
}

// interval returns a pmval -t argument giving about n samples over an
// archive's span (at least a millisecond).
func interval(t *testing.T, path string, n int) string {
	c, err := replay.Open(path)
	if err != nil {
		return "1"
	}
	defer c.Close()
	end, err := c.End()
	if err != nil {
		return "1"
	}
	ms := int64(pcptime.Sub(end, c.Start()) * 1000 / float64(n))
	if ms < 1 {
		ms = 1
	}
	return fmt.Sprintf("%dmsec", ms)
}

// TestInteropShared runs both pmvals on every shared archive (sets of
// archives included) and every archive of testdata/archives for a counter, an instant, a discrete and a string
// metric each, at a fine and a coarse interval, raw, uninterpolated,
// in a window and in the archive's zone.
func TestInteropShared(t *testing.T) {
	interopWith(t, real603, interopShared)
}

func interopShared(t *testing.T, p pmvalOracle) {
	p.need(t)
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives", testenv.TestdataSet} {
		dir := testenv.SetDir(t, set)
		names := testenv.Archives(t, dir)
		if set == "pcp-qa-archives" {
			names = append(names, "multi", "multi_v3", "multi-xz", "multi/20150508.11.44,multi/20150508.11.50")
		}
		for _, a := range names {
			if strings.HasSuffix(a, "-zst") || os.Getenv("PMVAL_ONLY") != "" && !strings.Contains(a, os.Getenv("PMVAL_ONLY")) {
				continue
			}
			path := filepath.Join(dir, strings.Split(a, ",")[0])
			if strings.Contains(a, ",") || !strings.Contains(a, "/") && strings.HasPrefix(a, "multi") {
				path = filepath.Join(dir, a)
			}
			metrics := pickMetrics(t, path)
			fine, coarse := interval(t, path, 60), interval(t, path, 7)
			for _, m := range metrics {
				for _, mode := range [][]string{
					{"-t", fine}, {"-t", coarse}, {"-t", coarse, "-r"}, {"-U", a}, {"-t", fine, "-S", "+" + coarse, "-T", "-" + coarse},
					{"-z", "-t", coarse, "-X"},
				} {
					args := append([]string{"-a", a}, mode...)
					if mode[0] == "-U" {
						args = mode
					}
					args = append(args, m)
					t.Run(set+"/"+strings.Join(args, " "), func(t *testing.T) {
						p.compare(t, dir, args)
					})
				}
			}
		}
	}
}

// TestInteropAllMetrics runs both pmvals for up to 30 metrics of every
// shared archive at a coarse interval, interpolated and not.
func TestInteropAllMetrics(t *testing.T) {
	interopWith(t, real603, interopAllMetrics)
}

func interopAllMetrics(t *testing.T, p pmvalOracle) {
	if testing.Short() {
		t.Skip("slow")
	}
	p.need(t)
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		names := testenv.Archives(t, dir)
		if set == "pcp-qa-archives" {
			names = append(names, "multi", "multi_v3")
		}
		for _, a := range names {
			if strings.HasSuffix(a, "-zst") || strings.HasPrefix(a, "bad/") || os.Getenv("PMVAL_ONLY") != "" && !strings.Contains(a, os.Getenv("PMVAL_ONLY")) {
				continue
			}
			path := filepath.Join(dir, a)
			c, err := replay.Open(path)
			if err != nil {
				continue
			}
			var metrics []string
			for _, d := range c.Meta().Descs {
				if n := c.Meta().Names(d.PMID); len(n) > 0 && len(metrics) < 30 {
					if _, ok := c.Meta().Lookup(n[0]); ok {
						metrics = append(metrics, n[0])
					}
				}
			}
			c.Close()
			coarse := interval(t, path, 9)
			for _, m := range metrics {
				for _, args := range [][]string{{"-a", a, "-t", coarse, m}, {"-U", a, m}, {"-a", a, "-t", coarse, "-i", "0,1", m}} {
					t.Run(set+"/"+strings.Join(args, " "), func(t *testing.T) {
						p.compare(t, dir, args)
					})
				}
			}
		}
	}
}

// TestInteropEvents compares event record arrays (they are never
// interpolated) with the options that change how they print.
func TestInteropEvents(t *testing.T) {
	interopWith(t, real603, interopEvents)
}

func interopEvents(t *testing.T, p pmvalOracle) {
	p.need(t)
	for _, c := range []struct{ set, archive, metric string }{
		{"pcp-qa-archives", "eventrec", "sample.event.records"},
		{"pcp-qa-archives", "eventrec", "sample.event.highres_records"},
		{"pcp-qa-archives", "eventrec", "sample.event.no_indom_records"},
		{"pcp-qa-archives", "eventrec-old", "sample.event.records"},
		{"pcp-qa-archives", "omnibus_v3", "sampledso.event.records"},
		{"pcp-made-archives", "sample3", "sample.event.highres_records"},
	} {
		dir := testenv.SharedDir(t, c.set)
		for _, opts := range [][]string{
			{}, {"-X"}, {"-XX"}, {"-z"}, {"-Z", "EST5"}, {"-i", "bogus"}, {"-i", "fungus,nosuch"}, {"-r"},
			{"-s", "3"}, {"-S", "+2", "-T", "-1"}, {"-O", "+3"}, {"-t", "0.3", "-f", "2"}, {"-v"}, {"-w", "3"},
			{"-U", "", "-i", "bogus"}, {"-U", "", "-s", "2", "-z"},
		} {
			args := append(append([]string{"-a", c.archive}, opts...), c.metric)
			if len(opts) > 0 && opts[0] == "-U" {
				args = append(append([]string{}, opts...), c.metric)
				args[1] = c.archive
			}
			t.Run(c.set+"/"+strings.Join(args, " "), func(t *testing.T) {
				p.compare(t, dir, args)
			})
		}
	}
}

// TestInteropOptions compares the options that change the samples or how
// they print, on archives with marks, instance domain changes, several
// volumes and several archives, for each kind of metric.
func TestInteropOptions(t *testing.T) {
	interopWith(t, real603, interopOptions)
}

func interopOptions(t *testing.T, p pmvalOracle) {
	p.need(t)
	for _, c := range []struct{ set, archive string }{
		{"pcp-made-archives", "synth3"},
		{"pcp-made-archives", "sample3"},
		{"pcp-qa-archives", "gap2"},
		{"pcp-qa-archives", "changeinst"},
		{"pcp-qa-archives", "ok-mv-bar"},
		{"pcp-qa-archives", "multi"},
		{"pcp-qa-archives", "19970807.09.54"},
	} {
		dir := testenv.SharedDir(t, c.set)
		path := filepath.Join(dir, c.archive)
		fine, coarse := interval(t, path, 40), interval(t, path, 5)
		for _, m := range pickMetrics(t, path) {
			for _, opts := range [][]string{
				{"-t", coarse, "-A", "1min"}, {"-t", coarse, "-A", "10sec", "-S", "+1"},
				{"-t", fine, "-O", "+" + coarse}, {"-t", fine, "-O", "-" + coarse}, {"-t", coarse, "-O", "-0"},
				{"-t", coarse, "-T", "+" + coarse}, {"-t", fine, "-s", "7"}, {"-t", coarse, "-s", "1000"},
				{"-t", coarse, "-w", "5"}, {"-t", coarse, "-w", "30"}, {"-t", coarse, "-f", "0"}, {"-t", coarse, "-f", "4", "-w", "12"},
				{"-t", coarse, "-Z", "EST5EDT"}, {"-t", coarse, "-Z", "Australia/Melbourne", "-X"}, {"-t", coarse, "-XX"},
				{"-t", coarse, "-r", "-w", "9"}, {"-t", coarse, "-i", "0,1,2"}, {"-t", "0.001", "-s", "3"},
				{"-t", "3600", "-s", "3"},
			} {
				args := append(append([]string{"-a", c.archive}, opts...), m)
				t.Run(c.set+"/"+strings.Join(args, " "), func(t *testing.T) {
					p.compare(t, dir, args)
				})
			}
		}
	}
}

// TestInteropNamespace compares -n with a namespace that names a metric
// of the archive, one it does not have, and none of its metrics.
func TestInteropNamespace(t *testing.T) {
	testenv.RealTool(t, "pmval")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	ns := filepath.Join(t.TempDir(), "ns")
	if err := os.WriteFile(ns, []byte("root {\n synth\n}\nsynth {\n ctr32 245:0:1\n inst 245:0:3\n bogus 245:0:99\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-n", ns, "-a", "synth3", "-s", "2", "synth.ctr32"}, {"-n", ns, "-a", "synth3", "-s", "2", "synth.bogus"},
		{"-n", ns, "-a", "synth3", "-s", "2", "synth.disc"}, {"-n", ns, "-a", "synth3", "-s", "2", "synth"},
		{"-n", ns, "-a", "synth3", "-t", "3", "synth.inst"},
	} {
		t.Run(strings.Join(args[2:], " "), func(t *testing.T) {
			compareReal(t, dir, args)
		})
	}
}

// TestInteropInstanceNames: -i and instance lists in the metric spec
// resolve names as pmLookupInDomArchive does in 6.0.3, where "15" finds
// "1 minute" (an instance whose name up to its first space is a prefix
// of the name given).
func TestInteropInstanceNames(t *testing.T) {
	interopWith(t, real603, interopInstanceNames)
}

func interopInstanceNames(t *testing.T, p pmvalOracle) {
	p.need(t)
	dir := testenv.SharedDir(t, "pcp-made-archives")
	for _, args := range [][]string{
		{"-a", "basic3", "-s", "2", "-i", "15", "kernel.all.load"},
		{"-a", "basic3", "-s", "2", "-i", "1", "kernel.all.load"},
		{"-a", "basic3", "-s", "2", "-i", "5,15", "kernel.all.load"},
		{"-a", "basic3", "-s", "2", "-i", "15 minute", "kernel.all.load"},
		{"-a", "basic3", "-s", "2", "-i", "150", "kernel.all.load"},
		{"-a", "basic3", "-s", "2", "-i", "nosuch", "kernel.all.load"},
		{"-a", "basic3", "-s", "2", `kernel.all.load["15","5"]`},
		{"-a", "basic2", "-s", "2", "-i", "15", "kernel.all.load"},
	} {
		p.compare(t, dir, args)
	}
}

// TestInteropUnknownEnd: QA's badlen-2 and badlen-3 lose the end of their
// only record, so no end can be found: the real pmval warns ("Cannot locate
// end of archive"), prints no end: line and takes every sample. badlen-11
// (one byte after its volume's label) has no end either; that byte read
// forwards is the end of the volume.
func TestInteropUnknownEnd(t *testing.T) {
	testenv.RealTool(t, "pmval")
	dir := testenv.SharedDir(t, "pcp-qa-badarchives")
	for _, a := range []string{"badlen-2", "badlen-3", "badlen-11"} {
		for _, opts := range [][]string{{}, {"-t", "1"}, {"-z"}, {"-S", "+1", "-T", "+5", "-t", "1"}, {"-s", "3"}, {"-r"}, {"-U", a}} {
			args := append(append([]string{"-a", a}, opts...), "sample.seconds")
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				_, werr, _ := testenv.RunCommand(t, dir, testenv.RealEnv(), testenv.RealTool(t, "pmval"), args...)
				if !bytes.Contains(werr, []byte("Cannot locate end of archive "+a)) {
					t.Fatalf("the real pmval does not warn of the unknown end:\n%s", werr)
				}
				compareReal(t, dir, args)
			})
		}
	}
}

// TestInteropCounterWrap: PCP_COUNTER_WRAP in the environment, even empty,
// turns on libpcp's counter wrap in interpolation and pmval's own in its
// rates. On QA buggy_archive (counters that go down) the two pmvals agree
// whole. On QA wrap (sample.wrap.long wraps every 4 records) PCP 6.0.3
// dies of a signal in interpolation after the first wrap it interpolates
// over: what it printed must begin pcpkit's output (which goes on).
func TestInteropCounterWrap(t *testing.T) {
	real := testenv.RealTool(t, "pmval")
	dir := testenv.SharedDir(t, "pcp-qa-archives")
	for _, env := range []string{"PCP_COUNTER_WRAP=", "PCP_COUNTER_WRAP=on"} {
		for _, args := range [][]string{
			{"-a", "buggy_archive", "-t", "7sec", "kernel.all.cpu.guest"}, {"-a", "buggy_archive", "-t", "3sec", "tty.serial.brk"},
			{"-a", "buggy_archive", "-t", "11sec", "-r", "kernel.all.cpu.guest"},
			{"-U", "wrap", "sample.wrap.long"}, {"-a", "wrap", "-t", "5sec", "sample.wrap.long"},
		} {
			t.Run(env+" "+strings.Join(args, " "), func(t *testing.T) {
				compareReal(t, dir, args, env)
			})
		}
		for _, args := range [][]string{
			{"-a", "wrap", "-t", "1sec", "sample.wrap.long"}, {"-a", "wrap", "-t", "0.5sec", "sample.wrap.long"},
			{"-a", "wrap", "-t", "1sec", "-r", "sample.wrap.long"},
		} {
			t.Run(env+" "+strings.Join(args, " "), func(t *testing.T) {
				cmd := exec.Command(real, args...)
				cmd.Dir, cmd.Env = dir, testenv.RealEnv(env)
				var wout bytes.Buffer
				cmd.Stdout = &wout
				err := cmd.Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != -1 {
					t.Fatalf("the real pmval no longer dies of a signal (%v): compare it whole", err)
				}
				out, errs, rc := run(t, dir, args, env)
				if !strings.HasPrefix(out, wout.String()) || strings.Count(out, "\n") <= strings.Count(wout.String(), "\n") || errs != "" || rc != 0 {
					t.Errorf("pmval %s with %s: the real pmval's output before it died is not how pcpkit's begins (exit %d, stderr %q):\nreal:\n%s\npcpkit:\n%s", strings.Join(args, " "), env, rc, errs, wout.String(), out)
				}
			})
		}
	}
}

// damagedDiffer are damaged copies on which pcpkit's pmval is known to
// differ from the real one, and why.
var damagedDiffer = map[string]string{}

// TestInteropDamaged compares pmval with the real one on damaged copies
// of archives (testenv.DamagedCopies), interpolating (-t 1 -s 8) and
// reading backwards (-r) some metrics of each. libpcp decodes every
// record its interpolation reads whole: a record whose value sets or
// blocks are damaged fails the fetch, whichever metrics are asked for
// (copies whose damage lies in another metric's value set or block,
// e.g. pmcd-v2-flip02, dyninsts-flip03, late-flip03).
func TestInteropDamaged(t *testing.T) {
	testenv.RealTool(t, "pmval")
	dir, names := testenv.DamagedCopies(t, testenv.DamageSources)
	for _, name := range names {
		metrics := testenv.DamagedMetrics(t, name)
		if why, ok := damagedDiffer[name]; ok {
			t.Logf("%s: not compared: %s", name, why)
			continue
		}
		for _, m := range metrics {
			for _, mode := range [][]string{{"-t", "1", "-s", "8"}, {"-r"}} {
				args := append(append([]string{"-a", name}, mode...), m)
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					compareReal(t, dir, args)
				})
			}
		}
	}
}
