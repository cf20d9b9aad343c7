package pmlogger

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The fast path: a sample whose reply PDU has the same shape as the one
// behind the fetch group's last record written the general way (decode,
// select_, meta, PutResult) makes the same record but for the timestamp
// and the value bytes. The shape is every byte of the PDU but its
// timestamp, its in-situ value words and the payloads of its value
// blocks: the PMIDs, counts, formats, instances, value pointers, block
// headers and padding. The general path's output depends on the values
// only through those bytes, which it copies, so the fast path copies
// them into a copy of the last record and writes it, with no decoding,
// selection or encoding. It is armed only when the next sample's meta
// checks would do nothing (every descriptor logged, every instance list
// as last logged), and falls back to the general path whenever the
// shape, the length, the PDU type, an instance domain's generation or
// the timestamp's validity differ, or pmcd announced a state change. A
// PDU of the same shape as one the decoder accepted is one the decoder
// would accept.

// pduSource is a source whose fetch replies are PDUs (*pmcd.Client).
type pduSource interface {
	FetchPDU(pmids []pmapi.PMID) (pdu []byte, typ uint32, changes uint32, err error)
	DecodeResult(pdu []byte, typ uint32) (*pmapi.Result, error)
}

const (
	pduResult        = 0x7001
	pduHighresResult = 0x7015
)

// fastSeg is a run of value bytes: at p in the PDU, r in the record (r <
// 0: not copied, the timestamp), n bytes.
type fastSeg struct{ p, r, n int }

// fastRec is a fetch group's fast-path state.
type fastRec struct {
	armed bool
	typ   uint32
	pdu   []byte    // the PDU of the last record (its shape)
	rec   []byte    // that record
	segs  []fastSeg // sorted by p
	inds  []*mstate // metrics whose instance check must stay a no-op
	gens  []uint64  // their instance domains' generations then
}

// pduLayout returns where the value sets of a PDU of type typ start and
// where its timestamp lies.
func pduLayout(typ uint32) (vsets, tsOff, tsLen int, ok bool) {
	switch typ {
	case pduHighresResult:
		return 32, 16, 16, true // numpmid, sec (8), nsec (8)
	case pduResult:
		return 24, 12, 8, true // sec, usec, numpmid
	}
	return 0, 0, 0, false
}

// pduStamp reads the timestamp of a PDU of a layout pduLayout accepted,
// false if the decoder or select_ would refuse it.
func (l *Logger) pduStamp(pdu []byte, typ uint32) (pmapi.Timestamp, bool) {
	var sec, nsec int64
	if typ == pduHighresResult {
		sec = int64(binary.BigEndian.Uint64(pdu[16:]))
		nsec = int64(binary.BigEndian.Uint64(pdu[24:]))
	} else {
		sec = int64(int32(binary.BigEndian.Uint32(pdu[12:])))
		usec := int64(int32(binary.BigEndian.Uint32(pdu[16:])))
		if usec < 0 || usec >= 1e6 {
			return pmapi.Timestamp{}, false
		}
		nsec = usec * 1000
	}
	if sec < 0 || nsec < 0 || nsec >= 1e9 || (l.o.Version == 2 && sec > 0x7fffffff) {
		return pmapi.Timestamp{}, false
	}
	return pmapi.Timestamp{Sec: sec, Nsec: int32(nsec)}, true
}

// arm prepares the fast path after the general path wrote the record
// of r, its selection from pdu. It leaves it
// disarmed unless the record is a value-for-value copy of the PDU's
// value sets, in order, and the next meta checks would be no-ops.
func (l *Logger) arm(fg *fetchGroup, pdu []byte, typ uint32, r *pmapi.Result) {
	f := &fg.fast
	f.armed = false
	if !fg.metaDone {
		return
	}
	// PutResult wrote these bytes (it succeeded on the same Result).
	rec, err := archive.AppendResultRecord(f.rec[:0], l.o.Version, r)
	f.rec = rec
	if err != nil {
		return
	}
	start, tsOff, tsLen, ok := pduLayout(typ)
	hdr := 16
	if l.o.Version == 3 {
		hdr = 20
	}
	if !ok || len(pdu) < start || len(rec) < hdr+4 || int(binary.BigEndian.Uint32(rec)) != len(rec) {
		return
	}
	npOff := 12
	if typ == pduResult {
		npOff = 20
	}
	n := int(binary.BigEndian.Uint32(pdu[npOff:]))
	if n != len(r.VSets) || n != len(l.outMetrics) || binary.BigEndian.Uint32(rec[hdr-4:]) != uint32(n) {
		return
	}
	f.segs = append(f.segs[:0], fastSeg{p: tsOff, r: -1, n: tsLen})
	f.inds, f.gens = f.inds[:0], f.gens[:0]
	u32 := func(b []byte, off int) (uint32, bool) {
		if off < 0 || off+4 > len(b) {
			return 0, false
		}
		return binary.BigEndian.Uint32(b[off:]), true
	}
	p, q := start, hdr
	for i := 0; i < n; i++ {
		vs := &r.VSets[i]
		ms := l.outMetrics[i]
		pp, ok1 := u32(pdu, p)
		rp, ok2 := u32(rec, q)
		pn, ok3 := u32(pdu, p+4)
		rn, ok4 := u32(rec, q+4)
		if !ok1 || !ok2 || !ok3 || !ok4 || pp != rp || pn != rn || pp != uint32(vs.PMID) {
			return
		}
		p, q = p+8, q+8
		nv := int32(pn)
		if nv <= 0 {
			continue
		}
		if int(nv) != len(vs.Values) {
			return
		}
		pf, ok1 := u32(pdu, p)
		rf, ok2 := u32(rec, q)
		if !ok1 || !ok2 || pf != rf {
			return
		}
		p, q = p+4, q+4
		for j := int32(0); j < nv; j++ {
			pi, ok1 := u32(pdu, p)
			ri, ok2 := u32(rec, q)
			if !ok1 || !ok2 || pi != ri {
				return
			}
			p, q = p+4, q+4
			if int32(pf) == pmapi.ValFmtInsitu {
				if p+4 > len(pdu) || q+4 > len(rec) {
					return
				}
				f.segs = append(f.segs, fastSeg{p: p, r: q, n: 4})
			} else {
				pw, ok1 := u32(pdu, p)
				rw, ok2 := u32(rec, q)
				if !ok1 || !ok2 {
					return
				}
				bp, br := int(pw)*4, int(rw)*4-8 // the archive's pointers are from the record's start, less 8
				ph, ok1 := u32(pdu, bp)
				rh, ok2 := u32(rec, br)
				bl := int(ph & 0xffffff)
				if !ok1 || !ok2 || ph != rh || bl < 4 || bp+bl > len(pdu) || br+bl > len(rec) {
					return
				}
				f.segs = append(f.segs, fastSeg{p: bp + 4, r: br + 4, n: bl - 4})
			}
			p, q = p+4, q+4
		}
		// The next sample's meta must be a no-op for this metric.
		if ms.m.Desc.InDom != pmapi.InDomNull {
			li := ms.ind
			if li == nil || ms.indomGen != li.gen || li.gen == 0 || len(ms.lastInsts) != len(vs.Values) {
				return
			}
			for j := range vs.Values {
				if ms.lastInsts[j] != vs.Values[j].Inst {
					return
				}
			}
			f.inds = append(f.inds, ms)
			f.gens = append(f.gens, li.gen)
		}
	}
	slices.SortFunc(f.segs, func(a, b fastSeg) int { return a.p - b.p })
	f.typ = typ
	f.pdu = append(f.pdu[:0], pdu...)
	f.armed = true
}

// putFast writes the record of pdu by the fast path, if it applies:
// done is false (and nothing written) when the general path must make
// it.
func (l *Logger) putFast(fg *fetchGroup, pdu []byte, typ uint32) (stamp pmapi.Timestamp, done bool, err error) {
	f := &fg.fast
	if typ != f.typ || len(pdu) != len(f.pdu) {
		return stamp, false, nil
	}
	for i, ms := range f.inds {
		if ms.ind.gen != f.gens[i] || ms.indomGen != f.gens[i] {
			return stamp, false, nil
		}
	}
	pos := 0
	old := f.pdu
	for _, s := range f.segs {
		if s.p > pos {
			if !bytes.Equal(pdu[pos:s.p], old[pos:s.p]) {
				return stamp, false, nil
			}
		}
		if e := s.p + s.n; e > pos {
			pos = e
		}
	}
	if !bytes.Equal(pdu[pos:], old[pos:]) {
		return stamp, false, nil
	}
	stamp, ok := l.pduStamp(pdu, typ)
	if !ok {
		return stamp, false, nil
	}
	rec := f.rec
	for _, s := range f.segs {
		if s.r >= 0 {
			copy(rec[s.r:s.r+s.n], pdu[s.p:s.p+s.n])
		}
	}
	if err := l.w.PutEncodedResult(rec, stamp); err != nil {
		return stamp, true, err
	}
	if l.verifyFast != nil {
		l.verifyFast(fg, pdu, typ, rec)
	}
	return stamp, true, nil
}

// generalRecord is what the general path makes of pdu (for the tests:
// it must equal the fast path's record).
func (l *Logger) generalRecord(fg *fetchGroup, ps pduSource, pdu []byte, typ uint32) ([]byte, error) {
	res, err := ps.DecodeResult(pdu, typ)
	if err != nil {
		return nil, err
	}
	r, err := l.select_(fg, res)
	if err != nil {
		return nil, err
	}
	return archive.AppendResultRecord(nil, l.o.Version, r)
}
