package dumplog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run runs pmdumplog in-process in dir, as the real tool was run for the
// goldens, and returns stdout, stderr and the exit status.
func run(t *testing.T, dir string, args []string) (string, string, int) {
	t.Helper()
	t.Chdir(dir)
	t.Setenv("TZ", "UTC")
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// compareReal runs the real pmdumplog and pcpkit's with args in dir,
// reports any difference, and returns the real tool's output.
func compareReal(t *testing.T, dir string, args []string) (wout, werr []byte) {
	t.Helper()
	wout, werr, wrc := testenv.RunRealIn(t, dir, "pmdumplog", args...)
	out, errs, rc := run(t, dir, args)
	testenv.CompareRun(t, "pmdumplog", "pmdumplog "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
	return wout, werr
}

// TestGoldens compares pcpkit's pmdumplog with the committed output of the
// real pmdumplog (made by scripts/make-goldens.sh) for every archive in
// testdata/archives and every mode in testdata/pmdumplog.modes. It needs
// no PCP installation.
func TestGoldens(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	cases := testenv.GoldenCases(t, "pmdumplog")
	if len(cases) == 0 {
		t.Fatal("no golden cases found")
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden(t, "pmdumplog", c)
			out, errs, rc := run(t, dir, c.Args())
			testenv.CompareRun(t, "pmdumplog", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}

// interopModes are the option sets run against every shared archive.
var interopModes = []string{
	"-a", "-d", "-e", "-h", "-i", "-I", "-l", "-L", "-m", "-M", "-t", "-s", "-r",
	"-x", "-xx", "-xxx -t", "-z -l", "-Z EST5EDT -l", "-m -r -s",
	"-S +2 -T +5", "-T -3 -r", "-S -10 -T -2", "-S +3 -r", "-x -S @00:00:05",
}

// knownDivergences maps an archive to the archive whose real output pcpkit
// must match instead, with the reason.
var knownDivergences = map[string]struct{ instead, why string }{
	// PCP 6.0.3 cannot read zstd-compressed files (added in PCP 6.3.2):
	// it reports "Missing PCP archive log file". pcpkit reads them, so
	// its output must equal the real tool's on the same data gzipped.
	"synth/ok-foo-zst": {"synth/ok-foo-gz", ".zst support is a pcpkit extra"},
}

// knownModeDivergences are single (archive, mode) pairs where pcpkit's
// output may differ from the real tool's, and why.
var knownModeDivergences = map[string]string{}

// TestInteropShared runs the real pmdumplog and pcpkit's side by side on
// every archive in ../shared/pcp-qa-archives and ../shared/pcp-made-archives
// (damaged ones included) in every interop mode, and diffs the two.
func TestInteropShared(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	forInteropCases(t, []string{"pcp-qa-archives", "pcp-made-archives"}, func(t *testing.T, dir, a, m string) {
		if why, ok := knownModeDivergences[a+" "+m]; ok {
			t.Skipf("known divergence: %s", why)
		}
		ref := a
		if k, ok := knownDivergences[a]; ok {
			ref = k.instead
		}
		args := append(strings.Fields(m), a)
		wout, werr, wrc := testenv.RunRealIn(t, dir, "pmdumplog", append(strings.Fields(m), ref)...)
		if ref != a {
			wout = bytes.ReplaceAll(wout, []byte(ref), []byte(a))
			werr = bytes.ReplaceAll(werr, []byte(ref), []byte(a))
		}
		out, errs, rc := run(t, dir, args)
		testenv.CompareRun(t, "pmdumplog", "pmdumplog "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
	})
}

// forInteropCases runs f, in a subtest, for every archive of the sets
// (testenv.SetDir; directories of archives left out, QA's bad/nometa3
// in) in every interop mode.
func forInteropCases(t *testing.T, sets []string, f func(t *testing.T, dir, a, m string)) {
	for _, set := range sets {
		dir := testenv.SetDir(t, set)
		archives := testenv.Archives(t, dir)
		if _, err := os.Stat(filepath.Join(dir, "bad", "nometa3.0")); err == nil {
			archives = append(archives, "bad/nometa3")
		}
		for _, a := range archives {
			if strings.HasPrefix(a, "multi") {
				continue // directories of archives: see TestMultiArchiveRefused
			}
			for _, m := range interopModes {
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) { f(t, dir, a, m) })
			}
		}
	}
}

// TestInteropErrors covers the command-line failures against the real tool.
func TestInteropErrors(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	for _, args := range [][]string{
		{}, {"--version"}, {"-V"}, {"--bogus"}, {"-Q", "synth3"}, {"-S"}, {"synth3", "-v"},
		{"-v", "/nonexistent.0"}, {"-v", "synth3.index"}, {"-v", "synth2.0"}, {"-v", "bad/trunc3.0"},
		{"-v", "bad/corrupt3.0"}, {"-v", "bad/notarch.0"}, {"-v", "bad/shortlabel3.0"}, {"-v", "bad/empty3.0"},
		{"nosuch"}, {"a,b"}, {"../pcp-qa-archives/multi"}, {"-?"},
		{"synth3", "no.such.metric"}, {"synth3", "synth.ctr32", "no.such"}, {"-M", "synth3", "synth.ctr32"},
		{"synth3", "synth"}, {"-s", "synth3", "synth.multi", "synth.inst"},
		// an archive named by any of its files, compressed or not
		{"-l", "synth3.0"}, {"-l", "synth3.meta"}, {"-l", "synth3.index"}, {"-l", "./synth3"},
		{"-l", "../pcp-qa-archives/synth/ok-foo-xz.0.xz"}, {"-l", "../pcp-qa-archives/synth/ok-foo-xz.meta.xz"},
		{"-l", "../pcp-qa-archives/19970807.09.54.0"}, {"-l", "bad/nometa3"}, {"-l", "bad/nometa3.0"},
		{"-n", "/nonexistent", "synth3"}, {"--bogus", "-Q", "--start", "-S"}, {"-Z", "A", "-Z", "B", "-l", "synth3"}, {"-Z", "AEST-10AEDT,M10.1.0,M4.1.0/3", "-l", "synth3"},
		{"-Z", ":Europe/Berlin", "-l", "synth3"}, {"-v", "bad"}, {"-v", "synth3.meta"}, {"-v", "vol3.2"},
		// long options abbreviated, unambiguous or not
		{"--s", "synth3"}, {"--h", "synth3"}, {"--l", "synth3"}, {"--m", "synth3"}, {"--in", "synth3"},
		{"--de", "synth3"}, {"--hel", "synth3"}, {"--st", "+1", "synth3"}, {"--on", "synth3"}, {"-z", "-Z", "EST5EDT", "-l", "synth3"},
		// -D, libpcp's debug options: accepted (no debug output with -l),
		// or refused in their turn among the other complaints
		{"-D", "appl0,Fetch,", "-l", "synth3"}, {"-D", "bogus", "-l", "synth3"}, {"-Q", "-D", "x", "-z", "-Z", "UTC", "synth3"},
		{"-?", "-Q"}, {"-D", "+0", "-l", "synth3"}, {"-D", "5 ", "synth3"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			wout, werr, wrc := testenv.RunRealIn(t, dir, "pmdumplog", args...)
			out, errs, rc := run(t, dir, args)
			testenv.CompareRun(t, "pmdumplog", "pmdumplog "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
		})
	}
}

// TestInteropNoNames strips the names from synth3's first descriptor (a
// copy in a temporary directory) and compares the placeholders the two
// tools print: "<noname>" in descriptors, "<nonames>" in values.
func TestInteropNoNames(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	src := testenv.SharedDir(t, "pcp-made-archives")
	dir := t.TempDir()
	for _, ext := range []string{".0", ".index"} {
		b, err := os.ReadFile(filepath.Join(src, "synth3"+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "synth3"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta, err := os.ReadFile(filepath.Join(src, "synth3.meta"))
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), meta[:808]...)
	done := false
	for off := 808; off+8 <= len(meta); {
		n := int(binary.BigEndian.Uint32(meta[off:]))
		rec := meta[off : off+n]
		if binary.BigEndian.Uint32(rec[4:]) == 1 && !done {
			// type 1 (descriptor): keep the 20-byte pmDesc, no names
			done = true
			r := binary.BigEndian.AppendUint32(nil, 36)
			r = binary.BigEndian.AppendUint32(r, 1)
			r = append(r, rec[8:28]...)
			r = binary.BigEndian.AppendUint32(r, 0)
			rec = binary.BigEndian.AppendUint32(r, 36)
		}
		out = append(out, rec...)
		off += n
	}
	if err := os.WriteFile(filepath.Join(dir, "synth3.meta"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"-dm", "-a", "-x"} {
		args := []string{mode, "synth3"}
		wout, werr, wrc := testenv.RunRealIn(t, dir, "pmdumplog", args...)
		if !bytes.Contains(wout, []byte("<nonames>")) && mode != "-a" {
			t.Fatalf("the real pmdumplog printed no <nonames>: the test archive is wrong")
		}
		gout, gerr, grc := run(t, dir, args)
		testenv.CompareRun(t, "pmdumplog", "pmdumplog "+strings.Join(args, " "), string(wout), string(werr), wrc, gout, gerr, grc)
	}
}

// TestInteropNamespace runs both tools with -n on every PMNS file in
// pmns/testdata (good and broken ones) against synth3.
func TestInteropNamespace(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "pmns", "testdata", "*", "*.pmns"))
	if len(files) == 0 {
		t.Fatal("no PMNS files in pmns/testdata")
	}
	for _, f := range files {
		for _, mode := range []string{"-d", "-m", "-l"} {
			args := []string{"-n", f, mode, "synth3"}
			t.Run(filepath.Base(f)+"/"+mode, func(t *testing.T) {
				wout, werr, wrc := testenv.RunRealIn(t, dir, "pmdumplog", args...)
				out, errs, rc := run(t, dir, args)
				testenv.CompareRun(t, "pmdumplog", "pmdumplog "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
			})
		}
	}
}

// TestInteropEmptyVolumes cuts copies of vol3's volumes back to their
// labels: an empty first volume makes the archive "Empty", an empty last
// one does not.
func TestInteropEmptyVolumes(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	src := testenv.SharedDir(t, "pcp-made-archives")
	for _, cut := range []string{".0", ".2"} {
		dir := t.TempDir()
		for _, ext := range []string{".0", ".1", ".2", ".meta", ".index"} {
			b, err := os.ReadFile(filepath.Join(src, "vol3"+ext))
			if err != nil {
				t.Fatal(err)
			}
			if ext == cut {
				b = b[:808]
			}
			if err := os.WriteFile(filepath.Join(dir, "vol3"+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, mode := range []string{"-l", "-a", "-r"} {
			args := []string{mode, "vol3"}
			wout, werr, wrc := testenv.RunRealIn(t, dir, "pmdumplog", args...)
			out, errs, rc := run(t, dir, args)
			testenv.CompareRun(t, "pmdumplog", "pmdumplog "+strings.Join(args, " ")+" with "+cut+" cut", string(wout), string(werr), wrc, out, errs, rc)
		}
	}
}

// TestInteropIndexChecks compares -t's integrity checks: QA's damaged
// temporal indexes (badti-*: illegal and backward stamps, offsets that
// decrease), and a copy of 20190628.04.03 without its second volume,
// whose two index entries get one "file missing" warning.
func TestInteropIndexChecks(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	bad := testenv.SharedDir(t, "pcp-qa-badarchives")
	missing := t.TempDir()
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	for _, ext := range []string{".0.xz", ".index", ".meta.xz"} {
		b, err := os.ReadFile(filepath.Join(qa, "20190628.04.03"+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(missing, "20190628.04.03"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ dir, archive string }{
		{bad, "badti-1"}, {bad, "badti-2"}, {bad, "badti-3"}, {bad, "badti-4"}, {missing, "20190628.04.03"},
	} {
		for _, mode := range []string{"-t", "-xxx -t"} {
			args := append(strings.Fields(mode), c.archive)
			t.Run(c.archive+"/"+mode, func(t *testing.T) {
				wout, _ := compareReal(t, c.dir, args)
				if c.dir == missing && bytes.Count(wout, []byte("Warning: file missing for log volume 1\n")) != 1 {
					t.Errorf("the real pmdumplog does not warn once of the missing volume:\n%s", wout)
				}
			})
		}
	}
}

// TestInteropUnknownEnd: QA's badlen-2 and badlen-3 lose the end of their
// only record, so no end can be found: the real pmdumplog warns ("Cannot
// locate end of archive", after -z's note) and prints "ending UNKNOWN".
// badlen-11 has one byte after its volume's label: no end either, and
// reading forwards that byte is the end of the volume, not a damaged
// record.
func TestInteropUnknownEnd(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	dir := testenv.SharedDir(t, "pcp-qa-badarchives")
	for _, a := range []string{"badlen-2", "badlen-3", "badlen-11"} {
		for _, mode := range []string{"-l", "-L", "-a", "-m", "-z -l", "-S +1 -T +3", "-t", "-x -e -i"} {
			args := append(strings.Fields(mode), a)
			t.Run(a+"/"+mode, func(t *testing.T) {
				if _, werr := compareReal(t, dir, args); !bytes.Contains(werr, []byte("Cannot locate end of archive "+a)) {
					t.Errorf("the real pmdumplog does not warn of the unknown end:\n%s", werr)
				}
			})
		}
	}
}

// TestInteropInstancesBeforeInDom: a record older than its instance
// domain's first state has no instance names (`inst [0 or ???]`). The
// archive is QA src-rattle with hinv.ndisk moved into indom 1.5 (whose
// only state is an hour after hinv.ndisk's one record) and that domain's
// instance 1 renumbered 0, both by the real pmlogrewrite.
func TestInteropInstancesBeforeInDom(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	rewrite := testenv.RealTool(t, "pmlogrewrite")
	dir := t.TempDir()
	src := filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), "src-rattle")
	for i, rule := range []string{"metric hinv.ndisk { indom -> 1.5 }", "indom 1.5 { inst 1 -> 0 }"} {
		cfg := filepath.Join(dir, fmt.Sprintf("c%d", i))
		if err := os.WriteFile(cfg, []byte(rule+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in, out := src, filepath.Join(dir, fmt.Sprintf("r%d", i))
		if i > 0 {
			in = filepath.Join(dir, fmt.Sprintf("r%d", i-1))
		}
		if o, e, rc := testenv.RunCommand(t, dir, testenv.RealEnv(), rewrite, "-c", cfg, in, out); rc != 0 {
			t.Fatalf("pmlogrewrite %s: exit %d\n%s%s", rule, rc, o, e)
		}
	}
	for _, mode := range []string{"-m", "-a", "-r", "-x -m"} {
		if wout, _ := compareReal(t, dir, append(strings.Fields(mode), "r1")); !bytes.Contains(wout, []byte("(hinv.ndisk): inst [0 or ???] value 2")) {
			t.Errorf("the real pmdumplog %s does not print hinv.ndisk's instance as ???:\n%s", mode, wout)
		}
	}
}

// TestInteropBadArchives runs the metadata sections on every archive of
// PCP QA's damaged set (../shared/pcp-qa-badarchives): labels, descriptors
// (unknown types and semantics), instance domains (negative instances,
// version 2 and 3 records mixed in one .meta), label sets, help texts and
// the temporal index checks, and the errors of those that do not open.
func TestInteropBadArchives(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	dir := testenv.SharedDir(t, "pcp-qa-badarchives")
	for _, a := range testenv.Archives(t, dir) {
		for _, mode := range []string{"-l", "-L", "-d", "-e", "-h", "-i", "-I", "-t", "-x -d -i -t"} {
			args := append(strings.Fields(mode), a)
			t.Run(a+"/"+mode, func(t *testing.T) { compareReal(t, dir, args) })
		}
	}
}

// TestInteropTruncatedMeta cuts the .meta of the repository's archives
// (v2 and v3) within and between its first records and near its end, and
// compares pmdumplog with the real one: libpcp takes a file that ends
// within a record's 8-byte header for the end of the metadata (but for
// the first record: nothing after the label is "Empty archive log file",
// part of a header a corrupt record), a cut body for a corrupt record;
// values of metrics whose descriptor was cut off print without instances.
func TestInteropTruncatedMeta(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	root := testenv.RepoRoot(t)
	for _, name := range []string{"pmcd-v2", "pmcd-v3"} {
		src := filepath.Join(root, "testdata", "archives", name)
		meta, err := os.ReadFile(src + ".meta")
		if err != nil {
			t.Fatal(err)
		}
		label := 132
		if name == "pmcd-v3" {
			label = 808
		}
		var cuts []int
		for off, k := label, 0; off+8 <= len(meta) && k < 4; k++ {
			cuts = append(cuts, off, off+1, off+7, off+8)
			off += int(binary.BigEndian.Uint32(meta[off:]))
		}
		cuts = append(cuts, len(meta)-1, len(meta)-5)
		for _, cut := range cuts {
			dir := t.TempDir()
			for _, ext := range []string{".0", ".index"} {
				b, err := os.ReadFile(src + ext)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, name+".meta"), meta[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{"-a", "-t"} {
				compareReal(t, dir, []string{mode, name})
			}
		}
	}
}

// TestInteropDamaged compares pmdumplog with the real one on damaged
// copies of archives (testenv.DamagedCopies: truncated files, flipped
// bits, zeroed index entries, missing files), with no options and with
// -S +1 (positioning over a damaged index), standard output, standard
// error and exit status each.
func TestInteropDamaged(t *testing.T) {
	testenv.RealTool(t, "pmdumplog")
	dir, names := testenv.DamagedCopies(t, testenv.DamageSources)
	for _, name := range names {
		for _, mode := range [][]string{nil, {"-S", "+1"}} {
			args := append(append([]string{}, mode...), name)
			t.Run(name+"/"+strings.Join(mode, "_"), func(t *testing.T) {
				compareReal(t, dir, args)
			})
		}
	}
}
