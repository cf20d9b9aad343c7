package grammar

import (
	"bytes"
	"regexp"
	"testing"
)

// The files carry the header Go tools recognise as generated, and declare
// the tables of both dialects.
func TestFilesHeader(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	generated := regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)
	want := map[string]string{"tables_603.go": "var tables603 = parseTables{", "tables_current.go": "var tablesCurrent = parseTables{"}
	for _, f := range files {
		if !generated.Match(f.Source) {
			t.Errorf("%s has no \"Code generated ... DO NOT EDIT.\" line", f.Name)
		}
		if !bytes.Contains(f.Source, []byte("\n"+want[f.Name])) || want[f.Name] == "" {
			t.Errorf("%s does not declare %q", f.Name, want[f.Name])
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("files missing: %v", want)
	}
}

// A terminal the lexer does not return cannot have an action in the
// tables (derive could not look it up).
func TestTokenWithoutLexerConstant(t *testing.T) {
	s := grammarOf(dialect603)
	for i := range s.tokens {
		if s.tokens[i].name == "L_EOS" {
			s.tokens = append([]token(nil), s.tokens...)
			s.tokens[i].lexer = ""
		}
	}
	_, err := render(s, "x", "X")
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("L_EOS, which the lexer does not return")) {
		t.Errorf("error %v, want one about L_EOS", err)
	}
}
