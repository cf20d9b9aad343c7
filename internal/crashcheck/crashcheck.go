// Package crashcheck checks what a writer killed with SIGKILL leaves
// behind. pcpkit's writers (archive.Writer, pmlogextract, pmlogger)
// promise an archive that
//
//   - pcpkit reads to its end, or to a partial last record of its last
//     data volume (nothing else may be damaged);
//   - the real pmdumplog reads up to the same last complete record (the
//     same number of records), failing only on that partial record;
//   - the real pmlogcheck finds nothing wrong with but a truncated tail
//     (a partial last data record, or a partial last index entry);
//   - has a temporal index the real pmdumplog -t reads.
//
// Tests kill a writer at random moments and call ReadPcpkit, then
// ReadReal when the real tools are installed.
package crashcheck

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// ReadPcpkit reads an archive to its end and returns the number of
// records read and whether a partial record followed them (only the
// last volume's last record may be partial).
func ReadPcpkit(t testing.TB, what, base string) (int, bool) {
	t.Helper()
	return ReadPcpkitFunc(t, what, base, nil)
}

// ReadPcpkitFunc is ReadPcpkit calling fn, when not nil, with each
// complete record in order (the record is valid only during the call).
func ReadPcpkitFunc(t testing.TB, what, base string, fn func(*archive.Record)) (int, bool) {
	t.Helper()
	a, err := archive.Open(base)
	if err != nil {
		t.Fatalf("%s: pcpkit cannot open %s: %v", what, base, err)
	}
	defer a.Close()
	c := a.NewCursor()
	n := 0
	for {
		rec, err := c.Next()
		if errors.Is(err, io.EOF) {
			return n, false
		}
		if err != nil {
			var fe *archive.FormatError
			vols := a.Volumes()
			last := vols[len(vols)-1]
			if !errors.As(err, &fe) || fe.File != a.VolumePath(last) {
				t.Fatalf("%s: %s: damage before the last volume after %d records: %v", what, base, n, err)
			}
			if p := a.VolumePath(last); p != base+"."+strconv.Itoa(last) {
				t.Fatalf("%s: %s: damage in a compressed volume (%s) after %d records: %v", what, base, p, n, err)
			}
			sz, _ := a.VolumeSize(last)
			f, ferr := os.Open(a.VolumePath(last))
			if ferr != nil {
				t.Fatal(ferr)
			}
			var hdr [4]byte
			_, rerr := f.ReadAt(hdr[:], fe.Offset)
			f.Close()
			rest := sz - fe.Offset
			if rest <= 0 || (rerr == nil && int64(binary.BigEndian.Uint32(hdr[:])) <= rest) {
				t.Fatalf("%s: %s: damaged record at %d is not a partial last record: %v", what, base, fe.Offset, err)
			}
			return n, true
		}
		n++
		if fn != nil {
			fn(rec)
		}
	}
}

var (
	// What pmlogcheck says of a truncated tail.
	checkTruncData  = regexp.MustCompile(`^(.*)\.(\d+)\[record \d+\]: unexpected EOF in record (header|body)(, wanted \d+, got \d+ bytes)?$`)
	checkLastValid  = regexp.MustCompile(`^(.*)\.(\d+): last valid record ends at offset \d+$`)
	checkTruncIndex = regexp.MustCompile(`^.*\.index\[record \d+\]: unexpected EOF in index entry, wanted \d+, got \d+ bytes$`)
	// A writer publishes the first data volume and the index one right
	// after the other (archive.Writer.createFirst); a kill between the
	// two links leaves no index, which pmlogcheck only warns about.
	checkNoIndex = regexp.MustCompile(`^.*: warning temporal index is missing$`)
)

// ReadReal has the real tools read the archive: pmdumplog must
// print the same n records and fail only after them when the last one
// is partial; pmlogcheck must report nothing but a truncated tail. It
// reports whether the index ends in a partial entry.
func ReadReal(t testing.TB, what, base string, n int, bad bool) (partialIndex bool) {
	t.Helper()
	out, errb, rc := testenv.RunReal(t, "pmdumplog", "-m", base)
	got := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, " metrics") || strings.HasSuffix(line, " metric") || strings.HasSuffix(line, "<mark>") {
			got++
		}
	}
	if got != n {
		t.Errorf("%s: the real pmdumplog read %d records, pcpkit %d\n%s", what, got, n, errb)
	}
	switch {
	case bad && (rc != 1 || !strings.Contains(string(errb), "Corrupted record")):
		t.Errorf("%s: partial last record: real pmdumplog rc %d: %s", what, rc, errb)
	case !bad && (rc != 0 || len(errb) != 0):
		t.Errorf("%s: real pmdumplog rc %d: %s", what, rc, errb)
	}
	if out, errb, rc := testenv.RunReal(t, "pmdumplog", "-t", base); rc != 0 || strings.Contains(string(out), "Error") {
		t.Errorf("%s: temporal index: rc %d\n%s%s", what, rc, out, errb)
	}
	out, errb, rc = testenv.RunReal(t, "pmlogcheck", base)
	lastVol := -1
	if m, _ := filepath.Glob(base + ".[0-9]*"); len(m) > 0 {
		for _, f := range m {
			if v, err := strconv.Atoi(strings.TrimPrefix(f, base+".")); err == nil && v > lastVol {
				lastVol = v
			}
		}
	}
	var unexpected []string
	truncData := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)+string(errb)), "\n") {
		switch {
		case line == "":
		case checkNoIndex.MatchString(line):
			if _, err := os.Stat(base + ".index"); err == nil {
				unexpected = append(unexpected, line+" (but "+base+".index exists)")
			}
		case checkTruncIndex.MatchString(line):
			partialIndex = true
		case checkTruncData.MatchString(line):
			m := checkTruncData.FindStringSubmatch(line)
			if v, _ := strconv.Atoi(m[2]); v != lastVol {
				unexpected = append(unexpected, line)
			}
			truncData = true
		case checkLastValid.MatchString(line):
			m := checkLastValid.FindStringSubmatch(line)
			if v, _ := strconv.Atoi(m[2]); v != lastVol {
				unexpected = append(unexpected, line)
			}
		default:
			unexpected = append(unexpected, line)
		}
	}
	if len(unexpected) > 0 || truncData != bad || (rc != 0) != (bad || partialIndex) {
		t.Errorf("%s: pmlogcheck rc %d, partial record %v:\n%s%s", what, rc, bad, out, errb)
	}
	return partialIndex
}
