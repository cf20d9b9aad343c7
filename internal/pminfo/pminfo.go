// Package pminfo implements pminfo: it reports the names, identifiers,
// descriptors, help text, labels, series identifiers and values of
// performance metrics exactly as PCP 6.0.3's pminfo does, from a set of
// archives (-a), a pmcd (-h HOST, or the local pmcd by default) or
// pcpkit's built-in collector (-h @), with derived metrics (-c,
// $PCP_DERIVED_CONFIG). --json (pcpkit's) prints one JSON object per
// metric instead (json.go). cmd/pminfo is a thin wrapper around Main.
//
// A local context (-L, -K) runs the PMDAs of libpcp's DSO table as the
// tool's children (package local) instead of loading their DSOs.
package pminfo

import (
	"io"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pmapi"
)

// tool holds one run's state.
type tool struct {
	*pmctx.Session
	f flags

	// the batch of names waiting for report
	names   []string
	pdusize int

	cache cache
	json  *jsonOut

	flagsPMID, missedPMID pmapi.PMID // event.flags, event.missed (0: not looked up)

	register []string // -r name=expr (PCP 6.3.8), in order

	line []byte // a value line's bytes, reused
}

// Main runs pminfo with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	t := &tool{Session: pmctx.NewSession("pminfo", stdout, stderr)}
	return t.Run(func() int { return t.run(args) })
}

// loadDerived is -c FILE: pmLoadDerivedConfig; a failure is reported
// and pminfo goes on.
func (t *tool) loadDerived(o *pmctx.Opts, path string) {
	if err := t.LoadDerived(o, path); err != nil {
		t.Stderr("%s: derived configuration(s) error: %s\n", o.Prog, archive.ErrText(err))
	}
}

func (t *tool) run(args []string) int {
	t.f.batch = 128
	short, longs, usage := options()
	p := &pmctx.Parser{Prog: "pminfo", Short: short, Longs: longs, Claimed: "stT"}
	o, operands := p.Parse(args, t.Errw, t.option)
	t.Opts = o
	if o.Errors > 0 || o.Exit {
		return t.Usage(args, usage, CLI.Extensions())
	}
	f := &t.f
	if o.Kind != pmctx.KindNone {
		f.needContext = true
	}
	if o.Kind == pmctx.KindArchive {
		// one metric per batch, each fetched from the start (pminfo's
		// own comment: "so metric will be found if it is in the
		// archive")
		f.batch = 1
	}
	if o.Kind == pmctx.KindHost {
		t.pdusize = 5 * 4
	}
	if f.verify {
		f.desc, f.mid, f.fullmid, f.help, f.oneline, f.value, f.force, f.label = false, false, false, false, false, false, false, false
	}
	if !o.NSFlag {
		f.needContext = true
	}
	if f.json {
		t.startJSON()
	}
	if f.needContext {
		t.Open(true)
		t.registerAll()
	} else {
		// no context: the names come from the -n file alone
		t.C = pmctx.OpenNamespace(o.NS, t.Registry())
	}
	defer t.C.Close()

	status := 0
	if len(operands) == 0 {
		if err := t.C.Traverse("", t.dometric); err != nil {
			t.Stderr("Error: %s\n", archive.ErrText(err))
			status = 1
		}
	}
	for _, a := range operands {
		var err error
		if a != "" && a[0] >= '0' && a[0] <= '9' {
			err = t.dodigit(a)
		} else {
			err = t.C.Traverse(a, t.dometric)
		}
		if err != nil {
			t.Stderr("Error: %s: %s\n", a, archive.ErrText(err))
			status = 1
		}
	}
	t.report()
	return status
}

// registerAll registers the per-context derived metrics of -r (pminfo
// 6.3.8) once the context is made, as pminfo reads them: the name ends at
// "=", a space or a tab; the "=" may follow spaces, and once one
// argument had its "=" right after the name, a later one may do without
// (pminfo's seen_eq is never reset); the expression is what follows,
// leading spaces dropped. Any failure stops pminfo (status 1) after all
// of them are tried.
func (t *tool) registerAll() {
	bad, seenEq := 0, false
	for _, r := range t.register {
		end := strings.IndexAny(r, "= \t")
		if end < 0 {
			end = len(r)
		}
		name, expr := r[:end], ""
		if end < len(r) {
			seenEq = seenEq || r[end] == '='
			expr = r[end+1:]
		}
		if !seenEq {
			expr = strings.TrimLeft(expr, " \t")
			if !strings.HasPrefix(expr, "=") {
				t.Stderr("%s: bad register string, no =\n", t.Opts.Prog)
				bad++
				continue
			}
			expr = expr[1:]
		}
		expr = strings.TrimLeft(expr, " \t")
		if expr == "" {
			t.Stderr("%s: bad register string, no expr after =\n", t.Opts.Prog)
			bad++
			continue
		}
		if msg, err := t.C.AddDerived(name, expr); err != nil {
			t.Stderr("%s: per-context derived metric registration error:\n%s", t.Opts.Prog, msg)
			bad++
		}
	}
	if bad > 0 {
		t.Fail("")
	}
}

// dodigit handles an operand that starts with a digit: a PMID
// ("domain.cluster.item", reported under its name) or an instance domain
// ("domain.serial", reported directly), as sscanf("%u.%u.%u") and
// sscanf("%u.%u") read them.
func (t *tool) dodigit(arg string) error {
	nums, n := scanDotted(arg, 3)
	switch n {
	case 3:
		pmid := pmapi.NewPMID(nums[0], nums[1], nums[2])
		names, err := t.C.NameAll(pmid)
		if err != nil {
			return err
		}
		return t.C.Traverse(names[0], t.dometric)
	case 2:
		t.doindom(pmapi.NewInDom(nums[0], nums[1]))
		return nil
	}
	return pmapi.ErrName
}

// scanDotted reads up to max numbers separated by dots as sscanf's %u
// does (white space, a sign, digits; a negative number wraps), and
// returns how many it read.
func scanDotted(s string, max int) ([]uint32, int) {
	var out []uint32
	i := 0
	for len(out) < max {
		if len(out) > 0 {
			if i >= len(s) || s[i] != '.' {
				break
			}
			i++
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] >= '\t' && s[j] <= '\r') {
			j++
		}
		neg := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			neg = s[j] == '-'
			j++
		}
		k := j
		var v uint64
		over := false
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			d := uint64(s[k] - '0')
			if v > (1<<64-1-d)/10 {
				over = true
			}
			v = v*10 + d
			k++
		}
		if k == j {
			break
		}
		if over {
			v = 1<<64 - 1
		}
		if neg && !over {
			v = -v
		}
		out = append(out, uint32(v))
		i = k
	}
	return out, len(out)
}

// dometric is the traversal callback: the name joins the batch, which is
// reported when full (or, live, when the names would overflow a PDU).
func (t *tool) dometric(name string) {
	if name == "" {
		t.Out.WriteString("PMNS appears to be empty!\n")
		return
	}
	t.names = append(t.names, name)
	if t.Opts.Kind == pmctx.KindHost {
		t.pdusize += 4 + (len(name)+3)&^3
		if t.pdusize > 63*1024 {
			t.f.batch = len(t.names)
		}
	}
	if len(t.names) >= t.f.batch {
		t.report()
	}
}
