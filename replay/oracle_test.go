package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"encoding/binary"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// The oracle is testdata/oracle/replay.py run by the system python with
// PCP's bindings for libpcp: it takes an archive, a metric list and a
// script of operations (SetMode, Fetch, FetchArchive) and prints what
// libpcp returns in a canonical form. script runs the same operations on
// a replay.Context and prints them the same way.

const python = "/usr/bin/python3"

// oracleTally counts the comparisons with one libpcp.
type oracleTally struct {
	compared     atomic.Int64 // oracle comparisons made
	matched      atomic.Int64 // of those, identical
	lines        atomic.Int64 // lines of libpcp output compared
	crashes      atomic.Int64 // oracle runs in which libpcp crashed
	crashRetried atomic.Int64 // of those, runs the real free got through and matched
}

// libpcp is a real libpcp the oracle runs with, and the PCP version
// (replay.Options.Version) the replay context compared with it behaves
// as.
type libpcp struct {
	version string
	tally   *oracleTally
	// run runs the oracle on archive (relative to dir) with metrics and
	// the operations ops, with the no-op free preloaded or not (see
	// runOracleFree).
	run func(t testing.TB, nofree bool, dir, archive, metrics, ops string, env ...string) (out string, crashed bool)
}

// host603 is the host's libpcp, PCP 6.0.3.
var host603 = &libpcp{version: replay.Version603, tally: &oracleTally{}, run: runOracleFree}

var (
	oracleOnce sync.Once
	oracleErr  error
	noFree     string // testdata/oracle/nofree.c built, "" if it cannot be
)

// TestMain prints a summary of the oracle comparisons made.
func TestMain(m *testing.M) {
	code := m.Run()
	cleanup638()
	for _, lp := range []*libpcp{host603, chroot638} {
		n := lp.tally
		if c := n.compared.Load(); c > 0 {
			fmt.Printf("oracle (libpcp %s): %d comparisons, %d identical, %d lines of libpcp output; libpcp crashed in %d (%d of them matched in a second run)\n",
				lp.version, c, n.matched.Load(), n.lines.Load(), n.crashes.Load(), n.crashRetried.Load())
		}
	}
	os.Exit(code)
}

// needOracle skips the test (fails it with PCP_INTEROP=1) when the system
// python cannot load PCP's bindings.
func needOracle(t testing.TB) string {
	t.Helper()
	oracleOnce.Do(func() {
		cmd := exec.Command(python, "-c", "from pcp import pmapi")
		cmd.Env = testenv.RealEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			oracleErr = fmt.Errorf("%s cannot import pcp.pmapi: %v: %s", python, err, out)
			return
		}
		noFree = buildNoFree(filepath.Join(testenv.RepoRoot(t), "testdata", "oracle", "nofree.c"))
	})
	if oracleErr != nil {
		if testenv.Interop() {
			t.Fatalf("PCP_INTEROP=1 but the oracle cannot run: %v", oracleErr)
		}
		t.Skipf("the libpcp oracle cannot run (%v): skipping", oracleErr)
	}
	return filepath.Join(testenv.RepoRoot(t), "testdata", "oracle", "replay.py")
}

// buildNoFree compiles the free(3) that frees nothing (see nofree.c) into
// a temporary directory, and returns the shared object's path, or "" when
// there is no C compiler (the oracle then runs with the real free, and
// libpcp may return garbage or crash; crashes are allowed for).
func buildNoFree(src string) string {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return ""
	}
	dir, err := os.MkdirTemp("", "pcpkit-nofree")
	if err != nil {
		return ""
	}
	so := filepath.Join(dir, "nofree.so")
	if err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", so, src).Run(); err != nil {
		return ""
	}
	return so
}

// runOracle runs the oracle on archive (relative to dir) with metrics
// (replay.py's METRICS argument) and the operations ops. crashed reports
// that libpcp died part of the way (out then holds the whole results
// printed before).
func runOracle(t testing.TB, dir, archive, metrics, ops string, env ...string) (out string, crashed bool) {
	t.Helper()
	return runOracleFree(t, true, dir, archive, metrics, ops, env...)
}

// runOracleFree is runOracle with the no-op free preloaded or not.
func runOracleFree(t testing.TB, nofree bool, dir, archive, metrics, ops string, env ...string) (out string, crashed bool) {
	t.Helper()
	script := needOracle(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script, archive, metrics)
	cmd.Dir = dir
	if nofree && noFree != "" {
		env = append(env, "LD_PRELOAD="+noFree)
	}
	cmd.Env = testenv.RealEnv(env...)
	cmd.Stdin = strings.NewReader(ops)
	var outb, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() < 0 && ctx.Err() == nil {
			return outb.String(), true
		}
		t.Fatalf("oracle %s %s: %v\n%s", archive, metrics, err, errb.String())
	}
	return outb.String(), false
}

// runScript runs the operations ops on a replay context for archive
// (relative to dir) and prints the results as the oracle does.
func runScript(t testing.TB, dir, archive, metrics, ops string, env ...string) string {
	t.Helper()
	return runScriptAs(t, replay.Version603, dir, archive, metrics, ops, env...)
}

// runScriptAs is runScript with a replay context behaving as PCP version.
func runScriptAs(t testing.TB, version, dir, archive, metrics, ops string, env ...string) string {
	t.Helper()
	var b strings.Builder
	o := replay.Options{Version: version}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, replay.IgnoreMarksEnv+"="); ok {
			p, err := replay.ParseIgnoreMarks(v, true)
			if err != nil {
				t.Fatalf("%s=%s: %v", replay.IgnoreMarksEnv, v, err)
			}
			o.IgnoreMarks = &p
		}
	}
	c, err := replay.OpenOptions(filepath.Join(dir, archive), o)
	if err != nil {
		fmt.Fprintf(&b, "open err %d\n", archiveCode(err))
		return b.String()
	}
	defer c.Close()
	for _, kv := range env {
		if strings.HasPrefix(kv, "PCP_COUNTER_WRAP=") {
			c.SetWrap(true)
		}
	}
	profile := map[pmapi.InDom]map[int32]bool{}
	var pmids []pmapi.PMID
	if metrics != "-" {
		for _, m := range strings.Split(metrics, ",") {
			if s, ok := strings.CutPrefix(m, "pmid:"); ok {
				var d, cl, it uint32
				fmt.Sscanf(s, "%d.%d.%d", &d, &cl, &it)
				pmids = append(pmids, pmapi.NewPMID(d, cl, it))
				continue
			}
			p, ok := c.Meta().Lookup(m)
			if !ok {
				t.Fatalf("%s: no metric %s", archive, m)
			}
			pmids = append(pmids, p)
		}
	}
	runOps(t, &b, c, pmids, ops, func(res *pmapi.Result) { showResult(&b, "F", c.Meta(), res) },
		func(f []string, num func(string) int64) bool {
			switch f[0] {
			case "modems":
				origin := pmapi.Timestamp{Sec: num(f[2]), Nsec: int32(num(f[3]) * 1000)}
				err := c.SetMode(scriptModes[f[1]], origin, num(f[4])*1e6)
				fmt.Fprintf(&b, "mode %d\n", archiveCode(err))
			case "archive":
				for i := int64(0); i < num(f[1]); i++ {
					res, err := c.FetchArchive()
					if err != nil {
						fmt.Fprintf(&b, "A err %d\n", archiveCode(err))
						continue
					}
					showResult(&b, "A", c.Meta(), res)
				}
			case "profile":
				var d, cl, it uint32
				fmt.Sscanf(f[1], "%d.%d.%d", &d, &cl, &it)
				desc, ok := c.Meta().Desc(pmapi.NewPMID(d, cl, it))
				if !ok {
					t.Fatalf("profile: no metric %s", f[1])
				}
				set := map[int32]bool{}
				if f[2] != "-" {
					for _, x := range strings.Split(f[2], ",") {
						set[int32(num(x))] = true
					}
				}
				profile[desc.InDom] = set
				c.SetProfile(func(indom pmapi.InDom, inst int32) bool {
					if s, ok := profile[indom]; ok {
						return s[inst]
					}
					return true
				})
				fmt.Fprintf(&b, "profile\n")
			case "label":
				s := c.Label().Start
				fmt.Fprintf(&b, "label %d.%09d\n", s.Sec, s.Nsec)
			case "end":
				e, err := c.End()
				if err != nil {
					fmt.Fprintf(&b, "end err %d\n", archiveCode(err))
				} else {
					fmt.Fprintf(&b, "end %d.%09d\n", e.Sec, e.Nsec)
				}
			default:
				return false
			}
			return true
		})
	return b.String()
}

// scriptModes maps the oracle scripts' mode names to replay modes.
var scriptModes = map[string]replay.Mode{"forw": replay.Forw, "back": replay.Back, "interp": replay.Interp}

// runOps runs the operations of an oracle script on c, printing to b as
// the oracle scripts do: the operations every script shares ("mode CLASS
// SEC NSEC DSEC DNSEC", "fetch N", with show printing each fetched
// result) and, through extra, the others (extra reports false for an
// unknown operation, which fails the test).
func runOps(t testing.TB, b *strings.Builder, c *replay.Context, pmids []pmapi.PMID, ops string, show func(*pmapi.Result), extra func(f []string, num func(string) int64) bool) {
	t.Helper()
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("bad script number %q", s)
		}
		return n
	}
	sc := bufio.NewScanner(strings.NewReader(ops))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "mode":
			origin := pmapi.Timestamp{Sec: num(f[2]), Nsec: int32(num(f[3]))}
			err := c.SetMode(scriptModes[f[1]], origin, num(f[4])*1e9+num(f[5]))
			fmt.Fprintf(b, "mode %d\n", archiveCode(err))
		case "fetch":
			for i := int64(0); i < num(f[1]); i++ {
				res, err := c.Fetch(pmids)
				if err != nil {
					fmt.Fprintf(b, "F err %d\n", archiveCode(err))
					continue
				}
				show(res)
			}
		default:
			if extra == nil || !extra(f, num) {
				t.Fatalf("unknown script op %q", f[0])
			}
		}
	}
}

func archiveCode(err error) int32 {
	if err == nil {
		return 0
	}
	if c := archive.Code(err); c != 0 {
		return int32(c)
	}
	if errors.Is(err, os.ErrNotExist) {
		return -2
	}
	return -1
}

func showResult(b *strings.Builder, tag string, meta *archive.Meta, res *pmapi.Result) {
	fmt.Fprintf(b, "%s %d.%09d %d\n", tag, res.Timestamp.Sec, res.Timestamp.Nsec, len(res.VSets))
	for _, vs := range res.VSets {
		fmt.Fprintf(b, " %s %d\n", vs.PMID, vs.NumVal)
		if vs.NumVal <= 0 {
			continue
		}
		typ := pmapi.TypeUnknown
		if d, ok := meta.Desc(vs.PMID); ok {
			typ = d.Type
		}
		for i := range vs.Values {
			fmt.Fprintf(b, "  %d %s\n", vs.Values[i].Inst, canonValue(typ, &vs.Values[i]))
		}
	}
}

// canonValue formats a value as replay.py does.
func canonValue(typ pmapi.Type, v *pmapi.Value) string {
	g := func(f float64) string { return string(pmapi.AppendFloatG(nil, f, 17)) }
	if v.Block == nil {
		switch typ {
		case pmapi.TypeU32:
			return strconv.FormatUint(uint64(uint32(v.Insitu)), 10)
		case pmapi.TypeFloat:
			return g(float64(math.Float32frombits(uint32(v.Insitu))))
		}
		return strconv.FormatInt(int64(v.Insitu), 10)
	}
	t := typ
	if t == pmapi.TypeUnknown {
		t = v.BlockType
	}
	b := v.Block
	bad := func() string { return fmt.Sprintf("?%d:%s", v.BlockType, hex.EncodeToString(b)) }
	switch t {
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		if len(b) != 8 {
			return bad()
		}
		// libpcp swaps numeric blocks to host order by their own
		// type; others stay as they are on disk.
		u := binary.LittleEndian.Uint64(b)
		switch v.BlockType {
		case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
			u = binary.BigEndian.Uint64(b)
		}
		switch t {
		case pmapi.Type64:
			return strconv.FormatInt(int64(u), 10)
		case pmapi.TypeU64:
			return strconv.FormatUint(u, 10)
		}
		return g(math.Float64frombits(u))
	case pmapi.TypeFloat:
		if len(b) != 4 {
			return bad()
		}
		u := binary.LittleEndian.Uint32(b)
		if v.BlockType == pmapi.TypeFloat {
			u = binary.BigEndian.Uint32(b)
		}
		return g(float64(math.Float32frombits(u)))
	case pmapi.Type32, pmapi.TypeU32:
		return bad()
	case pmapi.TypeEvent, pmapi.TypeHighresEvent:
		return fmt.Sprintf("e%d:%d", v.BlockType, len(b))
	}
	return fmt.Sprintf("b%d:%s", v.BlockType, hex.EncodeToString(b))
}

// compareOracle runs ops on both sides (libpcp 6.0.3) and reports the
// first difference.
func compareOracle(t *testing.T, dir, archive, metrics, ops string, env ...string) bool {
	t.Helper()
	return host603.compare(t, dir, archive, metrics, ops, env...)
}

// compare runs ops with lp and on a replay context behaving as lp's
// version, and reports the first difference.
func (lp *libpcp) compare(t *testing.T, dir, archive, metrics, ops string, env ...string) bool {
	t.Helper()
	tally := lp.tally
	want, crashed := lp.run(t, true, dir, archive, metrics, ops, env...)
	got := runScriptAs(t, lp.version, dir, archive, metrics, ops, env...)
	if crashed {
		// nofree.c pads blocks for libpcp's reads out of bounds, but
		// should it crash all the same, the run with the real free may
		// get further (it may crash too, later): the longer output is
		// compared.
		w2, c2 := lp.run(t, false, dir, archive, metrics, ops, env...)
		if n2 := strings.Count(w2, "\n"); n2 > strings.Count(want, "\n") {
			g2 := got
			if c2 {
				if gl := strings.SplitAfter(got, "\n"); len(gl) > n2 {
					g2 = strings.Join(gl[:n2], "")
				}
			}
			if w2 == g2 {
				t.Logf("%s %s: libpcp crashed with the no-op free; the run with the real free matches (%d lines, crashed=%v)", archive, metrics, n2, c2)
				tally.crashRetried.Add(1)
				tally.compared.Add(1)
				tally.matched.Add(1)
				tally.lines.Add(int64(n2))
				return true
			}
		}
	}
	if crashed {
		// Compare what libpcp printed before it died.
		n := strings.Count(want, "\n")
		gl := strings.SplitAfter(got, "\n")
		if len(gl) > n {
			got = strings.Join(gl[:n], "")
		}
		t.Logf("%s %s: libpcp crashed after %d lines; comparing those", archive, metrics, n)
		tally.crashes.Add(1)
		if dir := os.Getenv("ORACLE_SAVE"); dir != "" {
			os.WriteFile(filepath.Join(dir, "crash.metrics"), []byte(metrics), 0o644)
			os.WriteFile(filepath.Join(dir, "crash.ops"), []byte(ops), 0o644)
			os.WriteFile(filepath.Join(dir, "crash.archive"), []byte(archive), 0o644)
		}
	}
	tally.compared.Add(1)
	tally.lines.Add(int64(strings.Count(want, "\n")))
	if want == got {
		tally.matched.Add(1)
		return true
	}
	if dir := os.Getenv("ORACLE_SAVE"); dir != "" {
		// keep the failing case for investigation
		os.WriteFile(filepath.Join(dir, "case.metrics"), []byte(metrics), 0o644)
		os.WriteFile(filepath.Join(dir, "case.ops"), []byte(ops), 0o644)
		os.WriteFile(filepath.Join(dir, "case.archive"), []byte(archive), 0o644)
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	lo := i - 12
	if lo < 0 {
		lo = 0
	}
	ctx := func(l []string) string {
		hi := i + 6
		if hi > len(l) {
			hi = len(l)
		}
		return strings.Join(l[lo:hi], "\n")
	}
	// the operation the difference is in
	op := ""
	for k := i; k >= 0; k-- {
		if k < len(wl) && strings.HasPrefix(wl[k], "mode") {
			n := 0
			for _, l := range wl[:k+1] {
				if strings.HasPrefix(l, "mode") {
					n++
				}
			}
			op = fmt.Sprintf(" (after SetMode #%d)", n)
			break
		}
	}
	t.Errorf("%s %s: libpcp %s and replay differ at line %d%s\n--- libpcp:\n%s\n--- replay:\n%s\n--- script:\n%s",
		archive, metrics, lp.version, i+1, op, ctx(wl), ctx(gl), ops)
	return false
}
