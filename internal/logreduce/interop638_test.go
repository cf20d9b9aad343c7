package logreduce

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInterop638Reduce is TestInteropReduce against the real pmlogreduce
// of PCP 6.3.8, in its chroot, with pcpkit's behaving as 6.3.8
// (testenv.Writer638: the same exit status, output and files but for the
// pid, through the real pmdumplog -a of 6.3.8 where the bytes differ; the
// real pmlogcheck of 6.3.8 says the same of both outputs): every archive
// of testdata/archives and ../shared with the default option set and one
// other in turn (setsPerArchive of them with PCPKIT_SLOW638=1), and the
// multi-archive inputs.
func TestInterop638Reduce(t *testing.T) {
	sets := 2
	if os.Getenv("PCPKIT_SLOW638") == "1" {
		sets = setsPerArchive
	}
	root := testenv.RepoRoot(t)
	w := &testenv.Writer638{
		Name: "pmlogreduce",
		Dirs: map[string]string{
			"td":   filepath.Join(root, "testdata", "archives"),
			"qa":   testenv.SharedDir(t, "pcp-qa-archives"),
			"made": testenv.SharedDir(t, "pcp-made-archives"),
			"bad":  testenv.SharedDir(t, "pcp-qa-badarchives"),
		},
		Run: func(t *testing.T, dir string, args []string) (string, string, int) {
			testenv.Setenv(t, "PCPKIT_PCP_VERSION=6.3.8")
			t.Chdir(dir)
			var out, errb bytes.Buffer
			rc := Main(args, &out, &errb)
			return out.String(), errb.String(), rc
		},
	}
	w.Need(t)
	defer w.Report(t)
	var inputs []string
	for _, d := range []struct{ name, dir string }{{"td", w.Dirs["td"]}, {"qa", w.Dirs["qa"]}, {"made", w.Dirs["made"]}, {"made", filepath.Join(w.Dirs["made"], "bad")}, {"bad", w.Dirs["bad"]}} {
		rel := d.name
		if strings.HasSuffix(d.dir, "/bad") && d.name == "made" {
			rel = "made/bad"
		}
		for _, a := range testenv.Archives(t, d.dir) {
			inputs = append(inputs, "../"+rel+"/"+a)
		}
	}
	inputs = append(inputs, "../qa/multi", "../qa/multi-xz", "../qa/gap,../qa/gap2")
	for i, in := range inputs {
		base := filepath.Base(in)
		if _, ok := knownDiff[base]; ok {
			continue
		}
		for k := 0; k < sets; k++ {
			if k > 0 && slowReal[base] || k > 1 && strings.HasPrefix(in, "../bad/") {
				continue
			}
			set := 0
			if k > 0 {
				set = 1 + (i+k*2)%(len(optionSets)-1)
			}
			args := append(append([]string(nil), optionSets[set]...), in, "out")
			t.Run(strings.TrimPrefix(in, "../")+"/"+strings.Join(optionSets[set], ""), func(t *testing.T) {
				w.Compare(t, args, true)
			})
		}
	}
}
