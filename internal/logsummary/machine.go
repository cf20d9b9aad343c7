package logsummary

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/internal/jsonfmt"
	"github.com/pcpkit/pcpkit/pmapi"
)

// outFormat is the form of the output: the real tool's text, or pcpkit's
// --json or --csv (docs/pmlogsummary.md).
type outFormat int

const (
	textFormat outFormat = iota
	jsonFormat
	csvFormat
)

// doc is what --json and --csv print for one archive (or multi-archive
// context): what is known of it, and one row per metric instance, with
// the numbers the text would show, unrounded.
type doc struct {
	archive  string
	opened   bool // the label fields are set
	host     string
	tz       string
	version  int
	windowed bool // start and end are set
	start    tv
	end      tv // end.sec == intMax: unknown
	rows     []row
	status   int
	messages bytes.Buffer // what went to stderr
}

// row is one metric instance: one line of the text output.
type row struct {
	metric       string
	pmid         pmapi.PMID
	hasInst      bool // the metric has an instance domain
	inst         int32
	named        bool // the instance has a name
	instName     string
	shortSpan    bool // the text's "*": a counter seen over at most 10% of the window
	insufficient bool // the text's "- insufficient archive data."
	stocave      float64
	timeave      float64
	sum          float64
	min          float64
	max          float64
	mintime      tv
	maxtime      tv
	count        uint32
	bins         []bin
	units        string
}

// bin is one bin of -B: its upper bound (NaN for the text's "[]", the
// bins after the first when every value was the same) and its count.
type bin struct {
	le    float64
	count uint32
}

// column is an optional column: its name, and whether the options
// select it.
type column struct {
	name string
	on   bool
}

// columns are the optional columns in the text's order (bins and units
// follow them).
func (o *options) columns() []column {
	return []column{
		{"stochastic_average", o.stocaveflag},
		{"time_average", o.timeaveflag},
		{"sum", o.sumflag},
		{"minimum", o.minflag},
		{"minimum_time", o.mintimeflag},
		{"maximum", o.maxflag},
		{"maximum_time", o.maxtimeflag},
		{"count", o.countflag},
	}
}

// csvHeader is the header row of --csv.
func (o *options) csvHeader() []string {
	h := []string{"archive", "metric", "pmid", "inst", "instname", "short_span", "insufficient"}
	for _, c := range o.columns() {
		if c.on {
			h = append(h, c.name)
		}
	}
	for j := 1; j <= o.nbins; j++ {
		n := strconv.Itoa(j)
		h = append(h, "bin"+n+"_le", "bin"+n+"_count")
	}
	return append(h, "units")
}

// appendStampJSON appends a time (microseconds, the resolution the tool
// works at) in the one format of pcpkit's JSON times, jsonfmt.TimeLayout.
func appendStampJSON(b []byte, t tv) []byte {
	return time.Unix(t.sec, t.usec*1000).UTC().AppendFormat(b, jsonfmt.TimeLayout)
}

// appendNum appends a double in full: the shortest text that reads back
// as the same double (JSON's number syntax), or for infinities and NaNs
// the text the real tool prints ("inf", "-inf", "nan", "-nan"), quoted
// when quote is set.
func appendNum(b []byte, f float64, quote bool) []byte {
	if math.IsInf(f, 0) || f != f {
		if quote {
			b = append(b, '"')
		}
		b = appendFixed(b, f, 0)
		if quote {
			b = append(b, '"')
		}
		return b
	}
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// 1e-07, as encoding/json writes it: 1e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendJSON appends the document as one line of JSON.
func (d *doc) appendJSON(b []byte, o *options) []byte {
	b = append(b, `{"archive":`...)
	b = jsonfmt.AppendString(b, d.archive)
	if d.opened {
		b = append(b, `,"host":`...)
		b = jsonfmt.AppendString(b, d.host)
		b = append(b, `,"timezone":`...)
		b = jsonfmt.AppendString(b, d.tz)
		b = append(b, `,"format_version":`...)
		b = strconv.AppendInt(b, int64(d.version), 10)
	}
	if d.windowed {
		b = append(b, `,"start":"`...)
		b = appendStampJSON(b, d.start)
		b = append(b, `","end":`...)
		if d.end.sec == intMax {
			b = append(b, "null"...)
		} else {
			b = append(b, '"')
			b = appendStampJSON(b, d.end)
			b = append(b, '"')
		}
		b = append(b, `,"metrics":[`...)
		cols := o.columns()
		for i := range d.rows {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.rows[i].appendJSON(b, cols, o.nbins)
		}
		b = append(b, ']')
	}
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(d.status), 10)
	b = append(b, `,"messages":[`...)
	for i, m := range d.messageLines() {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonfmt.AppendString(b, m)
	}
	return append(b, "]}\n"...)
}

// messageLines are the lines written to stderr, without the empty ones.
func (d *doc) messageLines() []string {
	var out []string
	for _, l := range strings.Split(d.messages.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendJSON appends the row as a JSON object.
func (r *row) appendJSON(b []byte, cols []column, nbins int) []byte {
	b = append(b, `{"metric":`...)
	b = jsonfmt.AppendString(b, r.metric)
	b = append(b, `,"pmid":"`...)
	b = append(b, r.pmid.String()...)
	b = append(b, `","inst":`...)
	if r.hasInst {
		b = strconv.AppendInt(b, int64(r.inst), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"instname":`...)
	if r.named {
		b = jsonfmt.AppendString(b, r.instName)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"short_span":`...)
	b = appendBool(b, r.shortSpan)
	b = append(b, `,"insufficient":`...)
	b = appendBool(b, r.insufficient)
	for k, c := range cols {
		if !c.on {
			continue
		}
		b = append(b, ',', '"')
		b = append(b, c.name...)
		b = append(b, '"', ':')
		if r.insufficient {
			b = append(b, "null"...)
			continue
		}
		b = r.appendField(b, k, true)
	}
	if nbins > 0 {
		b = append(b, `,"bins":`...)
		if r.insufficient {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, x := range r.bins {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"le":`...)
				if x.le != x.le {
					b = append(b, "null"...)
				} else {
					b = appendNum(b, x.le, true)
				}
				b = append(b, `,"count":`...)
				b = strconv.AppendUint(b, uint64(x.count), 10)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	}
	b = append(b, `,"units":`...)
	b = jsonfmt.AppendString(b, r.units)
	return append(b, '}')
}

// appendField appends optional column k (see columns) of the row; times
// are quoted when quote is set.
func (r *row) appendField(b []byte, k int, quote bool) []byte {
	stamp := func(t tv) []byte {
		if quote {
			b = append(b, '"')
		}
		b = appendStampJSON(b, t)
		if quote {
			b = append(b, '"')
		}
		return b
	}
	switch k {
	case 0:
		return appendNum(b, r.stocave, quote)
	case 1:
		return appendNum(b, r.timeave, quote)
	case 2:
		return appendNum(b, r.sum, quote)
	case 3:
		return appendNum(b, r.min, quote)
	case 4:
		return stamp(r.mintime)
	case 5:
		return appendNum(b, r.max, quote)
	case 6:
		return stamp(r.maxtime)
	case 7:
		return strconv.AppendUint(b, uint64(r.count), 10)
	}
	return b
}

// writeCSV writes the rows of the document (the header is written once
// per output, by the caller).
func (d *doc) writeCSV(w io.Writer, o *options) error {
	cw := csv.NewWriter(w)
	cols := o.columns()
	var b []byte
	for i := range d.rows {
		r := &d.rows[i]
		rec := []string{d.archive, r.metric, r.pmid.String(), "", "", strconv.FormatBool(r.shortSpan), strconv.FormatBool(r.insufficient)}
		if r.hasInst {
			rec[3] = strconv.Itoa(int(r.inst))
		}
		if r.named {
			rec[4] = r.instName
		}
		for k, c := range cols {
			if !c.on {
				continue
			}
			if r.insufficient {
				rec = append(rec, "")
				continue
			}
			b = r.appendField(b[:0], k, false)
			rec = append(rec, string(b))
		}
		for j := 0; j < o.nbins; j++ {
			if r.insufficient || j >= len(r.bins) {
				rec = append(rec, "", "")
				continue
			}
			le := ""
			if x := r.bins[j].le; x == x {
				le = string(appendNum(b[:0], x, false))
			}
			rec = append(rec, le, strconv.FormatUint(uint64(r.bins[j].count), 10))
		}
		rec = append(rec, r.units)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeCSVHeader writes the header row of --csv.
func (o *options) writeCSVHeader(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(o.csvHeader())
	cw.Flush()
	return cw.Error()
}

// runOne summarises one archive (or multi-archive context) name with the
// metric arguments: as text, or as one --json object or the --csv header
// and rows.
func (s *summary) runOne(name string, metrics []string) int {
	s.archiveName, s.metricArgs = name, metrics
	if s.format == textFormat {
		return s.summarise()
	}
	if s.format == csvFormat {
		s.writeCSVHeader(s.out)
	}
	return s.summariseDoc()
}

// summariseDoc is summarise for --json and --csv: the rows go to s.doc,
// what goes to stderr is kept too, and the document is written at the
// end.
func (s *summary) summariseDoc() int {
	d := &doc{archive: s.archiveName}
	s.doc = d
	errw := s.errw
	s.errw = io.MultiWriter(errw, &d.messages)
	d.status = s.summarise()
	s.errw = errw
	switch s.format {
	case jsonFormat:
		s.buf = d.appendJSON(s.buf[:0], &s.options)
		s.out.Write(s.buf)
	case csvFormat:
		d.writeCSV(s.out, &s.options)
	}
	return d.status
}
