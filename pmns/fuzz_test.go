package pmns

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzLoad loads arbitrary bytes as a PMNS: Load must not panic or hang, a
// failure must be a *LoadError whose messages are whole lines, and a loaded
// namespace must be self-consistent.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"good", "bad"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.pmns"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	g := newGen(3)
	for i := 0; i < 20; i++ {
		f.Add([]byte(g.valid()))
		f.Add([]byte(g.broken()))
		f.Add([]byte(g.cppText()))
	}
	f.Add([]byte("root {\n  a 1:2:3 :\n}\n"))
	f.Add([]byte("root {\n  x1\n\t: :1\n}\n# 3 \" x\n"))
	f.Add([]byte("root {\n  " + strings.Repeat("a ", 200) + "\n}\n"))
	f.Add([]byte("#ifdef X\n#bogus\n#else\n#else\n#else\n#endif\n"))
	f.Add([]byte("ab\x00cd\nroot {\n}\n"))

	dir := f.TempDir()
	file := filepath.Join(dir, "fuzz.pmns")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ns, err := Load(file)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %T, want *LoadError", err)
			}
			if le.Reason != ReasonPMNS {
				t.Errorf("Reason = %q", le.Reason)
			}
			if le.Messages == "" || !strings.HasSuffix(le.Messages, "\n") {
				t.Errorf("Messages %q: want complete lines", le.Messages)
			}
			return
		}
		for _, name := range ns.Traverse("") {
			id, ok := ns.Lookup(name)
			if !ok {
				t.Fatalf("Traverse gave %q but Lookup fails", name)
			}
			if names := ns.Names(id); names != nil && !slices.Contains(names, name) {
				t.Errorf("Names(%v) = %q lacks %q", id, names, name)
			}
			if got := ns.Traverse(name); len(got) != 1 || got[0] != name {
				t.Errorf("Traverse(%q) = %q", name, got)
			}
		}
	})
}
