package dumplog

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run638 is run with an environment, for testenv.Tool638.
func run638(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return run(t, dir, args)
}

// TestInterop638Shared is TestInteropShared (and TestGoldens' archives)
// against the real pmdumplog of PCP 6.3.8, in its chroot, with pcpkit's
// behaving as 6.3.8 (PCPKIT_PCP_VERSION): every shared archive and every
// archive of testdata/archives in every interop mode.
func TestInterop638Shared(t *testing.T) {
	p := &testenv.Tool638{Name: "pmdumplog", Run: run638}
	p.Need(t)
	defer p.Report(t)
	forInteropCases(t, []string{"pcp-qa-archives", "pcp-made-archives", testenv.TestdataSet}, func(t *testing.T, dir, a, m string) {
		p.Compare(t, dir, append(strings.Fields(m), a), nil)
	})
}

// TestListOrder638: behaving as PCP 6.3.8, pmdumplog -d and -i list the
// descriptors and instance domains of the committed archives in
// ascending order (as the real 6.3.8 does: TestInterop638Shared), the
// same ones 6.0.3 lists in libpcp's hash order, which is not ascending
// for any of them.
func TestListOrder638(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, a := range testenv.Archives(t, dir) {
		for _, c := range []struct{ opt, prefix string }{{"-d", "PMID: "}, {"-i", "InDom: "}} {
			ids := map[string][]uint64{}
			for _, v := range []string{"6.0.3", "6.3.8"} {
				out, errs, rc := run638(t, dir, []string{c.opt, a}, "PCPKIT_PCP_VERSION="+v)
				if rc != 0 {
					t.Fatalf("pmdumplog %s %s: exit %d: %s", c.opt, a, rc, errs)
				}
				for _, l := range strings.Split(out, "\n") {
					if id, ok := strings.CutPrefix(l, c.prefix); ok {
						id, _, _ = strings.Cut(id, " ")
						var n uint64
						for _, part := range strings.Split(id, ".") {
							x, err := strconv.ParseUint(part, 10, 32)
							if err != nil {
								t.Fatalf("%s %s: bad identifier in %q", a, c.opt, l)
							}
							n = n<<16 | x
						}
						ids[v] = append(ids[v], n)
					}
				}
			}
			if !slices.IsSorted(ids["6.3.8"]) {
				t.Errorf("%s %s under 6.3.8: not in ascending order: %v", a, c.opt, ids["6.3.8"])
			}
			if slices.IsSorted(ids["6.0.3"]) {
				t.Errorf("%s %s under 6.0.3: in ascending order, as libpcp's hash order is not", a, c.opt)
			}
			if !slices.Equal(slices.Sorted(slices.Values(ids["6.0.3"])), ids["6.3.8"]) {
				t.Errorf("%s %s: 6.0.3 lists %v, 6.3.8 %v", a, c.opt, ids["6.0.3"], ids["6.3.8"])
			}
		}
	}
}

// TestGoldens638 compares pcpkit's pmdumplog, behaving as PCP 6.3.8, with
// the committed output of the real pmdumplog of PCP 6.3.8
// (testdata/golden638/pmdumplog, made by PCP638=1 scripts/make-goldens.sh
// pmdumplog) for every case of TestGoldens. It needs no PCP installation.
func TestGoldens638(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pmdumplog") {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden638(t, "pmdumplog", c)
			out, errs, rc := run638(t, dir, c.Args(), "PCPKIT_PCP_VERSION=6.3.8")
			testenv.CompareRun(t, "pmdumplog 6.3.8", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}
