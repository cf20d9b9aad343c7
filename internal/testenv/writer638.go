package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Writer638 compares one of pcpkit's tools that writes an archive
// (pmlogrewrite, pmlogreduce), behaving as PCP 6.3.8, with the real one
// of PCP 6.3.8 in its chroot. The inputs are laid out alike for both: a
// directory of the chroot holds copies of the directories of Dirs, and
// each run is made from a directory of its own beside them (rN for the
// real tool, gN for pcpkit's), so that the command lines name the inputs
// by the same relative paths ("../qa/mirage") and the outputs by the same
// names ("out"), and the messages are the same.
type Writer638 struct {
	Name string            // the tool's name, in the chroot's PATH
	Dirs map[string]string // the directories to copy, by the name of the copy
	// Run runs pcpkit's tool in-process in dir (the host's path) with
	// args, in an environment with PCPKIT_PCP_VERSION=6.3.8.
	Run func(t *testing.T, dir string, args []string) (stdout, stderr string, exitCode int)

	c            *Chroot
	host, inside string
	n            int

	Runs    int // runs compared
	Same    int // of those, identical (outputs, exit status, files)
	Checked int // outputs the real pmlogcheck of 6.3.8 passes
}

// Need gets the chroot for the test t (skipping it, or failing it under
// PCP_INTEROP=1, without one) and makes the copies, which last as long
// as t.
func (w *Writer638) Need(t *testing.T) {
	t.Helper()
	w.c = Real638(t)
	w.host, w.inside = w.c.TempDir(t)
	for name, from := range w.Dirs {
		to := filepath.Join(w.host, name)
		if err := os.Mkdir(to, 0o755); err != nil {
			t.Fatal(err)
		}
		copyDir(t, from, to)
	}
}

// Compare runs both tools with args and requires the same exit status and
// output and the same files: byte for byte but for the pid in the labels,
// or else the same for the real pmdumplog -a -e of 6.3.8 (-a leaves the
// label sets out) but for its pid line. With check, the real pmlogcheck of 6.3.8 must say the same of the
// two archives "out" (when pcpkit wrote one). A run the real tool dies in,
// or one the chroot cannot decompress the input of, is skipped.
func (w *Writer638) Compare(t *testing.T, args []string, check bool) bool {
	t.Helper()
	w.n++
	rname, gname := fmt.Sprintf("r%d", w.n), fmt.Sprintf("g%d", w.n)
	rdir, gdir := filepath.Join(w.host, rname), filepath.Join(w.host, gname)
	for _, d := range []string{rdir, gdir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(d)
	}
	rout, rerr, rrc := w.c.Run(t, w.inside+"/"+rname, nil, w.Name, args...)
	if MissingDecompressor(rerr) {
		t.Skipf("the chroot cannot decompress the archive: %s", rerr)
	}
	if rrc < 0 {
		t.Skipf("the real %s 6.3.8 died of a signal (%d)", w.Name, rrc)
	}
	gout, gerr, grc := w.Run(t, gdir, args)
	w.Runs++
	ok := rrc == grc && string(rout) == gout && string(rerr) == gerr
	CompareRun(t, w.Name+" 6.3.8", w.Name+" "+strings.Join(args, " "), string(rout), string(rerr), rrc, gout, gerr, grc)
	if !w.sameFiles(t, rname, gname) {
		ok = false
	}
	if ok {
		w.Same++
	}
	if check && grc == 0 {
		if _, err := os.Stat(filepath.Join(gdir, "out.meta")); err == nil {
			_, re, rc := w.c.Run(t, w.inside+"/"+rname, nil, "pmlogcheck", "out")
			_, ge, gc := w.c.Run(t, w.inside+"/"+gname, nil, "pmlogcheck", "out")
			if rc != gc || !bytes.Equal(re, ge) {
				t.Errorf("pmlogcheck 6.3.8: exit %d on pcpkit's output, %d on the real tool's:\n%s\nreal:\n%s", gc, rc, ge, re)
			}
			if gc == 0 {
				w.Checked++
			}
		}
	}
	return ok
}

// pidLine is pmdumplog's line with the pid of the archive's writer.
var pidLine = regexp.MustCompile(`(?m)^PID for pmlogger: \d+\n`)

// sameFiles reports whether the runs rname and gname left the same files
// (Compare), and reports the differences.
func (w *Writer638) sameFiles(t *testing.T, rname, gname string) bool {
	t.Helper()
	rdir, gdir := filepath.Join(w.host, rname), filepath.Join(w.host, gname)
	rn, gn := FileNames(rdir), FileNames(gdir)
	if d := cmp.Diff(rn, gn); d != "" {
		t.Errorf("files -real +pcpkit:\n%s", d)
		return false
	}
	same := true
	for _, f := range rn {
		a, _ := os.ReadFile(filepath.Join(rdir, f))
		b, _ := os.ReadFile(filepath.Join(gdir, f))
		if !bytes.Equal(MaskPID(a), MaskPID(b)) {
			same = false
		}
	}
	if same {
		return true
	}
	ra, re, _ := w.c.Run(t, w.inside+"/"+rname, nil, "pmdumplog", "-a", "-e", "out")
	ga, ge, _ := w.c.Run(t, w.inside+"/"+gname, nil, "pmdumplog", "-a", "-e", "out")
	rs := pidLine.ReplaceAllString(string(ra), "") + string(re)
	gs := pidLine.ReplaceAllString(string(ga), "") + string(ge)
	if rs != gs {
		t.Errorf("pmdumplog 6.3.8 -a -real +pcpkit:\n%s", LineDiff(rs, gs))
		return false
	}
	return true
}

// MaskPID returns a copy of an archive file's bytes b with the pid in its
// label (the third word) zeroed: what two writers' files must share.
func MaskPID(b []byte) []byte {
	if len(b) < 12 {
		return b
	}
	c := bytes.Clone(b)
	copy(c[8:12], []byte{0, 0, 0, 0})
	return c
}

// Report logs the counts.
func (w *Writer638) Report(t testing.TB) {
	t.Helper()
	if w.Runs > 0 {
		t.Logf("%s 6.3.8: %d runs, %d identical, %d outputs the real pmlogcheck 6.3.8 passes", w.Name, w.Runs, w.Same, w.Checked)
	}
}
