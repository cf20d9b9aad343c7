package pmval

import (
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestTypeStr checks the type names pmval prints in its messages, as
// libpcp's pmTypeStr gives them: "???" for a type it does not know (a
// damaged descriptor: "pmval: unknown performance metric value type ???").
func TestTypeStr(t *testing.T) {
	for _, c := range []struct {
		t    pmapi.Type
		want string
	}{
		{pmapi.TypeNoSupport, "NO_SUPPORT"},
		{pmapi.TypeU32, "U32"},
		{pmapi.TypeHighresEvent, "HIGHRES_EVENT"},
		{pmapi.Type(1 << 20), "???"},
		{pmapi.Type(-7), "???"},
	} {
		if got := typeStr(c.t); got != c.want {
			t.Errorf("typeStr(%d) = %q, want %q", c.t, got, c.want)
		}
	}
}
