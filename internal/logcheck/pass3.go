package logcheck

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// instData is the last value seen of one instance of a metric.
type instData struct {
	inst     int32
	lastVal  float64
	lastTime pmapi.Timestamp
}

// checkData is what pass 3 keeps about one metric: nil for a metric
// without a descriptor (reported once).
type checkData struct {
	desc   pmapi.Desc
	valfmt int32
	insts  []instData
}

// pass3 reads the data records from the start of the window to its end
// and checks their timestamps and values. It returns the exit status when
// the check must stop (a value that cannot be read where a metric first
// appears), 0 otherwise.
func (c *checker) pass3() int {
	if c.opt.verbose {
		c.errf("%s: start pass3\n", c.archname)
	}
	c.dayFlag = pcptime.Sub(c.finish, c.start) > 86400
	label := c.a.Label().Start
	// Without -S the read starts from the epoch, so that records before
	// the label's time are read too.
	var last pmapi.Timestamp
	if c.startSet {
		last = c.start
	}
	cur := replay.NewContext(archive.NewSet(c.a, c.path)).RawCursor(last)
	if c.badIndex {
		// pmlogcheck sets a damaged index aside before pass 3: without
		// one libpcp positions at the start of the archive.
		cur.SeekStart()
	}
	c.vol, _ = cur.Position()
	metrics := map[pmapi.PMID]*checkData{}
	var line []byte
	for {
		r, err := cur.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				line = c.appendStamp(append(line[:0], "[after "...), last)
				c.errw.Write(line)
				c.errf("]: pmFetch: error: %s\n", archive.ErrText(err))
				c.fetchFailed = c.v638 // PCP 6.3.8 then exits with 1
			}
			break
		}
		c.results++
		if before(r.Stamp, label) {
			line = c.prefix(line[:0], r.Stamp)
			line = append(line, "]: timestamp before label timestamp: "...)
			line = c.appendStamp(line, label)
			c.errw.Write(append(line, '\n'))
		}
		if before(r.Stamp, last) {
			line = c.prefix(line[:0], r.Stamp)
			line = append(line, "]: timestamp went backwards, prior timestamp: "...)
			line = c.appendStamp(line, last)
			c.errw.Write(append(line, '\n'))
		}
		last = r.Stamp
		if c.finish.Before(r.Stamp) {
			break
		}
		if r.IsMark() {
			// A <mark>: no wrap is reported across it.
			for _, cd := range metrics {
				if cd == nil {
					continue
				}
				for k := range cd.insts {
					cd.insts[k].lastTime.Sec = 0
				}
			}
			c.marks++
			continue
		}
		if rc := c.check(r, metrics); rc != 0 {
			return rc
		}
	}
	return 0
}

// prefix starts a pass 3 line: "archive.vol:[stamp". The volume is the
// one the read started in: libpcp's ac_vol, which the positioning sets
// and the raw reads of the pass do not change.
func (c *checker) prefix(b []byte, t pmapi.Timestamp) []byte {
	b = append(b, c.archname...)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(c.vol), 10)
	b = append(b, ":["...)
	return c.appendStamp(b, t)
}

// appendStamp appends a time as pass 3 prints it: the time of day to the
// millisecond, with the date and the year around it when the window spans
// more than a day.
func (c *checker) appendStamp(b []byte, t pmapi.Timestamp) []byte {
	civ := c.zone.Civil(t.Sec)
	if c.dayFlag {
		b = pcptime.AppendCtimeDate(b, civ)
		b = append(b, ' ')
	}
	b = pcptime.AppendClock(b, civ)
	b = pcptime.AppendFraction(b, int64(t.Nsec), 3)
	if c.dayFlag {
		b = append(b, ' ')
		b = pcptime.AppendYear(b, civ)
	}
	return b
}

// metricName is pmNameAll's names joined with " or ", or the PMID.
func (c *checker) metricName(b []byte, pmid pmapi.PMID) []byte {
	names := c.names.Names(pmid)
	if len(names) == 0 {
		return append(b, pmid.String()...)
	}
	return append(b, strings.Join(names, " or ")...)
}

// check checks the value sets of one record.
func (c *checker) check(r *archive.Record, metrics map[pmapi.PMID]*checkData) int {
	meta := c.a.Meta()
	for i := 0; i < r.NumPMID(); i++ {
		vs := r.VSet(i)
		if vs.NumVal <= 0 {
			continue
		}
		// Records mostly hold the same metrics in the same order: the
		// metric at this position last time is looked up first.
		var cd *checkData
		seen := false
		if i < len(c.byPos) && c.byPos[i].pmid == vs.PMID {
			cd, seen = c.byPos[i].cd, true
		} else {
			cd, seen = metrics[vs.PMID]
		}
		if !seen {
			d, ok := meta.Desc(vs.PMID)
			if !ok {
				c.report(r, vs.PMID, ": pmLookupDesc failed: "+pmapi.ErrPMIDLog.Error())
				metrics[vs.PMID] = nil
				continue
			}
			switch d.Type {
			case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
			default:
				continue // no checks for values that are not numbers
			}
			cd = &checkData{desc: *d, valfmt: vs.ValFmt}
			for j := 0; j < int(vs.NumVal); j++ {
				if !c.newInst(r, vs, j, cd) {
					return 1
				}
			}
			metrics[vs.PMID] = cd
			continue
		}
		c.remember(i, vs.PMID, cd)
		if cd == nil {
			continue
		}
		if cd.valfmt != vs.ValFmt {
			c.report(r, vs.PMID, ": encoding botch valfmt="+strconv.Itoa(int(vs.ValFmt))+" not "+strconv.Itoa(int(cd.valfmt))+" as expected")
			continue
		}
		for j := 0; j < int(vs.NumVal); j++ {
			inst := r.VSetInst(vs, j)
			k := j
			// PCP 6.3.8 tells the values of a singular metric
			// apart by their instance too (old archives hold
			// other numbers than PM_IN_NULL there)
			if vs.NumVal > 1 || cd.desc.InDom != pmapi.InDomNull || c.v638 {
				if k < len(cd.insts) && cd.insts[k].inst != inst {
					for k = 0; k < len(cd.insts); k++ {
						if cd.insts[k].inst == inst {
							break
						}
					}
					if k == len(cd.insts) {
						if !c.newInst(r, vs, j, cd) {
							return 1
						}
						continue
					}
				} else if k >= len(cd.insts) {
					if !c.newInst(r, vs, j, cd) {
						return 1
					}
					continue
				}
			}
			if k >= len(cd.insts) {
				if !c.newInst(r, vs, j, cd) {
					return 1
				}
				continue
			}
			id := &cd.insts[k]
			v, err := c.value(r, vs, j, cd.desc.Type)
			if err != nil {
				c.report(r, vs.PMID, ": pmExtractValue failed: "+archive.ErrText(err))
				continue
			}
			if cd.desc.Sem == pmapi.SemCounter {
				if !id.lastTime.Before(r.Stamp) {
					continue // no time has passed
				}
				if !c.opt.noWrap {
					c.unwrap(r, cd, id, v)
				}
			}
			id.lastVal, id.lastTime = v, r.Stamp
		}
	}
	return 0
}

// value is pmExtractValue of value j of vs as a double, read through
// one reused pmapi.Value (see archive.Record.LoadValue).
func (c *checker) value(r *archive.Record, vs *archive.VSet, j int, t pmapi.Type) (float64, error) {
	if vs.ValFmt == pmapi.ValFmtInsitu {
		// pmapi.Value.Float64's insitu cases, without the copy
		switch x := r.VSetInsitu(vs, j); t {
		case pmapi.Type32:
			return float64(x), nil
		case pmapi.TypeU32:
			return float64(uint32(x)), nil
		}
	}
	if vs.ValFmt != pmapi.ValFmtInsitu {
		// pmapi.Value.Float64's 64-bit cases (blocks of the metric's
		// type, in network order), without the copy
		if bt, b := r.VSetBlock(vs, j); bt == t && len(b) == 8 {
			x := binary.BigEndian.Uint64(b)
			switch t {
			case pmapi.TypeU64:
				return float64(x), nil
			case pmapi.Type64:
				return float64(int64(x)), nil
			case pmapi.TypeDouble:
				return math.Float64frombits(x), nil
			}
		}
	}
	r.LoadValue(vs, j, &c.val)
	return c.val.Float64(t)
}

// posMetric is the metric pass 3 met at one position of a record.
type posMetric struct {
	pmid pmapi.PMID
	cd   *checkData
}

// remember notes the metric at position i of the record being checked.
func (c *checker) remember(i int, pmid pmapi.PMID, cd *checkData) {
	for len(c.byPos) <= i {
		c.byPos = append(c.byPos, posMetric{pmid: pmapi.PMIDNull})
	}
	c.byPos[i] = posMetric{pmid, cd}
}

// report writes "archive.vol:[stamp] metric" and msg.
func (c *checker) report(r *archive.Record, pmid pmapi.PMID, msg string) {
	b := c.prefix(nil, r.Stamp)
	b = append(b, "] "...)
	b = c.metricName(b, pmid)
	b = append(b, msg...)
	c.errw.Write(append(b, '\n'))
}

// newInst starts the history of an instance with its first value. A value
// that cannot be read there ends the check (exit status 1), as it does
// in the real tool.
func (c *checker) newInst(r *archive.Record, vs *archive.VSet, j int, cd *checkData) bool {
	v, err := c.value(r, vs, j, cd.desc.Type)
	if err != nil {
		c.report(r, vs.PMID, ": pmExtractValue failed: "+archive.ErrText(err))
		c.errf("pmlogcheck: possibly corrupt archive?\n")
		return false
	}
	cd.insts = append(cd.insts, instData{inst: r.VSetInst(vs, j), lastVal: v, lastTime: r.Stamp})
	return true
}

// unwrap reports a counter that went backwards since its last value: a
// wrap, for the integer types.
func (c *checker) unwrap(r *archive.Record, cd *checkData, id *instData, v float64) {
	if !(v-id.lastVal < 0 && id.lastTime.Sec > 0) {
		return
	}
	var typ string
	switch cd.desc.Type {
	case pmapi.Type32:
		typ = "signed 32-bit"
	case pmapi.TypeU32:
		typ = "unsigned 32-bit"
	case pmapi.Type64:
		typ = "signed 64-bit"
	case pmapi.TypeU64:
		typ = "unsigned 64-bit"
	default:
		return
	}
	b := c.prefix(nil, r.Stamp)
	b = append(b, "]: "...)
	b = c.metricName(b, cd.desc.PMID)
	if name, ok := c.instName(cd.desc.InDom, id.inst); ok {
		b = append(b, '[')
		b = append(b, name...)
		b = append(b, "]: "...)
	} else {
		b = append(b, ": "...)
	}
	b = append(b, typ...)
	b = append(b, " wrap\n\tvalue "...)
	b = strconv.AppendFloat(b, math.RoundToEven(id.lastVal), 'f', 0, 64)
	b = append(b, " at "...)
	b = c.appendStamp(b, id.lastTime)
	b = append(b, "\n\tvalue "...)
	b = strconv.AppendFloat(b, math.RoundToEven(v), 'f', 0, 64)
	b = append(b, " at "...)
	b = c.appendStamp(b, r.Stamp)
	if c.v638 && c.opt.verbose {
		// PCP 6.3.8 adds how far the counter went back (with -v)
		b = append(b, "\n\tdifference "...)
		b = strconv.AppendFloat(b, math.RoundToEven(v-id.lastVal), 'f', 0, 64)
	}
	c.errw.Write(append(b, '\n'))
}

// instName is pmNameInDomArchive: the instance's name in the latest
// state of the instance domain that has it.
func (c *checker) instName(indom pmapi.InDom, inst int32) (string, bool) {
	if indom == pmapi.InDomNull {
		return "", false
	}
	hist := c.a.Meta().InDomHistory(indom)
	for i := len(hist) - 1; i >= 0; i-- {
		if name, ok := hist[i].Lookup(inst); ok {
			return name, true
		}
	}
	return "", false
}
