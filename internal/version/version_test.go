package version

import (
	"strings"
	"testing"
)

func TestBanner(t *testing.T) {
	version, commit = "v1.2.3", "abc123"
	defer func() { version, commit = "", "" }()
	if got, want := Banner("pmdumplog"), "pmdumplog version 6.0.3\npcpkit v1.2.3 (commit abc123)\n"; got != want {
		t.Errorf("Banner = %q, want %q", got, want)
	}
}

// TestInfoUnstamped checks that an unstamped build (a test binary) still
// says something for each.
func TestInfoUnstamped(t *testing.T) {
	ver, rev := Info()
	if ver == "" || rev == "" || strings.ContainsAny(ver+rev, " \n") {
		t.Errorf("Info() = %q, %q", ver, rev)
	}
}

func TestStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pmval version 6.0.3\npcpkit v0.1 (commit 0123abc)\n", "pmval version 6.0.3\n"},
		{"pmval version 6.0.3\npcpkit (devel) (commit unknown)\n", "pmval version 6.0.3\n"},
		{"a\npcpkit v0.1 (commit x)", "a\n"},
		{"pcpkit extensions:\n  --json\n", "pcpkit extensions:\n  --json\n"},
		{"pcpkit v0.1 (commit x) and more\n", "pcpkit v0.1 (commit x) and more\n"},
		{"no line\n", "no line\n"},
	} {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPseudoRevision(t *testing.T) {
	for ver, want := range map[string]string{
		"v0.0.0-20261126093000-0123456789ab":       "0123456789ab",
		"v1.2.4-0.20261126093000-0123456789ab":     "0123456789ab",
		"v0.0.0-20261126093000-0123456789ab+dirty": "",
		"v1.2.3":                   "",
		"(devel)":                  "",
		"v1.2.3-rc.1-0123456789ab": "",
	} {
		if got := pseudoRevision(ver); got != want {
			t.Errorf("pseudoRevision(%q) = %q, want %q", ver, got, want)
		}
	}
}
