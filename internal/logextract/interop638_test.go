package logextract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// interopModes638 are interopModes with PCP 6.3's -v SIZE: bytes and a
// time span.
var interopModes638 = append(append([][]string(nil), interopModes...),
	[]string{"-v", "2K"}, []string{"-v", "300b"}, []string{"-v", "3sec"}, []string{"-v", "999msec"})

// TestInterop638Shared extracts every archive of testdata/archives and
// ../shared/pcp-made-archives (with PCPKIT_SLOW638=1, of
// ../shared/pcp-qa-archives too) in every mode of interopModes638 with
// the real pmlogextract of PCP 6.3.8, in its chroot, and with pcpkit's
// behaving as 6.3.8: the same exit status, output and files, byte for
// byte but for the writer's pid. With PCPKIT_SLOW638=1 it takes about 9
// minutes on two CPUs: give go test a -timeout above its default 10m.
func TestInterop638Shared(t *testing.T) {
	c := testenv.Real638(t)
	sets := []string{testenv.TestdataSet, "pcp-made-archives"}
	if os.Getenv("PCPKIT_SLOW638") == "1" {
		sets = append(sets, "pcp-qa-archives")
	}
	n, same := 0, 0
	for _, set := range sets {
		dir := testenv.SetDir(t, set)
		in := c.PlaceDir(t, dir)
		for _, a := range testenv.Archives(t, dir) {
			if _, ok := knownDivergences[filepath.Base(a)]; ok {
				continue // .zst: the chroot has no zstd
			}
			for _, m := range interopModes638 {
				args := append(append([]string(nil), m...), a)
				t.Run(set+"/"+strings.Join(args, " "), func(t *testing.T) {
					ok := compare638(t, c, dir, in, args) // a skipped run stops here
					n++
					if ok {
						same++
					}
				})
			}
		}
	}
	t.Logf("pmlogextract 6.3.8: %d runs, %d identical", n, same)
}

// TestInterop638Errors: the options 6.3.8 reads otherwise, against the
// real pmlogextract of PCP 6.3.8.
func TestInterop638Errors(t *testing.T) {
	c := testenv.Real638(t)
	dir := testenv.SharedDir(t, "pcp-made-archives")
	in := c.PlaceDir(t, dir)
	for _, args := range [][]string{
		{"-v", "0.5", "synth3"}, {"-v", "3x", "synth3"}, {"-v", "0", "synth3"}, {"-v", "-1", "synth3"},
		{"-v", "1.5k", "synth3"}, {"-v", "1bytes", "synth3"}, {"-v", "1e3", "synth3"}, {"-v", " 5", "synth3"},
		{"-v", "1.5", "synth3"}, {"-v", "1min", "synth2"}, {"-v", "2Kbytes", "synth2"}, {"-?"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { compare638(t, c, dir, in, args) })
	}
}

// compare638 runs the real pmlogextract of PCP 6.3.8 in the chroot's
// copy in of dir, and pcpkit's in dir, with args and an output archive
// each, and reports the differences and whether there were none.
func compare638(t *testing.T, c *testenv.Chroot, dir, in string, args []string) bool {
	t.Helper()
	host, inside := c.TempDir(t)
	realOut, ourOut := inside+"/real", filepath.Join(host, "ours")
	wout, werr, wrc := c.Run(t, in, nil, "pmlogextract", append(append([]string(nil), args...), realOut)...)
	if testenv.MissingDecompressor(werr) {
		t.Skipf("the chroot cannot decompress the archive: %s", werr)
	}
	t.Chdir(dir)
	t.Setenv("PCPKIT_PCP_VERSION", "6.3.8")
	var gout, gerr bytes.Buffer
	grc := Main(append(append([]string(nil), args...), ourOut), &gout, &gerr)
	norm := func(b []byte, base string) string { return strings.ReplaceAll(string(b), base, "OUT") }
	ok := true
	if wrc != grc {
		t.Errorf("exit status: real %d, pcpkit %d", wrc, grc)
		ok = false
	}
	if a, b := norm(wout, realOut), norm(gout.Bytes(), ourOut); a != b {
		t.Errorf("stdout differs:\nreal:\n%s\npcpkit:\n%s", a, b)
		ok = false
	}
	if a, b := norm(werr, realOut), norm(gerr.Bytes(), ourOut); a != b {
		t.Errorf("stderr differs:\nreal:\n%s\npcpkit:\n%s", a, b)
		ok = false
	}
	realHost := filepath.Join(host, "real")
	rf, of := outputFiles(realHost), outputFiles(ourOut)
	if strings.Join(rf, " ") != strings.Join(of, " ") {
		t.Errorf("files: real %v, pcpkit %v", rf, of)
		return false
	}
	return compareFiles(t, realHost, ourOut, rf) && ok
}
