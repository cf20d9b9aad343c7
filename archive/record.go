package archive

import (
	"encoding/binary"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Record is a decoded view of one data record (a sample, or a <mark>).
// It aliases the reader's buffer: it is valid until the next read from the
// same Cursor; call Clone to keep it. Decoding validates every count and
// offset against the record's length, and accessing values allocates
// nothing.
type Record struct {
	Vol     int             // data volume the record came from
	Offset  int64           // byte offset of the record in that volume
	Stamp   pmapi.Timestamp // the sample time
	Version int             // archive format version (2 or 3)

	raw   []byte
	vsets []vsetRef
}

type vsetRef struct {
	pmid   pmapi.PMID
	numval int32
	valfmt int32
	off    int32 // offset in raw of the first (inst, value) pair
}

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

// decodeRecord fills r from raw, a whole data record. file, vol, off and
// recno are used for error messages only.
func (r *Record) decode(file string, raw []byte, version int, vol int, off int64, recno int) error {
	r.raw = raw
	r.Vol, r.Offset, r.Version = vol, off, version
	r.vsets = r.vsets[:0]
	hdr := dataHeaderV2
	if version == 3 {
		hdr = dataHeaderV3
	}
	n := len(raw)
	if n < hdr+4 {
		return formatErr(file, off, recno, pmapi.ErrLogRec, "data record length %d is shorter than its header", n)
	}
	if version == 3 {
		r.Stamp = readStamp3(raw[4:])
	} else {
		r.Stamp = readStamp2(raw[4:])
	}
	numpmid := int32(binary.BigEndian.Uint32(raw[hdr-4:]))
	end := n - 4 // the trailer
	if numpmid < 0 || int64(numpmid)*8 > int64(end-hdr) {
		return formatErr(file, off, recno, pmapi.ErrLogRec, "numpmid %d does not fit in a %d byte record", numpmid, n)
	}
	p := hdr
	for i := int32(0); i < numpmid; i++ {
		if p+8 > end {
			return formatErr(file, off, recno, pmapi.ErrLogRec, "value set %d runs past the end of the record", i)
		}
		v := vsetRef{
			pmid:   pmapi.PMID(binary.BigEndian.Uint32(raw[p:])),
			numval: int32(binary.BigEndian.Uint32(raw[p+4:])),
		}
		p += 8
		if v.numval > 0 {
			if p+4 > end || int64(v.numval)*8 > int64(end-p-4) {
				return formatErr(file, off, recno, pmapi.ErrLogRec, "numval %d for PMID %s does not fit in the record", v.numval, v.pmid)
			}
			v.valfmt = int32(binary.BigEndian.Uint32(raw[p:]))
			p += 4
			v.off = int32(p)
			if v.valfmt != pmapi.ValFmtInsitu {
				if v.valfmt != pmapi.ValFmtDptr && v.valfmt != pmapi.ValFmtSptr {
					return formatErr(file, off, recno, pmapi.ErrLogRec, "bad valfmt %d for PMID %s", v.valfmt, v.pmid)
				}
				for j := 0; j < int(v.numval); j++ {
					w := binary.BigEndian.Uint32(raw[p+8*j+4:])
					bp := dptrPos(w)
					if bp < int64(hdr) || bp+4 > int64(end) {
						return formatErr(file, off, recno, pmapi.ErrLogRec, "value block offset %d for PMID %s lies outside the record", w, v.pmid)
					}
					bl := int64(binary.BigEndian.Uint32(raw[bp:]) & 0xffffff)
					if bl < 4 || bp+bl > int64(end) {
						return formatErr(file, off, recno, pmapi.ErrLogRec, "value block length %d for PMID %s runs past the record", bl, v.pmid)
					}
				}
			}
			p += 8 * int(v.numval)
		}
		r.vsets = append(r.vsets, v)
	}
	return nil
}

// NumPMID is the number of value sets; 0 for a <mark> record.
func (r *Record) NumPMID() int { return len(r.vsets) }

// IsMark reports whether the record is a <mark> (a gap in the recording).
func (r *Record) IsMark() bool { return len(r.vsets) == 0 }

// Len is the record's size on disk in bytes.
func (r *Record) Len() int { return len(r.raw) }

// Raw is the record's bytes on disk, both length words included.
func (r *Record) Raw() []byte { return r.raw }

// PMID is the metric of value set i.
func (r *Record) PMID(i int) pmapi.PMID { return r.vsets[i].pmid }

// NumVal is the number of values in value set i, or a negative PCP error
// code.
func (r *Record) NumVal(i int) int32 { return r.vsets[i].numval }

// ValFmt is value set i's format (pmapi.ValFmtInsitu or ValFmtDptr).
func (r *Record) ValFmt(i int) int32 { return r.vsets[i].valfmt }

// Inst is the instance of value j of value set i.
func (r *Record) Inst(i, j int) int32 {
	return int32(binary.BigEndian.Uint32(r.raw[int(r.vsets[i].off)+8*j:]))
}

// Value is value j of value set i. Block values alias the record.
func (r *Record) Value(i, j int) pmapi.Value {
	vs := &r.vsets[i]
	p := int(vs.off) + 8*j
	v := pmapi.Value{Inst: int32(binary.BigEndian.Uint32(r.raw[p:]))}
	w := binary.BigEndian.Uint32(r.raw[p+4:])
	if vs.valfmt == pmapi.ValFmtInsitu {
		v.Insitu = int32(w)
		return v
	}
	bp := dptrPos(w)
	h := binary.BigEndian.Uint32(r.raw[bp:])
	v.BlockType = pmapi.Type(h >> 24)
	v.Block = r.raw[bp+4 : bp+int64(h&0xffffff)]
	return v
}

// BlockLen is the payload length of value j of value set i (0 for an
// insitu value), read from the block header alone.
func (r *Record) BlockLen(i, j int) int {
	vs := &r.vsets[i]
	if vs.valfmt == pmapi.ValFmtInsitu {
		return 0
	}
	bp := dptrPos(binary.BigEndian.Uint32(r.raw[int(vs.off)+8*j+4:]))
	return int(binary.BigEndian.Uint32(r.raw[bp:])&0xffffff) - 4
}

// Clone returns a copy of r that owns its bytes.
func (r *Record) Clone() *Record {
	c := *r
	c.raw = append([]byte(nil), r.raw...)
	c.vsets = append([]vsetRef(nil), r.vsets...)
	return &c
}

// Result materialises the record as a pmapi.Result that owns its values.
func (r *Record) Result() *pmapi.Result {
	res := &pmapi.Result{Timestamp: r.Stamp, VSets: make([]pmapi.ValueSet, len(r.vsets))}
	for i, vs := range r.vsets {
		out := &res.VSets[i]
		out.PMID, out.NumVal, out.ValFmt = vs.pmid, vs.numval, vs.valfmt
		for j := 0; j < int(vs.numval); j++ {
			v := r.Value(i, j)
			if v.Block != nil {
				// (an empty block stays a block: sample.aggregate.null)
				v.Block = append(make([]byte, 0, len(v.Block)), v.Block...)
			}
			out.Values = append(out.Values, v)
		}
	}
	return res
}
