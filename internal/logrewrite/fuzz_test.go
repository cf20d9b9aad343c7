package logrewrite

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// FuzzConfig parses arbitrary configurations against pmcd-v3's metadata,
// links the rules and applies them to its help texts and label sets: an
// error is fine, a panic or a hang is not.
func FuzzConfig(f *testing.F) {
	for _, dir := range []string{"testdata/configs", "testdata/bad"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.conf"))
		for _, c := range files {
			b, _ := os.ReadFile(c)
			f.Add(string(b))
		}
	}
	a, err := archive.Open(testArchive(f, "pmcd-v3"))
	if err != nil {
		f.Fatal(err)
	}
	defer a.Close()
	f.Fuzz(func(t *testing.T, src string) {
		r := newRules()
		p := &parser{lx: newLexer(src), file: "fuzz.conf", r: r, meta: a.Meta(), label: a.Label(),
			outVer: 3, warn: true, scale: true, stderr: io.Discard}
		if p.parse() != nil {
			return
		}
		if r.link(a.Meta(), "fuzz.conf", p.lx.line, true, io.Discard) != nil {
			return
		}
		r.report(io.Discard, a.Label(), a.Meta().Names)
		// and the text and label rules on the archive's records
		for i := range a.Meta().Labels {
			r.rewriteLabels(&a.Meta().Labels[i], pmapi.Timestamp{}, func(*archive.LabelRecord) error { return nil })
		}
		for _, tx := range a.Meta().Texts {
			r.rewriteText(&tx)
		}
	})
}
