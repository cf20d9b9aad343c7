package pmcd

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The live interop tests talk to the real pmcd on this machine and compare
// with the real pminfo. They run when PCP_INTEROP=1 (and then fail if no
// pmcd answers) or when a pmcd answers on localhost; otherwise they skip.

// interopMetrics are compared with pminfo; sampleMetrics are added when
// the sample PMDA is installed.
var interopMetrics = []string{
	"kernel.all.load", "kernel.all.cpu.user", "hinv.ncpu", "mem.physmem",
	"disk.dev.read", "network.interface.in.bytes", "kernel.uname.release",
	"pmcd.hostname", "kernel.all.nprocs", "mem.util.free", "pmcd.pid",
}

var sampleMetrics = []string{
	"sample.long.one", "sample.long.hundred", "sample.ulong.million",
	"sample.longlong.ten", "sample.ulonglong.hundred", "sample.float.one",
	"sample.double.ten", "sample.string.hullo", "sample.colour", "sample.bin",
	"sample.seconds", "sample.milliseconds", "sample.dupnames.two.bin",
}

// livePMCD dials spec on the real pmcd, or skips (fails with
// PCP_INTEROP=1) when none answers.
func livePMCD(t *testing.T, spec string) *Client {
	t.Helper()
	c, err := Dial(spec, WithConnectTimeout(3*time.Second), WithTimeout(10*time.Second))
	if err != nil {
		if testenv.Interop() {
			t.Fatalf("PCP_INTEROP=1 but no pmcd answers at %q: %v", spec, err)
		}
		t.Skipf("no pmcd answers at %q (%v): skipping the live interop test (PCP_INTEROP=1 makes this a failure)", spec, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pminfoMetric is what pminfo -d -f -t -T -l -m printed for one metric.
type pminfoMetric struct {
	name, pmid, oneline, help string
	typ, indom, sem, units    string
	labels                    string
	insts                     []string // "N or \"name\"", or "" for a singular value
	values                    []string
	instLabels                map[string]string
}

var pminfoHeader = func(line string) (name, pmid, oneline string, ok bool) {
	name, rest, ok := strings.Cut(line, " PMID: ")
	if !ok {
		return "", "", "", false
	}
	pmid, oneline, _ = strings.Cut(rest, " ")
	oneline = strings.TrimSuffix(strings.TrimPrefix(oneline, "["), "]")
	return name, pmid, oneline, true
}

// runPminfo runs the real pminfo against spec and parses its output.
func runPminfo(t *testing.T, spec string, names []string) map[string]*pminfoMetric {
	t.Helper()
	args := append([]string{"-h", spec, "-d", "-f", "-t", "-T", "-l", "-m"}, names...)
	out, stderr, rc := testenv.RunReal(t, "pminfo", args...)
	if rc != 0 {
		t.Fatalf("pminfo %s: exit %d\n%s", strings.Join(args, " "), rc, stderr)
	}
	ms := map[string]*pminfoMetric{}
	var m *pminfoMetric
	inHelp := false
	for _, line := range strings.Split(string(out), "\n") {
		if name, pmid, one, ok := pminfoHeader(line); ok && !strings.HasPrefix(line, " ") {
			m = &pminfoMetric{name: name, pmid: pmid, oneline: one, instLabels: map[string]string{}}
			ms[name] = m
			inHelp = false
			continue
		}
		if m == nil {
			continue
		}
		switch {
		case line == "Help:":
			inHelp = true
		case strings.HasPrefix(line, "    Data Type: "):
			typ, indom, _ := strings.Cut(strings.TrimPrefix(line, "    Data Type: "), "  InDom: ")
			m.typ, m.indom = typ, indom
		case strings.HasPrefix(line, "    Semantics: "):
			m.sem, m.units, _ = strings.Cut(strings.TrimPrefix(line, "    Semantics: "), "  Units: ")
		case strings.HasPrefix(line, "    labels "):
			m.labels = strings.TrimPrefix(line, "    labels ")
		case strings.HasPrefix(line, "    value "):
			inHelp = false
			m.insts = append(m.insts, "")
			m.values = append(m.values, strings.TrimPrefix(line, "    value "))
		case strings.HasPrefix(line, "    inst ["):
			inHelp = false
			rest := strings.TrimPrefix(line, "    inst [")
			end := strings.Index(rest, "] ")
			if end < 0 {
				t.Fatalf("pminfo: cannot parse %q", line)
			}
			inst, what := rest[:end], rest[end+2:]
			if v, ok := strings.CutPrefix(what, "value "); ok {
				m.insts = append(m.insts, inst)
				m.values = append(m.values, v)
			} else if l, ok := strings.CutPrefix(what, "labels "); ok {
				m.instLabels[inst] = l
			}
		case inHelp:
			if m.help != "" {
				m.help += "\n"
			}
			m.help += line
		}
	}
	return ms
}

// pminfoType is pminfo's name for a type.
var pminfoType = map[pmapi.Type]string{
	pmapi.Type32: "32-bit int", pmapi.TypeU32: "32-bit unsigned int",
	pmapi.Type64: "64-bit int", pmapi.TypeU64: "64-bit unsigned int",
	pmapi.TypeFloat: "float", pmapi.TypeDouble: "double", pmapi.TypeString: "string",
	pmapi.TypeAggregate: "aggregate", pmapi.TypeAggregateStat: "static aggregate",
	pmapi.TypeEvent: "event record array", pmapi.TypeHighresEvent: "highres event record array",
}

func pminfoInDom(d pmapi.InDom) string {
	return fmt.Sprintf("%s 0x%x", d, uint32(d))
}

func pminfoUnits(u pmapi.Units) string {
	if u.IsZero() {
		return "none"
	}
	return u.String()
}

// mergeLabels merges label sets as pminfo -l prints them: later sets win,
// names sorted.
func mergeLabels(t *testing.T, sets ...[]archive.LabelSet) string {
	t.Helper()
	m := map[string]string{}
	for _, ss := range sets {
		for _, s := range ss {
			for _, l := range s.Labels {
				if l.NameOff+l.NameLen > len(s.JSON) || l.ValueOff+l.ValueLen > len(s.JSON) {
					t.Fatalf("label outside its JSON %q: %+v", s.JSON, l)
				}
				m[s.JSON[l.NameOff:l.NameOff+l.NameLen]] = s.JSON[l.ValueOff : l.ValueOff+l.ValueLen]
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", k, m[k])
	}
	b.WriteByte('}')
	return b.String()
}

// valueString formats a value: a number as float64, a string quoted.
func valueNumber(typ pmapi.Type, v pmapi.Value, valfmt int32) (float64, string, error) {
	if valfmt == pmapi.ValFmtInsitu {
		switch typ {
		case pmapi.Type32:
			return float64(v.Insitu), "", nil
		case pmapi.TypeU32:
			return float64(uint32(v.Insitu)), "", nil
		case pmapi.TypeFloat:
			return float64(math.Float32frombits(uint32(v.Insitu))), "", nil
		}
		return 0, "", fmt.Errorf("insitu value of type %s", typ)
	}
	b := v.Block
	if v.BlockType != typ {
		return 0, "", fmt.Errorf("block type %s for a metric of type %s", v.BlockType, typ)
	}
	need := map[pmapi.Type]int{pmapi.Type64: 8, pmapi.TypeU64: 8, pmapi.TypeDouble: 8, pmapi.TypeFloat: 4, pmapi.Type32: 4, pmapi.TypeU32: 4}
	if n, ok := need[typ]; ok && len(b) != n {
		return 0, "", fmt.Errorf("block of %d bytes for type %s", len(b), typ)
	}
	switch typ {
	case pmapi.Type64:
		return float64(int64(binary.BigEndian.Uint64(b))), "", nil
	case pmapi.TypeU64:
		return float64(binary.BigEndian.Uint64(b)), "", nil
	case pmapi.TypeDouble:
		return math.Float64frombits(binary.BigEndian.Uint64(b)), "", nil
	case pmapi.TypeFloat:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), "", nil
	case pmapi.Type32:
		return float64(int32(binary.BigEndian.Uint32(b))), "", nil
	case pmapi.TypeU32:
		return float64(binary.BigEndian.Uint32(b)), "", nil
	case pmapi.TypeString:
		s := strings.TrimRight(string(b), "\x00")
		return 0, strconv.Quote(s), nil
	}
	return 0, "", fmt.Errorf("type %s not compared", typ)
}

func TestInteropTCP(t *testing.T)  { testInterop(t, "localhost") }
func TestInteropUnix(t *testing.T) { testInterop(t, "unix:") }

func testInterop(t *testing.T, spec string) {
	c := livePMCD(t, spec)
	if spec == "unix:" && !strings.HasPrefix(c.Addr(), "unix:") {
		t.Fatalf("Addr = %s", c.Addr())
	}
	t.Logf("connected to %s, features %s", c.Addr(), c.Features())
	pminfoSpec := spec
	if spec == "unix:" {
		pminfoSpec = "local:"
	}
	names := append([]string(nil), interopMetrics...)
	if ids, err := c.LookupNames([]string{"sample.long.one"}); err == nil && ids[0] != pmapi.PMIDNull {
		names = append(names, sampleMetrics...)
	} else {
		t.Logf("the sample PMDA is not installed: sample.* not compared")
	}
	want := runPminfo(t, pminfoSpec, names)

	ids, err := c.LookupNames(names)
	if err != nil {
		t.Fatal(err)
	}
	descs, err := c.Descs(ids)
	if err != nil {
		t.Fatal(err)
	}
	res, changes, err := c.Fetch(ids)
	if err != nil {
		t.Fatal(err)
	}
	if changes != 0 {
		t.Logf("state changes %#x", changes)
	}
	if len(res.VSets) != len(ids) {
		t.Fatalf("%d value sets for %d PMIDs", len(res.VSets), len(ids))
	}
	if _, err := archive.AppendResultRecord(nil, 3, res); err != nil {
		t.Errorf("the fetched Result cannot be written to an archive: %v", err)
	}
	if age := time.Since(time.Unix(res.Timestamp.Sec, int64(res.Timestamp.Nsec))); age < -time.Minute || age > time.Minute {
		t.Errorf("result timestamp %v is %v from now", res.Timestamp, age)
	}
	ctxLabels, err := c.Labels(archive.LabelContext, uint32(pmapi.PMIDNull))
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		w := want[name]
		if w == nil {
			t.Errorf("%s: not in pminfo's output", name)
			continue
		}
		id, d, vs := ids[i], descs[i], res.VSets[i]
		// Names and PMIDs.
		if id.String() != w.pmid {
			t.Errorf("%s: PMID %s, pminfo %s", name, id, w.pmid)
			continue
		}
		all, err := c.NamesOf(id)
		if err != nil || !contains(all, name) {
			t.Errorf("%s: NamesOf(%s) = %v, %v", name, id, all, err)
		}
		if leaves, err := c.Traverse(name); err != nil || len(leaves) != 1 || leaves[0] != name {
			t.Errorf("%s: Traverse = %v, %v", name, leaves, err)
		}
		// Descriptor.
		if d.PMID != id || pminfoType[d.Type] != w.typ || pminfoInDom(d.InDom) != w.indom || d.Sem.String() != w.sem || pminfoUnits(d.Units) != w.units {
			t.Errorf("%s: desc %s / %s / %s / %s, pminfo %s / %s / %s / %s", name,
				pminfoType[d.Type], pminfoInDom(d.InDom), d.Sem, pminfoUnits(d.Units), w.typ, w.indom, w.sem, w.units)
		}
		if d1, err := c.Desc(id); err != nil || d1 != d {
			t.Errorf("%s: Desc = %+v, %v; Descs gave %+v", name, d1, err, d)
		}
		// Help text.
		if one, err := c.Text(archive.TextOneLine|archive.TextPMID, uint32(id)); err != nil || one != w.oneline {
			t.Errorf("%s: one-line text %q, %v; pminfo %q", name, one, err, w.oneline)
		}
		// pmcd answers an empty help text for metrics with only a one-line
		// text (pmlogger stores it empty); pminfo -T then prints the
		// one-line text.
		help, err := c.Text(archive.TextHelp|archive.TextPMID, uint32(id))
		shown := help
		if help == "" {
			shown = w.oneline
		}
		if err != nil || shown != w.help {
			t.Errorf("%s: help text %q, %v; pminfo %q", name, help, err, w.help)
		}
		// Labels, merged as pminfo -l does.
		dom, _ := c.Labels(archive.LabelDomain, id.Domain())
		var ind []archive.LabelSet
		if d.InDom != pmapi.InDomNull {
			if ind, err = c.Labels(archive.LabelInDom, uint32(d.InDom)); err != nil {
				t.Errorf("%s: indom labels: %v", name, err)
			}
		}
		clu, err1 := c.Labels(archive.LabelCluster, uint32(id))
		itm, err2 := c.Labels(archive.LabelItem, uint32(id))
		if err1 != nil || err2 != nil {
			t.Errorf("%s: cluster/item labels: %v %v", name, err1, err2)
		}
		merged := mergeLabels(t, ctxLabels, dom, ind, clu, itm)
		if merged != w.labels {
			t.Errorf("%s: labels\n  got  %s\n  want %s", name, merged, w.labels)
		}
		// Instances: the fetched ones, InDom and pminfo agree.
		var instNames map[int32]string
		if d.InDom != pmapi.InDomNull {
			insts, inames, err := c.InDom(d.InDom)
			if err != nil {
				t.Errorf("%s: InDom(%s): %v", name, d.InDom, err)
				continue
			}
			instNames = map[int32]string{}
			for k, in := range insts {
				instNames[in] = inames[k]
				if k < 3 {
					if got, err := c.InstName(d.InDom, in); err != nil || got != inames[k] {
						t.Errorf("%s: InstName(%d) = %q, %v", name, in, got, err)
					}
					if got, err := c.InstID(d.InDom, inames[k]); err != nil || got != in {
						t.Errorf("%s: InstID(%q) = %d, %v", name, inames[k], got, err)
					}
				}
			}
			ils, err := c.Labels(archive.LabelInstances, uint32(d.InDom))
			if err != nil {
				t.Errorf("%s: instance labels: %v", name, err)
			}
			for _, s := range ils {
				key := fmt.Sprintf("%d or %q", s.Inst, instNames[s.Inst])
				got := mergeLabels(t, ctxLabels, dom, ind, clu, itm, []archive.LabelSet{s})
				if wl, ok := w.instLabels[key]; ok && got != wl {
					t.Errorf("%s: inst [%s] labels\n  got  %s\n  want %s", name, key, got, wl)
				}
			}
		}
		if vs.NumVal < 0 {
			t.Errorf("%s: fetch error %v", name, pmapi.Error(vs.NumVal))
			continue
		}
		if len(vs.Values) != len(w.values) {
			t.Errorf("%s: %d values, pminfo %d", name, len(vs.Values), len(w.values))
			continue
		}
		byInst := map[string]string{}
		for k, inst := range w.insts {
			byInst[inst] = w.values[k]
		}
		for _, v := range vs.Values {
			key := ""
			if d.InDom != pmapi.InDomNull {
				key = fmt.Sprintf("%d or %q", v.Inst, instNames[v.Inst])
			}
			wv, ok := byInst[key]
			if !ok {
				t.Errorf("%s: instance [%s] not in pminfo's output %q", name, key, w.insts)
				continue
			}
			num, str, err := valueNumber(d.Type, v, vs.ValFmt)
			if err != nil {
				t.Errorf("%s [%s]: %v", name, key, err)
				continue
			}
			if d.Type == pmapi.TypeString {
				if str != wv {
					t.Errorf("%s [%s]: %s, pminfo %s", name, key, str, wv)
				}
				continue
			}
			wn, err := strconv.ParseFloat(wv, 64)
			if err != nil {
				t.Errorf("%s [%s]: pminfo value %q", name, key, wv)
				continue
			}
			switch d.Sem {
			case pmapi.SemCounter:
				// Fetched after pminfo: no smaller, and not far off.
				if num < wn || num > wn*1.5+1e6 {
					t.Errorf("%s [%s]: counter %v, pminfo %v", name, key, num, wn)
				}
			case pmapi.SemDiscrete:
				if num != wn && !strings.HasPrefix(name, "sample.") {
					t.Errorf("%s [%s]: %v, pminfo %v", name, key, num, wn)
				}
			default:
				if math.Abs(num-wn) > 1+0.5*math.Abs(wn) {
					t.Errorf("%s [%s]: %v, pminfo %v", name, key, num, wn)
				}
			}
		}
	}
	// Host is pmcd.hostname.
	if h := want["pmcd.hostname"]; h != nil && len(h.values) == 1 && strconv.Quote(c.Host()) != h.values[0] {
		t.Errorf("Host() = %q, pmcd.hostname %s", c.Host(), h.values[0])
	}
	// Children and a traversal, against pminfo's namespace listing.
	out, _, rc := testenv.RunReal(t, "pminfo", "-h", pminfoSpec, "kernel.all")
	if rc != 0 {
		t.Fatalf("pminfo kernel.all: exit %d", rc)
	}
	wantLeaves := strings.Fields(string(out))
	leaves, err := c.Traverse("kernel.all")
	if err != nil || strings.Join(leaves, " ") != strings.Join(wantLeaves, " ") {
		t.Errorf("Traverse(kernel.all) = %v, %v\npminfo: %v", leaves, err, wantLeaves)
	}
	kids, leaf, err := c.Children("kernel.all")
	if err != nil {
		t.Fatal(err)
	}
	wantKids := map[string]bool{} // child → is a leaf
	for _, l := range wantLeaves {
		rest := strings.TrimPrefix(l, "kernel.all.")
		first, _, more := strings.Cut(rest, ".")
		wantKids[first] = !more
	}
	if len(kids) != len(wantKids) {
		t.Errorf("Children(kernel.all) = %v, want %v", kids, wantKids)
	}
	for k, kid := range kids {
		if isLeaf, ok := wantKids[kid]; !ok || isLeaf != leaf[k] {
			t.Errorf("Children(kernel.all): %s leaf %v, want present %v leaf %v", kid, leaf[k], ok, isLeaf)
		}
	}
	// Unknown names and PMIDs.
	if ids, err := c.LookupNames([]string{"no.such.metric"}); err != nil || ids[0] != pmapi.PMIDNull {
		t.Errorf("LookupNames(no.such.metric) = %v, %v", ids, err)
	}
	if _, err := c.Traverse("no.such.metric"); err != pmapi.ErrName {
		t.Errorf("Traverse(no.such.metric): %v", err)
	}
	if _, err := c.Desc(pmapi.NewPMID(60, 4095, 1023)); err == nil || c.Lost(err) {
		t.Errorf("Desc of an unknown PMID: %v", err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestInteropPMProbe compares instance lists with the real pmprobe -I.
func TestInteropPMProbe(t *testing.T) {
	c := livePMCD(t, "local:")
	for _, name := range []string{"kernel.all.load", "disk.dev.read", "network.interface.in.bytes", "kernel.percpu.cpu.user", "filesys.free"} {
		out, _, rc := testenv.RunReal(t, "pmprobe", "-h", "local:", "-I", name)
		if rc != 0 {
			t.Fatalf("pmprobe -I %s: exit %d", name, rc)
		}
		ids, err := c.LookupNames([]string{name})
		if err != nil || ids[0] == pmapi.PMIDNull {
			t.Fatalf("%s: %v %v", name, ids, err)
		}
		d, err := c.Desc(ids[0])
		if err != nil {
			t.Fatal(err)
		}
		_, names, err := c.InDom(d.InDom)
		if err != nil {
			t.Fatal(err)
		}
		got := name + " " + strconv.Itoa(len(names))
		for _, n := range names {
			got += " " + strconv.Quote(n)
		}
		if w := strings.TrimSpace(string(out)); got != w {
			t.Errorf("InDom for %s:\n  got  %s\n  want %s", name, got, w)
		}
	}
}

// TestInteropReconnect reconnects to the live pmcd and fetches again.
func TestInteropReconnect(t *testing.T) {
	c := livePMCD(t, "local:")
	ids, err := c.LookupNames([]string{"kernel.all.load", "hinv.ncpu"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Fetch(ids); err != nil {
		t.Fatal(err)
	}
	// Break the connection under the client.
	c.conn.Close()
	_, _, err = c.Fetch(ids)
	if err == nil || !c.Lost(err) {
		t.Fatalf("Fetch on a closed connection: %v, lost %v", err, c.Lost(err))
	}
	if err := c.Reconnect(); err != nil {
		t.Fatal(err)
	}
	res, _, err := c.Fetch(ids)
	if err != nil || len(res.VSets) != 2 || res.VSets[0].NumVal != 3 {
		t.Fatalf("Fetch after Reconnect: %+v, %v", res, err)
	}
}

// TestInteropIndomText checks indom help text requests: pmcd's answer is
// text, an empty text or PM_ERR_TEXT, never a protocol failure.
func TestInteropIndomText(t *testing.T) {
	c := livePMCD(t, "local:")
	for _, indom := range []pmapi.InDom{pmapi.NewInDom(60, 0), pmapi.NewInDom(60, 1), pmapi.NewInDom(60, 2), pmapi.NewInDom(60, 3)} {
		for _, typ := range []uint32{archive.TextOneLine, archive.TextHelp} {
			text, err := c.Text(typ|archive.TextInDom, uint32(indom))
			if err != nil && err != pmapi.ErrText {
				t.Errorf("Text(%d, %s): %v", typ, indom, err)
			}
			t.Logf("indom %s type %d: %q %v", indom, typ, text, err)
		}
	}
	if os.Getenv("PMCD_VERBOSE") != "" {
		t.Log(c.Features())
	}
}

// TestInteropArchive writes what the client fetched straight into an
// archive (descriptors, indoms, labels, help text and three Results as
// Fetch returned them) and has the real pmdumplog and pmlogcheck read it.
func TestInteropArchive(t *testing.T) {
	c := livePMCD(t, "local:")
	names := []string{"kernel.all.load", "kernel.all.cpu.user", "kernel.uname.release", "disk.dev.read", "network.interface.in.bytes", "mem.physmem", "pmcd.hostname"}
	ids, err := c.LookupNames(names)
	if err != nil {
		t.Fatal(err)
	}
	descs, err := c.Descs(ids)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := c.Fetch(ids)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir() + "/live"
	w, err := archive.Create(base, archive.WriterOptions{Version: 3, Hostname: c.Host(), TZ: "UTC", Zoneinfo: ":Etc/UTC", Start: res.Timestamp})
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := c.Labels(archive.LabelContext, uint32(pmapi.PMIDNull))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutLabels(&archive.LabelRecord{Stamp: res.Timestamp, Type: archive.LabelContext, Ident: uint32(pmapi.PMIDNull), Sets: ctx}); err != nil {
		t.Fatal(err)
	}
	for i, d := range descs {
		if err := w.PutDesc(d, []string{names[i]}); err != nil {
			t.Fatal(err)
		}
		for _, typ := range []uint32{archive.TextOneLine, archive.TextHelp} {
			if text, err := c.Text(typ|archive.TextPMID, uint32(d.PMID)); err == nil {
				if err := w.PutText(&archive.HelpText{Type: typ | archive.TextPMID, Ident: uint32(d.PMID), Text: text}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if d.InDom != pmapi.InDomNull {
			insts, inames, err := c.InDom(d.InDom)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.PutInDom(&archive.InDomRecord{Type: archive.MetaInDom, Stamp: res.Timestamp, InDom: d.InDom, Insts: insts, Names: inames}); err != nil {
				t.Fatal(err)
			}
			sets, err := c.Labels(archive.LabelInstances, uint32(d.InDom))
			if err != nil {
				t.Fatal(err)
			}
			if len(sets) > 0 {
				if err := w.PutLabels(&archive.LabelRecord{Stamp: res.Timestamp, Type: archive.LabelInstances, Ident: uint32(d.InDom), Sets: sets}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for i := 0; i < 3; i++ {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
			if res, _, err = c.Fetch(ids); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.PutResult(res); err != nil {
			t.Fatalf("PutResult: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, stderr, rc := testenv.RunReal(t, "pmdumplog", "-a", "-e", base)
	if rc != 0 {
		t.Fatalf("pmdumplog -a: exit %d\n%s", rc, stderr)
	}
	for _, want := range []string{"kernel.uname.release", `"6.`, "pmcd.hostname", `"hostname":`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pmdumplog -a output lacks %q", want)
		}
	}
	if n := strings.Count(string(out), `inst [5 or "5 minute"] value `); n != 3 {
		t.Errorf("pmdumplog -a shows %d kernel.all.load value sets, want 3\n%s", n, out)
	}
	if _, stderr, rc := testenv.RunReal(t, "pmlogcheck", base); rc != 0 {
		t.Errorf("pmlogcheck: exit %d\n%s", rc, stderr)
	}
}

// TestInteropStore stores pmcd.client.whoami for this connection, as
// pmlogger does, and reads it back.
func TestInteropStore(t *testing.T) {
	c := livePMCD(t, "local:")
	ids, err := c.LookupNames([]string{"pmcd.client.whoami"})
	if err != nil || ids[0] == pmapi.PMIDNull {
		t.Fatalf("pmcd.client.whoami: %v %v", ids, err)
	}
	who := fmt.Sprintf("pcpkit pmcd test %d %d", os.Getpid(), time.Now().UnixNano())
	r := &pmapi.Result{VSets: []pmapi.ValueSet{{PMID: ids[0], NumVal: 1, ValFmt: pmapi.ValFmtSptr,
		Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeString, Block: []byte(who + "\x00")}}}}}
	if err := c.Store(r); err != nil {
		t.Fatalf("Store: %v", err)
	}
	res, _, err := c.Fetch(ids)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range res.VSets[0].Values {
		if strings.TrimRight(string(v.Block), "\x00") == who {
			found = true
		}
	}
	if !found {
		t.Errorf("stored whoami %q not among the fetched values", who)
	}
	// Storing into a read-only metric is refused with a PCP error.
	hid, _ := c.LookupNames([]string{"hinv.ncpu"})
	r = &pmapi.Result{VSets: []pmapi.ValueSet{{PMID: hid[0], NumVal: 1, Values: []pmapi.Value{{Inst: -1, Insitu: 1}}}}}
	if err := c.Store(r); err == nil || c.Lost(err) {
		t.Errorf("Store(hinv.ncpu): %v", err)
	} else {
		t.Logf("Store(hinv.ncpu): %v (%d)", err, Code(err))
	}
}

// TestInteropFetchNoAllocs: a steady fetch loop against the real pmcd,
// on the unix socket and over TCP, allocates nothing (the client's own
// socket I/O, the PDU buffers and the decoded Result are all reused).
func TestInteropFetchNoAllocs(t *testing.T) {
	for _, spec := range []string{"unix:", "localhost"} {
		t.Run(spec, func(t *testing.T) {
			c := livePMCD(t, spec)
			names, err := c.Traverse("kernel.all")
			if err != nil {
				t.Fatal(err)
			}
			ids, err := c.LookupNames(names)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				if _, _, err := c.Fetch(ids); err != nil {
					t.Fatal(err)
				}
			}
			if n := testing.AllocsPerRun(200, func() {
				if _, _, err := c.Fetch(ids); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%v allocations per Fetch", n)
			}
		})
	}
}

// TestInteropPrefetch: NamesOf, Labels and Text answered from Prefetch's
// pipelined replies are what the calls return one by one.
func TestInteropPrefetch(t *testing.T) {
	c := livePMCD(t, "unix:")
	ids, err := c.LookupNames([]string{"kernel.all.load", "disk.dev.read", "hinv.ncpu", "mem.util.free"})
	if err != nil {
		t.Fatal(err)
	}
	var reqs []MetaRequest
	for _, id := range ids {
		d, err := c.Desc(id)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, MetaRequest{Kind: MetaNames, Ident: uint32(id)})
		for _, typ := range []uint32{archive.LabelContext, archive.LabelDomain, archive.LabelCluster, archive.LabelItem} {
			reqs = append(reqs, MetaRequest{Kind: MetaLabels, Type: typ, Ident: uint32(id)})
		}
		reqs = append(reqs, MetaRequest{Kind: MetaText, Type: archive.TextOneLine | archive.TextPMID, Ident: uint32(id)},
			MetaRequest{Kind: MetaText, Type: archive.TextHelp | archive.TextPMID, Ident: uint32(id)})
		if d.InDom != pmapi.InDomNull {
			reqs = append(reqs, MetaRequest{Kind: MetaLabels, Type: archive.LabelInstances, Ident: uint32(d.InDom)},
				MetaRequest{Kind: MetaText, Type: archive.TextOneLine | archive.TextInDom, Ident: uint32(d.InDom)})
		}
	}
	// Text for an unknown PMID: pmcd's error comes back as the call's.
	reqs = append(reqs, MetaRequest{Kind: MetaText, Type: archive.TextOneLine | archive.TextPMID, Ident: uint32(pmapi.NewPMID(60, 4000, 1))})
	call := func(r MetaRequest) string {
		switch r.Kind {
		case MetaNames:
			v, err := c.NamesOf(pmapi.PMID(r.Ident))
			return fmt.Sprintf("%q %v", v, err)
		case MetaLabels:
			v, err := c.Labels(r.Type, r.Ident)
			return fmt.Sprintf("%+v %v", v, err)
		default:
			v, err := c.Text(r.Type, r.Ident)
			return fmt.Sprintf("%q %v", v, err)
		}
	}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		want[i] = call(r)
	}
	// More requests than one batch, with duplicates.
	all := append(append(append([]MetaRequest(nil), reqs...), reqs...), reqs...)
	for len(all) < 3*prefetchBatch {
		all = append(all, reqs...)
	}
	if err := c.Prefetch(all); err != nil {
		t.Fatal(err)
	}
	if len(c.pre) != len(reqs) {
		t.Errorf("%d replies kept for %d distinct requests", len(c.pre), len(reqs))
	}
	for i, r := range reqs {
		if got := call(r); got != want[i] {
			t.Errorf("%+v: prefetched %s, called %s", r, got, want[i])
		}
	}
	if len(c.pre) != 0 {
		t.Errorf("%d prefetched replies left", len(c.pre))
	}
	// The connection is in step: a fetch works.
	if _, _, err := c.Fetch(ids); err != nil {
		t.Fatal(err)
	}
}
