package pmctx

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/pcpkit/pcpkit/archive"

	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// AppendValue is pmPrintValue with a width of 1: pmapi.AppendValue for
// the value v of a metric of type typ from a value set of format valfmt,
// and for an event record array its summary, "[N event records (M
// missed) timestamps FIRST...LAST]", the times of day in zone.
func AppendValue(dst []byte, typ pmapi.Type, valfmt int32, v *pmapi.Value, zone *pcptime.Zone) []byte {
	if v.Block == nil && valfmt != pmapi.ValFmtInsitu {
		// an empty value block (sample.aggregate.null)
		vv := *v
		vv.Block = []byte{}
		v = &vv
	}
	if (typ == pmapi.TypeEvent || typ == pmapi.TypeHighresEvent) && v.Block != nil {
		if ea, err := pmapi.DecodeEvents(v.Block, typ == pmapi.TypeHighresEvent); err == nil {
			return appendEventSummary(dst, ea, zone)
		}
	}
	return pmapi.AppendValue(dst, typ, v)
}

// appendEventSummary is pmPrintValue's text for an event record array.
// As libpcp walks the packed records it does not step over a "missed"
// record, so such a record is counted again for each record after it,
// and the last timestamp shown is its.
func appendEventSummary(b []byte, ea *pmapi.EventArray, zone *pcptime.Zone) []byte {
	n := len(ea.Records)
	b = fmt.Appendf(b, "[%d event record", n)
	if n != 1 {
		b = append(b, 's')
	}
	k, missed := 0, int32(0)
	for r := 0; r < n-1; r++ {
		rec := &ea.Records[k]
		if rec.Flags&pmapi.EventFlagMissed != 0 {
			missed += rec.NParams
			continue
		}
		k++
	}
	if missed > 0 {
		b = fmt.Appendf(b, " (%d missed)", missed)
	}
	if n > 0 {
		b = append(b, " timestamp"...)
		if n > 1 {
			b = append(b, 's')
		}
		b = append(b, ' ')
		b = AppendStamp(b, ea.Records[0].Stamp, ea.HighRes, zone)
		if n > 1 {
			b = append(b, "..."...)
			b = AppendStamp(b, ea.Records[k].Stamp, ea.HighRes, zone)
		}
	}
	return append(b, ']')
}

// AppendStamp is pmPrintStamp (milliseconds) or pmPrintHighResStamp
// (nanoseconds): the time of day in zone.
func AppendStamp(b []byte, ts pmapi.Timestamp, highres bool, zone *pcptime.Zone) []byte {
	b = pcptime.AppendClock(b, zone.Civil(ts.Sec))
	if highres {
		return pcptime.AppendFraction(b, int64(ts.Nsec), 9)
	}
	return pcptime.AppendFraction(b, int64(ts.Nsec), 3)
}

// ErrCode is the PCP error code of err, as the tools print it with %d: a
// PCP error's own, -errno for a system error, PM_ERR_GENERIC otherwise.
func ErrCode(err error) int32 {
	if c := archive.Code(err); c != 0 {
		return int32(c)
	}
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return -int32(errno)
	case errors.Is(err, fs.ErrNotExist):
		return -int32(syscall.ENOENT)
	case errors.Is(err, fs.ErrPermission):
		return -int32(syscall.EACCES)
	}
	return int32(pmapi.ErrGeneric)
}
