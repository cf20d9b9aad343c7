package pmlogger

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
)

// TestInteropFetchSplit records configurations whose groups pmlogger's
// fetch optimiser splits into several fetches (instance profiles that
// clash, PMIDs of many PMDAs) side by side with the real pmlogger: the
// same records, each with the same metrics and instances (a metric
// logs its fetch's profile, the union of its group's instance lists
// over the domain, not only its own list). loggerconf's TestPlanFetches
// has the optimiser's arithmetic.
func TestInteropFetchSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	real := testenv.RealTool(t, "pmlogger")
	needPMCD(t)
	c, err := pmcd.Dial("local:")
	if err != nil {
		t.Fatal(err)
	}
	instNames := func(metric string) []string {
		ids, err := c.LookupNames([]string{metric})
		if err != nil || ids[0] == pmapi.PMIDNull {
			return nil
		}
		d, err := c.Desc(ids[0])
		if err != nil {
			return nil
		}
		_, names, _ := c.InDom(d.InDom)
		return names
	}
	cpus := instNames("kernel.percpu.cpu.user")
	ifs := instNames("network.interface.in.bytes")
	c.Close()
	group := func(lines ...string) string {
		return "log mandatory on 100 msec {\n\t" + strings.Join(lines, "\n\t") + "\n}\n"
	}
	type tcase struct{ name, config string }
	var cases []tcase
	if len(cpus) >= 2 {
		c0, c1 := fmt.Sprintf("[%q]", cpus[0]), fmt.Sprintf("[%q]", cpus[1])
		cases = append(cases,
			tcase{"list-then-all", group("kernel.percpu.cpu.user "+c0, "kernel.percpu.cpu.sys")},
			tcase{"lists-union", group("kernel.percpu.cpu.user "+c0, "kernel.percpu.cpu.sys "+c1, "kernel.percpu.cpu.idle")},
			tcase{"list-joins-list", group("kernel.percpu.cpu.user "+c0, "kernel.percpu.cpu.sys", "kernel.percpu.cpu.idle "+c1)},
			tcase{"two-of-each", group("kernel.percpu.cpu.user", "kernel.percpu.cpu.sys "+c0, "kernel.percpu.cpu.idle", "kernel.percpu.cpu.nice "+c1)},
			tcase{"singular-joins-newest", group("kernel.percpu.cpu.user "+c0, "kernel.all.load", "kernel.percpu.cpu.sys", "kernel.all.cpu.user")},
			tcase{"load-list", group(`kernel.all.load ["1 minute"]`, "kernel.percpu.cpu.sys", "kernel.all.cpu.user", "kernel.percpu.cpu.user "+c0)},
			tcase{"two-statements", group("kernel.percpu.cpu.user "+c0) + group("kernel.percpu.cpu.sys")},
			tcase{"same-metric", group("kernel.percpu.cpu.user "+c0, "kernel.percpu.cpu.user "+c1)},
		)
	}
	if len(ifs) >= 4 {
		q := func(i int) string { return fmt.Sprintf("[%q]", ifs[i]) }
		cases = append(cases,
			tcase{"union-too-dear", group("network.interface.in.bytes "+q(0), "network.interface.in.packets "+q(1), "network.interface.out.bytes "+q(2), "network.interface.out.packets "+q(3))},
			tcase{"newest-first", group("network.interface.in.bytes "+q(0), "kernel.percpu.cpu.sys", "kernel.percpu.cpu.user [\""+cpus[0]+"\"]", "network.interface.out.bytes "+q(3))},
		)
	}
	cases = append(cases,
		tcase{"domains", group("proc.nprocs", "pmcd.numagents", "hinv.ncpu", "xfs.write", "jbd2.njournals", "kernel.all.load")},
		tcase{"domains-2", group("pmcd.numagents", "hinv.ncpu", "proc.nprocs", "jbd2.njournals", "xfs.write", "mem.util.used", "kernel.all.load")},
	)
	dir := t.TempDir()
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, tc.name+".config")
			os.WriteFile(cfg, []byte(tc.config), 0o644)
			shapes := func(prog, base string) []string {
				_, errb, rc := testenv.RunCommand(t, dir, loggerEnv(), prog, "-c", cfg, "-s", "2", "-l", base+".log", filepath.Join(dir, base))
				if rc != 0 {
					t.Fatalf("%s: rc %d: %s", prog, rc, errb)
				}
				_, recs := readRecords(t, filepath.Join(dir, base))
				var out []string
				for _, r := range recs {
					out = append(out, shape(r))
				}
				return out
			}
			r, p := shapes(real, "real-"+tc.name), shapes(exe, "pcpkit-"+tc.name)
			if strings.Join(r, "\n") != strings.Join(p, "\n") {
				t.Errorf("config:\n%srecords differ\nreal:\n%s\npcpkit:\n%s", tc.config, strings.Join(r, "\n"), strings.Join(p, "\n"))
			}
			if len(r) < 4 {
				t.Errorf("%d records from the real pmlogger: the configuration logs nothing", len(r))
			}
		})
	}
}

// TestInteropPmlogconf records the configuration pmlogconf makes for the
// local pmcd (many PMDAs, dozens of groups, "once" groups) with both
// pmloggers, the default groups every 300 msec (-t), and compares the
// records as sets of shapes: the same fetches, each with the same
// metrics and instances. Instances that belong to the moment are
// masked: the processes of the proc PMDA (domain 3: each run sees its
// own pmlogger and whatever else ran), and pmcd.pmlogger.* (the real
// tool's map file names its pid; pcpkit writes none).
func TestInteropPmlogconf(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	real := testenv.RealTool(t, "pmlogger")
	conf := testenv.RealTool(t, "pmlogconf")
	needPMCD(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "pmlogconf.config")
	if _, errb, rc := testenv.RunCommand(t, dir, loggerEnv(), conf, "-q", cfg); rc != 0 {
		t.Fatalf("pmlogconf: rc %d: %s", rc, errb)
	}
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	mask := func(r *pmapi.Result) string {
		var b strings.Builder
		for _, vs := range r.VSets {
			fmt.Fprintf(&b, "%s:", vs.PMID)
			switch {
			case vs.PMID.Domain() == 2 && vs.PMID.Cluster() == 3:
				b.WriteString("[pmlogger]")
			case vs.NumVal < 0:
				fmt.Fprintf(&b, "err%d", vs.NumVal)
			case vs.PMID.Domain() == 3 && vs.NumVal > 1:
				b.WriteString("[processes]")
			default:
				for _, v := range vs.Values {
					fmt.Fprintf(&b, "[%d]", v.Inst)
				}
			}
			b.WriteByte(' ')
		}
		return b.String()
	}
	shapes := func(prog, base string) []string {
		_, errb, rc := testenv.RunCommand(t, dir, loggerEnv(), prog, "-c", cfg, "-t", "300msec", "-s", "8", "-l", base+".log", filepath.Join(dir, base))
		if rc != 0 {
			t.Fatalf("%s: rc %d: %s", prog, rc, errb)
		}
		_, recs := readRecords(t, filepath.Join(dir, base))
		var out []string
		for _, r := range recs {
			out = append(out, mask(r))
		}
		sort.Strings(out)
		return out
	}
	r, p := shapes(real, "real"), shapes(exe, "pcpkit")
	if len(r) != len(p) {
		t.Errorf("%d records from the real pmlogger, %d from pcpkit", len(r), len(p))
	}
	for i := 0; i < len(r) && i < len(p); i++ {
		if r[i] != p[i] {
			t.Errorf("records (sorted by shape) %d differ:\nreal   %s\npcpkit %s", i, r[i], p[i])
		}
	}
	t.Logf("%d records alike; the largest has %d metrics", len(r), maxMetrics(r))
}

func maxMetrics(shapes []string) int {
	n := 0
	for _, s := range shapes {
		if k := strings.Count(s, ":"); k > n {
			n = k
		}
	}
	return n
}
