package pmapi

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestErrStr: the texts are the real pmerr's, `pmerr CODE` printing
// "Code: CODE 0x... Text: TEXT" (pmerr negates a positive code, so the
// texts for 0 and positive codes come from calling libpcp's pmErrStr_r
// directly). The same comparison was run, through pmErrStr_r, for every
// code from -40000 to 300 and for INT_MIN and INT_MAX, with no difference.
func TestErrStr(t *testing.T) {
	for _, c := range []struct {
		code int32
		want string
	}{
		{-1, "Operation not permitted"},
		{-2, "No such file or directory"},
		{-5, "Input/output error"},
		{-11, "Resource temporarily unavailable"},
		{-12, "Cannot allocate memory"},
		{-13, "Permission denied"},
		{-17, "File exists"},
		{-20, "Not a directory"},
		{-21, "Is a directory"},
		{-22, "Invalid argument"},
		{-28, "No space left on device"},
		{-110, "Connection timed out"},
		{-111, "Connection refused"},
		{-133, "Memory page has hardware error"},
		{-134, "Unknown error 134"},
		{-41, "Unknown error 41"},
		{-12344, "Unknown error 12344"},
		{-12345, "Generic error, already reported above"},
		{-12352, "No such PMAPI error code (-12352)"},
		{-12362, "Impossible value or scale conversion"},
		{-12370, "End of PCP archive log"},
		{-12372, "Illegal label record at start of a PCP archive log file"},
		{-12373, "Corrupted record in a PCP archive log"},
		{-12375, "Missing PCP archive log file"},
		{-12389, "Try again. Information not currently available"},
		{-12394, "Metric name is not a leaf in PMNS"},
		{-12414, "TLS protocol failure"},
		{-12441, "No such PMAPI error code (-12441)"},
		{-12445, "QA fault injected"},
		{-12999, "No such PMAPI error code (-12999)"},
		{-13393, "PMDA is now responsive to requests"},
		{-13394, "PMDA is not yet ready to respond to requests"},
		{-21343, "No such PMAPI error code (-21343)"},
		{-21344, "Functionality not yet implemented"},
		{-21345, "Authentication - generic failure"},
		{-21361, "Authentication - One time use of a plaintext password will enable requested mechanism for user"},
		{-21444, "Authentication - error when parsing configuration file"},
		{-22344, "Authentication - undefined error!"},
		{-22345, "Unknown secure sockets error -22345 (-1001)"},
		{-30000, "Unknown secure sockets error -30000 (-8656)"},
		{-2147483648, "Unknown secure sockets error -2147483648 (-2147462304)"},
		{0, "No error"},
		{1, "No such PMAPI error code (1)"},
		{12345, "No such PMAPI error code (12345)"},
		{2147483647, "No such PMAPI error code (2147483647)"},
	} {
		if got := ErrStr(c.code); got != c.want {
			t.Errorf("ErrStr(%d) = %q, want %q", c.code, got, c.want)
		}
		if got := Error(c.code).Error(); got != c.want {
			t.Errorf("Error(%d).Error() = %q, want %q", c.code, got, c.want)
		}
	}
}

func TestErrorConstants(t *testing.T) {
	for _, c := range []struct {
		e    Error
		code int32
		name string
		text string
	}{
		{ErrLogRec, -12373, "PM_ERR_LOGREC", "Corrupted record in a PCP archive log"},
		{ErrEOL, -12370, "PM_ERR_EOL", "End of PCP archive log"},
		{ErrLabel, -12372, "PM_ERR_LABEL", "Illegal label record at start of a PCP archive log file"},
		{ErrLogFile, -12375, "PM_ERR_LOGFILE", "Missing PCP archive log file"},
		{ErrPMIDLog, -12378, "PM_ERR_PMID_LOG", "Metric not defined in the PCP archive log"},
		{ErrTooBig, -12444, "PM_ERR_TOOBIG", "Result size exceeded"},
		{ErrNYI, -21344, "PM_ERR_NYI", "Functionality not yet implemented"},
		{ErrGeneric, int32(ErrBase), "PM_ERR_GENERIC", "Generic error, already reported above"},
	} {
		if int32(c.e) != c.code || c.e.Name() != c.name || c.e.Error() != c.text {
			t.Errorf("%d: got %d %q %q", c.code, int32(c.e), c.e.Name(), c.e.Error())
		}
	}
	if Error(-2).Name() != "" {
		t.Errorf("errno has a name")
	}
	var err error = ErrEOL
	if !errors.Is(fmt.Errorf("reading: %w", err), ErrEOL) {
		t.Errorf("errors.Is")
	}
}

// TestErrorCodesPmerr compares the table with `pmerr -l` when the real PCP
// is installed: the same codes, names and texts in the same order.
func TestErrorCodesPmerr(t *testing.T) {
	// pmerr -l exits with status 1 after listing
	out, err := exec.Command("pmerr", "-l").Output()
	if len(out) == 0 {
		t.Skip("pmerr not available:", err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n")[1:] {
		want = append(want, strings.Join(strings.Fields(l), " "))
	}
	var got []string
	for _, e := range ErrorCodes() {
		got = append(got, fmt.Sprintf("%d %s %s", int32(e), e.Name(), e.Error()))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ErrorCodes differ from pmerr -l:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func BenchmarkErrStr(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = ErrStr(int32(ErrEOL))
	}
}

// TestErrStr638 compares ErrStrOf for PCP 6.3.8 with `pmerr -l` of the
// real PCP 6.3.8 (its chroot): every code it lists has its text, and
// ErrArg is the one code 6.3.8 adds.
func TestErrStr638(t *testing.T) {
	c := testenv.Real638(t)
	out, _ := c.Command("/", nil, "pmerr", "-l").Output() // exits with status 1
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("pmerr -l printed %q", out)
	}
	n := 0
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		code, err := strconv.ParseInt(f[0], 10, 32)
		if err != nil || len(f) < 3 {
			t.Fatalf("pmerr -l line %q", l)
		}
		if got, want := ErrStrOf(int32(code), pcpconf.Version638), strings.Join(f[2:], " "); got != want {
			t.Errorf("%d %s: %q, 6.3.8 says %q", code, f[1], got, want)
		}
		if Error(code).Name() == "" && Error(code) != ErrArg {
			t.Errorf("%d %s: a code 6.0.3 does not have", code, f[1])
		}
		n++
	}
	if n != len(ErrorCodes())+1 {
		t.Errorf("6.3.8 lists %d codes, 6.0.3 %d (+1: ErrArg)", n, len(ErrorCodes()))
	}
	if got := ErrStrOf(int32(ErrArg), pcpconf.Version603); got != "No such PMAPI error code (-12415)" {
		t.Errorf("6.0.3 PM_ERR_ARG: %q", got)
	}
}

// TestErrStrOf: the texts that differ between the versions (pmerr -l of
// each; TestErrStr638 compares them all with the real 6.3.8).
func TestErrStrOf(t *testing.T) {
	for _, c := range []struct {
		code       Error
		v603, v638 string
	}{
		{ErrEOL, "End of PCP archive log", "End of PCP archive"},
		{ErrNoData, "Empty archive log file", "Empty archive file"},
		{ErrLabel, "Illegal label record at start of a PCP archive log file", "Illegal label record at start of a PCP archive file"},
		{ErrInDomLog, "Instance domain identifier not defined in the PCP archive log", "Instance domain identifier not defined in the PCP archive"},
		{ErrArg, "No such PMAPI error code (-12415)", "Bad value for function argument"},
		{ErrPMID, "Unknown or illegal metric identifier", "Unknown or illegal metric identifier"},
	} {
		if got := ErrStrOf(int32(c.code), pcpconf.Version603); got != c.v603 {
			t.Errorf("6.0.3 %s: %q, want %q", c.code.Name(), got, c.v603)
		}
		if got := ErrStrOf(int32(c.code), pcpconf.Version638); got != c.v638 {
			t.Errorf("6.3.8 %s: %q, want %q", c.code.Name(), got, c.v638)
		}
	}
	t.Setenv(pcpconf.VersionEnv, "6.3.8")
	if got := ErrEOL.Error(); got != "End of PCP archive" {
		t.Errorf("Error() under %s=6.3.8: %q", pcpconf.VersionEnv, got)
	}
}
