package derive

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Equivalent instance domains (libpcp 6.3.8's __pmEquivInDom): sets of
// instance domains whose instances are the same things, which the binary
// operators of DialectCurrent accept as "the same instance domain". The
// sets are read once, from $PCP_INDOM_CONFIG (empty: none), else from
// $PCP_ETC_DIR/pcp/indom.conf; when that file does not exist (a host with
// an older PCP) the sets of the indom.conf PCP 6.3.8 installs are used.
// Each line lists the members of one set as DOMAIN.SERIAL, or DOMAIN.* for
// every instance domain of a domain; "#" starts a comment. A file with an
// error defines no sets.

// indomConf638 is the indom.conf of PCP 6.3.8, without its comments.
const indomConf638 = "3.9 3.39 3.40\n60.0 127.*\n"

var (
	equivOnce sync.Once
	equivSets [][]indomPattern
)

// indomPattern is one member of a set: a domain and a serial, or every
// serial of the domain.
type indomPattern struct {
	domain, serial uint32
	any            bool
}

func (p indomPattern) matches(in pmapi.InDom) bool {
	return in.Domain() == p.domain && (p.any || in.Serial() == p.serial)
}

// equivInDom reports whether a and b are in one set of equivalent
// instance domains.
func equivInDom(a, b pmapi.InDom) bool {
	equivOnce.Do(func() { equivSets = loadEquivSets() })
	for _, set := range equivSets {
		var ma, mb bool
		for _, p := range set {
			ma = ma || p.matches(a)
			mb = mb || p.matches(b)
		}
		if ma && mb {
			return true
		}
	}
	return false
}

func loadEquivSets() [][]indomPattern {
	path, ok := os.LookupEnv("PCP_INDOM_CONFIG")
	if ok && path == "" {
		return nil
	}
	if !ok {
		path = filepath.Join(pcpconf.Get("PCP_ETC_DIR", "/etc"), "pcp", "indom.conf")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if ok {
			return nil
		}
		b = []byte(indomConf638)
	}
	sets, ok := parseEquivSets(string(b))
	if !ok {
		return nil
	}
	return sets
}

// parseEquivSets reads an indom.conf; ok is false when a line is not a
// list of DOMAIN.SERIAL or DOMAIN.* (libpcp then uses no sets at all).
func parseEquivSets(text string) ([][]indomPattern, bool) {
	var sets [][]indomPattern
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		var set []indomPattern
		for _, f := range strings.Fields(line) {
			d, s, found := strings.Cut(f, ".")
			dom, err := strconv.ParseUint(d, 10, 32)
			if !found || err != nil || len(d) > 3 || dom > 511 {
				return nil, false
			}
			p := indomPattern{domain: uint32(dom)}
			if s == "*" {
				p.any = true
			} else {
				ser, err := strconv.ParseUint(s, 10, 32)
				if err != nil || len(s) > 7 || ser > 4194303 {
					return nil, false
				}
				p.serial = uint32(ser)
			}
			set = append(set, p)
		}
		if len(set) > 0 {
			sets = append(sets, set)
		}
	}
	return sets, true
}
