package derive

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/derive/internal/grammar"
)

// TestTablesUpToDate regenerates the parse tables from the grammar in
// derive/internal/grammar and requires the committed files to be those: a
// change of the grammar (or of the table builder) without go generate
// fails here.
func TestTablesUpToDate(t *testing.T) {
	files, err := grammar.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("grammar.Files made no file")
	}
	for _, f := range files {
		got, err := os.ReadFile(f.Name)
		if err != nil {
			t.Errorf("%v: run `%s`", err, grammar.Command)
			continue
		}
		if !bytes.Equal(got, f.Source) {
			diff := cmp.Diff(strings.Split(string(got), "\n"), strings.Split(string(f.Source), "\n"))
			t.Errorf("derive/%s differs from the tables the grammar gives (-committed +generated):\n%s\nrun `%s` and commit the result",
				f.Name, diff, grammar.Command)
		}
	}
}
