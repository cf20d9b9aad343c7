package logcheck

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestHelpExtras checks that --help spelled out adds pcpkit's extras to
// the real tool's usage message (which -? prints alone, as the goldens
// check), and that --repair is accepted as an option.
func TestHelpExtras(t *testing.T) {
	out, errs, rc := testenv.RunMain(t, Main, "", []string{"--help"})
	if rc != 1 || out != "" {
		t.Fatalf("--help: exit status %d, stdout %q", rc, out)
	}
	if want := usage + CLI.Extensions(); errs != want || !strings.Contains(errs, "--repair") {
		t.Fatalf("--help printed:\n%s\nwant the usage message and:\n%s", errs, CLI.Extensions())
	}
	_, errs, _ = testenv.RunMain(t, Main, "", []string{"-?"})
	if strings.Contains(errs, "pcpkit") {
		t.Fatalf("-? printed the extras:\n%s", errs)
	}
	_, errs, rc = testenv.RunMain(t, Main, "", []string{"--repair"})
	if rc != 1 || !strings.Contains(errs, "--repair") {
		t.Fatalf("--repair without OUTPUT: exit status %d:\n%s", rc, errs)
	}
}

// TestPass0AsSet checks the golden comparison's normalisation.
func TestPass0AsSet(t *testing.T) {
	in := "Scan\nb: start pass0 ... found 2 records\na: start pass0 ... found 1 records\nx\n"
	want := "Scan\na: start pass0 ... found 1 records\nb: start pass0 ... found 2 records\nx\n"
	if got := pass0AsSet(in); got != want {
		t.Fatalf("pass0AsSet = %q, want %q", got, want)
	}
}
