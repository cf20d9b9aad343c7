package loggerconf

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/source"
)

// memNS is an in-memory Namespace for tests.
type memNS struct {
	names  []string // leaves, in traversal order
	pmids  map[string]pmapi.PMID
	descs  map[pmapi.PMID]pmapi.Desc
	indoms map[pmapi.InDom]memInDom
	calls  int
}

type memInDom struct {
	ids   []int32
	names []string
}

func newMemNS() *memNS {
	return &memNS{pmids: map[string]pmapi.PMID{}, descs: map[pmapi.PMID]pmapi.Desc{}, indoms: map[pmapi.InDom]memInDom{}}
}

func (m *memNS) add(name string, pmid pmapi.PMID, indom pmapi.InDom) {
	m.names = append(m.names, name)
	m.pmids[name] = pmid
	m.descs[pmid] = pmapi.Desc{PMID: pmid, InDom: indom}
}

func (m *memNS) LookupNames(names []string) ([]pmapi.PMID, error) {
	m.calls++
	out := make([]pmapi.PMID, len(names))
	for i, n := range names {
		if p, ok := m.pmids[n]; ok {
			out[i] = p
		} else {
			out[i] = pmapi.PMIDNull
		}
	}
	return out, nil
}

func (m *memNS) Traverse(name string) ([]string, error) {
	m.calls++
	if _, ok := m.pmids[name]; ok {
		return []string{name}, nil
	}
	var out []string
	prefix := name + "."
	for _, n := range m.names {
		if name == "" || strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, pmapi.ErrName
	}
	return out, nil
}

func (m *memNS) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	m.calls++
	d, ok := m.descs[pmid]
	if !ok {
		return d, pmapi.Error(-12358) // PM_ERR_PMID
	}
	return d, nil
}

func (m *memNS) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	m.calls++
	d, ok := m.indoms[indom]
	if !ok {
		return nil, nil, pmapi.Error(-12361) // PM_ERR_INDOM
	}
	return d.ids, d.names, nil
}

// fakeNS is a small name space like the linux PMDA's, for unit tests.
func fakeNS() *memNS {
	m := newMemNS()
	load := pmapi.InDom(60<<22 | 2)
	disk := pmapi.InDom(60<<22 | 1)
	m.indoms[load] = memInDom{ids: []int32{1, 5, 15}, names: []string{"1 minute", "5 minute", "15 minute"}}
	m.indoms[disk] = memInDom{ids: []int32{0, 1}, names: []string{"vda", "sda"}}
	m.add("hinv.ncpu", pmapi.NewPMID(60, 0, 32), pmapi.InDomNull)
	m.add("hinv.ndisk", pmapi.NewPMID(60, 0, 33), pmapi.InDomNull)
	m.add("kernel.all.load", pmapi.NewPMID(60, 2, 0), load)
	m.add("kernel.all.intr", pmapi.NewPMID(60, 0, 12), pmapi.InDomNull)
	m.add("kernel.all.cpu.user", pmapi.NewPMID(60, 0, 20), pmapi.InDomNull)
	m.add("kernel.all.cpu.sys", pmapi.NewPMID(60, 0, 22), pmapi.InDomNull)
	m.add("disk.dev.read", pmapi.NewPMID(60, 0, 4), disk)
	m.add("mem.physmem", pmapi.NewPMID(60, 1, 9), pmapi.InDomNull)
	return m
}

var (
	pminfoPMID  = regexp.MustCompile(`^(\S+) PMID: (\d+)\.(\d+)\.(\d+)$`)
	pminfoInDom = regexp.MustCompile(`InDom: (?:PM_INDOM_NULL|(\d+)\.(\d+)) `)
	pmprobeInst = regexp.MustCompile(`\?(-?\d+) "([^"]*)"`)
)

// realNS loads the live name space of the local pmcd with the real
// pminfo and pmprobe (names and PMIDs in traversal order, instance
// domains, instances).
func realNS(t *testing.T) *memNS {
	t.Helper()
	m := newMemNS()
	out, _, rc := testenv.RunReal(t, "pminfo", "-m")
	if rc != 0 {
		t.Fatalf("pminfo -m: exit %d (is pmcd running? /etc/init.d/pmcd start)", rc)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := pminfoPMID.FindStringSubmatch(sc.Text())
		if f == nil {
			continue
		}
		d, _ := strconv.Atoi(f[2])
		c, _ := strconv.Atoi(f[3])
		i, _ := strconv.Atoi(f[4])
		m.add(f[1], pmapi.NewPMID(uint32(d), uint32(c), uint32(i)), pmapi.InDomNull)
	}
	out, _, _ = testenv.RunReal(t, "pminfo", "-d")
	var cur string
	for _, line := range strings.Split(string(out), "\n") {
		if line != "" && line[0] != ' ' {
			cur = line
			continue
		}
		if f := pminfoInDom.FindStringSubmatch(line); f != nil && f[1] != "" {
			d, _ := strconv.Atoi(f[1])
			s, _ := strconv.Atoi(f[2])
			if p, ok := m.pmids[cur]; ok {
				desc := m.descs[p]
				desc.InDom = pmapi.NewInDom(uint32(d), uint32(s))
				m.descs[p] = desc
			}
		}
	}
	var args []string
	byIndom := map[pmapi.InDom]string{}
	for _, n := range m.names {
		if in := m.descs[m.pmids[n]].InDom; in != pmapi.InDomNull {
			if _, ok := byIndom[in]; !ok {
				byIndom[in] = n
				args = append(args, n)
			}
		}
	}
	out, _, _ = testenv.RunReal(t, "pmprobe", append([]string{"-i", "-I"}, args...)...)
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(line, " ")
		p, ok := m.pmids[name]
		if !ok {
			continue
		}
		var d memInDom
		for _, f := range pmprobeInst.FindAllStringSubmatch(line, -1) {
			id, _ := strconv.Atoi(f[1])
			d.ids = append(d.ids, int32(id))
			d.names = append(d.names, f[2])
		}
		m.indoms[m.descs[p].InDom] = d
	}
	return m
}

// source.Source must be usable as a Namespace (the CLI passes one).
var _ Namespace = source.Source(nil)
