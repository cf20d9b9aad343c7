package getopt

import (
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// debugOptions are the names libpcp 6.0.3's pmSetDebug knows (pmdbg -l),
// and "all".
var debugOptions = strings.Fields(`pdu fetch profile value context indom pdubuf log
	logmeta optfetch af appl0 appl1 appl2 pmns libpmda timecontrol pmc derive lock
	interp config pmapi fault auth discovery attr http desperate deprecated exec
	labels series libweb alloc services appl3 appl4 appl5 access qa search query
	compress dev0 dev1 dev2 pmlc appl6 appl7 appl8 appl9 tls all`)

// ValidDebug reports whether libpcp's pmSetDebug accepts spec, the
// argument of -D (--debug): options separated by commas, each a name of
// pmdbg -l or "all" in any case, or a number as strtol reads it (leading
// blanks and a sign allowed, nothing after the digits). An empty spec, or
// one comma at the end, is accepted; an empty option elsewhere is not.
// pcpkit's tools accept -D and print no debug output.
func ValidDebug(spec string) bool {
	if spec == "" {
		return true
	}
	opts := strings.Split(spec, ",")
	if len(opts) > 1 && opts[len(opts)-1] == "" {
		opts = opts[:len(opts)-1]
	}
	for _, o := range opts {
		if _, end := cnum.Strtol(o); end > 0 && end == len(o) {
			continue
		}
		known := false
		for _, n := range debugOptions {
			if strings.EqualFold(o, n) {
				known = true
				break
			}
		}
		if !known {
			return false
		}
	}
	return true
}
