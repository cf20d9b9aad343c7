package loggerconf

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

// MaxDelta is PMLC_MAX_DELTA: the largest logging interval, in msec.
const MaxDelta = 0x0fffffff

// DefaultInterval is pmlogger's default logging interval (-t).
const DefaultInterval = 60 * time.Second

// Options control Parse.
type Options struct {
	// IncludeDirs are pmcpp's -I directories. pmlogger passes
	// $PCP_VAR_DIR/config/pmlogger; nil means just that
	// (/var/lib/pcp/config/pmlogger); use an empty non-nil slice for
	// none.
	IncludeDirs []string

	// DefaultInterval is the -t interval that "default" stands for;
	// 0 means 60 seconds. Only whole milliseconds count, as in
	// pmlogger.
	DefaultInterval time.Duration

	// NoPreprocess parses the input as it is, as if it were pmcpp's
	// output already.
	NoPreprocess bool
}

// DefaultIncludeDir is $PCP_VAR_DIR/config/pmlogger on Debian.
const DefaultIncludeDir = "/var/lib/pcp/config/pmlogger"

func (o Options) includeDirs() []string {
	if o.IncludeDirs == nil {
		return []string{DefaultIncludeDir}
	}
	return o.IncludeDirs
}

func (o Options) defaultMsec() int64 {
	d := o.DefaultInterval
	if d == 0 {
		d = DefaultInterval
	}
	// delta.tv_sec*1000 + delta.tv_usec/1000
	return int64(d / time.Millisecond)
}

// Error is a fatal configuration error as pmlogger reports it (yyerror):
//
//	Specification error in configuration file (FILE)
//	[line N] MSG
//
// FILE is the name given to Parse or, after a pmcpp line marker, the
// included file's name as pmcpp wrote it. pmlogger exits with status 1.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("Specification error in configuration file (%s)\n[line %d] %s", e.File, e.Line, e.Msg)
}

// Text is the error as pmlogger prints it, with the final newline.
func (e *Error) Text() string { return e.Error() + "\n" }

// parser is a recursive-descent rendering of gram.y that reads the
// lookahead token at the same moments bison does, so that line numbers
// and the order of warnings and errors are the real ones.
type parser struct {
	lx   *lexer
	la   *token
	cfg  *Config
	opts Options
	cur  *Statement
}

// Parse reads a pmlogger configuration: it preprocesses it as
// `pmcpp -rs -I dir` does (unless opts.NoPreprocess) and parses the
// result with pmlogger's grammar. name is the file name pmlogger would
// report (its -c argument).
//
// On a fatal error Parse returns the statements parsed so far (those
// whose metrics the real pmlogger has already looked up when it stops:
// Resolve them to get the warnings it printed first) together with an
// *Error. pmcpp's own errors are not fatal to pmlogger: they are in
// Config.PreprocessorErrors and the output pmcpp made before them is
// parsed.
func Parse(r io.Reader, name string, opts Options) (*Config, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	cfg := &Config{}
	if !opts.NoPreprocess {
		out, perr := Preprocess(src, name, opts.includeDirs())
		src = out
		cfg.PreprocessorErrors = perr
	}
	cfg.ListNames = pass0Names(src)
	p := &parser{lx: newLexer(src, name), cfg: cfg, opts: opts}
	err = p.config()
	p.flush()
	return cfg, err
}

// ParseFile is Parse of the file at path, reported under the name path.
func ParseFile(path string, opts Options) (*Config, error) {
	return parseFileAs(path, path, opts)
}

func (p *parser) peek() (token, error) {
	if p.la == nil {
		t, err := p.lx.next()
		if err != nil {
			return t, err
		}
		p.la = &t
	}
	return *p.la, nil
}

func (p *parser) take() token {
	t := *p.la
	p.la = nil
	return t
}

func (p *parser) syntaxError() error {
	return &Error{File: p.lx.file, Line: p.lx.line, Msg: "syntax error"}
}

func (p *parser) errorf(format string, args ...any) error {
	return &Error{File: p.lx.file, Line: p.lx.line, Msg: fmt.Sprintf(format, args...)}
}

// expect takes the next token if it is of kind k, else it is a syntax
// error.
func (p *parser) expect(k tokKind) (token, error) {
	t, err := p.peek()
	if err != nil {
		return t, err
	}
	if t.kind != k {
		return t, p.syntaxError()
	}
	return p.take(), nil
}

func (p *parser) flush() {
	if p.cur != nil {
		p.cfg.Statements = append(p.cfg.Statements, *p.cur)
		p.cur = nil
	}
}

// config: specopt accessopt
func (p *parser) config() error {
	for {
		t, err := p.peek()
		if err != nil {
			return err
		}
		switch t.kind {
		case tLog, tMandatory, tAdvisory, tOn, tOff:
			if err := p.stmt(); err != nil {
				return err
			}
		case tLSQB:
			if err := p.access(); err != nil {
				return err
			}
			if _, err := p.expect(tEOF); err != nil {
				return err
			}
			return nil
		case tEOF:
			return nil
		default:
			return p.syntaxError()
		}
	}
}

// stmt: [log] action somemetrics
func (p *parser) stmt() error {
	t, _ := p.peek()
	line := t.line
	if t.kind == tLog {
		p.take()
	}
	st := Statement{Line: line}
	t, err := p.peek()
	if err != nil {
		return err
	}
	var freq bool
	switch t.kind {
	case tMandatory:
		p.take()
		st.Mandatory = true
		t, err = p.peek()
		if err != nil {
			return err
		}
		switch t.kind {
		case tOn:
			p.take()
			st.State = On
			freq = true
		case tOff:
			p.take()
			st.State = Off
		case tMaybe:
			p.take()
			st.State = Maybe
		default:
			return p.syntaxError()
		}
	case tAdvisory:
		p.take()
		t, err = p.peek()
		if err != nil {
			return err
		}
		switch t.kind {
		case tOn:
			p.take()
			st.State = On
			freq = true
		case tOff:
			p.take()
			st.State = Off
		default:
			return p.syntaxError()
		}
	case tOn:
		p.take()
		st.State = On
		freq = true
	case tOff:
		p.take()
		st.State = Off
	default:
		return p.syntaxError()
	}
	if freq {
		if err := p.frequency(&st); err != nil {
			return err
		}
	}
	p.cur = &st
	if err := p.somemetrics(); err != nil {
		return err
	}
	p.flush()
	p.lx.inSpec = false
	return nil
}

// frequency: [every] NUMBER timeunits | once | default, then the range
// checks of the action rule.
func (p *parser) frequency(st *Statement) error {
	t, err := p.peek()
	if err != nil {
		return err
	}
	var msec int64
	switch t.kind {
	case tOnce:
		p.take()
		st.Once = true
	case tDefault:
		p.take()
		st.Default = true
		msec = p.opts.defaultMsec()
	case tEvery, tNumber:
		if t.kind == tEvery {
			p.take()
		}
		n, err := p.expect(tNumber)
		if err != nil {
			return err
		}
		u, err := p.peek()
		if err != nil {
			return err
		}
		var mult int64
		switch u.kind {
		case tMsec:
			mult = 1
		case tSecond:
			mult = 1000
		case tMinute:
			mult = 60000
		case tHour:
			mult = 3600000
		default:
			return p.syntaxError()
		}
		p.take()
		msec = n.num * mult // wraps as C's long does
	default:
		return p.syntaxError()
	}
	if msec < 0 {
		return p.errorf("Logging delta (%d msec) must be positive", msec)
	}
	if msec > MaxDelta {
		return p.errorf("Logging delta (%d msec) cannot be bigger than %d msec", msec, MaxDelta)
	}
	st.Delta = time.Duration(msec) * time.Millisecond
	if !st.Default {
		st.Interval = st.Delta
	}
	if msec == 0 {
		st.Once = true
	}
	return nil
}

// somemetrics: { metriclist } | metricspec
func (p *parser) somemetrics() error {
	t, err := p.peek()
	if err != nil {
		return err
	}
	switch t.kind {
	case tLBrace:
		p.take()
		p.lx.inSpec = true
		first := true
		for {
			t, err := p.peek()
			if err != nil {
				return err
			}
			switch {
			case t.kind == tName:
				if err := p.metricspec(); err != nil {
					return err
				}
			case t.kind == tComma && !first:
				p.take()
				if t, err = p.peek(); err != nil {
					return err
				}
				if t.kind != tName {
					return p.syntaxError()
				}
				if err := p.metricspec(); err != nil {
					return err
				}
			case t.kind == tRBrace && !first:
				p.take()
				p.lx.inSpec = false
				return nil
			default:
				return p.syntaxError()
			}
			first = false
		}
	case tName:
		return p.metricspec()
	default:
		return p.syntaxError()
	}
}

// metricspec: NAME [ '[' instancelist ']' ]
func (p *parser) metricspec() error {
	nt := p.take()
	ms := MetricSpec{Name: nt.text, NameLine: nt.line}
	t, err := p.peek()
	if err != nil {
		return err
	}
	if t.kind == tLSQB {
		p.take()
		for first := true; ; first = false {
			t, err := p.peek()
			if err != nil {
				return err
			}
			if t.kind == tComma && !first {
				p.take()
				if t, err = p.peek(); err != nil {
					return err
				}
				if t.kind != tName && t.kind != tNumber && t.kind != tString {
					return p.syntaxError()
				}
			}
			switch t.kind {
			case tName, tString:
				p.take()
				ms.Instances = append(ms.Instances, InstSpec{Name: t.text})
				continue
			case tNumber:
				p.take()
				ms.Instances = append(ms.Instances, InstSpec{ID: int32(t.num), IsID: true, Name: t.text})
				continue
			case tRSQB:
				if !first {
					p.take()
				} else {
					return p.syntaxError()
				}
			default:
				return p.syntaxError()
			}
			break
		}
	}
	ms.Line = p.lx.line
	ms.File = p.lx.file
	p.cur.Metrics = append(p.cur.Metrics, ms)
	return nil
}

// access: '[' access ']' ctl { ctl }
func (p *parser) access() error {
	p.take() // [
	if _, err := p.expect(tAccess); err != nil {
		return err
	}
	if _, err := p.expect(tRSQB); err != nil {
		return err
	}
	acc := &Access{}
	p.cfg.Access = acc
	for first := true; ; first = false {
		t, err := p.peek()
		if err != nil {
			return err
		}
		if t.kind == tEOF && !first {
			return nil
		}
		if t.kind != tAllow && t.kind != tDisallow {
			return p.syntaxError()
		}
		p.take()
		rule := AccessRule{Line: t.line, Allow: t.kind == tAllow}
		// hostlist: host { , host }
		for {
			h, err := p.peek()
			if err != nil {
				return err
			}
			switch h.kind {
			case tIPSpec, tURL, tHostname, tName:
			default:
				return p.syntaxError()
			}
			p.take()
			rule.Hosts = append(rule.Hosts, h.text)
			rule.HostLines = append(rule.HostLines, p.lx.line)
			sep, err := p.peek()
			if err != nil {
				return err
			}
			if sep.kind == tComma {
				p.take()
				continue
			}
			if sep.kind != tColon {
				return p.syntaxError()
			}
			p.take()
			break
		}
		// operation: operlist | all | all except operlist
		t, err = p.peek()
		if err != nil {
			return err
		}
		needOps := true
		if t.kind == tAll {
			p.take()
			rule.Ops = append(rule.Ops, "all")
			t, err = p.peek()
			if err != nil {
				return err
			}
			if t.kind == tExcept {
				p.take()
				rule.Except = true
			} else {
				needOps = false
			}
		}
		if needOps {
			for {
				t, err := p.peek()
				if err != nil {
					return err
				}
				switch t.kind {
				case tAdvisory, tMandatory, tEnquire:
				default:
					return p.syntaxError()
				}
				p.take()
				rule.Ops = append(rule.Ops, t.text)
				sep, err := p.peek()
				if err != nil {
					return err
				}
				if sep.kind != tComma {
					break
				}
				p.take()
			}
		}
		if _, err := p.expect(tSemicolon); err != nil {
			return err
		}
		acc.Rules = append(acc.Rules, rule)
	}
}

// String renders a statement in the configuration language (one line).
func (s Statement) String() string {
	var b bytes.Buffer
	b.WriteString("log ")
	if s.Mandatory {
		b.WriteString("mandatory ")
	} else {
		b.WriteString("advisory ")
	}
	switch s.State {
	case On:
		b.WriteString("on ")
		switch {
		case s.Default:
			b.WriteString("default ")
		case s.Once:
			b.WriteString("once ")
		default:
			fmt.Fprintf(&b, "%d msec ", s.Interval/time.Millisecond)
		}
	case Off:
		b.WriteString("off ")
	case Maybe:
		b.WriteString("maybe ")
	}
	b.WriteString("{")
	for _, m := range s.Metrics {
		b.WriteString(" ")
		b.WriteString(m.Name)
		if len(m.Instances) > 0 {
			b.WriteString(" [")
			for i, in := range m.Instances {
				if i > 0 {
					b.WriteString(" ")
				}
				if in.IsID {
					fmt.Fprintf(&b, "%d", in.ID)
				} else {
					fmt.Fprintf(&b, "%q", in.Name)
				}
			}
			b.WriteString("]")
		}
	}
	b.WriteString(" }")
	return b.String()
}
