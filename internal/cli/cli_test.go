package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/getopt"
)

func TestExtensions(t *testing.T) {
	tool := &Tool{Name: "x", Extras: []Extra{
		{Option: "--json", Text: "JSON"},
		{Option: "-X ALGO, --compress[=ALGO]", Text: "compress"},
	}}
	want := "\npcpkit extensions:\n" +
		"  --json                JSON\n" +
		"  -X ALGO, --compress[=ALGO]\n" +
		"                        compress\n"
	if d := cmp.Diff(want, tool.Extensions()); d != "" {
		t.Errorf("Extensions (-want +got):\n%s", d)
	}
	if got := (&Tool{Name: "y"}).Extensions(); got != "" {
		t.Errorf("no extras: %q", got)
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--help"}, true},
		{[]string{"-a", "x", "--help"}, true},
		{[]string{"-?"}, false},
		{[]string{"--he"}, false},
		{[]string{"--", "--help"}, false},
		{nil, false},
	} {
		if got := HelpRequested(tc.args); got != tc.want {
			t.Errorf("HelpRequested(%q) = %v", tc.args, got)
		}
		if got := tool.Help(tc.args) != ""; got != tc.want {
			t.Errorf("Help(%q) printed %v", tc.args, got)
		}
	}
}

// TestOptions checks the option table completion works from: short and
// long spellings of one option merged, arguments' kinds from the long
// names, long-only options kept, unnamed table entries skipped.
func TestOptions(t *testing.T) {
	tool := &Tool{Short: "a:c:h:t:vV?", Longs: []getopt.Long{
		{Name: "archive", HasArg: true, Short: 'a'},
		{Name: "config", HasArg: true, Short: 'c'},
		{Name: "host", HasArg: true, Short: 'h'},
		{Name: "interval", HasArg: true, Short: 't'},
		{Name: "", Short: 'v'},
		{Name: "json", Short: 1000, Exact: true},
	}}
	all, withArg := tool.words()
	if d := cmp.Diff([]string{"--archive", "--config", "--host", "--interval", "--json", "-V", "-a", "-c", "-h", "-t", "-v"}, all); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[argKind][]string{
		argArchive: {"-a", "--archive"}, argFile: {"-c", "--config"}, argHost: {"-h", "--host"}, argOther: {"-t", "--interval"},
	}, withArg); d != "" {
		t.Errorf("options with arguments (-want +got):\n%s", d)
	}
}
