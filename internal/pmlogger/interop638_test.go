package pmlogger

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// config638 is interopConfig without its once group, recorded side by
// side by the real pmlogger of PCP 6.3.8 and by pcpkit's from the host's
// pmcd: one group, so that the records come in one order.
var config638, _, _ = strings.Cut(interopConfig, "log mandatory on once")

// dump638Norm makes what pmdumplog prints of a recording comparable with
// another recording's: times, values, sizes, pids and the offsets of the
// index go (the prologue's pmcd.pmlogger.archive, the archive's path,
// is longer outside the chroot).
var dump638Norm = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?m)^(\d\d:\d\d:\d\d\.\d+\s+\d+)\s+\d+\s+\d+$`), "$1 OFFSETS"},
	{regexp.MustCompile(`\d\d:\d\d:\d\d\.\d+`), "TIME"},
	{regexp.MustCompile(`(?m)^(\s+(commencing|ending)\s+).*$`), "$1DATE"},
	{regexp.MustCompile(`(?m)(value|PID for pmlogger:) .*$`), "$1 V"},
	{regexp.MustCompile(`(?m)^\[\d+ bytes\]$`), "[N bytes]"},
	{regexp.MustCompile(`\b\d+ or "\d+"`), `N or "N"`}, // pmlogger's own pid as an instance
	{regexp.MustCompile(`\b\d{4,}\b`), "N"},
	// The instances' label sets: the real pmlogger writes those of
	// every instance of the domain in some runs, of the logged ones in
	// others (seen with network.interface.in.bytes ["lo"]: ifb0, ifb1,
	// eth0 too, now and then), as pcpkit's writes them.
	{regexp.MustCompile(`(?m)^    InDom \S+\[\d+\] labels .*\n(        \[\d+\] name.*\n)*`), ""},
}

// TestInterop638Logger records the same configuration from the host's
// pmcd (over TCP: the chroot has no pmcd socket) with the real pmlogger
// of PCP 6.3.8 and with pcpkit's behaving as 6.3.8 (the chroot's
// pcp.conf, PCPKIT_PCP_VERSION): the same log file, and the same
// archive as the real pmdumplog of PCP 6.3.8 reads it (the label, -d, -i,
// -l, -h, -e, and -a but for times and values), by default (6.3.8's
// pcp.conf asks for Version 3 archives), with -V 2 and with -d DIR.
func TestInterop638Logger(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	c := testenv.Real638(t)
	needPMCD(t)
	exe := testenv.BuildCommand(t, "pmlogger", t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		dir  string // -d: the directory the archive goes into, under the test's
	}{
		{"default", nil, ""},
		{"V2", []string{"-V", "2"}, ""},
		{"V3 -v", []string{"-V", "3", "-v", "3"}, ""},
		{"-d", nil, "sub/deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, inside := c.TempDir(t)
			if err := os.WriteFile(filepath.Join(host, "c"), []byte(config638), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(name, dir, prog string) (log string, base string) {
				args := append([]string{"-h", "localhost", "-c", "c", "-s", "6", "-t", "200msec", "-l", name + ".log"}, tc.args...)
				base = name
				if tc.dir != "" {
					args = append(args, "-d", dir+"/"+tc.dir)
					base = filepath.Join(tc.dir, name)
				}
				args = append(args, name)
				var rc int
				var errb []byte
				if prog == "" {
					_, errb, rc = c.Run(t, inside, nil, "pmlogger", args...)
				} else {
					_, errb, rc = testenv.RunCommand(t, host, testenv.RealEnv("PCPKIT_PCP_VERSION=6.3.8", "PCP_CONF="+filepath.Join(c.Root, "etc", "pcp.conf")), prog, args...)
				}
				if rc != 0 {
					t.Fatalf("%s: rc %d: %s", name, rc, errb)
				}
				b, _ := os.ReadFile(filepath.Join(host, name+".log"))
				s := normalizeLog(string(b))
				s = strings.ReplaceAll(s, dir+"/", "DIR/")
				return strings.ReplaceAll(s, name, "BASE"), base
			}
			rlog, rbase := run("real", inside, "")
			plog, pbase := run("ours", host, exe)
			if rlog != plog {
				t.Errorf("log files differ\nreal:\n%s\npcpkit:\n%s", rlog, plog)
			}
			for _, opt := range []string{"-L", "-dilhe", "-a"} {
				dump := func(base string) string {
					out, errb, rc := c.Run(t, inside, nil, "pmdumplog", opt, base)
					s := string(out) + string(errb) + strings.Repeat("!", rc)
					for _, n := range dump638Norm {
						s = n.re.ReplaceAllString(s, n.with)
					}
					return s
				}
				if r, p := dump(rbase), dump(pbase); r != p {
					t.Errorf("pmdumplog %s differs:\n%s", opt, testenv.LineDiff(r, p))
				}
			}
		})
	}
}

// TestInterop638Options: the options PCP 6.3.8's pmlogger reads
// otherwise (-d DIR, --directory), and its usage message, against the
// real one.
func TestInterop638Options(t *testing.T) {
	c := testenv.Real638(t)
	exe := testenv.BuildCommand(t, "pmlogger", t.TempDir())
	host, inside := c.TempDir(t)
	for _, args := range [][]string{
		{"-?"}, {"--d", "x", "a"}, {"--di", "x", "a"}, {"--de"}, {"-d"}, {"--directory=/x"}, {"-d", "x", "-Q", "a"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			wout, werr, wrc := c.Run(t, inside, nil, "pmlogger", args...)
			out, errb, rc := testenv.RunCommand(t, host, testenv.RealEnv("PCPKIT_PCP_VERSION=6.3.8"), exe, args...)
			testenv.CompareRun(t, "pmlogger 6.3.8", "pmlogger "+strings.Join(args, " "), string(wout), string(werr), wrc, string(out), string(errb), rc)
		})
	}
}
