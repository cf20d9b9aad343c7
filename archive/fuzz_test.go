package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Fuzz targets, one per decoder, seeded from the shared archives when they
// are present (../shared beside the clone) and always from small archives
// built here. Properties: no panic, no hang (every loop is bounded by the
// input size), and every error is a *FormatError or wraps a pmapi.Error (or,
// for Open, says a file is missing).
//
// Targets: FuzzLabel (DecodeLabel, readLabel), FuzzMeta (loadMeta),
// FuzzRecord (Record.decode, values, event arrays; the lazy scan in pieces), FuzzIndex (loadIndex),
// FuzzOpen (whole archives from fuzzed files) and FuzzCursor (archives of
// well-formed records in a fuzzed shape). Run one at a time, e.g.:
//
//	go test -run '^$' -fuzz '^FuzzOpen$' -fuzztime 2m -fuzzminimizetime 50x ./archive/
//
// (FuzzOpen's inputs are whole files: with the default minimisation time
// of 60 s per new input, minimising takes most of a short run.)

// ---------------------------------------------------------------------------
// Small archives built byte by byte (docs/format.md).

func be32(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.BigEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// framed wraps the concatenated parts in the two length words of a record.
func framed(parts ...[]byte) []byte {
	n := 8
	for _, p := range parts {
		n += len(p)
	}
	b := be32(uint32(n))
	for _, p := range parts {
		b = append(b, p...)
	}
	return append(b, be32(uint32(n))...)
}

func stampBytes(version int, ts pmapi.Timestamp) []byte {
	if version == 3 {
		b := make([]byte, 12)
		putStamp3(b, ts)
		return b
	}
	b := make([]byte, 8)
	putStamp2(b, ts)
	return b
}

// The metrics of the built archives.
var (
	tinyU32   = pmapi.NewPMID(245, 0, 1) // U32, singular, INSITU
	tinyU64   = pmapi.NewPMID(245, 0, 2) // U64, singular, DPTR
	tinyEvent = pmapi.NewPMID(245, 0, 3) // EVENT over tinyInDom, valfmt 2
	tinyParam = pmapi.NewPMID(245, 0, 4) // STRING, an event parameter
	tinyInDom = pmapi.NewInDom(245, 1)
)

// tinyDataRecord is a data record at ts holding one value of each of
// tinyU32, tinyU64 and tinyEvent (an event array of one record with a
// string parameter).
func tinyDataRecord(version int, ts pmapi.Timestamp, n uint32) []byte {
	hdr := dataHeaderV2
	if version == 3 {
		hdr = dataHeaderV3
	}
	ptr := func(pos int) uint32 { return uint32(pos+8) / 4 } // docs/format.md 5.3
	pB := hdr + 3*20
	pC := pB + 12
	var b []byte
	b = append(b, stampBytes(version, ts)...)
	b = append(b, be32(3)...)
	b = append(b, be32(uint32(tinyU32), 1, pmapi.ValFmtInsitu, 0xffffffff, n)...)
	b = append(b, be32(uint32(tinyU64), 1, pmapi.ValFmtDptr, 0xffffffff, ptr(pB))...)
	b = append(b, be32(uint32(tinyEvent), 1, pmapi.ValFmtSptr, 1, ptr(pC))...)
	b = append(b, be32(uint32(pmapi.TypeU64)<<24|12, 0, 1000*n)...)
	b = append(b, be32(uint32(pmapi.TypeEvent)<<24|40, 1, uint32(ts.Sec), uint32(ts.Nsec/1000), pmapi.EventFlagPoint, 1, uint32(tinyParam), uint32(pmapi.TypeString)<<24|12)...)
	b = append(b, "fetch #1"...)
	return framed(b)
}

func tinyMark(version int, ts pmapi.Timestamp) []byte {
	return framed(stampBytes(version, ts), be32(0))
}

func tinyDesc(pmid pmapi.PMID, typ pmapi.Type, indom pmapi.InDom, sem pmapi.Sem, names ...string) []byte {
	b := be32(MetaDesc, uint32(pmid), uint32(typ), uint32(indom), uint32(sem), 0x00100000, uint32(len(names)))
	for _, n := range names {
		b = append(b, be32(uint32(len(n)))...)
		b = append(b, n...)
	}
	return framed(b)
}

// tinyArchive returns the files of a small valid archive of version 2 or 3:
// two samples, a <mark> and a third sample; descriptors, an instance domain
// (a delta too in version 3), a label set and help text; an index.
func tinyArchive(version int) (data, meta, index []byte) {
	t0 := pmapi.Timestamp{Sec: 1700000000}
	lab := &Label{Version: version, PID: 42, Start: t0, Hostname: "tinyhost", TZ: "UTC"}
	if version == 3 {
		lab.Zoneinfo = ":Etc/UTC"
	}
	label := func(vol int32) []byte {
		l := *lab
		l.Vol = vol
		return AppendLabel(nil, &l)
	}
	data = label(0)
	times := []pmapi.Timestamp{t0, t0.Add(1e9), t0.Add(1001e6), t0.Add(5e9)}
	data = append(data, tinyDataRecord(version, times[0], 1)...)
	data = append(data, tinyDataRecord(version, times[1], 2)...)
	mid := len(data)
	data = append(data, tinyMark(version, times[2])...)
	data = append(data, tinyDataRecord(version, times[3], 3)...)

	meta = label(VolMeta)
	meta = append(meta, tinyDesc(tinyU32, pmapi.TypeU32, pmapi.InDomNull, pmapi.SemCounter, "tiny.u32")...)
	meta = append(meta, tinyDesc(tinyU64, pmapi.TypeU64, pmapi.InDomNull, pmapi.SemInstant, "tiny.u64", "tiny.alias.u64")...)
	meta = append(meta, tinyDesc(tinyEvent, pmapi.TypeEvent, tinyInDom, pmapi.SemDiscrete, "tiny.event")...)
	meta = append(meta, tinyDesc(tinyParam, pmapi.TypeString, pmapi.InDomNull, pmapi.SemDiscrete, "tiny.param")...)
	indomType, labelType := uint32(MetaInDomV2), uint32(MetaLabelV2)
	if version == 3 {
		indomType, labelType = MetaInDom, MetaLabel
	}
	meta = append(meta, framed(be32(indomType), stampBytes(version, t0), be32(uint32(tinyInDom), 2, 1, 2, 0, 4), []byte("one\x00two\x00"))...)
	if version == 3 {
		meta = append(meta, framed(be32(MetaInDomDelta), stampBytes(version, times[3]), be32(uint32(tinyInDom), 2, 2, 3, 0xffffffff, 0), []byte("three\x00"))...)
	}
	json := `{"hostname":"tinyhost"}`
	meta = append(meta, framed(be32(labelType), stampBytes(version, t0), be32(LabelContext, 0xffffffff, 1, 0xffffffff, uint32(len(json))), []byte(json),
		be32(1), []byte{0, 2, 8, LabelContext, 0, 12, 0, 10})...)
	meta = append(meta, framed(be32(MetaText, TextOneLine|TextPMID, uint32(tinyU32)), []byte("a counter\x00"))...)

	index = label(VolIndex)
	index = AppendIndexEntry(index, IndexEntry{Stamp: t0, Vol: 0, MetaOff: int64(lab.Size()), DataOff: int64(lab.Size())}, version)
	index = AppendIndexEntry(index, IndexEntry{Stamp: times[2], Vol: 0, MetaOff: int64(len(meta)), DataOff: int64(mid)}, version)
	index = AppendIndexEntry(index, IndexEntry{Stamp: times[3], Vol: 0, MetaOff: int64(len(meta)), DataOff: int64(len(data))}, version)
	return data, meta, index
}

func TestTinyArchive(t *testing.T) {
	for _, version := range []int{2, 3} {
		data, meta, index := tinyArchive(version)
		dir := t.TempDir()
		base := filepath.Join(dir, "tiny")
		writeFiles(t, base, map[string][]byte{".0": data, ".meta": meta, ".index": index})
		a := openT(t, base)
		recs, err := readAll(t, a.NewCursor(), true)
		if err != nil || len(recs) != 4 || recs[2].numpmid != 0 {
			t.Fatalf("v%d: %v, %v", version, recs, err)
		}
		r, err := a.NewCursor().Next()
		if err != nil {
			t.Fatal(err)
		}
		if v := r.Value(0, 0); v.Insitu != 1 {
			t.Errorf("v%d: u32 %+v", version, v)
		}
		if v := r.Value(1, 0); v.BlockType != pmapi.TypeU64 || binary.BigEndian.Uint64(v.Block) != 1000 {
			t.Errorf("v%d: u64 %+v", version, v)
		}
		v := r.Value(2, 0)
		ea, err := pmapi.DecodeEvents(v.Block, false)
		if err != nil || len(ea.Records) != 1 || len(ea.Records[0].Params) != 1 || string(ea.Records[0].Params[0].Value) != "fetch #1" {
			t.Errorf("v%d: events %+v, %v", version, ea, err)
		}
		m := a.Meta()
		if len(m.Descs) != 4 || len(m.Names(tinyU64)) != 2 || len(m.Texts) != 1 || len(m.Labels) != 1 {
			t.Errorf("v%d: meta %+v", version, m)
		}
		snap, ok := m.InDomAt(tinyInDom, recs[3].stamp)
		if !ok || (version == 3) != (len(snap.Insts) == 2 && snap.Names[1] == "three") {
			t.Errorf("v%d: indom %+v", version, snap)
		}
		if end, err := a.End(); err != nil || end != recs[3].stamp {
			t.Errorf("v%d: End %v, %v", version, end, err)
		}
		checkSeekTime(t, a)
	}
}

func writeFiles(t testing.TB, base string, files map[string][]byte) {
	t.Helper()
	for suf, b := range files {
		if err := os.WriteFile(base+suf, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ---------------------------------------------------------------------------
// Seeds from the shared archives.

// quietTB lets testenv.SharedDir report a missing directory without
// skipping: a fuzz target then falls back on the built seeds.
type quietTB struct {
	testing.TB
	missing bool
}

func (q *quietTB) Skipf(string, ...any) { q.missing = true }
func (q *quietTB) Skip(...any)          { q.missing = true }
func (q *quietTB) SkipNow()             { q.missing = true }

// sharedDirIfPresent is testenv.SharedDir(tb, sub), or "" when the shared
// directory is absent.
func sharedDirIfPresent(tb testing.TB, sub string) string {
	q := &quietTB{TB: tb}
	dir := testenv.SharedDir(q, sub)
	if q.missing {
		return ""
	}
	return dir
}

// seedArchives are small uncompressed shared archives whose files seed the
// fuzz targets (relative to pcp-made-archives or pcp-qa-archives).
var seedArchives = []struct{ sub, rel string }{
	{madeDir, "synth2"},
	{madeDir, "synth3"},
	{madeDir, "sample2"},
	{madeDir, "sample3"},
	{madeDir, "basic2"},
	{madeDir, "killed3"},
	{madeDir, "vol3"},
	{madeDir, "sighup3"},
	{madeDir, "merged3"},
	{madeDir, "bad/trunc3"},
	{madeDir, "bad/partial3"},
	{madeDir, "bad/corrupt3"},
	{madeDir, "bad/truncmeta3"},
	{madeDir, "bad/noindex3"},
	{madeDir, "bad/badmagic3"},
	{qaDir, "ok-foo"},
	{qaDir, "ok-mv-foo"},
	{qaDir, "ok-foo_v3"},
	{qaDir, "541380_v2"},
	{qaDir, "eventrec"},
	{qaDir, "eventrec-old"},
	{qaDir, "sample-proc_v3"},
	{qaDir, "960624.08.17_v2"},
	{qaDir, "changeinst"},
}

// seedFiles reads the files of the seed archives: for each, its volumes .0
// and .1 (nil if absent), .meta and .index.
func seedFiles(tb testing.TB) [][4][]byte {
	var out [][4][]byte
	dirs := map[string]string{}
	for _, s := range seedArchives {
		dir, ok := dirs[s.sub]
		if !ok {
			dir = sharedDirIfPresent(tb, s.sub)
			dirs[s.sub] = dir
		}
		if dir == "" {
			continue
		}
		base := filepath.Join(dir, filepath.FromSlash(s.rel))
		var f [4][]byte
		for i, suf := range []string{".0", ".1", ".meta", ".index"} {
			b, err := os.ReadFile(base + suf)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				tb.Fatal(err)
			}
			f[i] = b
		}
		out = append(out, f)
	}
	return out
}

// builtFiles are the files of the built archives, in the shape of seedFiles.
func builtFiles() [][4][]byte {
	var out [][4][]byte
	for _, v := range []int{2, 3} {
		data, meta, index := tinyArchive(v)
		out = append(out, [4][]byte{data, nil, meta, index})
	}
	return out
}

// checkErr fails unless err is a *FormatError or wraps a pmapi.Error (or,
// when missingOK, says a file does not exist).
func checkErr(t *testing.T, err error, missingOK bool) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		if fe.Code == 0 || !errors.Is(err, fe.Code) {
			t.Fatalf("FormatError without a PCP code: %v", err)
		}
		return
	}
	if Code(err) != 0 {
		return
	}
	if missingOK && errors.Is(err, fs.ErrNotExist) {
		return
	}
	t.Fatalf("error %v (%T) is neither a *FormatError nor a PCP error", err, err)
}

// ---------------------------------------------------------------------------
// FuzzLabel: DecodeLabel on arbitrary bytes.

func FuzzLabel(f *testing.F) {
	for _, files := range append(seedFiles(f), builtFiles()...) {
		for _, b := range files {
			if len(b) > LabelSizeV3 {
				b = b[:LabelSizeV3]
			}
			if b != nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte{})
	f.Add(be32(LabelSizeV2, Magic|2))
	f.Add(be32(LabelSizeV3, Magic|3))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLabel("x.0", b)
		if err != nil {
			if !errors.Is(err, pmapi.ErrLabel) {
				t.Fatalf("DecodeLabel error %v does not wrap PM_ERR_LABEL", err)
			}
			checkErr(t, err, false)
		} else {
			if l.Version != 2 && l.Version != 3 {
				t.Fatalf("version %d", l.Version)
			}
			// A decoded label encodes to one that decodes the same, but
			// for two things. A string filling its whole field (no NUL)
			// is cut by AppendLabel to leave room for one. A v2 stamp
			// of 10^6 microseconds or more does not round trip: its
			// nanoseconds wrap modulo 2^32 as libpcp's do (pmdumplog
			// prints usec 808464432 as .1010580).
			want := *l
			cut := func(s string, field int) string {
				if len(s) >= field {
					return s[:field-1]
				}
				return s
			}
			if l.Version == 3 {
				want.Hostname, want.TZ, want.Zoneinfo = cut(l.Hostname, hostLenV3), cut(l.TZ, tzLenV3), cut(l.Zoneinfo, zoneLenV3)
			} else {
				want.Hostname, want.TZ = cut(l.Hostname, hostLenV2), cut(l.TZ, tzLenV2)
			}
			if l.Version == 3 || (l.Start.Nsec >= 0 && l.Start.Nsec < 1e9 && l.Start.Nsec%1000 == 0) {
				l2, err := DecodeLabel("y", AppendLabel(nil, l))
				if err != nil || *l2 != want {
					t.Fatalf("re-encoded label: %+v, %v; want %+v", l2, err, want)
				}
			}
		}
		// readLabel, as Open uses it, on the same bytes.
		if l, err := readLabel("x.meta", bytes.NewReader(b)); err != nil {
			checkErr(t, err, false)
		} else if l.Version != 2 && l.Version != 3 {
			t.Fatalf("readLabel: version %d", l.Version)
		}
	})
}

// ---------------------------------------------------------------------------
// FuzzMeta: loadMeta on arbitrary bytes after a valid label.

func FuzzMeta(f *testing.F) {
	for _, files := range append(seedFiles(f), builtFiles()...) {
		meta := files[2]
		if len(meta) < 8 {
			continue
		}
		l, err := DecodeLabel("seed", meta)
		if err != nil {
			continue
		}
		f.Add(l.Version == 3, meta[l.Size():])
	}
	f.Add(false, []byte{})
	f.Add(true, tinyDesc(1, 0, pmapi.InDomNull, 1, "a.b", "a.c", "")[:20])
	f.Fuzz(func(t *testing.T, v3 bool, body []byte) {
		version := 2
		if v3 {
			version = 3
		}
		label := AppendLabel(nil, &Label{Version: version, Vol: VolMeta, Hostname: "h"})
		r := bytes.NewReader(append(label, body...))
		l, err := readLabel("x.meta", r)
		if err != nil {
			t.Fatalf("readLabel: %v", err)
		}
		m, err := loadMeta("x.meta", r, int64(l.Size()), version)
		if err != nil {
			checkErr(t, err, false)
			if !errors.Is(err, pmapi.ErrLogRec) && !(len(body) == 0 && errors.Is(err, pmapi.ErrNoData)) {
				t.Fatalf("loadMeta error %v does not wrap PM_ERR_LOGREC (or PM_ERR_NODATA for no records)", err)
			}
			if m != nil {
				t.Fatalf("loadMeta returned metadata with an error")
			}
			return
		}
		touchMeta(t, m)
	})
}

// touchMeta uses every accessor of m over everything it holds.
func touchMeta(t *testing.T, m *Meta) {
	for _, d := range m.Descs {
		got, ok := m.Desc(d.PMID)
		if !ok || got.PMID != d.PMID {
			t.Fatalf("Desc(%s) lost", d.PMID)
		}
		for _, n := range m.Names(d.PMID) {
			if p, ok := m.Lookup(n); !ok || p != d.PMID {
				t.Fatalf("Lookup(%q) = %s, %v; want %s", n, p, ok, d.PMID)
			}
		}
	}
	names := 0
	for _, d := range m.Descs {
		names += len(m.Names(d.PMID))
	}
	if names != len(m.AllNames) {
		t.Fatalf("%d names by PMID, %d in all", names, len(m.AllNames))
	}
	if all := m.Traverse(""); len(all) != len(m.AllNames) {
		t.Fatalf("Traverse(\"\") gives %d names of %d", len(all), len(m.AllNames))
	}
	for i, n := range m.AllNames {
		if i > 20 {
			break
		}
		m.Traverse(n)
		if j := strings.LastIndexByte(n, '.'); j > 0 {
			m.Traverse(n[:j])
		}
	}
	for _, ir := range m.InDomRecords {
		if len(ir.Names) != len(ir.Insts) || ir.Type == MetaInDomDelta && len(ir.Deleted) != len(ir.Insts) {
			t.Fatalf("indom record %+v", ir)
		}
	}
	for _, indom := range m.InDomOrder {
		h := m.InDomHistory(indom)
		if len(h) == 0 {
			t.Fatalf("no history for %s", indom)
		}
		for _, s := range h {
			if len(s.Names) != len(s.Insts) {
				t.Fatalf("snapshot %+v", s)
			}
			for _, x := range s.Insts {
				s.Lookup(x)
			}
			m.InDomAt(indom, s.Stamp)
			m.InDomAt(indom, s.Stamp.Add(-1))
		}
	}
	for _, lr := range m.Labels {
		for _, s := range lr.Sets {
			_ = len(s.JSON) + len(s.Labels)
		}
	}
}

// ---------------------------------------------------------------------------
// FuzzRecord: the record decoder on arbitrary bytes: Record.decode (the
// Cursor's full check), then every value; and the lazy scan (View,
// NextSet, CheckVSet) in pieces, which must find what the full check
// finds.

// recordSeeds adds the first records of the shared archives, of the
// committed ones (testdata/archives) and of the built ones to f.
func recordSeeds(f *testing.F) {
	files := append(seedFiles(f), builtFiles()...)
	dir := filepath.Join(testenv.RepoRoot(f), "testdata", "archives")
	for _, name := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".0"))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, [4][]byte{b})
	}
	for _, files := range files {
		for _, vol := range files[:2] {
			l, err := DecodeLabel("seed", vol)
			if err != nil {
				continue
			}
			// The first records of the volume, one seed each.
			for off, k := l.Size(), 0; off+8 <= len(vol) && k < 25; k++ {
				n := int(binary.BigEndian.Uint32(vol[off:]))
				if n < 8 || off+n > len(vol) {
					break
				}
				f.Add(l.Version == 3, vol[off:off+n], uint64(k)*0x9e3779b97f4a7c15)
				off += n
			}
		}
	}
	for _, v := range []int{2, 3} {
		ts := pmapi.Timestamp{Sec: 1700000000, Nsec: 5000}
		f.Add(v == 3, tinyDataRecord(v, ts, 7), uint64(5))
		f.Add(v == 3, tinyMark(v, ts), uint64(0))
	}
}

func FuzzRecord(f *testing.F) {
	recordSeeds(f)
	var r Record
	f.Fuzz(func(t *testing.T, v3 bool, raw []byte, cuts uint64) {
		version := 2
		if v3 {
			version = 3
		}
		err := r.decode("x.0", raw, version, 0, 132, 2)
		lazyScan(t, raw, version, cuts, &r, err)
		layoutScan(t, raw, version, cuts)
		if err != nil {
			checkErr(t, err, false)
			if !errors.Is(err, pmapi.ErrLogRec) {
				t.Fatalf("decode error %v does not wrap PM_ERR_LOGREC", err)
			}
			return
		}
		if r.Len() != len(raw) || r.IsMark() != (r.NumPMID() == 0) {
			t.Fatalf("Len %d of %d, IsMark %v with %d pmids", r.Len(), len(raw), r.IsMark(), r.NumPMID())
		}
		touchRecord(t, &r)
		res := r.Result()
		if len(res.VSets) != r.NumPMID() {
			t.Fatalf("Result: %d vsets, want %d", len(res.VSets), r.NumPMID())
		}
		c := r.Clone()
		if c.NumPMID() != r.NumPMID() || !bytes.Equal(c.Raw(), r.Raw()) {
			t.Fatalf("Clone differs")
		}
	})
}

// lazyScan scans raw as a lazy reader does, in pieces: it stops after
// value set k when bit k%64 of cuts is set and goes on from the SetPos in
// a Record made anew, and reads the values of the value sets whose bit
// k%61 is set as it goes (when their blocks check), then of every value
// set at the end. It requires what the full check found (idx, with its
// error full): the same error, the same value sets, the same values.
func lazyScan(t *testing.T, raw []byte, version int, cuts uint64, idx *Record, full error) {
	t.Helper()
	var r Record
	view := func() error {
		r = Record{file: "x.0", Offset: 132, recno: 2}
		return r.View(raw, version)
	}
	var sets []VSet
	var pos SetPos
	scanErr := view() // the header's or a value set's error
	viewed := scanErr == nil
	for scanErr == nil {
		vs, err := r.NextSet(&pos)
		if err == io.EOF {
			break
		}
		if err != nil {
			if pos.Index() != len(sets) {
				t.Fatalf("NextSet failed and moved to value set %d of %d", pos.Index(), len(sets))
			}
			scanErr = err
			break
		}
		if pos.Index() != len(sets)+1 {
			t.Fatalf("NextSet moved to %d after value set %d", pos.Index(), len(sets))
		}
		sets = append(sets, vs)
		k := len(sets) - 1
		if cuts>>(k%61)&1 != 0 && r.CheckVSet(&vs) == nil {
			readVSet(t, &r, &vs)
		}
		if cuts>>(k%64)&1 != 0 {
			if err := view(); err != nil {
				t.Fatalf("View failed on the second reading: %v", err)
			}
		}
	}
	// The first error in the full check's order: each value set's
	// blocks come before the next value set.
	first := scanErr
	for k := range sets {
		if err := r.CheckVSet(&sets[k]); err != nil {
			first = err
			break
		}
		readVSet(t, &r, &sets[k])
	}
	if first == nil && scanErr == nil {
		// The record-level rule, which needs every value set: the
		// blocks begin where the value sets end and fill the record
		// up to the trailer, each rounded up to whole words (a record
		// without blocks ends with its value sets), as libpcp
		// requires. The error is Check's.
		lo, sum := int64(len(raw)-4), int64(0)
		for k := range sets {
			vs := &sets[k]
			for j := 0; vs.ValFmt != pmapi.ValFmtInsitu && j < int(vs.NumVal); j++ {
				lo = min(lo, r.blockPos(vs, j))
				sum += int64(r.VSetBlockLen(vs, j)+4+3) &^ 3
			}
		}
		vsEnd := int64(pos.p)
		if vsEnd == 0 {
			vsEnd = int64(r.hdr())
		}
		if lo != vsEnd || vsEnd+sum != int64(len(raw)-4) {
			if first = r.Check(); first == nil {
				t.Fatalf("Check passes a record whose blocks (first at %d, %d bytes) do not fill it after the value sets (end at %d)", lo, sum, vsEnd)
			}
		}
	}
	// Check, the lazy readers' check of a whole record View made, gives
	// what Index gives.
	if err := r.Check(); viewed && ((err == nil) != (full == nil) || err != nil && err.Error() != full.Error()) {
		t.Fatalf("Check: %v; Index: %v", err, full)
	}
	if (first == nil) != (full == nil) || first != nil && first.Error() != full.Error() {
		t.Fatalf("lazy scan: %v; full check: %v", first, full)
	}
	if full != nil {
		return
	}
	if len(sets) != idx.NumPMID() {
		t.Fatalf("lazy scan: %d value sets, full check %d", len(sets), idx.NumPMID())
	}
	for i := range sets {
		vs := &sets[i]
		if *vs != *idx.VSet(i) {
			t.Fatalf("value set %d: lazy %+v, full %+v", i, *vs, *idx.VSet(i))
		}
		for j := 0; j < int(vs.NumVal); j++ {
			a, b := r.VSetValue(vs, j), idx.Value(i, j)
			if a.Inst != b.Inst || a.Insitu != b.Insitu || a.BlockType != b.BlockType || !bytes.Equal(a.Block, b.Block) || (a.Block == nil) != (b.Block == nil) {
				t.Fatalf("value set %d value %d: lazy %+v, full %+v", i, j, a, b)
			}
		}
	}
}

// layoutScan scans raw with NextSetIn and a Layout, after a scan of a
// copy of raw with one byte changed (chosen by cuts) has filled it,
// passing over the value sets whose bit k%64 of cuts is set (in both). It
// requires what NextSet finds in raw: each value set NextSetIn gives is
// the one at its position, those it moves over are ones passed over in
// the copy, and the scan ends as NextSet's does (the same error, if any).
func layoutScan(t *testing.T, raw []byte, version int, cuts uint64) {
	t.Helper()
	// NextSet's scan: the value sets and how it ends
	var r Record
	var sets []VSet
	var end error
	if err := r.View(raw, version); err != nil {
		return
	}
	for pos := (SetPos{}); ; {
		vs, err := r.NextSet(&pos)
		if err != nil {
			end = err
			break
		}
		sets = append(sets, vs)
	}
	var lay Layout
	scan := func(raw []byte, check bool) {
		var r Record
		if r.View(raw, version) != nil {
			return
		}
		var pos SetPos
		for {
			from := pos.Index()
			vs, err := r.NextSetIn(&pos, &lay)
			if check {
				at := pos.Index() // where NextSetIn stopped moving fast
				if err == nil {
					at--
				}
				if at < from || at > len(sets) {
					t.Fatalf("NextSetIn moved from %d to %d of %d value sets", from, at, len(sets))
				}
				for k := from; k < at; k++ {
					if cuts>>(k%64)&1 == 0 {
						t.Fatalf("NextSetIn moved over value set %d, not passed over", k)
					}
				}
				switch {
				case err == nil && (at >= len(sets) || vs != sets[at]):
					t.Fatalf("NextSetIn gave %+v at %d; NextSet found %d value sets", vs, at, len(sets))
				case err != nil && (at != len(sets) || err.Error() != end.Error()):
					t.Fatalf("NextSetIn ended at %d with %v; NextSet at %d with %v", at, err, len(sets), end)
				}
			}
			if err != nil {
				return
			}
			if k := pos.Index() - 1; cuts>>(k%64)&1 != 0 {
				lay.Pass(pos)
			}
		}
	}
	if len(raw) > 0 {
		prev := append([]byte(nil), raw...)
		prev[int(cuts%uint64(len(prev)))] ^= byte(cuts >> 56)
		scan(prev, false)
	}
	scan(raw, true)
	scan(raw, true) // with raw's own layout
}

// readVSet reads every value of vs, whose blocks are checked.
func readVSet(t *testing.T, r *Record, vs *VSet) {
	for j := 0; j < int(vs.NumVal); j++ {
		v := r.VSetValue(vs, j)
		if v.Inst != r.VSetInst(vs, j) {
			t.Fatalf("VSetValue.Inst %d, VSetInst %d", v.Inst, r.VSetInst(vs, j))
		}
		if (v.Block == nil) != (vs.ValFmt == pmapi.ValFmtInsitu) || vs.ValFmt != pmapi.ValFmtInsitu && len(v.Block) != r.VSetBlockLen(vs, j) {
			t.Fatalf("value %d of %+v: %+v, block length %d", j, *vs, v, r.VSetBlockLen(vs, j))
		}
	}
}

// touchRecord reads every value of r, and decodes every event array.
func touchRecord(t *testing.T, r *Record) {
	for i := 0; i < r.NumPMID(); i++ {
		_ = r.PMID(i)
		nv := r.NumVal(i)
		if nv > 0 && r.ValFmt(i) != pmapi.ValFmtInsitu && r.ValFmt(i) != pmapi.ValFmtDptr && r.ValFmt(i) != pmapi.ValFmtSptr {
			t.Fatalf("vset %d: valfmt %d accepted", i, r.ValFmt(i))
		}
		for j := 0; j < int(nv); j++ {
			v := r.Value(i, j)
			if v.Inst != r.Inst(i, j) {
				t.Fatalf("vset %d value %d: Value.Inst %d, Inst %d", i, j, v.Inst, r.Inst(i, j))
			}
			if r.ValFmt(i) == pmapi.ValFmtInsitu {
				if v.Block != nil {
					t.Fatalf("INSITU value with a block")
				}
				continue
			}
			if v.Block == nil {
				t.Fatalf("vset %d value %d: pointer value without a block", i, j)
			}
			switch v.BlockType {
			case pmapi.TypeEvent, pmapi.TypeHighresEvent:
				ea, err := pmapi.DecodeEvents(v.Block, v.BlockType == pmapi.TypeHighresEvent)
				if err == nil {
					for _, er := range ea.Records {
						for _, p := range er.Params {
							_ = len(p.Value)
						}
					}
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// FuzzIndex: loadIndex on arbitrary bytes.

func FuzzIndex(f *testing.F) {
	for _, files := range append(seedFiles(f), builtFiles()...) {
		index := files[3]
		l, err := DecodeLabel("seed", index)
		if err != nil {
			continue
		}
		f.Add(l.Version == 3, index[l.Size():])
	}
	f.Add(false, []byte{})
	f.Add(true, make([]byte, indexEntryV3+5))
	f.Fuzz(func(t *testing.T, v3 bool, b []byte) {
		version, size := 2, indexEntryV2
		if v3 {
			version, size = 3, indexEntryV3
		}
		idx, err := loadIndex(bytes.NewReader(b), version, 0)
		if err != nil {
			t.Fatalf("loadIndex: %v", err)
		}
		if len(idx) != len(b)/size {
			t.Fatalf("%d entries from %d bytes", len(idx), len(b))
		}
		for i, e := range idx {
			// Version 3 entries re-encode to the same bytes; so do v2
			// ones but for stamps of 10^6 microseconds or more, whose
			// nanoseconds wrap as libpcp's do (see FuzzLabel).
			enc := AppendIndexEntry(nil, e, version)
			if v3 {
				if want := b[i*size : (i+1)*size]; !bytes.Equal(enc, want) {
					t.Fatalf("entry %d: re-encoded % x, was % x", i, enc, want)
				}
			} else if binary.BigEndian.Uint32(b[i*size+4:]) < 1e6 {
				if want := b[i*size : (i+1)*size]; !bytes.Equal(enc, want) {
					t.Fatalf("entry %d: re-encoded % x, was % x", i, enc, want)
				}
			} else if e.Stamp.Nsec >= 0 && e.Stamp.Nsec < 1e9 && e.Stamp.Nsec%1000 == 0 {
				if got := DecodeIndexEntry(enc, version); got != e {
					t.Fatalf("entry %d: %+v re-decoded as %+v", i, e, got)
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// FuzzOpen: whole archives from arbitrary files.

func FuzzOpen(f *testing.F) {
	for _, files := range append(seedFiles(f), builtFiles()...) {
		f.Add(files[0], files[1], files[2], files[3])
	}
	f.Add([]byte{}, []byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, vol0, vol1, meta, index []byte) {
		dir := t.TempDir()
		base := filepath.Join(dir, "x")
		files := map[string][]byte{".0": vol0, ".meta": meta}
		if len(vol1) > 0 {
			files[".1"] = vol1
		}
		if len(index) > 0 {
			files[".index"] = index
		}
		writeFiles(t, base, files)
		checkOpen(t, base, len(vol0)+len(vol1))
	})
}

// checkOpen opens base and reads it every way; size is the data bytes.
func checkOpen(t *testing.T, base string, size int) {
	a, err := Open(base)
	if err != nil {
		checkErr(t, err, true)
		return
	}
	defer a.Close()
	touchMeta(t, a.Meta())
	limit := size/8 + 4 // a record is at least 8 bytes

	read := func(c *Cursor, forward bool) ([]recInfo, error) {
		var out []recInfo
		for i := 0; ; i++ {
			if i > limit {
				t.Fatalf("more than %d records from %d bytes (forward %v)", limit, size, forward)
			}
			var r *Record
			var err error
			if forward {
				r, err = c.Next()
			} else {
				r, err = c.Prev()
			}
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				checkErr(t, err, true)
				return out, err
			}
			touchRecord(t, r)
			out = append(out, infoOf(r))
		}
	}
	fwd, ferr := read(a.NewCursor(), true)
	bc := a.NewCursor()
	bc.SeekEnd()
	bwd, _ := read(bc, false)
	end, eerr := a.End()
	checkErr(t, eerr, true)

	if ferr == nil {
		// Every record read forwards tiles the volumes: backwards gives
		// them again, reversed, and the end is the last one.
		if len(bwd) != len(fwd) {
			t.Fatalf("forwards %d records, backwards %d", len(fwd), len(bwd))
		}
		for i := range fwd {
			if bwd[len(bwd)-1-i] != fwd[i] {
				t.Fatalf("record %d: forwards %v, backwards %v", i, fwd[i], bwd[len(bwd)-1-i])
			}
		}
		if len(fwd) > 0 && (eerr != nil || end != fwd[len(fwd)-1].stamp) {
			t.Fatalf("End() = %v, %v; last record %v", end, eerr, fwd[len(fwd)-1])
		}
	}

	// SeekTime never hangs; with sorted stamps and an index whose offsets
	// are record boundaries it finds the first record at or after t.
	var targets []pmapi.Timestamp
	for i, r := range fwd {
		if i > 8 {
			break
		}
		targets = append(targets, r.stamp, r.stamp.Add(1), r.stamp.Add(-1))
	}
	for _, e := range a.Index() {
		targets = append(targets, e.Stamp, e.Stamp.Add(1))
		if len(targets) > 40 {
			break
		}
	}
	targets = append(targets, end, pmapi.Timestamp{}, a.Label().Start)
	exact := ferr == nil && sorted(fwd) && indexAligned(a, fwd)
	c := a.NewCursor()
	for _, tt := range targets {
		if err := c.SeekTime(tt); err != nil {
			checkErr(t, err, true)
			if exact {
				t.Fatalf("SeekTime(%v): %v", tt, err)
			}
			continue
		}
		r, err := c.Next()
		if err != nil && err != io.EOF {
			checkErr(t, err, true)
		}
		if !exact {
			continue
		}
		want := 0
		for want < len(fwd) && fwd[want].stamp.Before(tt) {
			want++
		}
		switch {
		case want == len(fwd):
			if err != io.EOF {
				t.Fatalf("SeekTime(%v) past the end: Next = %v", tt, err)
			}
		case err != nil:
			t.Fatalf("SeekTime(%v): Next: %v", tt, err)
		case infoOf(r) != fwd[want]:
			t.Fatalf("SeekTime(%v): Next = %v, want %v", tt, infoOf(r), fwd[want])
		}
	}
}

func sorted(recs []recInfo) bool {
	for i := 1; i < len(recs); i++ {
		if recs[i].stamp.Before(recs[i-1].stamp) {
			return false
		}
	}
	return true
}

// indexAligned reports whether every index entry of an existing volume
// points at a record boundary (a volume's first record, or a record's end).
func indexAligned(a *Archive, recs []recInfo) bool {
	type pos struct {
		vol int
		off int64
	}
	ok := map[pos]bool{}
	for _, v := range a.Volumes() {
		vo, err := a.volume(v)
		if err != nil {
			return false
		}
		ok[pos{v, vo.lowest}] = true
	}
	for _, r := range recs {
		ok[pos{r.vol, r.off + int64(r.length)}] = true
	}
	for _, e := range a.Index() {
		if a.VolumePath(int(e.Vol)) == "" {
			continue
		}
		if !ok[pos{int(e.Vol), e.DataOff}] {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// FuzzCursor: archives of well-formed records in a fuzzed shape (volumes,
// gaps in the volume numbers, stamps that may go backwards, marks, index
// entries, a cut tail), so that the cursor logic is exercised on inputs
// whose framing survives mutation.

// recipe reads the fuzz input one byte at a time (zeros once it is spent).
type recipe struct{ b []byte }

func (r *recipe) next() int {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return int(v)
}

// loadIndexT decodes an index file's entries.
func loadIndexT(t *testing.T, b []byte, version int) []IndexEntry {
	t.Helper()
	l := LabelSizeV2
	if version == 3 {
		l = LabelSizeV3
	}
	idx, err := loadIndex(bytes.NewReader(b[l:]), version, 0)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func FuzzCursor(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 0, 3, 10, 20, 30, 40, 50, 60, 70, 80, 90})
	f.Add([]byte{0, 1, 1, 5, 0, 1, 2, 200, 3, 4, 5, 6, 0, 0, 0, 9, 9, 9, 9})
	f.Add([]byte{3, 2, 2, 4, 128, 128, 129, 0, 0, 1, 1, 255, 17, 33, 7, 5, 3, 1})
	f.Add([]byte{0, 0, 1, 2, 10, 1, 1, 1, 10, 1, 1, 1, 0, 10, 1}) // a cut last record
	f.Add([]byte{1, 1, 0, 0, 2, 10, 1, 1, 0, 10, 1, 5, 0, 0, 2, 3, 1, 2, 2, 1})
	f.Fuzz(checkCursorRecipe)
}

// checkCursorRecipe builds the archive that in describes and reads it.
func checkCursorRecipe(t *testing.T, in []byte) {
	{
		rc := &recipe{in}
		version := 2 + rc.next()%2
		lab := &Label{Version: version, Start: pmapi.Timestamp{Sec: 1700000000}, Hostname: "h"}
		vols := []int{0}
		for n := rc.next() % 3; n > 0; n-- {
			vols = append(vols, vols[len(vols)-1]+1+rc.next()%2) // gaps allowed
		}
		type rec struct {
			vol   int
			off   int64
			stamp pmapi.Timestamp
			n     int
			end   int64
		}
		var recs []rec
		files := map[string][]byte{}
		ts := lab.Start
		var index []byte
		{
			l := *lab
			l.Vol = VolIndex
			index = AppendLabel(nil, &l)
		}
		addIndex := func(vol int, off int64) {
			index = AppendIndexEntry(index, IndexEntry{Stamp: ts, Vol: int32(vol), MetaOff: int64(lab.Size()), DataOff: off}, version)
		}
		for _, v := range vols {
			l := *lab
			l.Vol = int32(v)
			data := AppendLabel(nil, &l)
			if rc.next()%2 == 0 {
				addIndex(v, int64(len(data)))
			}
			for n := rc.next() % 6; n > 0; n-- {
				step := int64(int8(rc.next())) * 1e6 // -128..127 ms
				if rc.next()%8 == 0 {
					step = 0 // equal stamps
				}
				ts = ts.Add(step)
				var b []byte
				k := rc.next()
				if k%5 == 0 {
					b = tinyMark(version, ts)
				} else {
					b = tinyDataRecord(version, ts, uint32(k))
				}
				recs = append(recs, rec{v, int64(len(data)), ts, k, int64(len(data) + len(b))})
				data = append(data, b...)
				if rc.next()%3 == 0 {
					addIndex(v, int64(len(data)))
				}
			}
			files["."+strconv.Itoa(v)] = data
		}
		// Maybe cut the tail of the last volume.
		last := "." + strconv.Itoa(vols[len(vols)-1])
		cut := 0
		if rc.next()%4 == 0 {
			cut = rc.next() % 60
			if cut > len(files[last]) {
				cut = len(files[last])
			}
			files[last] = files[last][:len(files[last])-cut]
		}
		meta := AppendLabel(nil, &Label{Version: version, Start: lab.Start, Hostname: "h", Vol: VolMeta})
		meta = append(meta, tinyDesc(tinyU32, pmapi.TypeU32, pmapi.InDomNull, pmapi.SemCounter, "tiny.u32")...)
		files[".meta"] = meta
		withIndex := rc.next()%4 != 0
		if withIndex {
			files[".index"] = index
		}
		dir := t.TempDir()
		base := filepath.Join(dir, "x")
		writeFiles(t, base, files)
		for suf, b := range files {
			t.Logf("x%s: %d bytes", suf, len(b))
		}

		// What a reader must see: every record wholly present.
		lastSize := int64(len(files[last]))
		whole := recs[:0:0]
		damaged := false
		for _, r := range recs {
			if r.vol == vols[len(vols)-1] && r.end > lastSize {
				damaged = r.off < lastSize || damaged
				continue
			}
			whole = append(whole, r)
		}
		labelCut := lastSize < int64(lab.Size())

		// The real tools refuse an archive whose first volume holds
		// nothing after its label ("Empty archive log file").
		firstEmpty := len(files["."+strconv.Itoa(vols[0])]) <= lab.Size()
		// So do they one whose index holds its label alone.
		emptyIndex := withIndex && len(index) == lab.Size()
		a, err := Open(base)
		if err != nil {
			if emptyIndex && errors.Is(err, pmapi.ErrNoData) {
				return
			}
			if labelCut && len(vols) == 1 {
				checkErr(t, err, false)
				return
			}
			if firstEmpty && errors.Is(err, pmapi.ErrNoData) {
				return
			}
			t.Fatalf("Open: %v", err)
		}
		if firstEmpty {
			t.Fatalf("Open accepted an archive whose first volume is empty")
		}
		if emptyIndex {
			t.Fatalf("Open accepted an archive whose index holds its label alone")
		}
		defer a.Close()
		fwd, ferr := readAll(t, a.NewCursor(), true)
		if damaged || labelCut {
			checkErr(t, ferr, false)
			if ferr == nil {
				t.Fatalf("no error reading a cut volume")
			}
		} else if ferr != nil {
			t.Fatalf("forwards: %v", ferr)
		}
		if len(fwd) != len(whole) {
			t.Fatalf("forwards: %d records, want %d", len(fwd), len(whole))
		}
		for i, r := range fwd {
			w := whole[i]
			if r.vol != w.vol || r.off != w.off || r.stamp != w.stamp || (r.numpmid == 0) != (w.n%5 == 0) {
				t.Fatalf("record %d: %v, want vol %d off %d %v", i, r, w.vol, w.off, w.stamp)
			}
		}
		c := a.NewCursor()
		c.SeekEnd()
		bwd, berr := readAll(t, c, false)
		if berr != nil {
			// With no whole record, SeekEnd stays at the physical end
			// of the last volume, and meets the damage there.
			if len(whole) > 0 || !labelCut && !damaged {
				t.Fatalf("backwards: %v", berr)
			}
			checkErr(t, berr, false)
		}
		if len(bwd) != len(fwd) {
			t.Fatalf("backwards: %d records, forwards %d", len(bwd), len(fwd))
		}
		for i := range fwd {
			if bwd[len(bwd)-1-i] != fwd[i] {
				t.Fatalf("record %d: backwards %v, forwards %v", i, bwd[len(bwd)-1-i], fwd[i])
			}
		}
		// The end as libpcp's __pmGetArchiveEnd finds it: the last
		// record of the last volume, or, behind a cut inside a record,
		// the last whole one found forwards from the volume's last index
		// entry within it; a volume that is empty, or cut without such
		// an entry, gives way to the volume before.
		lastVol := vols[len(vols)-1]
		var inLast, before []rec
		for _, r := range whole {
			if r.vol == lastVol {
				inLast = append(inLast, r)
			} else {
				before = append(before, r)
			}
		}
		entry := false
		if withIndex {
			for _, e := range loadIndexT(t, files[".index"], version) {
				entry = entry || int(e.Vol) == lastVol && e.DataOff <= lastSize
			}
		}
		want := before
		if lastSize > int64(lab.Size()) && len(inLast) > 0 && (!damaged || entry) {
			want = inLast
		}
		end, err := a.End()
		if len(want) == 0 {
			if err == nil {
				t.Fatalf("End() = %v with no end to find", end)
			}
			checkErr(t, err, false)
			return
		}
		if err != nil || end != want[len(want)-1].stamp {
			t.Fatalf("End() = %v, %v; want %v", end, err, want[len(want)-1].stamp)
		}
		if len(whole) == 0 {
			return
		}
		if !sorted(fwd) {
			return
		}
		if ferr == nil {
			checkSeekTime(t, a)
			if withIndex {
				a.index = nil
				checkSeekTime(t, a)
			}
			return
		}
		// Damaged: SeekTime stops in front of the damage, Next then
		// reports it.
		for pass := 0; pass < 2; pass++ {
			c := a.NewCursor()
			var targets []pmapi.Timestamp
			for _, r := range fwd {
				targets = append(targets, r.stamp, r.stamp.Add(-1), r.stamp.Add(1))
			}
			targets = append(targets, pmapi.Timestamp{}, pmapi.Timestamp{Sec: 1 << 40})
			for _, tt := range targets {
				if err := c.SeekTime(tt); err != nil {
					t.Fatalf("SeekTime(%v): %v", tt, err)
				}
				want := 0
				for want < len(fwd) && fwd[want].stamp.Before(tt) {
					want++
				}
				r, err := c.Next()
				if want < len(fwd) {
					if err != nil || infoOf(r) != fwd[want] {
						t.Fatalf("SeekTime(%v): Next = %v, %v; want %v", tt, r, err, fwd[want])
					}
				} else if err == nil || err == io.EOF {
					t.Fatalf("SeekTime(%v) past the last whole record: Next = %v, %v; want the damage", tt, r, err)
				} else {
					checkErr(t, err, false)
				}
			}
			a.index = nil
		}
	}
}
