package logrewrite

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
)

// FuzzConfig parses arbitrary configurations against pmcd-v3's metadata
// and links the rules: an error is fine, a panic or a hang is not.
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
		r.report(io.Discard, a.Label())
	})
}
