package logrewrite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/version"
)

const shortOpts = "c:CdD:iqsvV:w?"

var longOpts = []getopt.Long{
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "config", HasArg: true, Short: 'c'},
	{Name: "check", Short: 'C'},
	{Name: "desperate", Short: 'd'},
	{Name: "quick", Short: 'q'},
	{Name: "scale", Short: 's'},
	{Name: "verbose", Short: 'v'},
	{Name: "version", HasArg: true, Short: 'V'},
	{Name: "warnings", Short: 'w'},
	{Name: "help", Short: '?'},
}

const usage = `Usage: pmlogrewrite [options] input-archive [output-archive]

Options:
  -c PATH, --config=PATH
                        file or directory to load rules from
  -C, --check           parse config file(s) and quit (verbose warnings also)
  -d, --desperate       desperate, save output archive even after error
  -i                    rewrite in place, input-archive will be over-written
  -q, --quick           quick mode, no output if no change
  -s, --scale           do scale conversion
  -v, --verbose         increased diagnostic verbosity
  -V N, --version=N     output archive in version N [2/3] format
  -w, --warnings        emit warnings [default is silence]
  -?, --help            show this usage message and exit

output-archive is required unless -i is specified
`

// is638 reports whether pmlogrewrite behaves as PCP 6.3.8's
// (pcpconf.Version), whose texts say "archive" where 6.0.3's say
// "archive log", and which takes -C without an output archive.
func is638() bool { return pcpconf.Version() == pcpconf.Version638 }

// usageText is the usage message of the PCP version pmlogrewrite
// behaves as.
func usageText() string {
	if is638() {
		return strings.Replace(usage, "unless -i is", "unless -C or -i is", 1)
	}
	return usage
}

// Main runs pmlogrewrite with args (without the program name), writing
// to stdout and stderr, and returns the exit status, with the real
// tool's options and messages (-D's debug output aside).
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "--version" {
		// pcpkit's: the real pmlogrewrite's --version is -V, the
		// output's format version, and wants an argument.
		io.WriteString(stderr, version.Banner(prog))
		return 0
	}
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	o := &Options{Stdout: stdout, Stderr: stderr}
	errs := 0
	var notes []string // pmprintf's: shown before the usage
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ev.Err)
			errs++
			continue
		}
		switch ev.Short {
		case 'c':
			files, msg := configFiles(ev.Arg)
			if msg != "" {
				notes = append(notes, msg)
				errs++
			}
			o.Configs = append(o.Configs, files...)
		case 'C':
			o.Check, o.Verbose, o.Warnings = true, 1, true
		case 'd':
			o.Desperate = true
		case 'D':
			if !getopt.ValidDebug(ev.Arg) {
				notes = append(notes, fmt.Sprintf("%s: unrecognized debug options specification (%s)\n", prog, ev.Arg))
				errs++
			}
		case 'i':
			o.InPlace = true
		case 'q':
			o.Quick = true
		case 's':
			o.Scale = true
		case 'v':
			o.Verbose++
		case 'V':
			v := atoi(ev.Arg)
			if v != 2 && v != 3 {
				notes = append(notes, fmt.Sprintf("%s: Error: unsupported version (%d) requested\n", prog, v))
				errs++
			}
			o.Version = v
		case 'w':
			o.Warnings = true
		default:
			errs++
		}
	}
	if errs == 0 && !operandsOK(o, len(operands)) {
		errs++
	}
	if errs > 0 {
		CLI.WriteUsage(stderr, notes, usageText(), args)
		return 1
	}
	o.Input = operands[0]
	if o.InPlace {
		if err := Recover(o.Input); err != nil {
			fmt.Fprintf(stderr, "%s: Error: %v\n", prog, err)
			return 1
		}
	} else if len(operands) == 2 {
		o.Output = operands[1]
		if msg := existing(o.Output); msg != "" && !(o.Check && is638()) {
			// checked once the input is known good
			if _, err := archive.Open(o.Input); err == nil {
				io.WriteString(stderr, msg)
				return 1
			}
		}
	}
	if err := Rewrite(o); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Msg: fmt.Sprintf("%s: Error: %v\n", prog, err)}
		}
		io.WriteString(stderr, e.Msg)
		if e.Abort {
			return 134
		}
		switch {
		case e.NotCreated:
			fmt.Fprintf(stderr, "Archive \"%s\" not created.\n", o.Output)
		case e.Truncated:
			fmt.Fprintf(stderr, "Archive \"%s\" creation truncated.\n", o.Output)
		}
		return 1
	}
	return 0
}

// operandsOK reports whether n operands are what the options want: the
// input archive and the output archive, the input alone with -i. PCP
// 6.3.8 takes -C with the output archive or without.
func operandsOK(o *Options, n int) bool {
	switch {
	case o.InPlace:
		return n == 1
	case o.Check && is638():
		return n == 1 || n == 2
	}
	return n == 2
}

// existing is the real tool's complaint when a file of the output
// archive exists ("" when none does).
func existing(base string) string {
	for _, suf := range []string{".index", ".meta", ".0"} {
		if _, err := os.Lstat(base + suf); err == nil {
			return fmt.Sprintf("__pmLogNewFile: \"%s%s\" already exists, not over-written\n%s: Error: __pmLogCreate(%s,v3): File exists\n", base, suf, prog, base)
		}
	}
	return ""
}

// configFiles is what -c PATH names: the file, or the files of the
// directory (not those starting with "."), in the directory's order as
// readdir(3) gives it (the real tools, 6.0.3 and 6.3.8, do not sort), with the real tool's complaint
// when it can do neither.
func configFiles(path string) ([]string, string) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Sprintf("%s: stat(%s) failed: %s\n", prog, path, archive.ErrText(err))
	}
	if st.Mode().IsRegular() {
		return []string{path}, ""
	}
	if !st.IsDir() {
		return nil, fmt.Sprintf("%s: Error: -c config %s is not a file or directory\n", prog, path)
	}
	ents, err := readDirUnsorted(path)
	if err != nil {
		return nil, fmt.Sprintf("%s: opendir(%s) failed: %s\n", prog, path, archive.ErrText(err))
	}
	var files []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(path, e.Name())
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return files, ""
}

// readDirUnsorted lists the directory path in the order readdir(3) gives
// (os.ReadDir sorts by name).
func readDirUnsorted(path string) ([]os.DirEntry, error) {
	d, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}
