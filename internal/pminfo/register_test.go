package pminfo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestRegister638: behaving as PCP 6.3.8, -r registers per-context
// derived metrics once the archive is open (what the real pminfo 6.3.8
// printed, TestInterop638CommandLine); behaving as 6.0.3, -r is no
// option.
func TestRegister638(t *testing.T) {
	dir := testenv.SharedDir(t, "pcp-made-archives")
	for _, c := range []struct {
		args             []string
		version          string
		out, errs, first string // first: the first line of stderr, when errs is ""
		rc               int
	}{
		{args: []string{"-a", "synth3", "-r", "a.b=synth.ctr32*2", "-r", "a.c 7", "-dfm", "a"}, version: "6.3.8", out: `
a.b PMID: 511.2047.1023
    Data Type: 32-bit unsigned int  InDom: PM_INDOM_NULL 0xffffffff
    Semantics: counter  Units: count
    value 200

a.c PMID: 511.2047.1022
    Data Type: 32-bit unsigned int  InDom: PM_INDOM_NULL 0xffffffff
    Semantics: discrete  Units: none
    value 7
`},
		{args: []string{"-a", "synth3", "-r", "a.x", "-r", "a.y="}, version: "6.3.8", rc: 1,
			errs: "pminfo: bad register string, no =\npminfo: bad register string, no expr after =\n"},
		{args: []string{"-a", "synth3", "-r", "a.b=1"}, version: "6.0.3", rc: 1, first: "pminfo: invalid option -- 'r'"},
	} {
		t.Run(c.version+" "+strings.Join(c.args, " "), func(t *testing.T) {
			out, errs, rc := run(t, dir, c.args, "PCPKIT_PCP_VERSION="+c.version, "TZ=UTC")
			if c.first != "" {
				errs, _, _ = strings.Cut(errs, "\n")
				c.errs = c.first
			}
			if d := cmp.Diff(c.out, out); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.errs, errs); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			if rc != c.rc {
				t.Errorf("exit status %d, want %d", rc, c.rc)
			}
		})
	}
}
