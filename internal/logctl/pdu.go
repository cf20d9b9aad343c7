package logctl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// PDU types (libpcp's PDU_*).
const (
	pduError      = 0x7000
	pduResult     = 0x7001
	pduCreds      = 0x700c
	pduLogControl = 0x8000
	pduLogRequest = 0x8002
	pduLogStatus  = 0x8003
)

const hdrLen = 12

// MaxPDU bounds the length of a client PDU; longer ones end the
// connection. Requests from pmlc are small (a query of n metrics is about
// 8n bytes plus 8 per instance).
const MaxPDU = 1 << 20

// Log request types (LOG_REQUEST_*), and the QA requests.
const (
	reqNewVolume = 1
	reqStatus    = 2
	reqSync      = 3
	reqQAOff     = 100
	reqQASleepy  = 101
)

// Control values (PM_LOG_*).
const (
	logMandatory = 11
	logAdvisory  = 12
	logEnquire   = 13
)

// Versions of the control protocol (LOG_PDU_VERSION2/3).
const (
	logPDUVersion2 = 2
	logPDUVersion3 = 3
)

// credVersion is CVERSION, the credential type carrying the PDU version.
const credVersion = 1

// Logging state bits in a control reply value (PMLC_*).
const (
	stateOn    = 0x1
	stateMand  = 0x2
	stateAvail = 0x4
	stateInLog = 0x8
	maxDelta   = 0x0fffffff // msec, 28 bits
)

// Log status states (PM_LOG_STATE_*).
const (
	logStateNew  = 0
	logStateInit = 1
)

// Fixed string sizes of the version 2 status PDU.
const (
	v2HostLen = 64 // PM_LOG_MAXHOSTLEN
	v2TZLen   = 40 // PM_TZ_MAXLEN
)

// errIPC and friends are the codes the server sends.
var (
	codeIPC        = int32(pmapi.ErrIPC)
	codePermission = int32(pmapi.ErrPermission)
	codeGeneric    = int32(pmapi.ErrGeneric)
	codeAddrInUse  = int32(-98) // -EADDRINUSE (Linux)
)

func putHeader(b []byte, typ int32, from int32) {
	binary.BigEndian.PutUint32(b[0:], uint32(len(b)))
	binary.BigEndian.PutUint32(b[4:], uint32(typ))
	binary.BigEndian.PutUint32(b[8:], uint32(from))
}

// encodeError returns an ERROR PDU with code, from from.
func encodeError(from, code int32) []byte {
	b := make([]byte, hdrLen+4)
	putHeader(b, pduError, from)
	binary.BigEndian.PutUint32(b[12:], uint32(code))
	return b
}

// errMalformed is returned by the decoders for a PDU that is too short or
// inconsistent.
var errMalformed = errors.New("logctl: malformed PDU")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errMalformed}, args...)...)
}

// decodeCreds decodes a CREDS PDU body (after the header) and returns the
// version announced (0 when none).
func decodeCreds(body []byte) (version int, err error) {
	if len(body) < 4 {
		return 0, malformed("CREDS: %d bytes", len(body))
	}
	n := int32(binary.BigEndian.Uint32(body))
	if n < 0 || int64(n)*4 > int64(len(body)-4) {
		return 0, malformed("CREDS: %d credentials in %d bytes", n, len(body)-4)
	}
	for i := int32(0); i < n; i++ {
		c := body[4+4*i:]
		if c[0] == credVersion {
			version = int(c[1])
		}
	}
	return version, nil
}

// decodeLogRequest decodes a LOG_REQUEST body.
func decodeLogRequest(body []byte) (int32, error) {
	if len(body) < 4 {
		return 0, malformed("LOG_REQUEST: %d bytes", len(body))
	}
	return int32(binary.BigEndian.Uint32(body)), nil
}

// controlReq is a decoded LOG_CONTROL request.
type controlReq struct {
	Control int32
	State   int32
	Delta   int32
	PMIDs   []pmapi.PMID
	Insts   [][]int32 // nil: all instances (numval <= 0)
}

// decodeLogControl decodes a LOG_CONTROL body.
func decodeLogControl(body []byte) (*controlReq, error) {
	if len(body) < 16 {
		return nil, malformed("LOG_CONTROL: %d bytes", len(body))
	}
	r := &controlReq{
		Control: int32(binary.BigEndian.Uint32(body[0:])),
		State:   int32(binary.BigEndian.Uint32(body[4:])),
		Delta:   int32(binary.BigEndian.Uint32(body[8:])),
	}
	n := int32(binary.BigEndian.Uint32(body[12:]))
	p := body[16:]
	if n < 0 || int64(n)*8 > int64(len(p)) {
		return nil, malformed("LOG_CONTROL: %d metrics in %d bytes", n, len(p))
	}
	r.PMIDs = make([]pmapi.PMID, n)
	r.Insts = make([][]int32, n)
	for i := range r.PMIDs {
		if len(p) < 8 {
			return nil, malformed("LOG_CONTROL: metric %d truncated", i)
		}
		r.PMIDs[i] = pmapi.PMID(binary.BigEndian.Uint32(p))
		nv := int32(binary.BigEndian.Uint32(p[4:]))
		p = p[8:]
		if nv <= 0 {
			continue
		}
		if int64(nv)*8 > int64(len(p)) {
			return nil, malformed("LOG_CONTROL: metric %d: %d instances in %d bytes", i, nv, len(p))
		}
		insts := make([]int32, nv)
		for j := range insts {
			insts[j] = int32(binary.BigEndian.Uint32(p[8*j:]))
		}
		r.Insts[i] = insts
		p = p[8*nv:]
	}
	return r, nil
}

// encodeControlRequest encodes a LOG_CONTROL PDU as pmlc sends it (for
// tests and fuzz seeds).
func encodeControlRequest(control, state, delta int32, pmids []pmapi.PMID, insts [][]int32) []byte {
	n := hdrLen + 16
	for i := range pmids {
		n += 8
		if i < len(insts) {
			n += 8 * len(insts[i])
		}
	}
	b := make([]byte, hdrLen, n)
	b = binary.BigEndian.AppendUint32(b, uint32(control))
	b = binary.BigEndian.AppendUint32(b, uint32(state))
	b = binary.BigEndian.AppendUint32(b, uint32(delta))
	b = binary.BigEndian.AppendUint32(b, uint32(len(pmids)))
	for i, id := range pmids {
		var in []int32
		if i < len(insts) {
			in = insts[i]
		}
		b = binary.BigEndian.AppendUint32(b, uint32(id))
		b = binary.BigEndian.AppendUint32(b, uint32(len(in)))
		for _, x := range in {
			b = binary.BigEndian.AppendUint32(b, uint32(x))
			b = binary.BigEndian.AppendUint32(b, 0)
		}
	}
	putHeader(b, pduLogControl, 0)
	return b
}

// stateValue encodes an instance's logging state as a control reply value.
func stateValue(s InstState) int32 {
	var v uint32
	if s.Maybe {
		// "maybe" is advisory off on the wire
	} else {
		if s.On {
			v |= stateOn
		}
		if s.Mandatory {
			v |= stateMand
		}
	}
	if s.Available {
		v |= stateAvail
	}
	if s.InLog {
		v |= stateInLog
	}
	if s.On && !s.Maybe && s.Interval > 0 {
		ms := s.Interval.Milliseconds()
		if ms <= 0 {
			ms = 1
		}
		if ms > maxDelta {
			ms = maxDelta
		}
		v |= uint32(ms) << 4
	}
	return int32(v)
}

// errorCode turns err into a PCP error code for the wire.
func errorCode(err error) int32 {
	var pe pmapi.Error
	if errors.As(err, &pe) && pe < 0 {
		return int32(pe)
	}
	return codeGeneric
}

// encodeQueryResult encodes the RESULT answering an enquire request req
// with the handler's states.
func encodeQueryResult(req *controlReq, states []MetricState) []byte {
	b := make([]byte, hdrLen, 256)
	b = binary.BigEndian.AppendUint32(b, 0) // tv_sec
	b = binary.BigEndian.AppendUint32(b, 0) // tv_usec
	b = binary.BigEndian.AppendUint32(b, uint32(len(req.PMIDs)))
	for i, id := range req.PMIDs {
		var ms MetricState
		if i < len(states) {
			ms = states[i]
		}
		b = binary.BigEndian.AppendUint32(b, uint32(id))
		if ms.Err != nil {
			b = binary.BigEndian.AppendUint32(b, uint32(errorCode(ms.Err)))
			continue
		}
		if want := req.Insts[i]; len(want) > 0 {
			b = binary.BigEndian.AppendUint32(b, uint32(len(want)))
			b = binary.BigEndian.AppendUint32(b, 0) // PM_VAL_INSITU
			for _, inst := range want {
				var v int32
				for _, s := range ms.Insts {
					if s.Inst == inst {
						v = stateValue(s)
						break
					}
				}
				b = binary.BigEndian.AppendUint32(b, uint32(inst))
				b = binary.BigEndian.AppendUint32(b, uint32(v))
			}
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(ms.Insts)))
		if len(ms.Insts) == 0 {
			continue
		}
		b = binary.BigEndian.AppendUint32(b, 0) // PM_VAL_INSITU
		for _, s := range ms.Insts {
			b = binary.BigEndian.AppendUint32(b, uint32(s.Inst))
			b = binary.BigEndian.AppendUint32(b, uint32(stateValue(s)))
		}
	}
	putHeader(b, pduResult, 0)
	return b
}

// appendStamp3 appends a version 3 timestamp: seconds low word, seconds
// high word, nanoseconds.
func appendStamp3(b []byte, t time.Time) []byte {
	var sec int64
	var nsec int32
	if !t.IsZero() {
		sec, nsec = t.Unix(), int32(t.Nanosecond())
	}
	b = binary.BigEndian.AppendUint32(b, uint32(uint64(sec)))
	b = binary.BigEndian.AppendUint32(b, uint32(uint64(sec)>>32))
	return binary.BigEndian.AppendUint32(b, uint32(nsec))
}

func appendTimeval(b []byte, t time.Time) []byte {
	var sec, usec int32
	if !t.IsZero() {
		sec, usec = int32(t.Unix()), int32(t.Nanosecond()/1000)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(sec))
	return binary.BigEndian.AppendUint32(b, uint32(usec))
}

func statusState(st Status) int32 {
	if st.Start.IsZero() {
		return logStateNew
	}
	return logStateInit
}

// encodeStatus encodes a LOG_STATUS PDU for a client of the given version.
func encodeStatus(st Status, version int) []byte {
	if version == logPDUVersion2 {
		return encodeStatusV2(st)
	}
	fqdn := st.FQDN
	if fqdn == "" {
		fqdn = st.PMCDHost
	}
	strs := []string{st.PMCDHost, fqdn, st.TZ, st.Zoneinfo, st.LoggerTZ, st.LoggerZoneinfo}
	b := make([]byte, hdrLen, 128)
	b = appendStamp3(b, st.Start)
	b = appendStamp3(b, st.Last)
	b = appendStamp3(b, st.Now)
	b = binary.BigEndian.AppendUint32(b, uint32(statusState(st)))
	b = binary.BigEndian.AppendUint32(b, uint32(int32(st.Volume)))
	b = binary.BigEndian.AppendUint64(b, uint64(st.Size))
	// pmlc 6.0.3 strdup()s the host name and the pmlogger timezone
	// without checking for NULL: those (and the fqdn and pmcd timezone,
	// which the real pmlogger always sends) go out even when empty, as
	// a lone NUL; the zoneinfo strings are absent when empty.
	present := func(i int) bool { return (i != 3 && i != 5) || strs[i] != "" }
	for i, s := range strs {
		n := 0
		if present(i) {
			n = len(s) + 1
		}
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	for i, s := range strs {
		if present(i) {
			b = append(b, s...)
			b = append(b, 0)
		}
	}
	for len(b)%4 != 0 {
		b = append(b, '~')
	}
	putHeader(b, pduLogStatus, 0)
	return b
}

func appendFixed(b []byte, s string, n int) []byte {
	if len(s) > n-1 {
		s = s[:n-1]
	}
	b = append(b, s...)
	for i := len(s); i < n; i++ {
		b = append(b, 0)
	}
	return b
}

func encodeStatusV2(st Status) []byte {
	fqdn := st.FQDN
	if fqdn == "" {
		fqdn = st.PMCDHost
	}
	b := make([]byte, hdrLen, hdrLen+4+24+16+2*v2HostLen+2*v2TZLen)
	b = append(b, '~', '~', '~', '~')
	b = appendTimeval(b, st.Start)
	b = appendTimeval(b, st.Last)
	b = appendTimeval(b, st.Now)
	b = binary.BigEndian.AppendUint32(b, uint32(statusState(st)))
	b = binary.BigEndian.AppendUint32(b, uint32(int32(st.Volume)))
	b = binary.BigEndian.AppendUint64(b, uint64(st.Size))
	b = appendFixed(b, st.PMCDHost, v2HostLen)
	b = appendFixed(b, fqdn, v2HostLen)
	b = appendFixed(b, st.TZ, v2TZLen)
	b = appendFixed(b, st.LoggerTZ, v2TZLen)
	putHeader(b, pduLogStatus, 0)
	return b
}
