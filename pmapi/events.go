package pmapi

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Event record flags (PM_EVENT_FLAG_*).
const (
	EventFlagPoint  = 0x1
	EventFlagStart  = 0x2
	EventFlagEnd    = 0x4
	EventFlagID     = 0x8
	EventFlagParent = 0x10
	EventFlagMissed = 0x80000000
)

// EventParam is one parameter of an event record: a metric and its value
// block payload (padding removed).
type EventParam struct {
	PMID  PMID
	Type  Type
	Value []byte
}

// EventRecord is one record of an event array. For a record flagged
// EventFlagMissed, NParams is the count of records missed.
type EventRecord struct {
	Stamp   Timestamp
	Flags   uint32
	NParams int32
	Params  []EventParam
}

// EventArray is a decoded PM_TYPE_EVENT or PM_TYPE_HIGHRES_EVENT value.
type EventArray struct {
	HighRes bool
	Records []EventRecord
}

// DecodeEvents decodes the payload of an event array value block (the
// bytes after the 4-byte block header). An EVENT record starts with a
// 32-bit seconds and microseconds timestamp; a HIGHRES_EVENT record with a
// 64-bit seconds and 64-bit nanoseconds timestamp; then flags, the
// parameter count and the parameters, each a PMID, a type:8|len:24 word
// (len counting that word) and the value padded to 4 bytes. Every count
// and length is checked against the payload.
func DecodeEvents(b []byte, highres bool) (*EventArray, error) {
	ea := &EventArray{HighRes: highres}
	if len(b) < 4 {
		return nil, fmt.Errorf("event array too short (%d bytes)", len(b))
	}
	n := int32(binary.BigEndian.Uint32(b))
	p := 4
	hdr := 16
	if highres {
		hdr = 24
	}
	if n < 0 || int64(n)*int64(hdr) > int64(len(b)-p) {
		return nil, fmt.Errorf("event array record count %d does not fit in %d bytes", n, len(b))
	}
	ea.Records = make([]EventRecord, 0, n)
	for i := int32(0); i < n; i++ {
		if p+hdr > len(b) {
			return nil, fmt.Errorf("event record %d runs past the array", i)
		}
		var r EventRecord
		if highres {
			r.Stamp = Timestamp{Sec: int64(binary.BigEndian.Uint64(b[p:])), Nsec: int32(binary.BigEndian.Uint64(b[p+8:]))}
			p += 16
		} else {
			r.Stamp = Timestamp{Sec: int64(int32(binary.BigEndian.Uint32(b[p:]))), Nsec: int32(binary.BigEndian.Uint32(b[p+4:])) * 1000}
			p += 8
		}
		r.Flags = binary.BigEndian.Uint32(b[p:])
		r.NParams = int32(binary.BigEndian.Uint32(b[p+4:]))
		p += 8
		if r.Flags&EventFlagMissed == 0 {
			if r.NParams < 0 || int64(r.NParams)*8 > int64(len(b)-p) {
				return nil, fmt.Errorf("event record %d parameter count %d does not fit", i, r.NParams)
			}
			for k := int32(0); k < r.NParams; k++ {
				if p+8 > len(b) {
					return nil, fmt.Errorf("event record %d parameter %d runs past the array", i, k)
				}
				w := binary.BigEndian.Uint32(b[p+4:])
				l := int(w & 0xffffff)
				if l < 4 || p+4+l > len(b) {
					return nil, fmt.Errorf("event record %d parameter %d length %d runs past the array", i, k, l)
				}
				r.Params = append(r.Params, EventParam{
					PMID:  PMID(binary.BigEndian.Uint32(b[p:])),
					Type:  Type(w >> 24),
					Value: b[p+8 : p+4+l],
				})
				p += 4 + (l+3)&^3
				if p > len(b) {
					p = len(b)
				}
			}
		}
		ea.Records = append(ea.Records, r)
	}
	return ea, nil
}

// EventFlagsString names the flags as pmdumplog does: "point",
// "start,id,parent", "missed".
func EventFlagsString(f uint32) string {
	var parts []string
	for _, x := range []struct {
		bit  uint32
		name string
	}{{EventFlagPoint, "point"}, {EventFlagStart, "start"}, {EventFlagEnd, "end"}, {EventFlagID, "id"}, {EventFlagParent, "parent"}, {EventFlagMissed, "missed"}} {
		if f&x.bit != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ",")
}
