package archive

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/ulikunitz/xz"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// compressions a copy of an archive is made with: xz in blocks of several
// sizes (read through the index), xz in one block, gzip and zstd (read
// through a temporary file).
var compressions = []struct {
	name string
	suf  string
	w    func(io.Writer) (io.WriteCloser, error)
}{
	{"xz-1KiB", ".xz", xzBlocks(1 << 10)},
	{"xz-64KiB", ".xz", xzBlocks(64 << 10)},
	{"xz-10MiB", ".xz", xzBlocks(10 << 20)},
	{"gzip", ".gz", func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil }},
	{"zstd", ".zst", func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }},
}

func xzBlocks(size int64) func(io.Writer) (io.WriteCloser, error) {
	return func(w io.Writer) (io.WriteCloser, error) {
		return xz.WriterConfig{DictCap: 256 << 10, BlockSize: size}.NewWriter(w)
	}
}

// compressedCopy copies the archive at base into dir, compressing its
// data volumes and .meta (the index stays plain, as pmlogger_daily
// leaves it), and returns the copy's base name.
func compressedCopy(t *testing.T, base, dir, suf string, newW func(io.Writer) (io.WriteCloser, error)) string {
	t.Helper()
	files, err := filepath.Glob(globQuote(base) + ".*")
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no files (%v)", base, err)
	}
	out := filepath.Join(dir, filepath.Base(base))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, filepath.Base(f))
		if strings.HasSuffix(f, ".index") || isCompressed(f) {
			os.WriteFile(name, b, 0o644)
			continue
		}
		var buf bytes.Buffer
		w, err := newW(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name+suf, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// readAll reads every record of a forwards (or backwards), with its bytes.
func readAllRaw(a *Archive, forw bool) (recs [][]byte, err error) {
	c := a.NewCursor()
	if !forw {
		c.SeekEnd()
	}
	for {
		var r *Record
		if forw {
			r, err = c.Next()
		} else {
			r, err = c.Prev()
		}
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, append([]byte(nil), r.Raw()...))
	}
}

// TestCompressedSameRecords reads compressed copies of archives (the
// test archives, and the shared ones that open) and requires what the
// plain archive gives: the same metadata, the same records forwards and
// backwards (and the same error where the plain one is damaged), the same
// end, the same record after positioning at random times, and the same
// frames at random places.
func TestCompressedSameRecords(t *testing.T) {
	var bases []string
	for _, n := range testenv.Archives(t, testenv.ArchivesDir(t)) {
		bases = append(bases, filepath.Join(testenv.ArchivesDir(t), n))
	}
	if dir := filepath.Join(filepath.Dir(testenv.RepoRoot(t)), "shared", madeDir); dirExists(dir) {
		for _, n := range []string{"vol3", "sighup3", "killed3", "synth2", "merged3"} {
			bases = append(bases, filepath.Join(dir, n))
		}
	} else {
		t.Logf("../shared absent: the test archives only")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, base := range bases {
		plain, err := Open(base)
		if err != nil {
			continue
		}
		defer plain.Close()
		if isCompressed(plain.VolumePath(plain.Volumes()[0])) {
			continue
		}
		fwd, ferr := readAllRaw(plain, true)
		back, berr := readAllRaw(plain, false)
		end, eerr := plain.End()
		for _, comp := range compressions {
			name := filepath.Base(base) + "/" + comp.name
			t.Run(name, func(t *testing.T) {
				cbase := compressedCopy(t, base, t.TempDir(), comp.suf, comp.w)
				a, err := Open(cbase)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer a.Close()
				if !isCompressed(a.VolumePath(a.Volumes()[0])) || !isCompressed(a.MetaPath()) {
					t.Fatalf("not compressed: %s, %s", a.VolumePath(a.Volumes()[0]), a.MetaPath())
				}
				if diff := cmp.Diff(plain.Meta().AllNames, a.Meta().AllNames); diff != "" {
					t.Errorf("names differ:\n%s", diff)
				}
				if len(plain.Meta().Descs) != len(a.Meta().Descs) {
					t.Errorf("%d descriptors, plain %d", len(a.Meta().Descs), len(plain.Meta().Descs))
				}
				cf, cferr := readAllRaw(a, true)
				if !sameRecords(fwd, cf) || (ferr == nil) != (cferr == nil) {
					t.Errorf("forwards: %d records (%v), plain %d (%v)", len(cf), cferr, len(fwd), ferr)
				}
				cb, cberr := readAllRaw(a, false)
				if !sameRecords(back, cb) || (berr == nil) != (cberr == nil) {
					t.Errorf("backwards: %d records (%v), plain %d (%v)", len(cb), cberr, len(back), berr)
				}
				if cend, err := a.End(); cend != end || (err == nil) != (eerr == nil) {
					t.Errorf("End %v (%v), plain %v (%v)", cend, err, end, eerr)
				}
				if ferr != nil || len(fwd) == 0 {
					return
				}
				// Positioning at random times between the first and the
				// last record.
				first, last := decodeStamp(t, plain, fwd[0]), decodeStamp(t, plain, fwd[len(fwd)-1])
				span := pcptime.Sub(last, first)
				for k := 0; k < 20; k++ {
					at := first.Add(int64(rng.Float64() * span * 1e9))
					pc, cc := plain.NewCursor(), a.NewCursor()
					pe, ce := pc.SeekTime(at), cc.SeekTime(at)
					pr, pe2 := pc.Next()
					cr, ce2 := cc.Next()
					if (pe == nil) != (ce == nil) || (pe2 == nil) != (ce2 == nil) || pe2 == nil && !bytes.Equal(pr.Raw(), cr.Raw()) {
						t.Errorf("SeekTime(%v): compressed and plain differ (%v %v / %v %v)", at, ce, ce2, pe, pe2)
					}
				}
				// Frames at the places a forward read finds them, in a
				// random order: what a re-read by place gives.
				type place struct {
					vol int
					off int64
					n   int64
				}
				var places []place
				c := plain.NewCursor()
				for {
					raw, vol, off, ok := c.NextFrame()
					if !ok {
						if _, err := c.Next(); err != nil {
							break
						}
						vol, off = c.Position()
						places = append(places, place{vol, off, -1})
						continue
					}
					places = append(places, place{vol, off, int64(len(raw))})
				}
				for _, k := range rng.Perm(len(places)) {
					p := places[k]
					if p.n < 0 {
						continue
					}
					want, ok1 := plain.Frame(p.vol, p.off, p.n)
					got, ok2 := a.Frame(p.vol, p.off, p.n)
					if ok1 != ok2 || !bytes.Equal(want, got) {
						t.Fatalf("Frame(%d, %d, %d): compressed %v, plain %v", p.vol, p.off, p.n, ok2, ok1)
					}
				}
			})
		}
	}
}

func sameRecords(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func decodeStamp(t *testing.T, a *Archive, raw []byte) pmapi.Timestamp {
	t.Helper()
	var r Record
	if err := r.decode("", raw, a.Version(), 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	return r.Stamp
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// dirData is a volume's data in memory that records the direction of
// each read.
type dirData struct {
	b    []byte
	dirs []bool
}

func (d *dirData) ReadAt(b []byte, off int64, forward bool) (int, error) {
	d.dirs = append(d.dirs, forward)
	return copy(b, d.b[off:]), nil
}
func (d *dirData) Size() (int64, error) { return int64(len(d.b)), nil }
func (d *dirData) ReadSize() int        { return windowSize }
func (d *dirData) Release()             {}
func (d *dirData) Head() io.Reader      { return bytes.NewReader(d.b) }
func (d *dirData) Close() error         { return nil }

// TestVolumeReadDirection checks that a volume's reads tell its data the
// direction they go in (an xz volume decodes the blocks ahead in it):
// backwards for the records before an offset, forwards for those after.
func TestVolumeReadDirection(t *testing.T) {
	// 8000 records of 100 bytes after a 132-byte "label": more than three
	// windows' worth.
	const recLen, n, lowest = 100, 8000, 132
	b := make([]byte, lowest, lowest+recLen*n)
	for range n {
		rec := make([]byte, recLen)
		binary.BigEndian.PutUint32(rec, recLen)
		binary.BigEndian.PutUint32(rec[recLen-4:], recLen)
		b = append(b, rec...)
	}
	d := &dirData{b: b}
	v := &volume{path: "test.0", data: d, lowest: lowest, size: int64(len(b))}
	var ws windows
	if _, err := v.prev(&ws, int64(len(b))); err != nil {
		t.Fatal(err)
	}
	if len(d.dirs) != 1 || d.dirs[0] {
		t.Fatalf("reading the last record: reads forward %v, want one backwards", d.dirs)
	}
	d.dirs = nil
	for off := int64(lowest); off < int64(len(b)); off += recLen {
		if _, err := v.next(&ws, off, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.dirs) < 2 || slices.Contains(d.dirs, false) {
		t.Fatalf("reading the records forwards: reads forward %v, want all forwards", d.dirs)
	}
}
