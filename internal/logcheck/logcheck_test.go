package logcheck

import (
	"fmt"
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

// TestList638: behaving as PCP 6.3.8, pmlogcheck checks every archive
// named, once, with the -v counts running on (what the real 6.3.8 does,
// TestInterop638Lists); behaving as 6.0.3, the first only.
func TestList638(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	args := []string{"-v", "pmcd-v3", "pmcd-v2", "./pmcd-v3"}
	_, one, rc := testenv.RunMain(t, Main, dir, []string{"-v", "pmcd-v3"}, "PCPKIT_PCP_VERSION=6.3.8")
	_, two, _ := testenv.RunMain(t, Main, dir, []string{"-v", "pmcd-v2"}, "PCPKIT_PCP_VERSION=6.3.8")
	if rc != 0 {
		t.Fatalf("exit %d:\n%s", rc, one)
	}
	count := func(s string) int {
		var n int
		fmt.Sscanf(s[strings.LastIndex(s, "Processed "):], "Processed %d", &n)
		return n
	}
	_, errs, rc := testenv.RunMain(t, Main, dir, args, "PCPKIT_PCP_VERSION=6.3.8")
	want := one + strings.Replace(two, fmt.Sprintf("Processed %d ", count(two)), fmt.Sprintf("Processed %d ", count(one)+count(two)), 1) +
		"./pmcd-v3: skip, already checked this archive\n"
	if rc != 0 || errs != want {
		t.Errorf("6.3.8 %s: exit %d:\n%s\nwant:\n%s", strings.Join(args, " "), rc, errs, want)
	}
	_, first, _ := testenv.RunMain(t, Main, dir, []string{"-v", "pmcd-v3"}, "PCPKIT_PCP_VERSION=6.0.3")
	_, errs, _ = testenv.RunMain(t, Main, dir, args, "PCPKIT_PCP_VERSION=6.0.3")
	if errs != first {
		t.Errorf("6.0.3 %s:\n%s\nwant:\n%s", strings.Join(args, " "), errs, first)
	}
}
