package logextract

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestVolumeSize638: behaving as PCP 6.3.8, -v takes a size as the real
// pmlogextract 6.3.8 does (TestInterop638Shared): synth3's 9 records
// in volumes of at most 300 bytes leave volume 0 with its label alone
// and one record in each of volumes 1 to 9; in volumes of 3 seconds they
// go 4, 3, 1 and 1 (a new volume for a record more than 3 seconds after
// the volume's first). Behaving as 6.0.3, -v takes a count only.
func TestVolumeSize638(t *testing.T) {
	in := filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), "synth3")
	for _, c := range []struct {
		version, size string
		vols          int
		msgs          []string // the "New log volume" lines' times
		rc            int
	}{
		{"6.3.8", "300b", 10, []string{"22:13:20.000000000", "22:13:21.000000000", "22:13:23.000000000", "22:13:24.500000000",
			"22:13:26.000000000", "22:13:26.001000000", "22:13:40.000000000", "22:13:41.000000000", "22:13:45.250000000"}, 0},
		{"6.3.8", "3sec", 4, []string{"22:13:24.500000000", "22:13:40.000000000", "22:13:45.250000000"}, 0},
		{"6.3.8", "4", 3, []string{"22:13:26.000000000", "22:13:45.250000000"}, 0},
		{"6.3.8", "0.5", 0, nil, 1},
		{"6.0.3", "300b", 0, nil, 1},
	} {
		t.Run(c.version+" "+c.size, func(t *testing.T) {
			t.Setenv("PCPKIT_PCP_VERSION", c.version)
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			rc := Main([]string{"-v", c.size, in, out}, &stdout, &stderr)
			if rc != c.rc {
				t.Fatalf("exit status %d, want %d: %s", rc, c.rc, stderr.String())
			}
			vols, _ := filepath.Glob(out + ".[0-9]*")
			if len(vols) != c.vols {
				t.Errorf("%d volumes, want %d", len(vols), c.vols)
			}
			var want string
			for i, m := range c.msgs {
				want += "pmlogextract: New log volume " + string(rune('1'+i)) + ", at " + m + "\n"
			}
			if rc == 0 && stderr.String() != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
			}
			if c.size == "300b" && rc == 0 {
				lab, _ := os.ReadFile(out + ".0")
				if st, _ := os.Stat(out + ".1"); len(lab) != 808 || st == nil {
					t.Errorf("volume 0: %d bytes, want its label alone (808)", len(lab))
				}
			}
			if rc != 0 && !strings.Contains(stderr.String(), "-v") {
				t.Errorf("no message about -v: %s", stderr.String())
			}
		})
	}
}

// TestInstanceLabels638: behaving as PCP 6.3.8, pmlogextract copies every
// instance label record (the real 6.3.8's output lists the input's, pmdumplog
// -e, TestInterop638Shared on sample-proc_v3, nvidiagpu-0, amdgpu-0);
// behaving as 6.0.3, fewer.
func TestInstanceLabels638(t *testing.T) {
	in := filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), "sample-proc_v3")
	count := func(base string) (n int, stamps []pmapi.Timestamp) {
		a, err := archive.Open(base)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		for _, l := range a.Meta().RawLabels() {
			if l.Type == archive.LabelInstances {
				n++
				stamps = append(stamps, l.Stamp)
			}
		}
		return n, stamps
	}
	want, wantStamps := count(in)
	for _, v := range []string{"6.3.8", "6.0.3"} {
		t.Setenv("PCPKIT_PCP_VERSION", v)
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		if rc := Main([]string{in, out}, &stdout, &stderr); rc != 0 {
			t.Fatalf("%s: exit status %d: %s", v, rc, stderr.String())
		}
		got, stamps := count(out)
		switch {
		case v == "6.3.8" && (got != want || !slices.Equal(stamps, wantStamps)):
			t.Errorf("6.3.8: %d instance label records at %v, want the input's %d at %v", got, stamps, want, wantStamps)
		case v == "6.0.3" && got >= want:
			t.Errorf("6.0.3: %d instance label records, want fewer than the input's %d", got, want)
		}
	}
}
