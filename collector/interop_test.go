package collector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// These tests compare the Collector with the real linux PMDA through the
// real pminfo on this machine. They skip when pminfo or a local pmcd is
// missing (fail with PCP_INTEROP=1).

// needPmcd skips (or fails, with PCP_INTEROP=1) unless the real pminfo can
// talk to a local pmcd.
func needPmcd(t *testing.T) {
	t.Helper()
	out, errb, rc := testenv.RunReal(t, "pminfo", "-f", "pmcd.hostname")
	if rc != 0 || !bytes.Contains(out, []byte("value")) {
		if testenv.Interop() {
			t.Fatalf("PCP_INTEROP=1 but no local pmcd answers pminfo: rc=%d %s%s", rc, out, errb)
		}
		t.Skipf("no local pmcd answers the real pminfo (start it with /etc/init.d/pmcd start): skipping; rc=%d %s", rc, errb)
	}
}

func newLocal(t testing.TB) *Collector {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var (
	reDescName = regexp.MustCompile(`^(\S+) PMID: (\S+)$`)
	reDescType = regexp.MustCompile(`^\s+Data Type: (.*?)\s+InDom: (\S+)`)
	reDescSem  = regexp.MustCompile(`^\s+Semantics: (\S+)\s+Units: (.*)$`)
)

var pminfoTypes = map[string]pmapi.Type{
	"32-bit int": pmapi.Type32, "32-bit unsigned int": pmapi.TypeU32, "64-bit int": pmapi.Type64,
	"64-bit unsigned int": pmapi.TypeU64, "float": pmapi.TypeFloat, "double": pmapi.TypeDouble,
	"string": pmapi.TypeString,
}

// parsePminfoDescs parses `pminfo -d -m` output.
func parsePminfoDescs(t *testing.T, out []byte) map[string]pmapi.Desc {
	t.Helper()
	descs := map[string]pmapi.Desc{}
	var name string
	var d pmapi.Desc
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if m := reDescName.FindStringSubmatch(l); m != nil {
			name = m[1]
			var dom, cl, it uint32
			if _, err := fmt.Sscanf(m[2], "%d.%d.%d", &dom, &cl, &it); err != nil {
				t.Fatalf("pminfo PMID %q: %v", m[2], err)
			}
			d = pmapi.Desc{PMID: pmapi.NewPMID(dom, cl, it)}
		} else if m := reDescType.FindStringSubmatch(l); m != nil {
			typ, ok := pminfoTypes[m[1]]
			if !ok {
				t.Fatalf("pminfo type %q", m[1])
			}
			d.Type = typ
			d.InDom = pmapi.InDomNull
			if m[2] != "PM_INDOM_NULL" {
				var dom, ser uint32
				fmt.Sscanf(m[2], "%d.%d", &dom, &ser)
				d.InDom = pmapi.NewInDom(dom, ser)
			}
		} else if m := reDescSem.FindStringSubmatch(l); m != nil {
			switch m[1] {
			case "counter":
				d.Sem = pmapi.SemCounter
			case "instant":
				d.Sem = pmapi.SemInstant
			case "discrete":
				d.Sem = pmapi.SemDiscrete
			default:
				t.Fatalf("pminfo semantics %q", m[1])
			}
			if m[2] != "none" {
				u, mult, err := pmapi.ParseUnits(m[2])
				if err != nil || mult != 1 {
					t.Fatalf("pminfo units %q: %v", m[2], err)
				}
				d.Units = u
			}
			descs[name] = d
		}
	}
	return descs
}

// TestDescsMatchPminfo compares every exported descriptor with the real
// pminfo -d -m.
func TestDescsMatchPminfo(t *testing.T) {
	needPmcd(t)
	c := newLocal(t)
	names := c.Names()
	out, errb, rc := testenv.RunReal(t, "pminfo", append([]string{"-d", "-m"}, names...)...)
	if rc != 0 {
		t.Fatalf("pminfo -d -m: rc=%d\n%s", rc, errb)
	}
	real := parsePminfoDescs(t, out)
	pmids, _ := c.LookupNames(names)
	for i, n := range names {
		want, ok := real[n]
		if !ok {
			t.Errorf("%s: not known to the real pminfo", n)
			continue
		}
		got, err := c.Desc(pmids[i])
		if err != nil {
			t.Errorf("%s: Desc: %v", n, err)
			continue
		}
		if got != want {
			t.Errorf("%s: descriptor\n got  %v %v %v %v %v\n want %v %v %v %v %v", n,
				got.PMID, got.Type, got.InDom, got.Sem, got.Units,
				want.PMID, want.Type, want.InDom, want.Sem, want.Units)
		}
	}
	t.Logf("%d descriptors compared", len(names))
}

// realValues is one metric of `pminfo -f` output.
type realValues struct {
	err    string           // "Error: ..." text, "" if none
	noVal  bool             // "No value(s) available!"
	single string           // value of a singular metric
	insts  map[int32]string // instance id -> value text
	names  map[int32]string // instance id -> name
}

var reInst = regexp.MustCompile(`^\s+inst \[(-?\d+) or "(.*)"\] value (.*)$`)

func parsePminfoValues(out []byte) map[string]*realValues {
	res := map[string]*realValues{}
	var cur *realValues
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "":
			cur = nil
		case cur == nil:
			cur = &realValues{insts: map[int32]string{}, names: map[int32]string{}}
			res[strings.TrimSpace(l)] = cur
		case strings.HasPrefix(l, "No value(s) available!"):
			cur.noVal = true
		case strings.HasPrefix(l, "Error: "):
			cur.err = strings.TrimPrefix(l, "Error: ")
		case strings.HasPrefix(l, "    value "):
			cur.single = strings.TrimPrefix(l, "    value ")
		default:
			if m := reInst.FindStringSubmatch(l); m != nil {
				id, _ := strconv.ParseInt(m[1], 10, 32)
				cur.insts[int32(id)] = m[3]
				cur.names[int32(id)] = m[2]
			}
		}
	}
	return res
}

// ourValues renders a value set as pminfo prints values: id -> text
// (InstNull for a singular value).
func ourValues(d pmapi.Desc, vs *pmapi.ValueSet) map[int32]string {
	out := map[int32]string{}
	for i := range vs.Values {
		out[vs.Values[i].Inst] = string(pmapi.AppendValue(nil, d.Type, &vs.Values[i]))
	}
	return out
}

func num(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// tolerance of an instant metric's value between two samples taken a
// fraction of a second apart.
func tolerance(name string, v float64) float64 {
	switch {
	case strings.HasPrefix(name, "kernel.all.load"), strings.HasPrefix(name, "kernel.all.pressure"):
		return 0.5 + 0.2*math.Abs(v)
	case name == "kernel.all.running", name == "kernel.all.blocked", name == "kernel.all.runnable":
		return 10
	case name == "kernel.all.nprocs":
		return 30
	case name == "kernel.all.lastpid":
		return 5000
	case name == "hinv.cpu.clock":
		return 0.5 * math.Abs(v)
	case strings.HasPrefix(name, "vfs."), strings.HasPrefix(name, "network.sockstat."):
		// system-wide counts that pminfo and pmcd themselves move
		return 0.05*math.Abs(v) + 200
	case strings.HasPrefix(name, "filesys."):
		return 0.01*math.Abs(v) + 1000
	case strings.HasPrefix(name, "mem.") || strings.HasPrefix(name, "swap."):
		return 0.05*math.Abs(v) + 65536
	}
	return 0.01*math.Abs(v) + 10
}

// TestValuesMatchPminfo fetches every metric, runs the real pminfo -f,
// and fetches again: counters must lie between our two fetches (the
// PMDA read the same kernel counters in between), instants within a
// tolerance of them, discrete values and strings must be equal, and the
// instance ids and names must be the same sets.
func TestValuesMatchPminfo(t *testing.T) {
	needPmcd(t)
	c := newLocal(t)
	names := c.Names()
	pmids, _ := c.LookupNames(names)
	// warm up: open the files, intern the names
	if _, _, err := c.Fetch(pmids); err != nil {
		t.Fatal(err)
	}
	snap := func() []map[int32]string {
		res, _, err := c.Fetch(pmids)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]map[int32]string, len(pmids))
		for i := range res.VSets {
			d, _ := c.Desc(pmids[i])
			if res.VSets[i].NumVal < 0 {
				out[i] = map[int32]string{-2: "error " + pmapi.Error(res.VSets[i].NumVal).Error()}
				continue
			}
			out[i] = ourValues(d, &res.VSets[i])
		}
		return out
	}
	before := snap()
	out, errb, rc := testenv.RunReal(t, "pminfo", append([]string{"-f"}, names...)...)
	after := snap()
	if rc != 0 {
		t.Fatalf("pminfo -f: rc=%d\n%s", rc, errb)
	}
	real := parsePminfoValues(out)
	compared := 0
	for i, n := range names {
		r := real[n]
		if r == nil {
			t.Errorf("%s: not in pminfo -f output", n)
			continue
		}
		d, _ := c.Desc(pmids[i])
		b, a := before[i], after[i]
		if r.err != "" {
			if e := a[-2]; e != "error "+r.err {
				t.Errorf("%s: real pminfo says error %q, we give %v", n, r.err, a)
			}
			continue
		}
		want := r.insts
		if d.InDom == pmapi.InDomNull {
			want = map[int32]string{}
			if !r.noVal {
				want[pmapi.InstNull] = r.single
			}
		}
		if len(want) == 0 {
			if len(a) != 0 {
				t.Errorf("%s: real has no values, we have %v", n, a)
			}
			continue
		}
		if !sameKeys(want, a) {
			t.Errorf("%s: instances: real %v, ours %v", n, keys(want), keys(a))
			continue
		}
		if d.InDom != pmapi.InDomNull {
			ids, inames, err := c.InDom(d.InDom)
			if err != nil {
				t.Errorf("%s: InDom: %v", n, err)
			}
			for k, id := range ids {
				if rn, ok := r.names[id]; ok && rn != inames[k] {
					t.Errorf("%s: instance %d is %q, real %q", n, id, inames[k], rn)
				}
			}
		}
		for id, rv := range want {
			ov1, ov2 := b[id], a[id]
			compared++
			// hinv.cpu.clock is "discrete" but follows frequency scaling
			if d.Type == pmapi.TypeString || d.Sem == pmapi.SemDiscrete && n != "hinv.cpu.clock" {
				if rv != ov2 && rv != ov1 {
					t.Errorf("%s[%d]: real %s, ours %s", n, id, rv, ov2)
				}
				continue
			}
			x, ok1 := num(rv)
			lo, ok2 := num(ov1)
			hi, ok3 := num(ov2)
			if !ok1 || !ok2 || !ok3 {
				t.Errorf("%s[%d]: not numbers: real %q, ours %q %q", n, id, rv, ov1, ov2)
				continue
			}
			if lo > hi {
				lo, hi = hi, lo
			}
			if d.Sem == pmapi.SemCounter {
				if x < lo || x > hi {
					t.Errorf("%s[%d]: counter: real %s not between ours %s and %s", n, id, rv, ov1, ov2)
				}
				continue
			}
			tol := tolerance(n, x)
			if why, ok := pmcdDefects[n]; ok && rv == "0" && hi != 0 {
				// the real pmcd is wrong here: check ours against
				// the kernel instead
				t.Logf("%s[%d]: real pmcd 0, ours %s..%s: %s", n, id, ov1, ov2, why)
				checkNumaMeminfo(t, n, id, "Mapped", lo, hi)
				continue
			}
			if x < lo-tol || x > hi+tol {
				t.Errorf("%s[%d]: instant: real %s, ours %s..%s (tolerance %g)", n, id, rv, ov1, ov2, tol)
			}
		}
	}
	t.Logf("%d metrics, %d values compared", len(names), compared)
}

// pmcdDefects are the metrics for which the real pmcd (PCP 6.0.3's linux
// PMDA) reports 0 where the kernel does not: the comparison checks ours
// against /sys then, and compares with pmcd again once pmcd reports
// something other than 0.
var pmcdDefects = map[string]string{
	"mem.numa.util.mapped": "PCP 6.0.3's linux PMDA reports 0 for every node, " +
		"whatever /sys/devices/system/node/node*/meminfo says (a known pmcd defect)",
}

// checkNumaMeminfo checks that a per-node memory metric's value, read
// between lo and hi (Kbytes), agrees with the field of node's
// /sys/devices/system/node/nodeN/meminfo read now, within the tolerance of
// a moving value.
func checkNumaMeminfo(t *testing.T, name string, node int32, field string, lo, hi float64) {
	t.Helper()
	path := fmt.Sprintf("/sys/devices/system/node/node%d/meminfo", node)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s[%d]: %v", name, node, err)
		return
	}
	prefix := fmt.Sprintf("Node %d %s:", node, field)
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line, prefix))
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Errorf("%s[%d]: %s: %q", name, node, path, line)
			return
		}
		// page-cache mappings move fast: a quarter, and 64 MB
		tol := 0.25*kb + 65536
		if kb < lo-tol || kb > hi+tol {
			t.Errorf("%s[%d]: %s says %g kB, ours %g..%g", name, node, path, kb, lo, hi)
		}
		return
	}
	t.Errorf("%s[%d]: no %q line in %s", name, node, prefix, path)
}

func sameKeys(a, b map[int32]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func keys(m map[int32]string) []int32 {
	var ks []int32
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

var reLabels = regexp.MustCompile(`^\s+(?:inst \[(-?\d+) or ".*"\] )?labels (\{.*\})$`)

// TestLabelsMatchPminfo compares the merged label sets the real pminfo -l
// prints (context, domain, indom, cluster, item and instance labels, later
// ones overriding) with the Collector's.
func TestLabelsMatchPminfo(t *testing.T) {
	needPmcd(t)
	c := newLocal(t)
	names := c.Names()
	out, errb, rc := testenv.RunReal(t, "pminfo", append([]string{"-l"}, names...)...)
	if rc != 0 {
		t.Fatalf("pminfo -l: rc=%d\n%s", rc, errb)
	}
	// real[name][inst] = merged labels; inst InstNull for the metric line
	real := map[string]map[int32]map[string]string{}
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, " ") {
			cur = l
			real[cur] = map[int32]map[string]string{}
			continue
		}
		m := reLabels.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		inst := pmapi.InstNull
		if m[1] != "" {
			v, _ := strconv.ParseInt(m[1], 10, 32)
			inst = int32(v)
		}
		var lm map[string]json.RawMessage
		if err := json.Unmarshal([]byte(m[2]), &lm); err != nil {
			t.Fatalf("pminfo label %q: %v", m[2], err)
		}
		flat := map[string]string{}
		for k, v := range lm {
			flat[k] = string(v)
		}
		real[cur][inst] = flat
	}
	merge := func(dst map[string]string, sets []archive.LabelSet, inst int32, all bool) {
		for _, s := range sets {
			if !all && s.Inst != inst {
				continue
			}
			if s.JSON == "" {
				continue
			}
			var lm map[string]json.RawMessage
			if err := json.Unmarshal([]byte(s.JSON), &lm); err != nil {
				t.Fatalf("our label %q: %v", s.JSON, err)
			}
			for k, v := range lm {
				dst[k] = string(v)
			}
		}
	}
	ctx, _ := c.Labels(archive.LabelContext, uint32(pmapi.PMIDNull))
	pmids, _ := c.LookupNames(names)
	compared := 0
	for i, n := range names {
		r := real[n]
		if r == nil {
			t.Errorf("%s: not in pminfo -l output", n)
			continue
		}
		d, _ := c.Desc(pmids[i])
		base := map[string]string{}
		merge(base, ctx, 0, true)
		dom, _ := c.Labels(archive.LabelDomain, d.PMID.Domain())
		merge(base, dom, 0, true)
		if d.InDom != pmapi.InDomNull {
			in, _ := c.Labels(archive.LabelInDom, uint32(d.InDom))
			merge(base, in, 0, true)
		}
		cl, _ := c.Labels(archive.LabelCluster, uint32(d.PMID))
		merge(base, cl, 0, true)
		it, _ := c.Labels(archive.LabelItem, uint32(d.PMID))
		merge(base, it, 0, true)
		check := func(inst int32, got map[string]string) {
			want := r[inst]
			compared++
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("%s inst %d: labels\n got  %v\n want %v", n, inst, got, want)
			}
		}
		check(pmapi.InstNull, base)
		if d.InDom != pmapi.InDomNull {
			insts, _ := c.Labels(archive.LabelInstances, uint32(d.InDom))
			for _, s := range insts {
				if _, ok := r[s.Inst]; !ok {
					continue // pminfo shows only instances with values
				}
				m := map[string]string{}
				for k, v := range base {
					m[k] = v
				}
				merge(m, []archive.LabelSet{s}, s.Inst, false)
				check(s.Inst, m)
			}
		}
	}
	t.Logf("%d label sets compared", compared)
}
