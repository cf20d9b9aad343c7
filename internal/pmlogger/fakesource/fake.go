// Package fakesource is a deterministic, fast live source (source.Source)
// for tests of pcpkit's pmlogger: a small namespace of counters,
// instants, strings and instance domains whose instances come and go,
// with labels and help text, a synthetic clock, and hooks that inject
// fetch errors, lost connections, state changes and malformed results.
//
// Every value is a function of the fetch number, so a test can check
// what was recorded without running the source twice.
package fakesource

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Domain is the PMDA domain of the fake metrics (the sample PMDA's).
const Domain = 29

// InDom identifiers of the fake instance domains.
var (
	// InDomCPU has a fixed set of instances "cpu0".."cpu3".
	InDomCPU = pmapi.NewInDom(Domain, 1)
	// InDomDisk changes: instance k ("disk<k>") is present in fetch n
	// when (n/ChurnEvery + k) % 3 != 0, for k in 0..5.
	InDomDisk = pmapi.NewInDom(Domain, 2)
)

// ChurnEvery is the number of fetches between changes of InDomDisk.
const ChurnEvery = 5

// Metric is one fake metric.
type Metric struct {
	Name string
	Desc pmapi.Desc
}

// PMIDs of the fake metrics.
var (
	PMIDCounter = pmapi.NewPMID(Domain, 0, 1) // fake.counter: U64 counter = 10*n
	PMIDInstant = pmapi.NewPMID(Domain, 0, 2) // fake.instant: DOUBLE instant = n/4
	PMIDString  = pmapi.NewPMID(Domain, 0, 3) // fake.string: "value <n>"
	PMIDU32     = pmapi.NewPMID(Domain, 1, 1) // fake.cpu.user: U32 counter over InDomCPU = n*(inst+1)
	PMIDDisk    = pmapi.NewPMID(Domain, 1, 2) // fake.disk.read: U64 counter over InDomDisk = n+inst
	PMIDFloat   = pmapi.NewPMID(Domain, 2, 0) // fake.float: FLOAT instant = n + 0.5
	PMIDSeq     = pmapi.NewPMID(Domain, 2, 1) // fake.seq: 32 instant = n (the fetch number)
	PMIDBig     = pmapi.NewPMID(Domain, 3, 0) // fake.big: a 1000-byte string (size tests)
	PMIDPid     = pmapi.NewPMID(2, 0, 23)     // pmcd.pid: U64 discrete
	PMIDSeqnum  = pmapi.NewPMID(2, 0, 24)     // pmcd.seqnum: U32 discrete
)

// Metrics is the fake namespace, in namespace order.
var Metrics = []Metric{
	{"fake.counter", pmapi.Desc{PMID: PMIDCounter, Type: pmapi.TypeU64, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}}},
	{"fake.instant", pmapi.Desc{PMID: PMIDInstant, Type: pmapi.TypeDouble, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemInstant}},
	{"fake.string", pmapi.Desc{PMID: PMIDString, Type: pmapi.TypeString, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemDiscrete}},
	{"fake.cpu.user", pmapi.Desc{PMID: PMIDU32, Type: pmapi.TypeU32, InDom: InDomCPU, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: 1}}},
	{"fake.disk.read", pmapi.Desc{PMID: PMIDDisk, Type: pmapi.TypeU64, InDom: InDomDisk, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}}},
	{"fake.float", pmapi.Desc{PMID: PMIDFloat, Type: pmapi.TypeFloat, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemInstant}},
	{"fake.seq", pmapi.Desc{PMID: PMIDSeq, Type: pmapi.Type32, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemInstant}},
	{"fake.big", pmapi.Desc{PMID: PMIDBig, Type: pmapi.TypeString, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemDiscrete}},
	{"pmcd.pid", pmapi.Desc{PMID: PMIDPid, Type: pmapi.TypeU64, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemDiscrete}},
	{"pmcd.seqnum", pmapi.Desc{PMID: PMIDSeqnum, Type: pmapi.TypeU32, InDom: pmapi.InDom(0xffffffff), Sem: pmapi.SemDiscrete}},
}

// ErrLost is the error of a fetch on a lost connection.
var ErrLost = errors.New("fakesource: connection lost")

// Source is the fake source. The zero value is not usable: use New.
type Source struct {
	mu sync.Mutex

	// Start is the time of the first fetch; Step is how far the
	// synthetic clock moves at each fetch. With RealClock the stamps
	// are time.Now() (made strictly increasing).
	Start     time.Time
	Step      time.Duration
	RealClock bool

	// NoPMCD makes pmcd.pid and pmcd.seqnum unknown (as a source that
	// is not a pmcd, like the built-in collector).
	NoPMCD bool

	// Hooks, called with the fetch number (1 for the first Fetch) under
	// the source's lock. FetchErr returns an error for the whole fetch
	// (ErrLost makes Lost report true). Changes returns state-change
	// flags. Mangle may damage the result before it is returned.
	FetchErr func(n int) error
	Changes  func(n int) uint32
	Mangle   func(n int, r *pmapi.Result)

	// BadLabels makes the domain label set malformed (label offsets
	// past its JSON); BadInDom makes InDomDisk return more names than
	// instances.
	BadLabels, BadInDom bool

	// ReconnectFails is how many Reconnect calls fail after a loss.
	ReconnectFails int

	// PID is the value of pmcd.pid; Seqnum of pmcd.seqnum.
	PID    uint64
	Seqnum uint32

	n          int // fetches so far
	last       pmapi.Timestamp
	lost       bool
	reconnects int
	closed     bool

	res    pmapi.Result
	vsets  []pmapi.ValueSet
	vals   []pmapi.Value
	blocks []byte
	spans  []span
	blks   []blk

	// Counters for tests.
	Fetches, ReconnectCalls int
}

// New returns a fake source whose clock starts at start and moves by
// step at each fetch.
func New(start time.Time, step time.Duration) *Source {
	return &Source{Start: start, Step: step, PID: 4242, Seqnum: 7}
}

// Host is the fake host name.
func (s *Source) Host() string { return "fakehost" }

func (s *Source) metric(name string) (*Metric, bool) {
	for i := range Metrics {
		m := &Metrics[i]
		if m.Name == name {
			if s.NoPMCD && strings.HasPrefix(name, "pmcd.") {
				return nil, false
			}
			return m, true
		}
	}
	return nil, false
}

func (s *Source) byPMID(pmid pmapi.PMID) (*Metric, bool) {
	for i := range Metrics {
		if Metrics[i].Desc.PMID == pmid {
			if s.NoPMCD && pmid.Domain() == 2 {
				return nil, false
			}
			return &Metrics[i], true
		}
	}
	return nil, false
}

// LookupNames maps names to PMIDs (pmapi.PMIDNull for unknown names).
func (s *Source) LookupNames(names []string) ([]pmapi.PMID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return nil, ErrLost
	}
	out := make([]pmapi.PMID, len(names))
	for i, n := range names {
		out[i] = pmapi.PMIDNull
		if m, ok := s.metric(n); ok {
			out[i] = m.Desc.PMID
		}
	}
	return out, nil
}

// Traverse returns the leaf names at or below name.
func (s *Source) Traverse(name string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return nil, ErrLost
	}
	var out []string
	for _, m := range Metrics {
		if s.NoPMCD && strings.HasPrefix(m.Name, "pmcd.") {
			continue
		}
		if m.Name == name || strings.HasPrefix(m.Name, name+".") {
			out = append(out, m.Name)
		}
	}
	if len(out) == 0 {
		return nil, pmapi.ErrName
	}
	return out, nil
}

// NamesOf returns the names of a PMID.
func (s *Source) NamesOf(pmid pmapi.PMID) ([]string, error) {
	if m, ok := s.byPMID(pmid); ok {
		return []string{m.Name}, nil
	}
	return nil, pmapi.ErrPMID
}

// Desc returns a PMID's descriptor.
func (s *Source) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if m, ok := s.byPMID(pmid); ok {
		return m.Desc, nil
	}
	return pmapi.Desc{}, pmapi.ErrPMID
}

// diskPresent reports whether disk instance k is in InDomDisk at fetch n.
func diskPresent(n, k int) bool { return (n/ChurnEvery+k)%3 != 0 }

// DiskInsts returns the instances of InDomDisk at fetch n.
func DiskInsts(n int) []int32 {
	var out []int32
	for k := 0; k < 6; k++ {
		if diskPresent(n, k) {
			out = append(out, int32(k))
		}
	}
	return out
}

// diskMembers are InDomDisk's instances and names for n/ChurnEvery%3 =
// 0, 1, 2.
var diskMembers = func() (m [3]struct {
	insts []int32
	names []string
}) {
	for phase := range m {
		m[phase].insts = DiskInsts(phase * ChurnEvery)
		for _, k := range m[phase].insts {
			m[phase].names = append(m[phase].names, "disk"+strconv.Itoa(int(k)))
		}
	}
	return m
}()

// InDom returns an instance domain as it is at the current fetch.
func (s *Source) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return nil, nil, ErrLost
	}
	switch indom {
	case InDomCPU:
		return []int32{0, 1, 2, 3}, []string{"cpu0", "cpu1", "cpu2", "cpu3"}, nil
	case InDomDisk:
		// The membership cycles through three states: each is built
		// once and shared (callers do not modify what InDom returns;
		// the full slices make an append copy).
		m := &diskMembers[(s.n/ChurnEvery)%3]
		insts, names := m.insts[:len(m.insts):len(m.insts)], m.names[:len(m.names):len(m.names)]
		if s.BadInDom {
			names = append(names, "extra")
		}
		return insts, names, nil
	}
	return nil, nil, pmapi.ErrInDom
}

// MakeLabelSet builds a label set from flat JSON of string and number
// values, with its label entries (flags: the type bit).
func MakeLabelSet(inst int32, typ uint32, kv ...string) archive.LabelSet {
	var b strings.Builder
	var ents []archive.LabelEntry
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		no := b.Len()
		b.WriteString(kv[i])
		b.WriteString(`":`)
		vo := b.Len()
		v := kv[i+1]
		if _, err := strconv.Atoi(v); err != nil {
			v = strconv.Quote(v)
		}
		b.WriteString(v)
		ents = append(ents, archive.LabelEntry{NameOff: no, NameLen: len(kv[i]), Flags: uint8(typ), ValueOff: vo, ValueLen: len(v)})
	}
	b.WriteByte('}')
	return archive.LabelSet{Inst: inst, JSON: b.String(), Labels: ents}
}

// Labels returns the fake label sets.
func (s *Source) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return nil, ErrLost
	}
	switch typ {
	case archive.LabelContext:
		return []archive.LabelSet{MakeLabelSet(-1, typ, "hostname", "fakehost", "userid", "0")}, nil
	case archive.LabelDomain:
		if ident == Domain {
			ls := MakeLabelSet(-1, typ, "agent", "fake")
			if s.BadLabels {
				ls.Labels[0].NameOff = 1 << 20
			}
			return []archive.LabelSet{ls}, nil
		}
	case archive.LabelItem:
		if ident == uint32(PMIDCounter) {
			return []archive.LabelSet{MakeLabelSet(-1, typ, "units", "events")}, nil
		}
	case archive.LabelInDom:
		if ident == uint32(InDomDisk) {
			return []archive.LabelSet{MakeLabelSet(-1, typ, "device_type", "block")}, nil
		}
	case archive.LabelInstances:
		var insts []int32
		switch pmapi.InDom(ident) {
		case InDomDisk:
			insts = DiskInsts(s.n)
		case InDomCPU:
			// Instances with no labels: empty sets, as pmcd sends them.
			return []archive.LabelSet{{Inst: 0}, {Inst: 1}, {Inst: 2}, {Inst: 3}}, nil
		}
		var out []archive.LabelSet
		for _, k := range insts {
			out = append(out, MakeLabelSet(k, typ, "device_name", "disk"+strconv.Itoa(int(k))))
		}
		return out, nil
	}
	return nil, nil
}

// Text returns help text: one-line text for every metric and indom,
// long help for some, an empty long help for others, none for fake.seq.
func (s *Source) Text(typ uint32, ident uint32) (string, error) {
	if typ&archive.TextInDom != 0 {
		switch pmapi.InDom(ident) {
		case InDomCPU:
			if typ&archive.TextOneLine != 0 {
				return "set of fake CPUs", nil
			}
			return "", nil
		case InDomDisk:
			if typ&archive.TextOneLine != 0 {
				return "set of fake disks", nil
			}
			return "Disks that come and go.", nil
		}
		return "", pmapi.ErrText
	}
	m, ok := s.byPMID(pmapi.PMID(ident))
	if !ok || m.Desc.PMID == PMIDSeq {
		return "", pmapi.ErrText
	}
	if typ&archive.TextOneLine != 0 {
		return "one-line help for " + m.Name, nil
	}
	if m.Desc.PMID == PMIDCounter {
		return "Long help for " + m.Name + ".\nIt has two lines.", nil
	}
	return "", nil
}

// Lost reports whether err is a lost connection.
func (s *Source) Lost(err error) bool { return errors.Is(err, ErrLost) }

// Reconnect re-establishes a lost connection; it fails ReconnectFails
// times first.
func (s *Source) Reconnect() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ReconnectCalls++
	if s.reconnects < s.ReconnectFails {
		s.reconnects++
		return ErrLost
	}
	s.reconnects = 0
	s.lost = false
	return nil
}

// Lose marks the connection as lost: everything fails until Reconnect.
func (s *Source) Lose() {
	s.mu.Lock()
	s.lost = true
	s.mu.Unlock()
}

// Close closes the source.
func (s *Source) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// N returns the number of fetches so far.
func (s *Source) N() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *Source) stamp() pmapi.Timestamp {
	var t time.Time
	if s.RealClock {
		t = time.Now()
	} else {
		t = s.Start.Add(time.Duration(s.n) * s.Step)
	}
	ts := pmapi.Timestamp{Sec: t.Unix(), Nsec: int32(t.Nanosecond())}
	// Strictly increasing, even at microsecond precision.
	if !s.last.Before(ts.Add(-1000)) {
		ts = s.last.Add(1000)
	}
	s.last = ts
	return ts
}

// Fetch returns the values of pmids at the next fetch.
func (s *Source) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, 0, errors.New("fakesource: closed")
	}
	if s.lost {
		return nil, 0, ErrLost
	}
	s.n++
	s.Fetches++
	n := s.n
	if s.FetchErr != nil {
		if err := s.FetchErr(n); err != nil {
			if errors.Is(err, ErrLost) {
				s.lost = true
			}
			return nil, 0, err
		}
	}
	var changes uint32
	if s.Changes != nil {
		changes = s.Changes(n)
	}
	s.vsets = s.vsets[:0]
	s.vals = s.vals[:0]
	s.blocks = s.blocks[:0]
	s.spans = s.spans[:0]
	s.blks = s.blks[:0]
	// Values first (their slices may move as they grow), then the sets;
	// nothing is allocated once the buffers have grown.
	for _, p := range pmids {
		from := len(s.vals)
		if _, ok := s.byPMID(p); !ok {
			s.spans = append(s.spans, span{-1, int(pmapi.ErrPMID)})
			continue
		}
		switch p {
		case PMIDCounter:
			s.addU64(-1, pmapi.TypeU64, uint64(10*n))
		case PMIDInstant:
			s.addU64(-1, pmapi.TypeDouble, math.Float64bits(float64(n)/4))
		case PMIDString:
			b := len(s.blocks)
			s.blocks = append(s.blocks, "value "...)
			s.blocks = strconv.AppendInt(s.blocks, int64(n), 10)
			s.blocks = append(s.blocks, 0)
			s.addBlock(-1, pmapi.TypeString, b)
		case PMIDBig:
			b := len(s.blocks)
			s.blocks = append(s.blocks, bigValue...)
			s.addBlock(-1, pmapi.TypeString, b)
		case PMIDU32:
			for k := int32(0); k < 4; k++ {
				s.vals = append(s.vals, pmapi.Value{Inst: k, Insitu: int32(uint32(n) * uint32(k+1))})
			}
		case PMIDDisk:
			for k := 0; k < 6; k++ {
				if diskPresent(n, k) {
					s.addU64(int32(k), pmapi.TypeU64, uint64(n)+uint64(k))
				}
			}
		case PMIDFloat:
			s.vals = append(s.vals, pmapi.Value{Inst: -1, Insitu: int32(math.Float32bits(float32(n) + 0.5))})
		case PMIDSeq:
			s.vals = append(s.vals, pmapi.Value{Inst: -1, Insitu: int32(n)})
		case PMIDPid:
			s.addU64(-1, pmapi.TypeU64, s.PID)
		case PMIDSeqnum:
			s.vals = append(s.vals, pmapi.Value{Inst: -1, Insitu: int32(s.Seqnum)})
		}
		s.spans = append(s.spans, span{from, len(s.vals)})
	}
	for _, b := range s.blks {
		s.vals[b.val].Block = s.blocks[b.off : b.off+b.n : b.off+b.n]
	}
	for i, p := range pmids {
		sp := s.spans[i]
		if sp.from < 0 {
			s.vsets = append(s.vsets, pmapi.ValueSet{PMID: p, NumVal: int32(sp.to)})
			continue
		}
		vs := pmapi.ValueSet{PMID: p, NumVal: int32(sp.to - sp.from), Values: s.vals[sp.from:sp.to:sp.to]}
		if vs.NumVal > 0 && vs.Values[0].Block != nil {
			vs.ValFmt = pmapi.ValFmtDptr
		}
		s.vsets = append(s.vsets, vs)
	}
	s.res = pmapi.Result{Timestamp: s.stamp(), VSets: s.vsets}
	if s.Mangle != nil {
		s.Mangle(n, &s.res)
	}
	return &s.res, changes, nil
}

type span struct{ from, to int }

// blk is a value block: the value it belongs to, and where it is in
// Source.blocks.
type blk struct{ val, off, n int }

// bigValue is fake.big's value.
var bigValue = append([]byte(strings.Repeat("x", 999)), 0)

// addBlock adds a value whose block is s.blocks[from:].
func (s *Source) addBlock(inst int32, bt pmapi.Type, from int) {
	s.blks = append(s.blks, blk{len(s.vals), from, len(s.blocks) - from})
	s.vals = append(s.vals, pmapi.Value{Inst: inst, BlockType: bt})
}

// addU64 adds a value with a 64-bit block (nativeU64's layout).
func (s *Source) addU64(inst int32, bt pmapi.Type, v uint64) {
	from := len(s.blocks)
	s.blocks = binary.BigEndian.AppendUint64(s.blocks, v)
	s.addBlock(inst, bt, from)
}

// String describes the source (for logs).
func (s *Source) String() string { return fmt.Sprintf("fakesource(%d fetches)", s.N()) }

// SortedPMIDs returns pmids sorted in descending order (a helper for
// tests building groups by hand).
func SortedPMIDs(pmids []pmapi.PMID) []pmapi.PMID {
	out := append([]pmapi.PMID(nil), pmids...)
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out
}
