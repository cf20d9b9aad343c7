package getopt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var longs = []Long{{Name: "start", HasArg: true, Short: 'S'}, {Name: "sizes", Short: 's'}, {Name: "all", Short: 'a'}}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		opts     []Opt
		operands []string
		err      string
	}{
		{args: []string{"-a", "x"}, opts: []Opt{{Short: 'a'}}, operands: []string{"x"}},
		{args: []string{"x", "-xx", "y"}, opts: []Opt{{Short: 'x'}, {Short: 'x'}}, operands: []string{"x", "y"}},
		{args: []string{"-S3", "-S", "4"}, opts: []Opt{{Short: 'S', Arg: "3"}, {Short: 'S', Arg: "4"}}},
		{args: []string{"-aS", "5"}, opts: []Opt{{Short: 'a'}, {Short: 'S', Arg: "5"}}},
		{args: []string{"--start=1", "--all"}, opts: []Opt{{Short: 'S', Name: "start", Arg: "1"}, {Short: 'a', Name: "all"}}},
		{args: []string{"--al"}, opts: []Opt{{Short: 'a', Name: "all"}}},
		{args: []string{"--", "-a"}, operands: []string{"-a"}},
		{args: []string{"-Q"}, err: "invalid option -- 'Q'"},
		{args: []string{"-S"}, err: "option requires an argument -- 'S'"},
		{args: []string{"--bogus"}, err: "unrecognized option '--bogus'"},
		{args: []string{"--s"}, err: "option '--s' is ambiguous; possibilities: '--start' '--sizes'"},
		{args: []string{"--start"}, err: "option '--start' requires an argument"},
		{args: []string{"--all=1"}, err: "option '--all' doesn't allow an argument"},
		{args: []string{"-Q", "--bogus", "-a"}, err: "invalid option -- 'Q'\nunrecognized option '--bogus'"},
	} {
		opts, operands, err := Parse(tc.args, "aS:sx", longs)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if d := cmp.Diff(tc.opts, opts); d != "" {
			t.Errorf("%q options (-want +got):\n%s", tc.args, d)
		}
		if d := cmp.Diff(tc.operands, operands); d != "" {
			t.Errorf("%q operands (-want +got):\n%s", tc.args, d)
		}
	}
}

// The -D arguments PCP 6.0.3's pmdumplog accepts and refuses
// ("unrecognized debug options specification").
func TestValidDebug(t *testing.T) {
	for _, s := range []string{"pdu,fetch", "all", "2048", "-1", "PDU", "pdu,", "", "0", "desperate", "tls",
		"100000000000", "ALL", "Appl0", " 5", "+5", "007", "99999999999999999999", "pdu,5", "5,pdu"} {
		if !ValidDebug(s) {
			t.Errorf("ValidDebug(%q) = false", s)
		}
	}
	for _, s := range []string{"0x10", "appl0,bogus", " appl0", "12abc", "none", ",pdu", "pdu,,fetch", "pdu,,", "5 ", "-", "appl"} {
		if ValidDebug(s) {
			t.Errorf("ValidDebug(%q) = true", s)
		}
	}
}

func TestFromEnv(t *testing.T) {
	env := []string{
		"HOME=/root", "PCP_HOST=h1", "PCP_ARCHIVE_LIST=a,b", "PCP_DEBUG=pdu", "PCPX=1",
		"PCP_SAMPLES=3", "PCP_LOCALMODE=", "PCP_HOSTZONE", "PCP_NOSUCH=1", "PCP_INTERVAL=2sec",
		"PCP_HOST_LIST=x,y", "PCP_ORIGIN_TIME=@10:00",
	}
	want := []Opt{
		{Short: 'h', Arg: "h1"}, {Short: 'a', Arg: "a,b"}, {Short: 's', Arg: "3"}, {Short: 'L'},
		{Short: 'z'}, {Short: 't', Arg: "2sec"}, {Short: 'O', Arg: "@10:00"},
	}
	if diff := cmp.Diff(want, FromEnv(env)); diff != "" {
		t.Errorf("FromEnv (-want +got):\n%s", diff)
	}
}

func TestRequireOrder(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		opts     []Opt
		operands []string
	}{
		{[]string{"-f", "sample.long.one", "-5"}, []Opt{{Short: 'f'}}, []string{"sample.long.one", "-5"}},
		{[]string{"-i", "a,b", "m", "-i", "x"}, []Opt{{Short: 'i', Arg: "a,b"}}, []string{"m", "-i", "x"}},
		{[]string{"--", "-f", "v"}, nil, []string{"-f", "v"}},
		{[]string{"-", "-f"}, nil, []string{"-", "-f"}},
	} {
		opts, operands, err := Parse(tc.args, "+fi:", nil)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.opts, opts); diff != "" {
			t.Errorf("Parse(%q) options (-want +got):\n%s", tc.args, diff)
		}
		if diff := cmp.Diff(tc.operands, operands); diff != "" {
			t.Errorf("Parse(%q) operands (-want +got):\n%s", tc.args, diff)
		}
	}
}
