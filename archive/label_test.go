package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// The labels of the .meta and .index files must carry the first data
// volume's pid and host, as libpcp's __pmLogOpen checks ("Illegal label
// record at start of a PCP archive log file"); later data volumes' labels
// are not compared (the real pmdumplog reads a copy of ok-mv-foo whose
// second volume names another host or pid).
func TestLabelsAgree(t *testing.T) {
	src := sharedPath(t, "pcp-qa-archives", "ok-mv-foo")
	for _, c := range []struct {
		file string
		off  int // byte of the label flipped: 11 in the pid, 24 in the host
		want error
	}{
		{".meta", 11, pmapi.ErrLabel}, {".index", 11, pmapi.ErrLabel}, {".meta", 24, pmapi.ErrLabel},
		{".1", 11, nil}, {".1", 24, nil},
	} {
		dir := t.TempDir()
		for _, ext := range []string{".0", ".1", ".2", ".meta", ".index"} {
			b, err := os.ReadFile(src + ext)
			if err != nil {
				t.Fatal(err)
			}
			if ext == c.file {
				b[c.off] ^= 1
			}
			if err := os.WriteFile(filepath.Join(dir, "ok-mv-foo"+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		name := filepath.Join(dir, "ok-mv-foo")
		what := fmt.Sprintf("%s label byte %d", c.file, c.off)
		a, err := Open(name)
		if err == nil {
			// a later volume is read without complaint
			_, err = readAll(t, a.NewCursor(), true)
			a.Close()
		}
		if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("%s changed: %v, want %v", what, err, c.want)
		}
		if out, errs, rc, ok := realDumplog(t, dir, "-a", "ok-mv-foo"); ok {
			refused := strings.Contains(errs, "Illegal label record")
			if refused != (c.want != nil) || !refused && rc != 0 {
				t.Errorf("%s changed: the real pmdumplog -a (exit %d) says %q%q", what, rc, errs, out[:min(len(out), 100)])
			}
		}
	}
}

// A file shorter than a label's length and magic words is empty for
// libpcp (QA badlen-4's only volume holds "\n"): "Empty archive log file".
func TestShortLabelIsEmpty(t *testing.T) {
	_, err := Open(sharedPath(t, "pcp-qa-badarchives", "badlen-4"))
	if !errors.Is(err, pmapi.ErrNoData) {
		t.Errorf("Open(badlen-4) = %v, want %v", err, pmapi.ErrNoData)
	}
	if _, errs, _, ok := realDumplog(t, "", "-l", sharedPath(t, "pcp-qa-badarchives", "badlen-4")); ok && !strings.Contains(errs, "Empty archive log file") {
		t.Errorf("the real pmdumplog says %q", errs)
	}
}
