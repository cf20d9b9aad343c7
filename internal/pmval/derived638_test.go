package pmval

import (
	"strings"
	"testing"
)

// TestUsageVersion: the usage message is the real pmval's, and names the
// derived metric language when it is PCP 6.3.8's.
func TestUsageVersion(t *testing.T) {
	t.Setenv("PCPKIT_PCP_VERSION", "6.0.3")
	if got := usageText(); got != usage {
		t.Errorf("6.0.3: the usage message is not the real pmval's:\n%s", got)
	}
	t.Setenv("PCPKIT_PCP_VERSION", "6.3.8")
	got := usageText()
	if !strings.Contains(got, derivedUsage+"                        (PCP 6.3.8's language") {
		t.Errorf("6.3.8: the --derived line does not name the language:\n%s", got)
	}
	if strings.Replace(got, "                        (PCP 6.3.8's language: $PCPKIT_PCP_VERSION or pcp.conf)\n", "", 1) != usage {
		t.Errorf("6.3.8: more than the --derived line changed:\n%s", got)
	}
}
