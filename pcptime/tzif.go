package pcptime

import (
	"encoding/binary"
	"errors"
	"os"
)

// tzType is one local time type of a TZif file.
type tzType struct {
	offset int64 // seconds east of UTC
	isDST  bool
	abbrev string
	isStd  bool // transition times of this type are in standard time
	isUT   bool // transition times of this type are in UT
}

// tzLeap is one leap second record: from at onwards, corr seconds of
// correction apply.
type tzLeap struct {
	at   int64
	corr int64
}

// tzFile is the content of a TZif file as the C library uses it: the 64-bit
// data block (version 2 and later) or the 32-bit one (version 1), and the
// footer rule string.
type tzFile struct {
	trans  []int64 // transition times, ascending
	idx    []int   // type index of each transition
	types  []tzType
	leaps  []tzLeap
	footer *posixTZ // rule for instants at or after the last transition; nil if none

	// ruleStd and ruleDST are the standard and daylight offsets of the
	// latest transitions of each kind, which the C library uses to shift
	// the "posixrules" transitions to a user's offsets.
	ruleStd, ruleDST int64
}

var errBadTZif = errors.New("pcptime: not a TZif file")

// readTZif reads and decodes the TZif file at path.
func readTZif(path string) (*tzFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseTZif(data)
}

// tzifHeader holds the six counts of a TZif header.
type tzifHeader struct {
	version                                               byte
	isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt int
}

func readTZifHeader(b []byte) (tzifHeader, bool) {
	var h tzifHeader
	if len(b) < 44 || string(b[:4]) != "TZif" {
		return h, false
	}
	h.version = b[4]
	n := func(i int) int { return int(binary.BigEndian.Uint32(b[20+4*i:])) }
	h.isutcnt, h.isstdcnt, h.leapcnt = n(0), n(1), n(2)
	h.timecnt, h.typecnt, h.charcnt = n(3), n(4), n(5)
	return h, true
}

// bodyLen is the size of a data block with transition times of width w bytes.
func (h tzifHeader) bodyLen(w int) int {
	return h.timecnt*w + h.timecnt + h.typecnt*6 + h.charcnt + h.leapcnt*(w+4) + h.isstdcnt + h.isutcnt
}

func parseTZif(b []byte) (*tzFile, error) {
	h, ok := readTZifHeader(b)
	if !ok {
		return nil, errBadTZif
	}
	width := 4
	body := b[44:]
	if h.version >= '2' {
		// Skip the 32-bit block; the 64-bit one follows with its own header.
		skip := h.bodyLen(4)
		if len(body) < skip {
			return nil, errBadTZif
		}
		h, ok = readTZifHeader(body[skip:])
		if !ok {
			return nil, errBadTZif
		}
		body = body[skip+44:]
		width = 8
	}
	if h.typecnt == 0 || h.isstdcnt > h.typecnt || h.isutcnt > h.typecnt {
		return nil, errBadTZif
	}
	need := h.bodyLen(width)
	if len(body) < need {
		return nil, errBadTZif
	}
	f := &tzFile{}
	p := 0
	readTime := func() int64 {
		var v int64
		if width == 8 {
			v = int64(binary.BigEndian.Uint64(body[p:]))
		} else {
			v = int64(int32(binary.BigEndian.Uint32(body[p:])))
		}
		p += width
		return v
	}
	f.trans = make([]int64, h.timecnt)
	for i := range f.trans {
		f.trans[i] = readTime()
	}
	f.idx = make([]int, h.timecnt)
	for i := range f.idx {
		f.idx[i] = int(body[p])
		p++
		if f.idx[i] >= h.typecnt {
			return nil, errBadTZif
		}
	}
	f.types = make([]tzType, h.typecnt)
	abbrIdx := make([]int, h.typecnt)
	for i := range f.types {
		f.types[i].offset = int64(int32(binary.BigEndian.Uint32(body[p:])))
		if body[p+4] > 1 {
			return nil, errBadTZif
		}
		f.types[i].isDST = body[p+4] == 1
		abbrIdx[i] = int(body[p+5])
		p += 6
	}
	chars := body[p : p+h.charcnt]
	p += h.charcnt
	for i := range f.types {
		if abbrIdx[i] >= len(chars) {
			return nil, errBadTZif
		}
		s := chars[abbrIdx[i]:]
		end := 0
		for end < len(s) && s[end] != 0 {
			end++
		}
		f.types[i].abbrev = string(s[:end])
	}
	f.leaps = make([]tzLeap, h.leapcnt)
	for i := range f.leaps {
		f.leaps[i].at = readTime()
		f.leaps[i].corr = int64(int32(binary.BigEndian.Uint32(body[p:])))
		p += 4
	}
	for i := 0; i < h.isstdcnt; i++ {
		f.types[i].isStd = body[p] != 0
		p++
	}
	for i := 0; i < h.isutcnt; i++ {
		f.types[i].isUT = body[p] != 0
		p++
	}
	if width == 8 {
		// The footer: newline, rule string, newline.
		rest := body[p:]
		if len(rest) > 0 && rest[0] == '\n' {
			rest = rest[1:]
			end := 0
			for end < len(rest) && rest[end] != '\n' {
				end++
			}
			if end > 0 {
				tz, _ := parsePosixTZ(string(rest[:end]), nil)
				f.footer = &tz
			}
		}
	}
	f.computeRuleOffsets()
	return f, nil
}

// computeRuleOffsets finds the offsets of the latest standard and latest
// daylight transitions (or the single type's offset without transitions).
func (f *tzFile) computeRuleOffsets() {
	if len(f.trans) == 0 {
		f.ruleStd = f.types[0].offset
		f.ruleDST = f.ruleStd
		return
	}
	stdSet, dstSet := false, false
	f.ruleStd, f.ruleDST = 0, 0
	for i := len(f.trans) - 1; i >= 0 && !(stdSet && dstSet); i-- {
		t := f.types[f.idx[i]]
		if !stdSet && !t.isDST {
			stdSet = true
			f.ruleStd = t.offset
		} else if !dstSet && t.isDST {
			dstSet = true
			f.ruleDST = t.offset
		}
	}
	if !dstSet {
		f.ruleDST = f.ruleStd
	}
}

// withUserOffsets returns the "posixrules" file rewritten for a rule string
// that names a daylight zone but gives no rules: the transitions keep their
// dates but are shifted to the user's offsets, and only two types remain,
// standard (std, stdOff) and daylight (dst, dstOff). It returns nil when the
// file has fewer than two types.
//
// ruleDST is what the C library takes for the file's daylight offset when
// it shifts transitions out of daylight time. glibc 2.36 does not compute
// it from the file: it is left over from the previous rewrite (0 in a fresh
// process or after loading a file without transitions such as UTC, and
// the user's daylight offset when the same string is loaded twice in a
// row, as mktime(3) does by calling tzset again). So with the usual
// America/New_York posixrules, TZ=XST5XDT4 (the same offsets) ends daylight
// time four hours early in localtime(3) but not in mktime(3). Zone.Lookup
// uses 0, which is what the PCP tools see when the user's TZ is a file
// without transitions such as UTC: libpcp's pmLocaltime sets TZ to the
// reporting zone and back around every conversion. With other user zones
// glibc's answer depends on the conversions before.
func (f *tzFile) withUserOffsets(std, dst string, stdOff, dstOff, ruleDST int64) *tzFile {
	if len(f.types) < 2 {
		return nil
	}
	g := &tzFile{
		trans:  make([]int64, len(f.trans)),
		idx:    make([]int, len(f.idx)),
		leaps:  f.leaps,
		footer: f.footer,
	}
	inDST := false
	for i, t := range f.trans {
		tt := f.types[f.idx[i]]
		if tt.isDST {
			g.idx[i] = 1
		}
		switch {
		case tt.isUT:
		case inDST && !tt.isStd:
			t += dstOff - ruleDST
		default:
			t += stdOff - f.ruleStd
		}
		g.trans[i] = t
		inDST = tt.isDST
	}
	g.types = []tzType{
		{offset: stdOff, abbrev: std},
		{offset: dstOff, abbrev: dst, isDST: true},
	}
	g.ruleStd, g.ruleDST = stdOff, dstOff
	return g
}

// lookup returns the local time type in effect at sec.
func (f *tzFile) lookup(sec int64) (offset int64, abbrev string, isDST bool) {
	n := len(f.trans)
	if n == 0 || sec < f.trans[0] {
		// Before any transition: the first standard-time type, or the
		// first type if all are daylight types.
		i := 0
		for i < len(f.types) && f.types[i].isDST {
			i++
		}
		if i == len(f.types) {
			i = 0
		}
		t := f.types[i]
		return t.offset, t.abbrev, t.isDST
	}
	if sec >= f.trans[n-1] {
		if f.footer != nil {
			return f.footer.lookup(sec)
		}
		t := f.types[f.idx[n-1]]
		return t.offset, t.abbrev, t.isDST
	}
	// The last transition at or before sec.
	lo, hi := 0, n-1 // trans[lo] <= sec < trans[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if f.trans[mid] <= sec {
			lo = mid
		} else {
			hi = mid
		}
	}
	t := f.types[f.idx[lo]]
	return t.offset, t.abbrev, t.isDST
}

// leap returns the leap second correction at sec and, when sec is itself an
// inserted leap second, how many seconds past :59 it shows (1 for :60).
func (f *tzFile) leap(sec int64) (corr int64, hit int) {
	i := len(f.leaps) - 1
	for i >= 0 && sec < f.leaps[i].at {
		i--
	}
	if i < 0 {
		return 0, 0
	}
	corr = f.leaps[i].corr
	prev := int64(0)
	if i > 0 {
		prev = f.leaps[i-1].corr
	}
	if sec == f.leaps[i].at && corr > prev {
		hit = 1
		for i > 0 && f.leaps[i].at == f.leaps[i-1].at+1 && f.leaps[i].corr == f.leaps[i-1].corr+1 {
			hit++
			i--
		}
	}
	return corr, hit
}
