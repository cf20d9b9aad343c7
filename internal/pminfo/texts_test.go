package pminfo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInteropDerivedTexts: a derived metric's "(oneline)" or
// "(helptext)" attribute set to an empty string is a text, printed as
// such ("[]", "<empty entry>"), not "not available"; the one-line text
// stands in for a help text never set (PCP QA 1236).
func TestInteropDerivedTexts(t *testing.T) {
	testenv.RealTool(t, "pminfo")
	conf := filepath.Join(t.TempDir(), "texts.conf")
	text := `qa.a = sample.milliseconds / 1000
qa.b = sample.milliseconds / 1000
qa.c = sample.milliseconds / 1000
qa.d = sample.milliseconds / 1000
qa.e = sample.milliseconds / 1000
qa.a(oneline) = ''
qa.b(helptext) = ''
qa.c(oneline) = ''
qa.c(helptext) = ''
qa.e(oneline) = fubar
qa.e(helptext) = 'string with quote (\') and double quote (") embedded'
`
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), "sample3")
	for _, mode := range []string{"-t", "-T", "-tT"} {
		compareReal(t, "", []string{"-a", a, mode, "qa"}, "PCP_DERIVED_CONFIG="+conf)
	}
}
