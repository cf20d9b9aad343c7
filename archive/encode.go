package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pcpkit/pcpkit/pmapi"
)

// This file holds the encoders of the on-disk records (docs/format.md):
// each Append*Record function appends one whole framed record, both
// length words included, to dst. They are the inverse of the decoders in
// meta.go and record.go; the round-trip tests tie the two together.

// padByte fills value blocks up to a multiple of 4 bytes, as PCP 6.0.3
// writes them.
const padByte = '~'

// maxBlockLen is the largest value block: its length is a 24-bit field.
const maxBlockLen = 1<<24 - 1

// ErrEncode reports a record that cannot be represented on disk (a
// value block over 16 MiB, a label offset over 65535, a version other
// than 2 or 3, ...).
var ErrEncode = errors.New("archive: cannot encode record")

func encodeErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrEncode, fmt.Sprintf(format, args...))
}

// frame reserves the header length word of a record starting at start in
// dst; finish fills both length words once the payload is appended.
func frameStart(dst []byte) ([]byte, int) {
	start := len(dst)
	return append(dst, 0, 0, 0, 0), start
}

func frameFinish(dst []byte, start int) []byte {
	n := uint32(len(dst) - start + 4)
	binary.BigEndian.PutUint32(dst[start:], n)
	return binary.BigEndian.AppendUint32(dst, n)
}

func appendU32(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }

func appendStamp(dst []byte, version int, t pmapi.Timestamp) []byte {
	if version == 3 {
		var b [12]byte
		putStamp3(b[:], t)
		return append(dst, b[:]...)
	}
	var b [8]byte
	putStamp2(b[:], t)
	return append(dst, b[:]...)
}

func checkVersion(version int) error {
	if version != 2 && version != 3 {
		return encodeErr("unsupported archive version %d", version)
	}
	return nil
}

// AppendDescRecord appends a descriptor record (type 1) for d with the
// metric's names.
func AppendDescRecord(dst []byte, d pmapi.Desc, names []string) []byte {
	dst, start := frameStart(dst)
	dst = appendU32(dst, MetaDesc)
	dst = appendU32(dst, uint32(d.PMID))
	dst = appendU32(dst, uint32(int32(d.Type)))
	dst = appendU32(dst, uint32(d.InDom))
	dst = appendU32(dst, uint32(int32(d.Sem)))
	dst = appendU32(dst, d.Units.Uint32())
	dst = appendU32(dst, uint32(len(names)))
	for _, n := range names {
		dst = appendU32(dst, uint32(len(n)))
		dst = append(dst, n...)
	}
	return frameFinish(dst, start)
}

// AppendInDomRecord appends an instance domain record for r in the given
// archive version. r.Type selects a delta (MetaInDomDelta, Version 3
// only); any other type gives the full record of the version (type 2 in
// Version 2, type 5 in Version 3). In a delta, Deleted[k] marks Insts[k]
// as removed (it has no name). Names are written NUL-terminated, in
// order, into one string table.
func AppendInDomRecord(dst []byte, version int, r *InDomRecord) ([]byte, error) {
	if err := checkVersion(version); err != nil {
		return dst, err
	}
	if len(r.Names) != len(r.Insts) {
		return dst, encodeErr("instance domain %s: %d instances but %d names", r.InDom, len(r.Insts), len(r.Names))
	}
	typ := uint32(MetaInDomV2)
	delta := r.Type == MetaInDomDelta
	switch {
	case delta && version != 3:
		return dst, encodeErr("instance domain %s: delta records need a version 3 archive", r.InDom)
	case delta:
		typ = MetaInDomDelta
		if len(r.Deleted) != len(r.Insts) {
			return dst, encodeErr("instance domain %s: delta with %d instances but %d deleted flags", r.InDom, len(r.Insts), len(r.Deleted))
		}
	case version == 3:
		typ = MetaInDom
	}
	dst, start := frameStart(dst)
	dst = appendU32(dst, typ)
	dst = appendStamp(dst, version, r.Stamp)
	dst = appendU32(dst, uint32(r.InDom))
	dst = appendU32(dst, uint32(len(r.Insts)))
	for _, x := range r.Insts {
		dst = appendU32(dst, uint32(x))
	}
	off := 0
	for k, n := range r.Names {
		if delta && r.Deleted[k] {
			dst = appendU32(dst, 0xffffffff)
			continue
		}
		dst = appendU32(dst, uint32(off))
		off += len(n) + 1
	}
	for k, n := range r.Names {
		if delta && r.Deleted[k] {
			continue
		}
		dst = append(dst, n...)
		dst = append(dst, 0)
	}
	return frameFinish(dst, start), nil
}

// AppendLabelRecord appends a label record (type 3 in Version 2, type 7
// in Version 3): each set's JSON is inline, followed by its label
// entries (docs/format.md section 7.3), or by its Err in place of their
// number when Err is negative.
func AppendLabelRecord(dst []byte, version int, r *LabelRecord) ([]byte, error) {
	if err := checkVersion(version); err != nil {
		return dst, err
	}
	typ := uint32(MetaLabelV2)
	if version == 3 {
		typ = MetaLabel
	}
	for _, s := range r.Sets {
		for _, l := range s.Labels {
			if l.NameOff < 0 || l.NameOff > 0xffff || l.NameLen < 0 || l.NameLen > 0xff ||
				l.ValueOff < 0 || l.ValueOff > 0xffff || l.ValueLen < 0 || l.ValueLen > 0xffff {
				return dst, encodeErr("label offsets out of range in label set of instance %d", s.Inst)
			}
		}
	}
	dst, start := frameStart(dst)
	dst = appendU32(dst, typ)
	dst = appendStamp(dst, version, r.Stamp)
	dst = appendU32(dst, r.Type)
	dst = appendU32(dst, r.Ident)
	dst = appendU32(dst, uint32(len(r.Sets)))
	for _, s := range r.Sets {
		dst = appendU32(dst, uint32(s.Inst))
		dst = appendU32(dst, uint32(len(s.JSON)))
		dst = append(dst, s.JSON...)
		if s.Err < 0 {
			dst = appendU32(dst, uint32(s.Err))
			continue
		}
		dst = appendU32(dst, uint32(len(s.Labels)))
		for _, l := range s.Labels {
			dst = binary.BigEndian.AppendUint16(dst, uint16(l.NameOff))
			dst = append(dst, uint8(l.NameLen), l.Flags)
			dst = binary.BigEndian.AppendUint16(dst, uint16(l.ValueOff))
			dst = binary.BigEndian.AppendUint16(dst, uint16(l.ValueLen))
		}
	}
	return frameFinish(dst, start), nil
}

// AppendTextRecord appends a help text record (type 4); the text is
// written with a terminating NUL.
func AppendTextRecord(dst []byte, t *HelpText) []byte {
	dst, start := frameStart(dst)
	dst = appendU32(dst, MetaText)
	dst = appendU32(dst, t.Type)
	dst = appendU32(dst, t.Ident)
	dst = append(dst, t.Text...)
	dst = append(dst, 0)
	return frameFinish(dst, start)
}

// AppendMarkRecord appends a <mark> record: a data record with no value
// sets (20 bytes in Version 2, 24 in Version 3).
func AppendMarkRecord(dst []byte, version int, t pmapi.Timestamp) ([]byte, error) {
	if err := checkVersion(version); err != nil {
		return dst, err
	}
	dst, start := frameStart(dst)
	dst = appendStamp(dst, version, t)
	dst = appendU32(dst, 0)
	return frameFinish(dst, start), nil
}

// AppendResultRecord appends the data record of r. A value set with a
// negative NumVal holds that error code and no values; otherwise its
// values are len(Values). Values of a set with ValFmt ValFmtInsitu are
// written in the value word; with ValFmtDptr or ValFmtSptr (PCP uses the
// latter for event arrays) each value's block (header BlockType and
// len(Block)+4, then Block, padded with '~' to 4 bytes) is written after
// the value sets, in value order, with a pointer to it. A Result with no
// value sets is a <mark>.
func AppendResultRecord(dst []byte, version int, r *pmapi.Result) ([]byte, error) {
	if err := checkVersion(version); err != nil {
		return dst, err
	}
	hdr := dataHeaderV2
	if version == 3 {
		hdr = dataHeaderV3
	}
	// First pass: check and size the value sets and blocks.
	vsetBytes := 0
	for i := range r.VSets {
		vs := &r.VSets[i]
		vsetBytes += 8
		if vs.NumVal < 0 {
			if len(vs.Values) != 0 {
				return dst, encodeErr("PMID %s: error code %d with %d values", vs.PMID, vs.NumVal, len(vs.Values))
			}
			continue
		}
		if len(vs.Values) == 0 {
			continue
		}
		vsetBytes += 4 + 8*len(vs.Values)
		switch vs.ValFmt {
		case pmapi.ValFmtInsitu:
		case pmapi.ValFmtDptr, pmapi.ValFmtSptr:
			for j := range vs.Values {
				if n := len(vs.Values[j].Block) + 4; n > maxBlockLen {
					return dst, encodeErr("PMID %s: value block of %d bytes is over the 16 MiB limit", vs.PMID, n)
				}
			}
		default:
			return dst, encodeErr("PMID %s: bad valfmt %d", vs.PMID, vs.ValFmt)
		}
	}
	start := len(dst)
	// The record's first block starts here, counted from its first byte.
	blockPos := int64(hdr + vsetBytes)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendStamp(dst, version, r.Timestamp)
	dst = appendU32(dst, uint32(len(r.VSets)))
	for i := range r.VSets {
		vs := &r.VSets[i]
		dst = appendU32(dst, uint32(vs.PMID))
		if vs.NumVal < 0 {
			dst = appendU32(dst, uint32(vs.NumVal))
			continue
		}
		dst = appendU32(dst, uint32(len(vs.Values)))
		if len(vs.Values) == 0 {
			continue
		}
		dst = appendU32(dst, uint32(vs.ValFmt))
		for j := range vs.Values {
			v := &vs.Values[j]
			dst = appendU32(dst, uint32(v.Inst))
			if vs.ValFmt == pmapi.ValFmtInsitu {
				dst = appendU32(dst, uint32(v.Insitu))
				continue
			}
			// dptrPos(w) = 4*w - 8 is the block's byte position.
			w := (blockPos + 8) / 4
			if w > 0xffffffff {
				return dst[:start], encodeErr("record too large for value pointers")
			}
			dst = appendU32(dst, uint32(w))
			blockPos += int64(padded(len(v.Block) + 4))
		}
	}
	for i := range r.VSets {
		vs := &r.VSets[i]
		if vs.NumVal < 0 || vs.ValFmt == pmapi.ValFmtInsitu {
			continue
		}
		for j := range vs.Values {
			v := &vs.Values[j]
			n := len(v.Block) + 4
			dst = appendU32(dst, uint32(v.BlockType)<<24|uint32(n))
			dst = append(dst, v.Block...)
			for k := n; k%4 != 0; k++ {
				dst = append(dst, padByte)
			}
		}
	}
	if int64(len(dst)-start+4) > 0xffffffff {
		return dst[:start], encodeErr("data record of %d bytes is too large", len(dst)-start+4)
	}
	return frameFinish(dst, start), nil
}

// padded rounds n up to a multiple of 4.
func padded(n int) int { return (n + 3) &^ 3 }

// MetaRecord is one record of a .meta file, decoded, with its bytes on
// disk. Exactly one of Desc, InDom, Label and Text is set, by Type.
type MetaRecord struct {
	Offset int64  // byte offset in the (decompressed) .meta file
	Type   int    // MetaDesc, MetaInDomV2, ..., MetaLabel
	Raw    []byte // the whole record, both length words included

	Desc  *pmapi.Desc // MetaDesc
	Names []string    // MetaDesc: the metric's names in record order, as written (NULs and all)
	InDom *InDomRecord
	Label *LabelRecord // all its sets, none dropped
	Text  *HelpText
}

// MetaRecords returns every record of the archive's .meta file in file
// order (the Meta of an Archive is indexed and drops repeats; a copy
// needs the records themselves).
func (a *Archive) MetaRecords() ([]MetaRecord, error) {
	r, err := openStream(a.files.meta)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	l, err := readLabel(a.files.meta, r)
	if err != nil {
		return nil, err
	}
	var out []MetaRecord
	var hdr [8]byte
	off := int64(l.Size())
	for recno := 2; ; recno++ {
		n, err := io.ReadFull(r, hdr[:4])
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, formatErr(a.files.meta, off, recno, pmapi.ErrLogRec, "unexpected EOF in metadata record header, got %d bytes", n)
		}
		rlen := int64(binary.BigEndian.Uint32(hdr[:]))
		if rlen < 12 {
			return out, formatErr(a.files.meta, off, recno, pmapi.ErrLogRec, "metadata record length %d is too small", rlen)
		}
		buf := append([]byte(nil), hdr[:4]...)
		for int64(len(buf)) < rlen {
			step := rlen - int64(len(buf))
			if step > 1<<20 {
				step = 1 << 20
			}
			k := len(buf)
			buf = append(buf, make([]byte, step)...)
			if m, err := io.ReadFull(r, buf[k:]); err != nil {
				if k == 4 && m == 0 && err == io.EOF {
					// A file that ends right after a record's length
					// word ends the records for pmlogextract's reader
					// (pmaGetLog): its read of the rest finds the end.
					return out, nil
				}
				return out, formatErr(a.files.meta, off, recno, pmapi.ErrLogRec, "unexpected EOF in metadata record body, wanted %d, got %d bytes", rlen, int64(k+m))
			}
		}
		if t := int64(binary.BigEndian.Uint32(buf[rlen-4:])); t != rlen {
			return out, formatErr(a.files.meta, off, recno, pmapi.ErrLogRec, "metadata record trailer %d does not match header %d", t, rlen)
		}
		mr, err := DecodeMetaRecord(a.files.meta, buf, a.Version())
		if err != nil {
			if fe, ok := err.(*FormatError); ok {
				fe.Offset, fe.Record = off, recno
			}
			return out, err
		}
		mr.Offset = off
		out = append(out, *mr)
		off += rlen
	}
}

// DecodeMetaRecord decodes one whole .meta record (both length words
// included) of an archive of the given version, with the reader's rules.
func DecodeMetaRecord(file string, rec []byte, version int) (*MetaRecord, error) {
	if len(rec) < 12 || int(binary.BigEndian.Uint32(rec)) != len(rec) || int(binary.BigEndian.Uint32(rec[len(rec)-4:])) != len(rec) {
		return nil, formatErr(file, 0, 0, pmapi.ErrLogRec, "metadata record framing is not whole")
	}
	d := &metaDecoder{file: file, version: version, meta: newMeta()}
	if err := d.record(rec, 0, 0); err != nil {
		return nil, err
	}
	m := d.meta
	mr := &MetaRecord{Type: int(binary.BigEndian.Uint32(rec[4:])), Raw: rec}
	switch mr.Type {
	case MetaDesc:
		desc := m.Descs[0]
		mr.Desc = &desc
		// the names as recorded (the decoder drops repeats)
		b := &body{b: rec[8 : len(rec)-4], p: 20}
		nn := b.count(4)
		for i := 0; i < nn && !b.bad; i++ {
			l := b.count(1)
			mr.Names = append(mr.Names, string(b.bytes(l)))
		}
	case MetaInDomV2, MetaInDom, MetaInDomDelta:
		ir := m.InDomRecords[0]
		ir.Offset = 0
		mr.InDom = &ir
	case MetaLabelV2, MetaLabel:
		// decode again without the reader's de-duplication
		lr := decodeLabelRecord(&body{b: rec[8 : len(rec)-4]}, recordVersion(uint32(mr.Type)))
		mr.Label = &lr
	case MetaText:
		t := m.Texts[0]
		mr.Text = &t
	}
	return mr, nil
}

// AppendMetaRecord appends the encoding of mr (from its decoded fields,
// not Raw) for an archive of the given version.
func AppendMetaRecord(dst []byte, version int, mr *MetaRecord) ([]byte, error) {
	switch {
	case mr.Desc != nil:
		return AppendDescRecord(dst, *mr.Desc, mr.Names), nil
	case mr.InDom != nil:
		return AppendInDomRecord(dst, version, mr.InDom)
	case mr.Label != nil:
		return AppendLabelRecord(dst, version, mr.Label)
	case mr.Text != nil:
		return AppendTextRecord(dst, mr.Text), nil
	}
	return dst, encodeErr("empty metadata record")
}

// DecodeRecord decodes one whole data record (both length words
// included) of an archive of the given version, with the reader's
// checks. The Record aliases raw.
func DecodeRecord(raw []byte, version int) (*Record, error) {
	if len(raw) < 8 || int(binary.BigEndian.Uint32(raw)) != len(raw) || int(binary.BigEndian.Uint32(raw[len(raw)-4:])) != len(raw) {
		return nil, formatErr("record", 0, 0, pmapi.ErrLogRec, "data record framing is not whole")
	}
	r := &Record{}
	if err := r.decode("record", raw, version, 0, 0, 0); err != nil {
		return nil, err
	}
	return r, nil
}
