package archive

import (
	"encoding/binary"
	"io"
	"unsafe"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Record is a data record (a sample, or a <mark>), decoded in place from
// its bytes, which it aliases: a record a Cursor returns is valid until
// the Cursor's next read (call Clone to keep it).
//
// This file is the one decoder of data records (docs/format.md §5). The
// header (the time and the number of value sets) is decoded when the
// record is read. The value sets are read from the bytes as they are
// asked for, in order, by NextSet, which checks each (its count and value
// format must fit in the record) and can stop anywhere and go on later
// from a SetPos; CheckVSet checks a value set's value blocks. Index does
// both for every value set, and then gives the indexed accessors (PMID,
// NumVal, Value, ...). A record a Cursor returns (or DecodeRecord) is
// indexed: a damaged one is reported when it is read. A record made with
// View is not: its reader scans only what it needs. Nothing here
// allocates, but for the index's first growth and the errors.
type Record struct {
	Vol     int             // data volume the record came from
	Offset  int64           // byte offset of the record in that volume
	Stamp   pmapi.Timestamp // the sample time
	Version int             // archive format version (2 or 3)

	raw     []byte
	numpmid int32  // the number of value sets, from the header
	file    string // for errors: the volume's path
	recno   int    // for errors: the record's number in the volume, 0 if not known
	vsets   []VSet // every value set, once indexed
	// blockBytes is the size of the value blocks, each rounded up to
	// whole 32-bit words, and oddBlocks whether the length of any is not
	// a multiple of 4 (it is then followed by pad bytes): once indexed
	// or checked
	blockBytes int64
	oddBlocks  bool
}

// VSet is one value set of a record, as NextSet finds it: the metric, its
// number of values (or a negative PCP error code), their format, and
// where they lie in the record. Read its values with the record's VSet*
// methods.
type VSet struct {
	PMID   pmapi.PMID
	NumVal int32 // values, or a PCP error code (< 0)
	ValFmt int32 // pmapi.ValFmtInsitu, ValFmtDptr or ValFmtSptr; 0 without values
	off    int32 // offset in the record of the first (inst, value) pair
}

// SetPos is a position in the value sets of a record, for NextSet: the
// zero SetPos is at the first. A position found in one record is good
// in any record with the same bytes.
type SetPos struct {
	k int32 // value sets passed
	p int32 // offset in the record of the next; 0: the first
}

// Index is the number of value sets before the position.
func (s SetPos) Index() int { return int(s.k) }

// Header sizes of data records, from the first length word to numpmid
// inclusive.
const (
	dataHeaderV2 = 16 // len, sec, usec, numpmid
	dataHeaderV3 = 20 // len, sec(2 words), nsec, numpmid
)

// dptrPos converts a DPTR value, an offset in 32-bit words as libpcp
// writes it, to a byte position in the record. The writer encodes the
// record as a PDU whose header is two words longer than the record's
// length word, so the record byte position is 4*offset - 8 for both
// versions (checked on synth2.0 and synth3.0, see docs/format.md).
func dptrPos(w uint32) int64 { return int64(w)*4 - 8 }

func (r *Record) hdr() int {
	if r.Version == 3 {
		return dataHeaderV3
	}
	return dataHeaderV2
}

// decode makes r an indexed view of raw, a whole data record; file, vol,
// off and recno say where it is, for the record and its errors.
func (r *Record) decode(file string, raw []byte, version int, vol int, off int64, recno int) error {
	r.file, r.recno, r.Vol, r.Offset = file, recno, vol, off
	if err := r.View(raw, version); err != nil {
		return err
	}
	return r.Index()
}

// View makes r a view of raw, one whole data record (both length words
// included, the caller having checked that they agree) of an archive of
// format version 2 or 3. It decodes the header alone, and checks that the
// value sets it announces can fit in the record; a record that fails
// gives a *FormatError wrapping pmapi.ErrLogRec. Vol and Offset are left
// as they are. The value sets are read with NextSet, or Index.
func (r *Record) View(raw []byte, version int) error {
	r.raw, r.Version, r.numpmid, r.vsets = raw, version, 0, r.vsets[:0]
	r.blockBytes, r.oddBlocks = 0, false
	hdr := r.hdr()
	n := len(raw)
	if n < hdr+4 {
		return r.fault("data record length %d is shorter than its header", n)
	}
	if version == 3 {
		r.Stamp = readStamp3(raw[4:])
	} else {
		r.Stamp = readStamp2(raw[4:])
	}
	numpmid := int32(binary.BigEndian.Uint32(raw[hdr-4:]))
	if numpmid < 0 || int64(numpmid)*8 > int64(n-4-hdr) {
		return r.fault("numpmid %d does not fit in a %d byte record", numpmid, n)
	}
	if numpmid == 0 && n != hdr+4 {
		// libpcp reads a <mark> only as exactly a header and a trailer.
		return r.fault("a <mark> record of %d bytes, not %d", n, hdr+4)
	}
	r.numpmid = numpmid
	return nil
}

// Index reads and checks every value set of a record View made, and
// their value blocks, for the indexed accessors.
func (r *Record) Index() error {
	n := int(r.numpmid)
	if cap(r.vsets) < n {
		r.vsets = make([]VSet, n)
	}
	r.vsets = r.vsets[:n]
	if err := r.walk(r.vsets); err != nil {
		r.vsets = r.vsets[:0]
		return err
	}
	return nil
}

// Check makes the checks Index makes, without the index: every value
// set (as NextSet checks it), its value blocks (as CheckVSet does), and
// where the blocks lie together (libpcp refuses a result whose blocks do
// not fill the record after the value sets exactly). It reads the value
// sets' headers, block pointers and the blocks' length words, not the
// values, and gives the error Index gives. A lazy reader that must
// refuse what libpcp refuses calls it once per record it reads.
func (r *Record) Check() error { return r.walk(nil) }

// walk checks every value set of r in order, each followed by its value
// blocks, then where the blocks lie together (checkFill); with index, it
// stores value set k in index[k]. It notes the blocks' size and whether
// any has pad bytes (blockBytes, oddBlocks: the writer's copy). Every lazy read of the interpolation
// comes here: the loads skip the bounds checks, each word being known
// to lie in the record first.
func (r *Record) walk(index []VSet) error {
	raw := r.raw
	end := len(raw) - 4 // the trailer
	hdr := r.hdr()
	base := unsafe.Pointer(unsafe.SliceData(raw))
	word := func(at int) uint32 { return binary.BigEndian.Uint32((*[4]byte)(unsafe.Add(base, at))[:]) }
	p := hdr
	first, total, odd := end, 0, 0
	for k := int32(0); k < r.numpmid; k++ {
		if p+8 > end {
			return r.setPastEnd(k)
		}
		vs := VSet{PMID: pmapi.PMID(word(p)), NumVal: int32(word(p + 4))}
		if vs.NumVal > 0 {
			if p+12 > end || int64(vs.NumVal)*8 > int64(end-p-12) {
				return r.numvalPastEnd(vs)
			}
			vs.ValFmt = int32(word(p + 8))
			if uint32(vs.ValFmt) > pmapi.ValFmtSptr {
				return r.badValFmt(vs)
			}
			vs.off = int32(p + 12)
			q := p + 12 + 8*int(vs.NumVal)
			for i := p + 12; vs.ValFmt != pmapi.ValFmtInsitu && i < q; i += 8 {
				// as sumBlocks (end-4-hdr >= 16 here)
				bp := int(word(i+4))*4 - 8
				if uint(bp-hdr) > uint(end-4-hdr) {
					return r.blockErr(vs.PMID, raw[i:])
				}
				bl := int(word(bp) & 0xffffff)
				if bl < 4 || bp+bl > end {
					return r.blockErr(vs.PMID, raw[i:])
				}
				first = min(first, bp)
				total += (bl + 3) &^ 3
				odd |= bl
			}
			p = q
		} else {
			p += 8
		}
		if index != nil {
			index[k] = vs
		}
	}
	r.blockBytes, r.oddBlocks = int64(total), odd&3 != 0
	return r.checkFill(int64(p), int64(first), int64(total))
}

// sumBlocks checks the value blocks the (instance, DPTR word) pairs
// point to, as CheckVSet does, adding their sizes rounded up to whole
// words to *total and keeping the lowest position in *first. It returns
// the offset in pairs of the first pair whose block fails, else -1.
func sumBlocks(raw, pairs []byte, hdr, end int, first, total *int) int {
	n := len(pairs) &^ 7
	if n > 0 && end-4 < hdr {
		return 0 // no room for a block
	}
	f, t := *first, *total
	// Loads without bounds checks: each pair lies in pairs, and each
	// block's length word in raw, as checked just before.
	base := unsafe.Pointer(unsafe.SliceData(raw))
	pp := unsafe.Pointer(unsafe.SliceData(pairs))
	for i := 0; i < n; i += 8 {
		// dptrPos; then bp < hdr || bp+4 > end
		bp := int(binary.BigEndian.Uint32((*[4]byte)(unsafe.Add(pp, i+4))[:]))*4 - 8
		if uint(bp-hdr) > uint(end-4-hdr) {
			return i
		}
		bl := int(binary.BigEndian.Uint32((*[4]byte)(unsafe.Add(base, bp))[:]) & 0xffffff)
		if bl < 4 || bp+bl > end {
			return i
		}
		f = min(f, bp)
		t += (bl + 3) &^ 3
	}
	*first, *total = f, t
	return -1
}

// checkFill checks what libpcp's decoding of a result checks of the
// record as a whole (its __pmDecodeValueSet, after each value set):
// the value blocks begin right where the value sets end (vsEnd) and
// fill the rest of the record up to the trailer exactly, each rounded
// up to whole 32-bit words (total); a record without blocks ends with
// its value sets. first is the lowest block's position. The blocks may
// overlap, and need not be in order: libpcp checks neither (found with
// the real pmdumplog on records changed so: TestValueBlocksFill).
func (r *Record) checkFill(vsEnd, first, total int64) error {
	recEnd := int64(len(r.raw) - 4)
	if total == 0 {
		first = recEnd
	}
	if first != vsEnd {
		return r.fault("the value sets end at byte %d, the value blocks begin at %d", vsEnd, first)
	}
	if vsEnd+total != recEnd {
		return r.fault("value blocks of %d bytes in the %d bytes after the value sets", total, recEnd-vsEnd)
	}
	return nil
}

// NextSet reads the value set at *pos and moves *pos past it. It returns
// io.EOF after the last value set, and a *FormatError wrapping
// pmapi.ErrLogRec for a value set that does not fit in the record or has
// an unknown value format (leaving *pos on it). The value set's blocks are
// not checked (CheckVSet does), nor where the blocks of all the value sets
// lie together (libpcp refuses a result whose blocks do not fill the
// record after the value sets exactly): that needs every value set, and
// Index and Check check it.
func (r *Record) NextSet(pos *SetPos) (VSet, error) {
	return r.scan(pos, pos.k+1)
}

// scan reads the value sets from *pos on, as NextSet does, until *pos is
// at stop or the end; it returns the last one read (io.EOF if none).
func (r *Record) scan(pos *SetPos, stop int32) (VSet, error) {
	k := pos.k
	if k >= r.numpmid {
		return VSet{}, io.EOF
	}
	stop = min(stop, r.numpmid)
	raw := r.raw
	end := len(raw) - 4 // the trailer
	p := int(pos.p)
	if p == 0 {
		p = r.hdr()
	}
	var vs VSet
	for ; k < stop; k++ {
		if p+8 > end {
			pos.k, pos.p = k, int32(p)
			return VSet{}, r.setPastEnd(k)
		}
		x := binary.BigEndian.Uint64(raw[p:])
		vs = VSet{PMID: pmapi.PMID(x >> 32), NumVal: int32(uint32(x))}
		if vs.NumVal > 0 {
			if p+12 > end || int64(vs.NumVal)*8 > int64(end-p-12) {
				pos.k, pos.p = k, int32(p)
				return VSet{}, r.numvalPastEnd(vs)
			}
			vs.ValFmt = int32(binary.BigEndian.Uint32(raw[p+8:]))
			// ValFmtInsitu, ValFmtDptr or ValFmtSptr (0, 1, 2)
			if uint32(vs.ValFmt) > pmapi.ValFmtSptr {
				pos.k, pos.p = k, int32(p)
				return VSet{}, r.badValFmt(vs)
			}
			vs.off = int32(p + 12)
			p += 12 + 8*int(vs.NumVal)
		} else {
			p += 8
		}
	}
	pos.k, pos.p = k, int32(p)
	return vs, nil
}

// The errors of a value set's header, the same from scan and walk.
func (r *Record) setPastEnd(k int32) error {
	return r.fault("value set %d runs past the end of the record", k)
}

func (r *Record) numvalPastEnd(vs VSet) error {
	return r.fault("numval %d for PMID %s does not fit in the record", vs.NumVal, vs.PMID)
}

func (r *Record) badValFmt(vs VSet) error {
	return r.fault("bad valfmt %d for PMID %s", vs.ValFmt, vs.PMID)
}

// Layout speeds up scans of records of one shape (an archive's records
// mostly are): it remembers, by position, the value sets NextSetIn read
// (their PMID, count and size) and which of them the caller passed over
// (Pass), so that NextSetIn moves over those in the next record without
// decoding them when they are the same there. The zero Layout is empty.
type Layout struct {
	sets []layoutSet
}

// layoutSet is a value set as the last record scanned had it at its
// position.
type layoutSet struct {
	x    uint64 // its first 8 bytes: PMID and count
	sz   int32  // its size in bytes
	pass bool   // the caller passed over it
}

// Reset forgets everything (for when what the caller passes over has
// changed).
func (l *Layout) Reset() { clear(l.sets) }

// Pass notes that the caller passes over the value set before pos, the
// one NextSetIn read last.
func (l *Layout) Pass(pos SetPos) {
	if k := int(pos.k) - 1; k >= 0 && k < len(l.sets) {
		l.sets[k].pass = true
	}
}

// NextSetIn is NextSet helped by lay: it moves over the value sets from
// *pos on that are as lay has them at their positions (the same PMID and
// count) and passed over, checking them as NextSet does, then reads the
// next as NextSet does and notes it in lay.
func (r *Record) NextSetIn(pos *SetPos, lay *Layout) (VSet, error) {
	n := int(r.numpmid)
	if len(lay.sets) < n {
		lay.sets = append(lay.sets, make([]layoutSet, n-len(lay.sets))...)
	}
	k := int(pos.k)
	if k < n {
		p := int(pos.p)
		if p == 0 {
			p = r.hdr()
		}
		// Each next offset is known from lay before the count is loaded,
		// so the loads do not wait for each other.
		end := uint(len(r.raw) - 4)
		base := unsafe.Pointer(unsafe.SliceData(r.raw))
		sets := lay.sets[:n]
		for ; k < len(sets); k++ {
			e := &sets[k]
			if !e.pass || e.sz < 8 || uint(p)+uint(e.sz) > end {
				break
			}
			// raw[p:p+8] (and raw[p+8:p+12] if sz > 8), inside the
			// record as just checked
			if binary.BigEndian.Uint64((*[8]byte)(unsafe.Add(base, p))[:]) != e.x {
				break
			}
			if e.sz > 8 && binary.BigEndian.Uint32((*[4]byte)(unsafe.Add(base, p+8))[:]) > pmapi.ValFmtSptr {
				break
			}
			p += int(e.sz)
		}
		pos.k, pos.p = int32(k), int32(p)
	}
	start := pos.p
	vs, err := r.NextSet(pos)
	if err == nil {
		if start == 0 {
			start = int32(r.hdr())
		}
		lay.sets[k] = layoutSet{x: uint64(vs.PMID)<<32 | uint64(uint32(vs.NumVal)), sz: pos.p - start}
	}
	return vs, err
}

// CheckVSet checks the value blocks of vs, a value set of r: each must
// lie inside the record, after the header and before the trailer, and be
// at least its own header long. A block that does not gives a
// *FormatError wrapping pmapi.ErrLogRec.
func (r *Record) CheckVSet(vs *VSet) error {
	if vs.ValFmt == pmapi.ValFmtInsitu || vs.NumVal <= 0 {
		return nil
	}
	pairs := r.raw[vs.off : int(vs.off)+8*int(vs.NumVal)]
	var first, total int
	if i := sumBlocks(r.raw, pairs, r.hdr(), len(r.raw)-4, &first, &total); i >= 0 {
		return r.blockErr(vs.PMID, pairs[i:])
	}
	return nil
}

// blockErr is the error of the value block of metric pmid that the pair
// at the start of pair points to, which sumBlocks refused.
func (r *Record) blockErr(pmid pmapi.PMID, pair []byte) error {
	w := binary.BigEndian.Uint32(pair[4:])
	bp, end := dptrPos(w), int64(len(r.raw)-4)
	if bp < int64(r.hdr()) || bp+4 > end {
		return r.fault("value block offset %d for PMID %s lies outside the record", w, pmid)
	}
	bl := int64(binary.BigEndian.Uint32(r.raw[bp:]) & 0xffffff)
	return r.fault("value block length %d for PMID %s runs past the record", bl, pmid)
}

func (r *Record) fault(format string, args ...any) error {
	return formatErr(r.file, r.Offset, r.recno, pmapi.ErrLogRec, format, args...)
}

// VSetInst is the instance of value j of value set vs of r.
func (r *Record) VSetInst(vs *VSet, j int) int32 {
	return int32(binary.BigEndian.Uint32(r.raw[int(vs.off)+8*j:]))
}

// VSetInsitu is the 32-bit word of value j of value set vs of r after
// its instance: the value itself when vs is insitu, the block's offset
// in 32-bit words otherwise.
func (r *Record) VSetInsitu(vs *VSet, j int) int32 {
	return int32(binary.BigEndian.Uint32(r.raw[int(vs.off)+8*j+4:]))
}

// VSetBlock is the type and payload of the value block of value j of
// value set vs of r, which is not insitu and whose blocks CheckVSet has
// checked; the payload aliases the record.
func (r *Record) VSetBlock(vs *VSet, j int) (pmapi.Type, []byte) {
	b := r.raw[r.blockPos(vs, j):]
	h := binary.BigEndian.Uint32(b)
	return pmapi.Type(h >> 24), b[4 : h&0xffffff]
}

// VSetValue is value j of value set vs of r, whose blocks CheckVSet has
// checked. A block aliases the record.
func (r *Record) VSetValue(vs *VSet, j int) pmapi.Value {
	var v pmapi.Value
	r.LoadValue(vs, j, &v)
	return v
}

// LoadValue sets *v to VSetValue(vs, j). A loop that reads many values
// goes faster through one pmapi.Value than through the ones VSetValue
// returns: a Value (40 bytes) is too large for the compiler to keep in
// registers, and the copies of a returned one, read 16 bytes at a time
// from the narrower stores that made it, stall (measured on
// logsummary's BenchmarkAverage: 15-17 ns a value with VSetValue, 8.7
// with LoadValue). LoadValue is small enough to be inlined.
func (r *Record) LoadValue(vs *VSet, j int, v *pmapi.Value) {
	x := binary.BigEndian.Uint64(r.raw[int(vs.off)+8*j:])
	*v = pmapi.Value{}
	v.Inst, v.Insitu = int32(x>>32), int32(x)
	if vs.ValFmt != pmapi.ValFmtInsitu {
		b := r.raw[dptrPos(uint32(x)):]
		h := binary.BigEndian.Uint32(b)
		v.Insitu, v.BlockType, v.Block = 0, pmapi.Type(h>>24), b[4:h&0xffffff]
	}
}

// VSetBlockLen is the payload length of value j of value set vs of r (0
// for an insitu value), read from the block header alone.
func (r *Record) VSetBlockLen(vs *VSet, j int) int {
	if vs.ValFmt == pmapi.ValFmtInsitu {
		return 0
	}
	return int(binary.BigEndian.Uint32(r.raw[r.blockPos(vs, j):])&0xffffff) - 4
}

// blockPos is the byte position in the record of the block of value j of
// value set vs, which is not insitu.
func (r *Record) blockPos(vs *VSet, j int) int64 {
	return dptrPos(binary.BigEndian.Uint32(r.raw[int(vs.off)+8*j+4:]))
}

// NumPMID is the number of value sets; 0 for a <mark> record.
func (r *Record) NumPMID() int { return int(r.numpmid) }

// IsMark reports whether the record is a <mark> (a gap in the recording).
func (r *Record) IsMark() bool { return r.numpmid == 0 }

// Len is the record's size on disk in bytes.
func (r *Record) Len() int { return len(r.raw) }

// Raw is the record's bytes on disk, both length words included.
func (r *Record) Raw() []byte { return r.raw }

// The indexed accessors: value set i of an indexed record.

// VSet is value set i.
func (r *Record) VSet(i int) *VSet { return &r.vsets[i] }

// VSets is every value set (the index, which the caller must not change).
// A copy of it serves for a copy of the record's bytes (View).
func (r *Record) VSets() []VSet { return r.vsets }

// PMID is the metric of value set i.
func (r *Record) PMID(i int) pmapi.PMID { return r.vsets[i].PMID }

// NumVal is the number of values in value set i, or a negative PCP error
// code.
func (r *Record) NumVal(i int) int32 { return r.vsets[i].NumVal }

// ValFmt is value set i's format (pmapi.ValFmtInsitu or ValFmtDptr).
func (r *Record) ValFmt(i int) int32 { return r.vsets[i].ValFmt }

// Inst is the instance of value j of value set i.
func (r *Record) Inst(i, j int) int32 { return r.VSetInst(&r.vsets[i], j) }

// Value is value j of value set i. Block values alias the record.
func (r *Record) Value(i, j int) pmapi.Value { return r.VSetValue(&r.vsets[i], j) }

// BlockLen is the payload length of value j of value set i (0 for an
// insitu value), read from the block header alone.
func (r *Record) BlockLen(i, j int) int { return r.VSetBlockLen(&r.vsets[i], j) }

// Clone returns a copy of r that owns its bytes.
func (r *Record) Clone() *Record {
	c := *r
	c.raw = append([]byte(nil), r.raw...)
	c.vsets = append([]VSet(nil), r.vsets...)
	return &c
}

// Result materialises an indexed record as a pmapi.Result that owns its
// values.
func (r *Record) Result() *pmapi.Result {
	res := &pmapi.Result{Timestamp: r.Stamp, VSets: make([]pmapi.ValueSet, len(r.vsets))}
	for i := range r.vsets {
		res.VSets[i] = r.ValueSet(i)
	}
	return res
}

// ValueSet materialises value set i as a pmapi.ValueSet that owns its
// values.
func (r *Record) ValueSet(i int) pmapi.ValueSet {
	vs := &r.vsets[i]
	out := pmapi.ValueSet{PMID: vs.PMID, NumVal: vs.NumVal, ValFmt: vs.ValFmt}
	for j := 0; j < int(vs.NumVal); j++ {
		v := r.VSetValue(vs, j)
		if v.Block != nil {
			// (an empty block stays a block: sample.aggregate.null)
			v.Block = append(make([]byte, 0, len(v.Block)), v.Block...)
		}
		out.Values = append(out.Values, v)
	}
	return out
}
