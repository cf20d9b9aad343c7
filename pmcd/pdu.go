package pmcd

import (
	"encoding/binary"
	"fmt"
	"math"
)

// PDU types (PDU_* in libpcp's pmapi.h / libpcp.h).
const (
	pduError         = 0x7000
	pduResult        = 0x7001
	pduProfile       = 0x7002
	pduFetch         = 0x7003
	pduDescReq       = 0x7004
	pduDesc          = 0x7005
	pduInstanceReq   = 0x7006
	pduInstance      = 0x7007
	pduTextReq       = 0x7008
	pduText          = 0x7009
	pduCreds         = 0x700c
	pduPMNSIDs       = 0x700d
	pduPMNSNames     = 0x700e
	pduPMNSChild     = 0x700f
	pduPMNSTraverse  = 0x7010
	pduAttr          = 0x7011
	pduLabelReq      = 0x7012
	pduLabel         = 0x7013
	pduHighresFetch  = 0x7014
	pduHighresResult = 0x7015
	pduDescIDs       = 0x7016
	pduDescs         = 0x7017
)

// hdrLen is the size of the PDU header: len, type, from.
const hdrLen = 12

// NumPDUTypes is the number of PDU types a Client counts (libpcp's
// PDU_MAX in PCP 6.0.3): ERROR (0x7000) to DESC_IDS (0x7016).
const NumPDUTypes = 23

// PDUCounts are the PDUs a Client has sent and received since it was
// made, by type: index i counts type 0x7000+i, as libpcp's
// __pmPDUCntOut and __pmPDUCntIn count them (pmprobe -V prints them).
// The handshake's PDUs count; PDUs of other types do not.
type PDUCounts struct {
	Sent, Received [NumPDUTypes]uint64
}

// countPDU counts one PDU of type typ in n.
func countPDU(n *[NumPDUTypes]uint64, typ uint32) {
	if i := typ - pduError; i < NumPDUTypes {
		n[i]++
	}
}

// countSent counts the PDUs in b, one or more whole PDUs as written.
func (c *PDUCounts) countSent(b []byte) {
	for len(b) >= hdrLen {
		n := binary.BigEndian.Uint32(b)
		countPDU(&c.Sent, binary.BigEndian.Uint32(b[4:]))
		if n < hdrLen || uint64(n) > uint64(len(b)) {
			return
		}
		b = b[n:]
	}
}

// DefaultMaxPDU is the largest PDU the client accepts from pmcd unless
// WithMaxPDU says otherwise.
const DefaultMaxPDU = 64 << 20

// pduName names a PDU type as libpcp's __pmPDUTypeStr does.
func pduName(t uint32) string {
	switch t {
	case pduError:
		return "ERROR"
	case pduResult:
		return "RESULT"
	case pduProfile:
		return "PROFILE"
	case pduFetch:
		return "FETCH"
	case pduDescReq:
		return "DESC_REQ"
	case pduDesc:
		return "DESC"
	case pduInstanceReq:
		return "INSTANCE_REQ"
	case pduInstance:
		return "INSTANCE"
	case pduTextReq:
		return "TEXT_REQ"
	case pduText:
		return "TEXT"
	case pduCreds:
		return "CREDS"
	case pduPMNSIDs:
		return "PMNS_IDS"
	case pduPMNSNames:
		return "PMNS_NAMES"
	case pduPMNSChild:
		return "PMNS_CHILD"
	case pduPMNSTraverse:
		return "PMNS_TRAVERSE"
	case pduAttr:
		return "ATTR"
	case pduLabelReq:
		return "LABEL_REQ"
	case pduLabel:
		return "LABEL"
	case pduHighresFetch:
		return "HIGHRES_FETCH"
	case pduHighresResult:
		return "HIGHRES_RESULT"
	case pduDescIDs:
		return "DESC_IDS"
	case pduDescs:
		return "DESCS"
	}
	return fmt.Sprintf("TYPE-0x%x", t)
}

// Features are the bits of the __pmPDUInfo word pmcd sends in the
// handshake (PDU_FLAG_* in libpcp.h).
type Features uint16

// The feature bits.
const (
	FeatureSecure     Features = 0x0001 // PDU_FLAG_SECURE: TLS available
	FeatureCompress   Features = 0x0002 // PDU_FLAG_COMPRESS
	FeatureAuth       Features = 0x0004 // PDU_FLAG_AUTH: SASL available
	FeatureCredsReqd  Features = 0x0008 // PDU_FLAG_CREDS_REQD
	FeatureSecureAck  Features = 0x0010 // PDU_FLAG_SECURE_ACK
	FeatureNoNSSInit  Features = 0x0020 // PDU_FLAG_NO_NSS_INIT
	FeatureContainer  Features = 0x0040 // PDU_FLAG_CONTAINER
	FeatureCertReqd   Features = 0x0080 // PDU_FLAG_CERT_REQD
	FeatureBadLabel   Features = 0x0100 // PDU_FLAG_BAD_LABEL
	FeatureLabels     Features = 0x0200 // PDU_FLAG_LABELS
	FeatureHighres    Features = 0x0400 // PDU_FLAG_HIGHRES
	FeatureDescs      Features = 0x0800 // PDU_FLAG_DESCS
	credsVersion               = 1      // CVERSION in the CREDS word
	pduVersion2                = 2      // PDU_VERSION2
	profileIncludeAll          = 0      // PM_PROFILE_INCLUDE
	profileExclude             = 1      // PM_PROFILE_EXCLUDE
)

// xlateErr1To2 translates an error code of the PCP 1.x PDU protocol, as
// pmcd sends it in the handshake, to a PCP 2+ code (XLATE_ERR_1TO2).
func xlateErr1To2(c int32) int32 {
	if c <= -1000 {
		return c + 1000 - 12345
	}
	return c
}

// ---------------------------------------------------------------------------
// Encoding: requests are built into a reused buffer.

func appendU32(b []byte, v uint32) []byte {
	return binary.BigEndian.AppendUint32(b, v)
}

// appendStr appends a string padded with '~' to 4 bytes (no length).
func appendStr(b []byte, s string) []byte {
	b = append(b, s...)
	for n := len(s); n%4 != 0; n++ {
		b = append(b, '~')
	}
	return b
}

// startPDU starts a PDU in b[:0] with type t; finishPDU fills in the length.
func startPDU(b []byte, t uint32, from uint32) []byte {
	b = appendU32(b[:0], 0)
	b = appendU32(b, t)
	return appendU32(b, from)
}

func finishPDU(b []byte) []byte {
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	return b
}

// attrContainer is PCP_ATTR_CONTAINER, the ATTR PDU's key for a
// container name.
const attrContainer = 15

// ---------------------------------------------------------------------------
// Decoding: every read is bounds-checked; the first failure sticks.

// DecodeError is a malformed PDU from pmcd: its type and what was wrong.
// After one, the connection is closed (the byte stream cannot be trusted)
// and Client.Lost reports true for it.
type DecodeError struct {
	PDU    string // the PDU type, e.g. "HIGHRES_RESULT"
	Detail string // what was wrong with it
}

func (e *DecodeError) Error() string { return "pmcd: bad " + e.PDU + " PDU: " + e.Detail }

// reader reads big-endian words from a PDU. pos counts from the PDU's
// first byte (value pointers are offsets from there).
type reader struct {
	b   []byte
	pos int
	typ uint32
	err error
}

func newReader(pdu []byte, typ uint32) reader {
	return reader{b: pdu, pos: hdrLen, typ: typ}
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = &DecodeError{PDU: pduName(r.typ), Detail: fmt.Sprintf(format, args...)}
	}
}

func (r *reader) u32(what string) uint32 {
	if r.err != nil {
		return 0
	}
	if len(r.b)-r.pos < 4 {
		r.fail("truncated at %s (offset %d of %d bytes)", what, r.pos, len(r.b))
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return v
}

func (r *reader) i32(what string) int32 { return int32(r.u32(what)) }

func (r *reader) i64(what string) int64 {
	hi := r.u32(what)
	lo := r.u32(what)
	return int64(uint64(hi)<<32 | uint64(lo))
}

// count reads a count of items each at least min bytes long, refusing a
// negative count or one that cannot fit in the rest of the PDU.
func (r *reader) count(what string, min int) int {
	v := r.i32(what)
	if r.err != nil {
		return 0
	}
	if v < 0 {
		r.fail("negative %s %d", what, v)
		return 0
	}
	if min > 0 && int64(v) > int64(len(r.b)-r.pos)/int64(min) {
		r.fail("%s %d does not fit in the %d bytes left", what, v, len(r.b)-r.pos)
		return 0
	}
	return int(v)
}

// bytes returns the next n bytes (aliasing the PDU) and skips them plus
// the padding to a 4-byte boundary (the padding may be missing at the very
// end of the PDU).
func (r *reader) bytes(what string, n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.fail("%s of %d bytes overruns the PDU (offset %d of %d bytes)", what, n, r.pos, len(r.b))
		return nil
	}
	s := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	if p := (4 - n%4) % 4; p <= len(r.b)-r.pos {
		r.pos += p
	} else {
		r.pos = len(r.b)
	}
	return s
}

// str reads a length word and that many bytes, padded to 4.
func (r *reader) str(what string) string {
	n := r.i32(what + " length")
	if r.err != nil {
		return ""
	}
	if n < 0 {
		r.fail("negative %s length %d", what, n)
		return ""
	}
	return string(r.bytes(what, int(n)))
}

// validStamp reports whether a timestamp is sane: nanoseconds in range.
func validStamp(sec int64, nsec int64) bool {
	return nsec >= 0 && nsec < 1e9 && sec > math.MinInt64/2
}

// String lists the feature bits by name, e.g. "AUTH|CONTAINER|LABELS|HIGHRES|DESCS".
func (f Features) String() string {
	names := []string{"SECURE", "COMPRESS", "AUTH", "CREDS_REQD", "SECURE_ACK", "NO_NSS_INIT", "CONTAINER", "CERT_REQD", "BAD_LABEL", "LABELS", "HIGHRES", "DESCS"}
	s := ""
	for i, n := range names {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	if rest := f &^ (1<<len(names) - 1); rest != 0 {
		if s != "" {
			s += "|"
		}
		s += fmt.Sprintf("0x%x", uint16(rest))
	}
	if s == "" {
		return "0"
	}
	return s
}
