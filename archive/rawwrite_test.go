package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestWriterRawWrites: RawWrites changes how the bytes are written, not
// which: the same puts give the same files, record by record as they
// are put, in both versions and with CoalesceData.
func TestWriterRawWrites(t *testing.T) {
	write := func(base string, opts WriterOptions) {
		t.Helper()
		w := newTestWriter(t, base, opts)
		p := pmapi.NewPMID(245, 0, 1)
		id := pmapi.NewInDom(245, 1)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(w.PutDesc(pmapi.Desc{PMID: p, Type: pmapi.TypeU32, InDom: id, Sem: pmapi.SemInstant}, []string{"a.b"}))
		must(w.PutDesc(pmapi.Desc{PMID: p + 1, Type: pmapi.TypeAggregate, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}, []string{"a.c"}))
		for i := int64(0); i < 120; i++ {
			ts := pmapi.Timestamp{Sec: 1700000000 + i}
			if i%9 == 0 {
				must(w.PutInDom(&InDomRecord{Stamp: ts, InDom: id, Insts: []int32{int32(i)}, Names: []string{fmt.Sprint("i", i)}}))
			}
			// Records of up to 600 KiB: more than the coalescing
			// buffer, which are written by themselves.
			must(w.PutResult(u32Result(ts, p, int(i%40)*int(i%40)*400)))
			if !opts.CoalesceData {
				meta, vols, _ := onDisk(t, base, opts.Version)
				if wm, wd := w.Offsets(); meta != wm || vols[w.Volume()] != wd {
					t.Fatalf("%+v record %d: on disk .meta %d, volume %d bytes; put %d, %d", opts, i, meta, vols[w.Volume()], wm, wd)
				}
			}
			if i == 70 {
				must(w.NewVolume())
			}
		}
		must(w.Close())
	}
	for _, version := range []int{2, 3} {
		for _, coalesce := range []bool{false, true} {
			dir := t.TempDir()
			opts := WriterOptions{Version: version, CoalesceData: coalesce, PID: 4242}
			write(filepath.Join(dir, "plain"), opts)
			opts.RawWrites = true
			write(filepath.Join(dir, "raw"), opts)
			for _, ext := range []string{".meta", ".index", ".0", ".1"} {
				a, err := os.ReadFile(filepath.Join(dir, "plain"+ext))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dir, "raw"+ext))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("v%d coalesce=%v: %s differs with RawWrites (%d bytes, %d without)", version, coalesce, ext, len(b), len(a))
				}
			}
		}
	}
}

// TestRawWriteError: a failed raw write is an *os.PathError with the
// file's name and the system's error, as os.File.Write's.
func TestRawWriteError(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer f.Close()
	err = rawWrite(f.Fd(), "x.0", []byte("record"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != "x.0" || pe.Op != "write" || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("raw write to /dev/full: %v, want write x.0: ENOSPC", err)
	}
	if err := rawWrite(f.Fd(), "x.0", nil); err != nil {
		t.Errorf("empty raw write: %v", err)
	}
}
