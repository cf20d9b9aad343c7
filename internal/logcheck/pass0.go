package logcheck

import (
	"bufio"
	"encoding/binary"
	"io"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The kinds of archive file.
const (
	isIndex = iota + 1
	isMeta
	isLog
)

// metaTypeNames are __pmLogMetaTypeStr's names of the metadata record
// types.
var metaTypeNames = map[int32]string{
	archive.MetaDesc:       "DESC",
	archive.MetaInDomV2:    "INDOM_V2",
	archive.MetaLabelV2:    "LABEL_V2",
	archive.MetaText:       "TEXT",
	archive.MetaInDom:      "INDOM",
	archive.MetaInDomDelta: "INDOM_DELTA",
	archive.MetaLabel:      "LABEL",
}

// fileKind tells a file of the archive by its name.
func fileKind(path string) int {
	n, _ := archive.SplitCompressed(path)
	switch {
	case strings.HasSuffix(n, ".index"):
		return isIndex
	case strings.HasSuffix(n, ".meta"):
		return isMeta
	}
	return isLog
}

// framer reads one file for pass 0, keeping its byte offset.
type framer struct {
	r   *bufio.Reader
	off int64
}

// read reads up to len(b) bytes, as fread does, and returns how many.
func (f *framer) read(b []byte) int {
	n, _ := io.ReadFull(f.r, b)
	f.off += int64(n)
	return n
}

// skip passes over n bytes and returns how many there were.
func (f *framer) skip(n int64) int64 {
	m, _ := f.r.Discard(int(n))
	f.off += int64(m)
	return int64(m)
}

// pass0 checks the physical structure of one file: its records' length
// words, its label, the size of its index entries, the types of its
// metadata records. It returns stsOK, stsWarning (no data) or stsFatal.
func (c *checker) pass0(path string) int {
	kind := fileKind(path)
	eol := true
	if c.opt.verbose {
		c.errf("%s: start pass0 ... ", path)
		eol = false
	}
	newline := func() {
		if !eol {
			c.errw.WriteByte('\n')
			eol = true
		}
	}
	sts, nrec, labelOK := stsOK, 0, stsOK
	var offset int64
	rc, err := archive.OpenFile(path)
	if err != nil {
		c.errf("%s: cannot open file: %s\n", path, archive.ErrText(err))
		sts = stsFatal
	} else {
		defer rc.Close()
		sts, nrec, labelOK, offset = c.frame(path, kind, &framer{r: bufio.NewReaderSize(rc, 256<<10)}, newline)
	}
	if sts == stsFatal && offset > 0 {
		c.errf("%s: last valid record ends at offset %d\n", path, offset)
	}
	switch kind {
	case isIndex:
		c.indexState = stateOf(sts)
	case isMeta:
		c.metaState = stateOf(sts)
	default:
		if c.logState == stateOK && sts != stsOK {
			c.logState = stateBad
		} else if c.logState == stateMissing {
			c.logState = stateOf(sts)
		}
	}
	if sts == stsOK {
		sts = labelOK
	}
	if c.opt.verbose && nrec > 0 && sts != stsFatal {
		c.errf("found %d records\n", nrec)
	}
	return sts
}

func stateOf(sts int) int {
	if sts == stsOK {
		return stateOK
	}
	return stateBad
}

// frame walks the records of one file. It returns the status, the
// number of records, the label's status and the end of the last whole
// record.
func (c *checker) frame(path string, kind int, f *framer, newline func()) (sts, nrec, labelOK int, offset int64) {
	var word [4]byte
	var typ int32
	version := 0
	fatal := func(format string, a ...any) {
		newline()
		c.errf(format, a...)
		sts = stsFatal
	}
	for {
		n := f.read(word[:])
		if n != 4 {
			if n != 0 {
				fatal("%s[record %d]: unexpected EOF in record header, wanted 4, got %d bytes\n", path, nrec, n)
				return
			}
			break
		}
		// The length words are C ints compared with sizeof: as unsigned.
		ulen := binary.BigEndian.Uint32(word[:])
		if ulen < 8 {
			if nrec == 0 {
				fatal("%s: illegal header record length (%d) in label record\n", path, int32(ulen))
			} else {
				fatal("%s[record %d]: illegal header record length (%d)\n", path, nrec, int32(ulen))
			}
			return
		}
		body := int32(ulen - 8)
		var head []byte
		if body > 0 {
			if nrec == 0 || kind == isMeta {
				// the label, or a metadata record's type
				want, most := int(body), 4
				if nrec == 0 {
					most = archive.LabelSizeV3
				}
				want = min(want, most)
				head = make([]byte, want)
				got := f.read(head)
				if got < want {
					c.bodyEOF(path, nrec, body, int64(got), fatal)
					return
				}
				if rest := int64(body) - int64(want); rest > 0 {
					if got := f.skip(rest); got < rest {
						c.bodyEOF(path, nrec, body, int64(want)+got, fatal)
						return
					}
				}
			} else if got := f.skip(int64(body)); got < int64(body) {
				c.bodyEOF(path, nrec, body, got, fatal)
				return
			}
			if kind == isMeta && nrec > 0 {
				for _, b := range head {
					typ = typ<<8 | int32(b)
				}
			}
		}
		if n := f.read(word[:]); n != 4 {
			if nrec == 0 {
				fatal("%s: unexpected EOF in label record trailer, wanted 4, got %d bytes\n", path, n)
			} else {
				fatal("%s[record %d]: unexpected EOF in record trailer, wanted 4, got %d bytes\n", path, nrec, n)
			}
			return
		}
		check := binary.BigEndian.Uint32(word[:])
		if check < 8 {
			if nrec == 0 {
				fatal("%s: illegal trailer record length (%d) in label record\n", path, int32(check))
			} else {
				fatal("%s[record %d]: illegal trailer record length (%d)\n", path, nrec, int32(check))
			}
			return
		}
		if check != ulen {
			if nrec == 0 {
				fatal("%s: label record length mismatch: header %d != trailer %d\n", path, int32(ulen), int32(check))
			} else {
				fatal("%s[record %d]: length mismatch: header %d != trailer %d\n", path, nrec, int32(ulen), int32(check))
			}
			return
		}
		if nrec == 0 {
			var ok bool
			version, ok = c.checkLabel(path, ulen, head)
			if !ok {
				labelOK = stsFatal
			}
		}
		if kind == isIndex {
			size := 5 * 4
			if version >= 3 {
				size = 8 * 4
			}
			entry := make([]byte, size)
			nrec++
			for {
				got := f.read(entry)
				if got == size {
					nrec++
					continue
				}
				if got != 0 {
					fatal("%s[record %d]: unexpected EOF in index entry, wanted %d, got %d bytes\n", path, nrec, size, got)
					return
				}
				break
			}
			break
		}
		if kind == isMeta && nrec > 0 {
			c.checkMetaType(path, nrec, typ, version, newline)
		}
		nrec++
		offset = f.off
	}
	if nrec < 2 {
		newline()
		c.errf("%s: contains no PCP data\n", path)
		sts = stsWarning
	}
	return
}

// bodyEOF reports a record body cut short.
func (c *checker) bodyEOF(path string, nrec int, want int32, got int64, fatal func(string, ...any)) {
	if nrec == 0 {
		fatal("%s: unexpected EOF in label record body, wanted %d, got %d bytes\n", path, want, got)
	} else {
		fatal("%s[record %d]: unexpected EOF in record body, wanted %d, got %d bytes\n", path, nrec, want, got)
	}
}

// checkMetaType reports a metadata record of a type the archive's version
// does not have. It is reported, but is not fatal: pass 0 goes on.
func (c *checker) checkMetaType(path string, nrec int, typ int32, version int, newline func()) {
	bad := 0
	switch typ {
	case archive.MetaInDom, archive.MetaInDomDelta, archive.MetaLabel:
		if version == 2 {
			bad = 2
		}
	case archive.MetaInDomV2, archive.MetaLabelV2:
		if version == 3 {
			bad = 3
		}
	}
	if bad != 0 {
		newline()
		c.errf("%s[record %d]: unexpected record type %s (%d) for V%d archive\n", path, nrec, metaTypeNames[typ], typ, bad)
	}
}

// checkLabel checks a file's label record (length ulen; head holds its
// bytes after the first length word): its magic number and version are
// reported, and a label libpcp cannot load is fatal. It returns the
// label's version when it loads (0 when it does not).
func (c *checker) checkLabel(path string, ulen uint32, head []byte) (int, bool) {
	if len(head) < 4 {
		c.errf("%s: cannot load label record: %s\n", path, pmapi.ErrLabel.Error())
		return 0, false
	}
	magic := binary.BigEndian.Uint32(head)
	if magic&0xffffff00 != archive.Magic {
		c.errf("%s: bad label magic number: 0x%x not 0x%x as expected\n", path, magic&0xffffff00, archive.Magic)
	}
	version := int(magic & 0xff)
	if version != 2 && version != 3 {
		c.errf("%s: bad label version: %d not 2 or 3 as expected\n", path, version)
		c.errf("%s: cannot load label record: %s\n", path, pmapi.ErrLabel.Error())
		return 0, false
	}
	size := archive.LabelSizeV2
	if version == 3 {
		size = archive.LabelSizeV3
	}
	if int(ulen) != size {
		c.errf("%s: cannot load label record: %s\n", path, pmapi.ErrLabel.Error())
		return 0, false
	}
	return version, true
}
