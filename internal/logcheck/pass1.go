package logcheck

import (
	"fmt"
	"os"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// fileSize is the size of one file of the archive for pass 1, or -1 when
// it is missing. A compressed file counts with its decompressed size, as
// libpcp reads it.
func (c *checker) fileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil {
		return st.Size()
	}
	return -1
}

// volumeSize is the size of data volume vol, or -1 when it is missing.
func (c *checker) volumeSize(vol int32) int64 {
	path := fmt.Sprintf("%s.%d", c.archname, vol)
	if n := c.fileSize(path); n >= 0 {
		return n
	}
	for _, v := range c.a.Volumes() {
		if v == int(vol) {
			if n, err := c.a.VolumeSize(v); err == nil {
				return n
			}
		}
	}
	return -1
}

// stampText prints an index timestamp as pass 1 does: seconds, a dot, and
// the nanoseconds in nine places (a negative value keeps its sign).
func stampText(t pmapi.Timestamp) string {
	return fmt.Sprintf("%d.%09d", t.Sec, t.Nsec)
}

// before reports whether a is before b, as __pmTimestampSub(a, b) < 0.
func before(a, b pmapi.Timestamp) bool {
	return float64(a.Sec-b.Sec)+float64(a.Nsec-b.Nsec)/1e9 < 0
}

// indexErr reports a damaged index entry: as pmlogcheck does, pass 3
// then reads without the index (libpcp's positioning for -S goes to the
// start of the archive, as for an archive without an index).
func (c *checker) indexErr(format string, args ...any) {
	c.badIndex = true
	c.errf(format, args...)
}

// pass1 checks the temporal index: timestamps, volume numbers and offsets
// that are out of range or go backwards.
func (c *checker) pass1() {
	if c.opt.verbose {
		c.errf("%s: start pass1 (check temporal index)\n", c.archname)
	}
	index := c.a.Index()
	if len(index) == 0 {
		c.errf("%s: warning temporal index is missing\n", c.archname)
		return
	}
	labelEnd := int64(archive.LabelSizeV2)
	if c.a.Version() == 3 {
		labelEnd = archive.LabelSizeV3
	}
	metaSize := c.a.Meta().Size
	if n := c.fileSize(c.archname + ".meta"); n >= 0 {
		metaSize = n
	}
	labelStart := c.a.Label().Start
	var logSize int64 = -1
	for i := range index {
		e := &index[i]
		n := i + 1
		switch {
		case e.Vol < 0:
			c.indexErr("%s.index[entry %d]: illegal negative volume number %d\n", c.archname, n, e.Vol)
			logSize = -1
		case i == 0 || e.Vol != index[i-1].Vol:
			logSize = c.volumeSize(e.Vol)
			if logSize < 0 {
				c.errf("%s.%d: file missing for log volume %d\n", c.archname, e.Vol, e.Vol)
			}
		}
		if e.Stamp.Sec < 0 || e.Stamp.Nsec < 0 {
			c.indexErr("%s.index[entry %d]: illegal negative timestamp value (%d sec, %d nsec)\n", c.archname, n, int32(e.Stamp.Sec), e.Stamp.Nsec)
		}
		if e.Stamp.Nsec > 999999999 {
			c.indexErr("%s.index[entry %d]: illegal timestamp nsec value (%d sec, %d nsec)\n", c.archname, n, int32(e.Stamp.Sec), e.Stamp.Nsec)
		}
		if e.MetaOff < labelEnd {
			c.indexErr("%s.index[entry %d]: offset to metadata (%d) before end of label record (%d)\n", c.archname, n, e.MetaOff, labelEnd)
		}
		if metaSize != -1 && e.MetaOff > metaSize {
			c.indexErr("%s.index[entry %d]: offset to metadata (%d) past end of file (%d)\n", c.archname, n, e.MetaOff, metaSize)
		}
		if e.DataOff < labelEnd {
			c.indexErr("%s.index[entry %d]: offset to log (%d) before end of label record (%d)\n", c.archname, n, e.DataOff, labelEnd)
		}
		if logSize != -1 && e.DataOff > logSize {
			c.indexErr("%s.index[entry %d]: offset to log (%d) past end of file (%d)\n", c.archname, n, e.DataOff, logSize)
		}
		if labelStart.Sec != 0 && before(e.Stamp, labelStart) {
			c.indexErr("%s.index[entry %d]: timestamp (%s) less than log label timestamp (%s)\n", c.archname, n, stampText(e.Stamp), stampText(labelStart))
		}
		if i == 0 {
			continue
		}
		last := &index[i-1]
		if before(e.Stamp, last.Stamp) {
			c.indexErr("%s.index[entry %d]: timestamp (%s) went backwards in time (from %s at [entry %d])\n", c.archname, n, stampText(e.Stamp), stampText(last.Stamp), n-1)
		}
		if e.Vol < last.Vol {
			c.indexErr("%s.index[entry %d]: volume number (%d) decreased (from %d at [entry %d])\n", c.archname, n, e.Vol, last.Vol, n-1)
		}
		if e.Vol == last.Vol && e.MetaOff < last.MetaOff {
			c.indexErr("%s.index[entry %d]: offset to metadata (%d) decreased (from %d at [entry %d])\n", c.archname, n, e.MetaOff, last.MetaOff, n-1)
		}
		if e.Vol == last.Vol && e.DataOff < last.DataOff {
			c.indexErr("%s.index[entry %d]: offset to log (%d) decreased (from %d at [entry %d])\n", c.archname, n, e.DataOff, last.DataOff, n-1)
		}
	}
}
