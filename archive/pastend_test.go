package archive

import (
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestCursorPrevPastEndLastVolume: reading backwards from past the end of
// the last volume (an index entry beyond a truncated volume) finds the end
// of the archive, as libpcp's backward read does there (its short read of
// the trailer word is the end of the volume), not a damaged record, and
// the cursor stays where it is; a part of the trailer word in the volume
// is no different. Checked with the real pmval, pmdumplog -r and pmrep on
// late-flipindex2 (testenv.DamagedCopies) and on copies of sample-proc_v3
// whose first index entry points 1, 2 and 86,000 bytes past the end.
func TestCursorPrevPastEndLastVolume(t *testing.T) {
	a, err := Open(filepath.Join("..", "testdata", "archives", "pmcd-v2"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	size, err := a.VolumeSize(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, past := range []int64{1, 2, 3, 4, 5, 100000} {
		c := a.NewCursor()
		if err := c.SetPosition(0, size+past); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Prev(); !errors.Is(err, ErrPastEnd) {
			t.Errorf("Prev from %d bytes past the end: %v, want ErrPastEnd", past, err)
		}
		if vol, off := c.Position(); vol != 0 || off != size+past {
			t.Errorf("Prev from %d bytes past the end left the cursor at %d:%d", past, vol, off)
		}
		if _, err := c.Next(); err != io.EOF {
			t.Errorf("Next from %d bytes past the end: %v, want io.EOF", past, err)
		}
	}
	// At the end itself, the last record.
	c := a.NewCursor()
	c.SetPosition(0, size)
	if r, err := c.Prev(); err != nil || r.Offset+int64(r.Len()) != size {
		t.Errorf("Prev from the end: %v, want the last record", err)
	}
}

// pastEndArchive writes a version 2 archive of three volumes: volume 0
// one small record (at 1 s), volume 1 a record longer than a label (at
// 2 s) then a small one (3 s), volume 2 a small one (4 s). It returns the
// archive, opened.
func pastEndArchive(t *testing.T) *Archive {
	t.Helper()
	base := filepath.Join(t.TempDir(), "pe")
	p := pmapi.NewPMID(245, 0, 1)
	w := u32Writer(t, base, WriterOptions{Version: 2}, p)
	put := func(s int64, blob int) func() error {
		return func() error { return w.PutResult(u32Result(pmapi.Timestamp{Sec: 1700000000 + s}, p, blob)) }
	}
	for _, step := range []func() error{put(1, 0), w.NewVolume, put(2, 200), put(3, 0), w.NewVolume, put(4, 0), w.Close} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestCursorPrevPastEndEarlierVolume: from past the end of a volume
// before the last, libpcp's backward read goes on to the next volume and
// reads backwards from its label end: a first record longer than the
// label is read whole (the seek back over it fails), leaving the cursor
// at the label end, from which the next read backwards gives the end of
// the volume before; a shorter one, or one longer than the offset the
// read started from, is a damaged record. Checked with the real pmval,
// pmdumplog and pmrep on copies of ok-mv-foo whose index entries in
// volumes 0 and 1 point past their ends (records of 212 bytes, labels of
// 132), and of a five-volume copy of sample-proc_v3 (pmlogextract -v 5:
// records shorter than the 808 byte label).
func TestCursorPrevPastEndEarlierVolume(t *testing.T) {
	a := pastEndArchive(t)
	size := func(vol int) int64 {
		t.Helper()
		n, err := a.VolumeSize(vol)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	stamp := func(r *Record) int64 { return r.Stamp.Sec - 1700000000 }

	// Far past the end of volume 0: volume 1's first record, then
	// volume 0's from its end.
	c := a.NewCursor()
	c.SetPosition(0, size(0)+1000)
	r, err := c.Prev()
	if err != nil || stamp(r) != 2 {
		t.Fatalf("Prev past the end of volume 0: %v (stamp %v), want volume 1's first record", err, r)
	}
	if vol, off := c.Position(); vol != 1 || off != LabelSizeV2 {
		t.Errorf("after it the cursor is at %d:%d, want 1:%d", vol, off, LabelSizeV2)
	}
	if r, err := c.Prev(); err != nil || stamp(r) != 1 {
		t.Errorf("the next Prev: %v, want volume 0's last record", err)
	}

	// Just past the end of volume 0: the record is longer than the
	// offset the read started from.
	c.SetPosition(0, size(0)+1)
	if _, err := c.Prev(); !errors.Is(err, pmapi.ErrLogRec) {
		t.Errorf("Prev just past the end of volume 0: %v, want a damaged record", err)
	}

	// Past the end of volume 1: volume 2's first record is shorter
	// than the label.
	c.SetPosition(1, size(1)+1000)
	if _, err := c.Prev(); !errors.Is(err, pmapi.ErrLogRec) {
		t.Errorf("Prev past the end of volume 1: %v, want a damaged record", err)
	}

	// Past the end of the last volume: the end of the archive.
	c.SetPosition(2, size(2)+1000)
	if _, err := c.Prev(); !errors.Is(err, ErrPastEnd) {
		t.Errorf("Prev past the end of volume 2: %v, want ErrPastEnd", err)
	}
}

// TestCursorAfterBadNext: after a forward read fails on a damaged record,
// libpcp's position is just after the header word when the length is
// below 8 (a negative one included), where it was when the record runs
// past the end of the volume, and after the record when its trailer does
// not match. Checked with the real pmdumplog -r on QA binning (-Dlog: a
// forward read at 1872 fails with rlen=-7 and the next, backwards, starts
// at 1876).
func TestCursorAfterBadNext(t *testing.T) {
	const first = LabelSizeV2 // the first record's offset in pmcd-v2
	for _, c := range []struct {
		name   string
		change func(vol []byte)
		want   func(n int64) int64 // n: the first record's length
	}{
		{"length 4", func(b []byte) { binary.BigEndian.PutUint32(b[first:], 4) }, func(int64) int64 { return first + 4 }},
		{"negative length", func(b []byte) { binary.BigEndian.PutUint32(b[first:], 0xfffffff0) }, func(int64) int64 { return first + 4 }},
		{"past the end", func(b []byte) { binary.BigEndian.PutUint32(b[first:], 0x7ffffff0) }, func(int64) int64 { return first }},
		{"trailer", func(b []byte) {
			n := binary.BigEndian.Uint32(b[first:])
			b[first+int(n)-1] ^= 1
		}, func(n int64) int64 { return first + n }},
	} {
		var n int64
		base := damagedCopy(t, "pmcd-v2", func(f map[string][]byte) {
			n = int64(binary.BigEndian.Uint32(f[".0"][first:]))
			c.change(f[".0"])
		})
		a, err := Open(base)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cur := a.NewCursor()
		if _, err := cur.Next(); !errors.Is(err, pmapi.ErrLogRec) {
			t.Errorf("%s: Next: %v, want a damaged record", c.name, err)
		}
		cur.AfterBadNext()
		if vol, off := cur.Position(); vol != 0 || off != c.want(n) {
			t.Errorf("%s: after the failed read the cursor is at %d:%d, want 0:%d", c.name, vol, off, c.want(n))
		}
		a.Close()
	}
}
