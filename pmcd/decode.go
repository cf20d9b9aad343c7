package pmcd

import (
	"encoding/binary"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// decodeError decodes an ERROR PDU's code (len 16); the handshake's
// extended form (len 20) also carries a datum, and ext is then true.
func decodeError(pdu []byte) (code int32, datum uint32, ext bool, err error) {
	r := newReader(pdu, pduError)
	code = r.i32("code")
	if r.err == nil && len(pdu) >= hdrLen+8 {
		datum = r.u32("datum")
		ext = true
	}
	return code, datum, ext, r.err
}

// resultBuf decodes RESULT and HIGHRES_RESULT PDUs into a Result whose
// slices are reused from one decode to the next.
type resultBuf struct {
	res    pmapi.Result
	vals   []pmapi.Value
	starts []int32
}

// decode decodes pdu (a whole PDU of type typ, pduResult or
// pduHighresResult). Value blocks alias pdu.
func (rb *resultBuf) decode(pdu []byte, typ uint32) (*pmapi.Result, error) {
	r := newReader(pdu, typ)
	var n int
	var sec, nsec int64
	if typ == pduHighresResult {
		n = r.count("numpmid", 8)
		sec = r.i64("seconds")
		nsec = r.i64("nanoseconds")
	} else {
		sec = int64(r.i32("seconds"))
		usec := int64(r.i32("microseconds"))
		n = r.count("numpmid", 8)
		if usec < 0 || usec >= 1e6 {
			r.fail("microseconds %d out of range", usec)
		}
		nsec = usec * 1000
	}
	if r.err != nil {
		return nil, r.err
	}
	if !validStamp(sec, nsec) {
		r.fail("timestamp %d.%09d out of range", sec, nsec)
		return nil, r.err
	}
	rb.res.Timestamp = pmapi.Timestamp{Sec: sec, Nsec: int32(nsec)}
	if cap(rb.res.VSets) < n {
		rb.res.VSets = make([]pmapi.ValueSet, n)
		rb.starts = make([]int32, n)
	}
	vsets := rb.res.VSets[:n]
	starts := rb.starts[:n]
	vals := rb.vals[:0]
	minBlock := len(pdu)
	for i := 0; i < n; i++ {
		vs := &vsets[i]
		vs.PMID = pmapi.PMID(r.u32("pmid"))
		numval := r.i32("numval")
		vs.NumVal = numval
		vs.ValFmt = 0
		vs.Values = nil
		starts[i] = int32(len(vals))
		if r.err != nil {
			return nil, r.err
		}
		if numval <= 0 {
			continue
		}
		vs.ValFmt = r.i32("valfmt")
		if r.err != nil {
			return nil, r.err
		}
		switch vs.ValFmt {
		case pmapi.ValFmtInsitu, pmapi.ValFmtDptr, pmapi.ValFmtSptr:
		default:
			r.fail("PMID %s: bad valfmt %d", vs.PMID, vs.ValFmt)
			return nil, r.err
		}
		if int64(numval) > int64(len(pdu)-r.pos)/8 {
			r.fail("PMID %s: numval %d does not fit in the %d bytes left", vs.PMID, numval, len(pdu)-r.pos)
			return nil, r.err
		}
		for j := int32(0); j < numval; j++ {
			inst := r.i32("instance")
			w := r.u32("value")
			if vs.ValFmt == pmapi.ValFmtInsitu {
				vals = append(vals, pmapi.Value{Inst: inst, Insitu: int32(w)})
				continue
			}
			// A pointer value is the block's offset in 32-bit words
			// from the start of the PDU.
			off := int64(w) * 4
			if off < hdrLen || off > int64(len(pdu))-4 {
				r.fail("PMID %s instance %d: value block offset %d words is outside the %d-byte PDU", vs.PMID, inst, w, len(pdu))
				return nil, r.err
			}
			h := binary.BigEndian.Uint32(pdu[off:])
			vlen := int64(h & 0xffffff)
			if vlen < 4 || off+vlen > int64(len(pdu)) {
				r.fail("PMID %s instance %d: value block length %d at offset %d overruns the %d-byte PDU", vs.PMID, inst, vlen, off, len(pdu))
				return nil, r.err
			}
			if int(off) < minBlock {
				minBlock = int(off)
			}
			vals = append(vals, pmapi.Value{Inst: inst, BlockType: pmapi.Type(h >> 24), Block: pdu[off+4 : off+vlen : off+vlen]})
		}
	}
	if minBlock < r.pos {
		r.fail("value block at offset %d overlaps the value sets (which end at %d)", minBlock, r.pos)
		return nil, r.err
	}
	for i := range vsets {
		vs := &vsets[i]
		if vs.NumVal > 0 {
			s := starts[i]
			vs.Values = vals[s : s+vs.NumVal : s+vs.NumVal]
		}
	}
	rb.vals = vals
	rb.res.VSets = vsets
	return &rb.res, nil
}

// decodeIDs decodes a PMNS_IDS PDU: status (the number of names
// resolved), then the PMIDs.
func decodeIDs(pdu []byte) (sts int32, ids []pmapi.PMID, err error) {
	r := newReader(pdu, pduPMNSIDs)
	sts = r.i32("status")
	n := r.count("numids", 4)
	if r.err != nil {
		return 0, nil, r.err
	}
	ids = make([]pmapi.PMID, n)
	for i := range ids {
		ids[i] = pmapi.PMID(r.u32("pmid"))
	}
	return sts, ids, r.err
}

// decodeNames decodes a PMNS_NAMES PDU: the names and, when pmcd sent
// them, a status per name (0 leaf, 1 non-leaf); status is nil otherwise.
func decodeNames(pdu []byte) (names []string, status []int32, err error) {
	r := newReader(pdu, pduPMNSNames)
	r.i32("nstrbytes")
	nstatus := r.count("numstatus", 0)
	n := r.count("numnames", 4)
	if r.err != nil {
		return nil, nil, r.err
	}
	if nstatus != 0 && nstatus != n {
		r.fail("numstatus %d is neither 0 nor numnames %d", nstatus, n)
		return nil, nil, r.err
	}
	names = make([]string, n)
	if nstatus > 0 {
		status = make([]int32, n)
	}
	for i := 0; i < n; i++ {
		if status != nil {
			status[i] = r.i32("status")
		}
		names[i] = r.str("name")
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return names, status, nil
}

// readDesc reads a 20-byte pmDesc.
func readDesc(r *reader) pmapi.Desc {
	return pmapi.Desc{
		PMID:  pmapi.PMID(r.u32("pmid")),
		Type:  pmapi.Type(r.i32("type")),
		InDom: pmapi.InDom(r.u32("indom")),
		Sem:   pmapi.Sem(r.i32("sem")),
		Units: pmapi.UnitsFromUint32(r.u32("units")),
	}
}

// decodeDesc decodes a DESC PDU.
func decodeDesc(pdu []byte) (pmapi.Desc, error) {
	r := newReader(pdu, pduDesc)
	d := readDesc(&r)
	return d, r.err
}

// decodeDescs decodes a DESCS PDU.
func decodeDescs(pdu []byte) ([]pmapi.Desc, error) {
	r := newReader(pdu, pduDescs)
	n := r.count("numdescs", 20)
	if r.err != nil {
		return nil, r.err
	}
	ds := make([]pmapi.Desc, n)
	for i := range ds {
		ds[i] = readDesc(&r)
	}
	return ds, r.err
}

// decodeInstance decodes an INSTANCE PDU.
func decodeInstance(pdu []byte) (indom pmapi.InDom, insts []int32, names []string, err error) {
	r := newReader(pdu, pduInstance)
	indom = pmapi.InDom(r.u32("indom"))
	n := r.count("numinst", 8)
	if r.err != nil {
		return 0, nil, nil, r.err
	}
	insts = make([]int32, n)
	names = make([]string, n)
	for i := 0; i < n; i++ {
		insts[i] = r.i32("instance")
		names[i] = r.str("instance name")
	}
	if r.err != nil {
		return 0, nil, nil, r.err
	}
	return indom, insts, names, nil
}

// decodeText decodes a TEXT PDU. pmcd's ident is not the one asked for
// (its halves are swapped), so it is returned only for completeness.
func decodeText(pdu []byte) (ident uint32, text string, err error) {
	r := newReader(pdu, pduText)
	ident = r.u32("ident")
	text = r.str("text")
	return ident, text, r.err
}

// labelBytes is the size of one pmLabel on the wire.
const labelBytes = 8

// decodeLabels decodes a LABEL PDU: ident, type, padding, nsets, then per
// set {inst, nlabels, json offset (from the PDU start), json length,
// nlabels × pmLabel}; the JSON strings follow, unpadded.
func decodeLabels(pdu []byte) (ident, typ uint32, sets []archive.LabelSet, err error) {
	r := newReader(pdu, pduLabel)
	ident = r.u32("ident")
	typ = r.u32("type")
	r.u32("padding")
	n := r.count("nsets", 16)
	if r.err != nil {
		return 0, 0, nil, r.err
	}
	sets = make([]archive.LabelSet, n)
	for i := 0; i < n; i++ {
		s := &sets[i]
		s.Inst = r.i32("instance")
		nl := r.i32("nlabels")
		joff := r.i32("json offset")
		jlen := r.i32("json length")
		if r.err != nil {
			return 0, 0, nil, r.err
		}
		if nl < 0 {
			// A label set in error: no labels.
			nl = 0
		}
		if int64(nl) > int64(len(pdu)-r.pos)/labelBytes {
			r.fail("set %d: nlabels %d does not fit in the %d bytes left", i, nl, len(pdu)-r.pos)
			return 0, 0, nil, r.err
		}
		if jlen < 0 || joff < hdrLen || int64(joff)+int64(jlen) > int64(len(pdu)) {
			r.fail("set %d: JSON at offset %d, length %d, is outside the %d-byte PDU", i, joff, jlen, len(pdu))
			return 0, 0, nil, r.err
		}
		s.JSON = string(pdu[joff : joff+jlen])
		if nl > 0 {
			s.Labels = make([]archive.LabelEntry, nl)
		}
		for k := range s.Labels {
			b := pdu[r.pos : r.pos+labelBytes]
			r.pos += labelBytes
			e := archive.LabelEntry{
				NameOff: int(binary.BigEndian.Uint16(b)), NameLen: int(b[2]), Flags: b[3],
				ValueOff: int(binary.BigEndian.Uint16(b[4:])), ValueLen: int(binary.BigEndian.Uint16(b[6:])),
			}
			if e.NameOff+e.NameLen > int(jlen) || e.ValueOff+e.ValueLen > int(jlen) {
				r.fail("set %d label %d: name %d+%d or value %d+%d is outside the %d-byte JSON", i, k, e.NameOff, e.NameLen, e.ValueOff, e.ValueLen, jlen)
				return 0, 0, nil, r.err
			}
			s.Labels[k] = e
		}
	}
	return ident, typ, sets, nil
}

// DecodeResultPDU decodes a whole RESULT or HIGHRES_RESULT PDU (header
// included) of type typ, as Fetch decodes pmcd's reply; the Result's
// value blocks point into pdu.
func DecodeResultPDU(pdu []byte, typ uint32) (*pmapi.Result, error) {
	var rb resultBuf
	return rb.decode(pdu, typ)
}
