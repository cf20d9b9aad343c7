package archive

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Benchmarks of the hot paths: decoding a data record and reading its
// values (which must not allocate), and a Cursor walking a whole archive.
//
//	go test -run '^$' -bench . -benchmem ./archive/

// benchRecord is a real record to decode: one of the first records of a
// shared archive, or a built one when ../shared is absent.
type benchRecord struct {
	name    string
	version int
	raw     []byte
}

// benchRecords returns records of several shapes: many metrics
// (20101004-trunc, 297 pmids), strings, aggregates, events and error
// values (sample3), v2 INSITU floats (960624.08.17_v2), a v3 synthetic one.
func benchRecords(tb testing.TB) []benchRecord {
	out := []benchRecord{
		{"built-v2", 2, tinyDataRecord(2, pmapi.Timestamp{Sec: 1700000000}, 1)},
		{"built-v3", 3, tinyDataRecord(3, pmapi.Timestamp{Sec: 1700000000}, 1)},
	}
	for _, s := range []struct {
		sub, rel string
		recno    int // which record of the volume (1 = the first)
	}{
		{qaDir, "20101004-trunc", 2},
		{madeDir, "sample3", 3},
		{madeDir, "synth3", 1},
		{qaDir, "960624.08.17_v2", 2},
		{qaDir, "omnibus_v3", 4},
	} {
		dir := sharedDirIfPresent(tb, s.sub)
		if dir == "" {
			continue
		}
		a, err := Open(dir + "/" + s.rel)
		if err != nil {
			tb.Fatal(err)
		}
		c := a.NewCursor()
		var r *Record
		for i := 0; i < s.recno; i++ {
			if r, err = c.Next(); err != nil {
				tb.Fatal(err)
			}
		}
		out = append(out, benchRecord{s.rel, a.Version(), append([]byte(nil), r.Raw()...)})
		a.Close()
	}
	return out
}

// readValues reads every value of r, as a consumer does.
func readValues(r *Record) (sum uint64) {
	for i := 0; i < r.NumPMID(); i++ {
		sum += uint64(r.PMID(i))
		for j := 0; j < int(r.NumVal(i)); j++ {
			v := r.Value(i, j)
			sum += uint64(uint32(r.Inst(i, j))) + uint64(uint32(v.Insitu)) + uint64(len(v.Block))
			if len(v.Block) >= 8 {
				sum += binary.BigEndian.Uint64(v.Block)
			}
		}
	}
	return sum
}

var sink uint64

func BenchmarkDecodeRecord(b *testing.B) {
	for _, br := range benchRecords(b) {
		b.Run(br.name, func(b *testing.B) {
			var r Record
			if err := r.decode("x", br.raw, br.version, 0, 0, 2); err != nil {
				b.Fatal(err)
			}
			if n := testing.AllocsPerRun(10, func() {
				r.decode("x", br.raw, br.version, 0, 0, 2)
				sink += readValues(&r)
			}); n != 0 {
				b.Fatalf("%v allocations per decode", n)
			}
			b.SetBytes(int64(len(br.raw)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := r.decode("x", br.raw, br.version, 0, 0, 2); err != nil {
					b.Fatal(err)
				}
				sink += readValues(&r)
			}
		})
	}
}

// TestDecodeNoAlloc: once a Record has decoded a record as large, decoding
// and reading every value allocate nothing. A warm Cursor walking a whole
// archive allocates nothing per record: only one os.FileInfo per volume,
// when Next reaches a volume's end and checks (File.Stat) whether a live
// archive has grown.
func TestDecodeNoAlloc(t *testing.T) {
	for _, br := range benchRecords(t) {
		var r Record
		if err := r.decode("x", br.raw, br.version, 0, 0, 2); err != nil {
			t.Fatalf("%s: %v", br.name, err)
		}
		if r.NumPMID() == 0 {
			t.Fatalf("%s: a mark", br.name)
		}
		n := testing.AllocsPerRun(100, func() {
			if err := r.decode("x", br.raw, br.version, 0, 0, 2); err != nil {
				t.Fatal(err)
			}
			sink += readValues(&r)
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per decode and value access", br.name, n)
		}
	}

	for _, s := range []struct{ sub, rel string }{
		{qaDir, "20101004-trunc"},
		{qaDir, "ok-mv-bar"}, // crosses volumes
		{madeDir, "sample3"},
	} {
		dir := sharedDirIfPresent(t, s.sub)
		if dir == "" {
			continue
		}
		a := openT(t, dir+"/"+s.rel)
		c := a.NewCursor()
		walk := func() {
			c.SeekStart()
			for {
				r, err := c.Next()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				sink += readValues(r)
			}
		}
		walk() // opens the volumes, sizes the buffers
		if n, max := testing.AllocsPerRun(5, walk), float64(len(a.Volumes())); n > max {
			t.Errorf("%s: %v allocations per warm walk of %v volumes", s.rel, n, max)
		}
	}
}

func BenchmarkCursorForward(b *testing.B) {
	type arch struct{ name, path string }
	var archs []arch
	for _, s := range []struct{ sub, rel string }{
		{qaDir, "bug-1044"},       // 7565 small records
		{qaDir, "20101004-trunc"}, // 75 records of ~3 KB
		{qaDir, "ok-bigbin"},      // 1001 records of ~490 bytes
		{qaDir, "ok-mv-bar"},      // 4 volumes
	} {
		if dir := sharedDirIfPresent(b, s.sub); dir != "" {
			archs = append(archs, arch{s.rel, dir + "/" + s.rel})
		}
	}
	if len(archs) == 0 {
		dir := b.TempDir()
		data, meta, index := tinyArchive(3)
		writeFiles(b, dir+"/tiny", map[string][]byte{".0": data, ".meta": meta, ".index": index})
		archs = append(archs, arch{"built", dir + "/tiny"})
	}
	for _, ar := range archs {
		a, err := Open(ar.path)
		if err != nil {
			b.Fatal(err)
		}
		var size int64
		for _, v := range a.Volumes() {
			n, err := a.VolumeSize(v)
			if err != nil {
				b.Fatal(err)
			}
			size += n
		}
		for _, values := range []bool{false, true} {
			name := ar.name + "/next"
			if values {
				name = ar.name + "/next+values"
			}
			b.Run(name, func(b *testing.B) {
				c := a.NewCursor()
				b.SetBytes(size)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.SeekStart()
					for {
						r, err := c.Next()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						if values {
							sink += readValues(r)
						} else {
							sink += uint64(r.Len())
						}
					}
				}
			})
		}
		b.Run(ar.name+"/prev", func(b *testing.B) {
			c := a.NewCursor()
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.SeekEnd()
				for {
					r, err := c.Prev()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					sink += uint64(r.Len())
				}
			}
		})
		a.Close()
	}
}

func BenchmarkSeekTime(b *testing.B) {
	dir := sharedDirIfPresent(b, qaDir)
	if dir == "" {
		b.Skip("no shared archives")
	}
	a, err := Open(dir + "/bug-1044")
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	recs, err := readAll(b, a.NewCursor(), true)
	if err != nil {
		b.Fatal(err)
	}
	c := a.NewCursor()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.SeekTime(recs[(i*7919)%len(recs)].stamp); err != nil {
			b.Fatal(err)
		}
	}
}

// shapedRecord is a Version 3 record of 100 value sets in the shape of
// the benchmark archive's (scripts/bench.sh): by turns five U64 values
// in blocks, one U32 value insitu, one DOUBLE in a block.
func shapedRecord(tb testing.TB) []byte {
	res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: 1700000000}}
	for i := range 100 {
		vs := pmapi.ValueSet{PMID: pmapi.NewPMID(60, 3, uint32(i)), ValFmt: pmapi.ValFmtDptr}
		switch n := int32(5); i % 3 {
		case 0:
			for j := range n {
				vs.Values = append(vs.Values, pmapi.Value{Inst: j, BlockType: pmapi.TypeU64, Block: binary.BigEndian.AppendUint64(nil, uint64(i))})
			}
		case 1:
			vs.ValFmt, vs.Values = pmapi.ValFmtInsitu, []pmapi.Value{{Inst: pmapi.InstNull, Insitu: int32(i)}}
		default:
			vs.Values = []pmapi.Value{{Inst: pmapi.InstNull, BlockType: pmapi.TypeDouble, Block: binary.BigEndian.AppendUint64(nil, 1)}}
		}
		vs.NumVal = int32(len(vs.Values))
		res.VSets = append(res.VSets, vs)
	}
	raw, err := AppendResultRecord(nil, 3, res)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// BenchmarkScan is the decoder's passes over a record of 100 value sets:
// index, View and Index (the Cursor's full check), then every value read;
// one, View then NextSet to the 60th value set, its blocks checked and
// its values read (a lazy reader); one-layout, the same with NextSetIn
// and a Layout that has the record's shape, passing over the other value
// sets (interpolation). None allocates.
func BenchmarkScan(b *testing.B) {
	raw := shapedRecord(b)
	want := pmapi.NewPMID(60, 3, 60)
	var r Record
	var lay Layout
	read := func(vs *VSet) {
		if r.CheckVSet(vs) != nil {
			b.Fatal("bad blocks")
		}
		for j := range int(vs.NumVal) {
			v := r.VSetValue(vs, j)
			sink += uint64(v.Inst) + uint64(len(v.Block))
		}
	}
	find := func(layout bool) {
		if r.View(raw, 3) != nil {
			b.Fatal("bad header")
		}
		var pos SetPos
		for {
			var vs VSet
			var err error
			if layout {
				vs, err = r.NextSetIn(&pos, &lay)
			} else {
				vs, err = r.NextSet(&pos)
			}
			if err != nil {
				b.Fatal(err)
			}
			if vs.PMID == want {
				read(&vs)
				return
			}
			lay.Pass(pos)
		}
	}
	for _, c := range []struct {
		name string
		pass func()
	}{
		{"index", func() {
			if r.View(raw, 3) != nil || r.Index() != nil {
				b.Fatal("bad record")
			}
			sink += readValues(&r)
		}},
		{"one", func() { find(false) }},
		{"one-layout", func() { find(true) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.pass() // sizes the index, fills the layout
			if n := testing.AllocsPerRun(10, c.pass); n != 0 {
				b.Fatalf("%v allocations a pass", n)
			}
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				c.pass()
			}
		})
	}
}
