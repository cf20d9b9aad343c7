package sampler

import (
	"encoding/csv"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Filter holds pmrep's instance filters and value filters, as pmconfig
// (PCP 6.0.3's pcp/pmconfig.py) applies them.
type Filter struct {
	// Instances (-i, each argument split as pmrep splits it) keep, of
	// the metrics with instances, the instances they name (a number: the
	// process of that PID; a command: the processes running it; else a
	// regular expression of the whole name), in the order of the
	// filters; a metric none of whose instances is named is left out.
	Instances []string
	// LiveFilter (-j): the instances are not chosen when the metrics are
	// but at each sample (by command or regular expression), the
	// others' values left out; InvertFilter (-n) does it after the
	// ranking instead of before.
	LiveFilter, InvertFilter bool
	// Rank (-J) keeps at each sample the Rank highest values of each
	// metric (the -Rank lowest when negative); 0 is no ranking.
	Rank int
	// Limit (-8), LimitForce (-9): values below Limit (above -Limit when
	// negative) are left out; LimitForce, when not 0, overrides Limit.
	Limit, LimitForce int
}

// parseOption applies pmrep's filter option short (-i, -j, -n, -J, -8,
// -9) with its argument arg to f, as ParseOption does.
func (f *Filter) parseOption(short rune, arg string) (ok bool, complaint string) {
	var n *int
	var name string
	switch short {
	case 'i':
		f.Instances = append(f.Instances, SplitInstances(arg)...)
		return true, ""
	case 'j':
		f.LiveFilter = true
		return true, ""
	case 'n':
		f.InvertFilter = true
		return true, ""
	case 'J':
		n, name = &f.Rank, "rank"
	case '8':
		n, name = &f.Limit, "limit_filter"
	case '9':
		n, name = &f.LimitForce, "limit_filter_force"
	default:
		return false, ""
	}
	if arg == "" {
		return true, "" // pmrep: an empty value is none
	}
	// Python's int(): blanks around, a sign, digits
	v, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil {
		return true, "Error while reading option " + name + ": Integer expected."
	}
	*n = v
	return true, ""
}

// SplitInstances splits an instance argument (-i, or a metricspec's) as
// pmrep does: a CSV record (fields quoted with '"' may hold commas), each
// field without one leading and one trailing quote (' or ").
func SplitInstances(arg string) []string {
	rd := csv.NewReader(strings.NewReader(arg))
	rd.LazyQuotes, rd.FieldsPerRecord = true, -1
	fields, err := rd.Read()
	if err != nil && err != io.EOF {
		fields = strings.Split(arg, ",")
	}
	for i, s := range fields {
		if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'") {
			s = s[1:]
		}
		if strings.HasSuffix(s, `"`) || strings.HasSuffix(s, "'") {
			s = s[:len(s)-1]
		}
		fields[i] = s
	}
	return fields
}

// anchored compiles a filter as pmrep's regular expression
// `\A` + r + `\Z`, matched at the start of a name.
func anchored(r string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:\A` + r + `\z)`)
}

// prepareFilters applies the instance filters (-i, or a metric's own) to
// the metrics' columns, as pmrep does when it resolves them (a metric
// none of whose instances they name is left out), and prepares the
// filters of each sample.
func (r *Sampler) prepareFilters() error {
	f := &r.o.Filter
	kept := r.Metrics[:0]
	var pmids []pmapi.PMID
	for k, m := range r.Metrics {
		m.lim = m.limit(f)
		insts := m.instances(f)
		switch {
		case m.Cols[0].Name == "" || len(insts) == 0:
			// no instances, or no filter: reported as usual
		case f.LiveFilter:
			for _, s := range insts {
				re, err := anchored(s)
				if err != nil {
					return fmt.Errorf("Invalid regex '%s': %v.\n", s, err)
				}
				m.live = append(m.live, re)
			}
		default:
			cols, err := selectInstances(m.Cols, insts)
			if err != nil {
				return err
			}
			if len(cols) == 0 {
				continue // none of its instances: left out
			}
			m.Cols = cols
			m.fg = make([]Value, len(cols))
			m.Vals = m.fg
		}
		kept, pmids = append(kept, m), append(pmids, r.pmids[k])
	}
	r.Metrics, r.pmids = kept, pmids
	if len(r.Metrics) == 0 {
		return fmt.Errorf("No matching instances found.\n")
	}
	for _, m := range r.Metrics {
		m.src = sources(m)
		if m.live != nil || f.Rank != 0 || m.lim != 0 || m.src != nil {
			r.filtering = true
			m.Vals = make([]Value, len(m.Cols))
		}
	}
	return nil
}

// sources is, when an instance has two columns of m (two -i filters name
// it), the column of the fetchgroup's values each column shows (the
// first of its instance); nil when none has.
func sources(m *Metric) []int {
	var src []int
	for i := range m.Cols {
		if j := m.column(m.Cols[i].Inst); j != i && src == nil {
			src = make([]int, len(m.Cols))
			for k := range src {
				src[k] = m.column(m.Cols[k].Inst)
			}
		}
	}
	return src
}

// selectInstances is pmrep's check_metric's instance filter: for each
// filter in order, the instances it names (a PID, the first process
// with that number; a command name, every process running it; else a
// regular expression), an instance as many times as filters name it.
func selectInstances(cols []Column, filters []string) ([]Column, error) {
	var found []Column
	first := cols[0].Name
	procs := strings.Contains(first, " ") && isDigits(firstWord(first))
	for _, s := range filters {
		hit := false
		if isDigits(s) && isDigits(firstWord(first)) {
			for _, c := range cols {
				if w := firstWord(c.Name); isDigits(w) && sameInt(s, w) {
					found, hit = append(found, c), true
					break
				}
			}
		}
		if isCommand(s) && procs {
			for _, c := range cols {
				words := strings.Fields(c.Name)
				if len(words) < 2 {
					return nil, fmt.Errorf("Invalid process '%s': list index out of range.\n", s)
				}
				if s == procBasename(words[1]) {
					found, hit = append(found, c), true
				}
			}
		}
		if !hit {
			re, err := anchored(s)
			if err != nil {
				return nil, fmt.Errorf("Invalid regex '%s': %v.\n", s, err)
			}
			for _, c := range cols {
				if re.MatchString(c.Name) {
					found = append(found, c)
				}
			}
		}
	}
	return found, nil
}

// liveMatch is pmrep's filter_instance: whether name passes the live
// filter (by command name, or by regular expression), and false where
// pmrep's test fails with an exception (the value is then left out).
func (m *Metric) liveMatch(name string, filters []string) bool {
	// (m.live: the filters compiled, when m has instances)
	if len(m.live) == 0 {
		return true
	}
	for _, s := range filters {
		if isCommand(s) && strings.Contains(name, " ") && isDigits(firstWord(name)) {
			words := strings.Fields(name)
			if len(words) < 2 {
				return false
			}
			if s == procBasename(words[1]) {
				return true
			}
		}
	}
	for _, re := range m.live {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// filter makes every metric's Vals from its fetchgroup values: repeated
// columns filled, then pmrep's get_ranked_results' filters, live filter
// (-j), limit (-8, -9), rank (-J), or live filter after the rank (-j
// -n).
func (r *Sampler) filter() {
	f := &r.o.Filter
	for _, m := range r.Metrics {
		insts := m.instances(f)
		if m.src == nil {
			copy(m.Vals, m.fg)
		} else {
			for i, j := range m.src {
				m.Vals[i] = m.fg[j]
			}
		}
		early := f.LiveFilter && !f.InvertFilter
		lim := m.lim
		var present []int
		for i, c := range m.Cols {
			v := &m.Vals[i]
			if !v.OK {
				continue
			}
			if early && c.Inst != pmapi.InstNull && !m.liveMatch(c.Name, insts) ||
				lim > 0 && v.cmpInt(int64(lim)) < 0 || lim < 0 && v.cmpInt(-int64(lim)) > 0 {
				*v = Value{}
				continue
			}
			present = append(present, i)
		}
		if f.Rank != 0 && len(present) > 0 {
			// Python's sorted(..., reverse=True) keeps equal values in
			// their order, as a stable sort does
			slices.SortStableFunc(present, func(a, b int) int {
				c := m.Vals[a].cmp(&m.Vals[b])
				if f.Rank > 0 {
					return -c
				}
				return c
			})
			for _, i := range present[min(len(present), abs(f.Rank)):] {
				m.Vals[i] = Value{}
			}
		}
		if f.LiveFilter && f.InvertFilter {
			for i, c := range m.Cols {
				if m.Vals[i].OK && !m.liveMatch(c.Name, insts) {
					m.Vals[i] = Value{}
				}
			}
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// cmpInt compares the number v with n, exactly as Python compares an int
// or a float with an int.
func (v *Value) cmpInt(n int64) int {
	switch v.Kind {
	case KindSigned:
		return cmpOrdered(v.I, n)
	case KindUnsigned:
		if n < 0 {
			return 1
		}
		return cmpOrdered(v.U, uint64(n))
	case KindDouble:
		// |n| is small (an option's integer): exact as a double
		return cmpOrdered(v.F, float64(n))
	}
	return 0
}

// cmp compares two values of one metric (one kind), as Python's < does.
func (v *Value) cmp(w *Value) int {
	switch v.Kind {
	case KindSigned:
		return cmpOrdered(v.I, w.I)
	case KindUnsigned:
		return cmpOrdered(v.U, w.U)
	case KindString:
		return strings.Compare(v.S, w.S)
	}
	return cmpOrdered(v.F, w.F)
}

// cmpOrdered is cmp.Compare without its ordering of NaNs: a NaN is
// neither less nor greater than anything, as for Python's comparisons.
func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func firstWord(s string) string {
	if w := strings.Fields(s); len(w) > 0 {
		return w[0]
	}
	return ""
}

// isDigits is Python's str.isdigit for ASCII: not empty, digits only.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func sameInt(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x == y
}

// isCommand is pmrep's test of a filter that may be a command name:
// without '.', '_' and '-', letters and digits only (str.isalnum).
func isCommand(s string) bool {
	s = strings.NewReplacer(".", "", "_", "", "-", "").Replace(s)
	if s == "" {
		return false
	}
	for _, c := range s {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// procBasename is pmconfig's get_proc_basename: a kernel thread's name
// without its parentheses, else the command's base name without a
// leading '-' and a trailing ':'.
func procBasename(p string) string {
	if strings.HasPrefix(p, "(") {
		if len(p) < 2 {
			return ""
		}
		return p[1 : len(p)-1]
	}
	p = strings.TrimPrefix(p, "-")
	p = strings.TrimSuffix(p, ":")
	if p == "" {
		return ""
	}
	if strings.HasSuffix(p, "/") {
		return "" // os.path.basename: after the last '/'
	}
	return path.Base(p)
}
