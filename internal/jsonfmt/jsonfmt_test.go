package jsonfmt

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestAppendStringMatchesEncodingJSON checks that AppendString reads back
// as the string encoding/json reads back, for any string.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		raw := []byte(rapid.SliceOf(rapid.Byte()).Draw(t, "raw"))
		for _, in := range []string{s, string(raw)} {
			b := AppendString(nil, in)
			var got string
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("%q: %s is not JSON: %v", in, b, err)
			}
			want, _ := json.Marshal(in)
			var wantS string
			json.Unmarshal(want, &wantS)
			if got != wantS {
				t.Fatalf("%q: reads back as %q, encoding/json's as %q", in, got, wantS)
			}
		}
	})
}

func TestTime(t *testing.T) {
	for _, tc := range []struct {
		sec, nsec int64
		want      string
	}{
		{1700000000, 0, "2023-11-14T22:13:20.000000000Z"},
		{1700000006, 1000000, "2023-11-14T22:13:26.001000000Z"},
		{1700000006, 1000000000, "2023-11-14T22:13:27.000000000Z"}, // unnormalised
		{1700000006, 404000, "2023-11-14T22:13:26.000404000Z"},
	} {
		if got := Time(tc.sec, tc.nsec); got != tc.want {
			t.Errorf("Time(%d, %d) = %q, want %q", tc.sec, tc.nsec, got, tc.want)
		}
		if got := string(AppendTime(nil, tc.sec, tc.nsec)); got != `"`+tc.want+`"` {
			t.Errorf("AppendTime(%d, %d) = %s", tc.sec, tc.nsec, got)
		}
	}
	if got := string(AppendStamp(nil, 1700000006, 1000000)); got != `"timestamp":"2023-11-14T22:13:26.001000000Z","sec":1700000006,"nsec":1000000` {
		t.Errorf("AppendStamp = %s", got)
	}
}

// TestAppendTimeMatchesTime checks AppendTime's arithmetic against time's
// formatting, over the whole range of its fast path and beyond it
// (negative times, years past 9999, unnormalised nanoseconds).
func TestAppendTimeMatchesTime(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, sec, nsec int64) {
		want := `"` + time.Unix(sec, nsec).UTC().Format(TimeLayout) + `"`
		if got := string(AppendTime(nil, sec, nsec)); got != want {
			t.Fatalf("AppendTime(%d, %d) = %s, want %s", sec, nsec, got, want)
		}
	}
	for _, sec := range []int64{0, 1, 59, 86399, 86400, 951782400, 951868800, 4107542400, maxFastSec - 1, maxFastSec, -1, -86400} {
		for _, nsec := range []int64{0, 1, 999999999, 1000000000} {
			check(t, sec, nsec)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		sec := rapid.Int64Range(-maxFastSec, 2*maxFastSec).Draw(t, "sec")
		nsec := rapid.Int64Range(0, 2e9).Draw(t, "nsec")
		check(t, sec, nsec)
	})
}

func TestIsNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"1": true, "-1.5": true, "1.5e+06": true, "2.3e-07": true, "0": true,
		"inf": false, "-inf": false, "nan": false, "-nan": false, "": false, "+1": false, ".5": false, "1.": false,
	} {
		if got := IsNumber([]byte(s)); got != want {
			t.Errorf("IsNumber(%q) = %v, want %v", s, got, want)
		}
		if want {
			var f float64
			if err := json.Unmarshal([]byte(s), &f); err != nil {
				t.Errorf("%q: a number for IsNumber, not for JSON: %v", s, err)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "a", `q"b\s`, "tab\tnl\n\x01\x7f", "héllo", "bad\xffutf8", "<&>"} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q: %s is not JSON: %v", s, got, err)
			continue
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want {
			t.Errorf("%q: %s reads back as %q", s, got, back)
		}
	}
}

// BenchmarkAppendStamp is a sample's time as every JSON line carries it.
func BenchmarkAppendStamp(b *testing.B) {
	var buf []byte
	for i := int64(0); b.Loop(); i++ {
		buf = AppendStamp(buf[:0], 1700000000+i, 404000)
	}
}
