package getopt

import "strings"

// FromEnv is libpcp's __pmStartOptions: the PCP_* variables of environ
// ("NAME=value" strings, in os.Environ's order) that stand for
// pmGetOptions' standard options, as those options, in environment
// order. The tools apply them before their command line, with the same
// checks:
//
//	PCP_ALIGN_TIME -A    PCP_ARCHIVE, PCP_ARCHIVE_LIST -a    PCP_GUIMODE -g
//	PCP_HOST -h          PCP_SPECLOCAL -K    PCP_LOCALMODE, PCP_LOCALPMDA -L
//	PCP_NAMESPACE -n     PCP_UNIQNAMES -N    PCP_ORIGIN, PCP_ORIGIN_TIME -O
//	PCP_GUIPORT -p       PCP_START_TIME -S   PCP_SAMPLES -s   PCP_FINISH_TIME -T
//	PCP_INTERVAL -t      PCP_TIMEZONE -Z     PCP_HOSTZONE -z
//
// PCP_ARCHIVE_LIST is one -a with the whole list, as libpcp takes it for
// a tool with one context (the names become one multi-archive context).
// Not taken: PCP_DEBUG (libpcp's debug output is not printed),
// PCP_HOST_LIST and PCP_FOLIO (host lists and archive folios).
func FromEnv(environ []string) []Opt {
	var out []Opt
	for _, kv := range environ {
		rest, ok := strings.CutPrefix(kv, "PCP_")
		if !ok {
			continue
		}
		name, value, _ := strings.Cut(rest, "=")
		if c, ok := envOptions[name]; ok {
			out = append(out, Opt{Short: c, Arg: value})
		}
	}
	return out
}

// envOptions are the variables of FromEnv and their options.
var envOptions = map[string]rune{
	"ALIGN_TIME": 'A', "ARCHIVE": 'a', "ARCHIVE_LIST": 'a', "GUIMODE": 'g',
	"HOST": 'h', "SPECLOCAL": 'K', "LOCALMODE": 'L', "LOCALPMDA": 'L',
	"NAMESPACE": 'n', "UNIQNAMES": 'N', "ORIGIN": 'O', "ORIGIN_TIME": 'O',
	"GUIPORT": 'p', "START_TIME": 'S', "SAMPLES": 's', "FINISH_TIME": 'T',
	"INTERVAL": 't', "TIMEZONE": 'Z', "HOSTZONE": 'z',
}
