// Package cli describes each pcpkit tool's command line in one place: its
// getopt option table, what its operands are, and the extensions pcpkit
// adds to the real PCP tool. From that description come the "pcpkit
// extensions" section --help prints after PCP's usage message, and the
// bash, zsh and fish completion scripts (Completion).
package cli

import (
	"io"
	"strings"

	"github.com/pcpkit/pcpkit/internal/getopt"
)

// Extra is one of pcpkit's extensions to a tool, as --help lists it.
type Extra struct {
	Option string // as typed: "--json", "-h @", "--shard=K/N"
	Text   string // what it does, one line
}

// Operands says what a tool's non-option words are, for completion.
type Operands int

const (
	// ArchiveMetrics: an archive, then metric names in it (pmdumplog,
	// pmlogsummary).
	ArchiveMetrics Operands = iota
	// Metrics: metric names only (pminfo, pmprobe, pmval, pmreplay);
	// the archive comes from -a.
	Metrics
	// Archives: archives only (pmlogextract: inputs, then the output).
	Archives
	// Archive: one archive to create (pmlogger).
	Archive
)

// Tool is a tool's command line.
type Tool struct {
	Name     string        // "pmdumplog"
	Short    string        // getopt's option string
	Longs    []getopt.Long // the long options, in the real tool's order
	Operands Operands
	Extras   []Extra // pcpkit's additions, in the order --help lists them
}

// Extensions is the section --help prints after the real tool's usage
// message: a blank line, "pcpkit extensions:", then one line per extra
// (the option, padded to column 24 as PCP's usage messages pad theirs, or
// on a line of its own when longer). Empty when the tool has no extras.
func (t *Tool) Extensions() string {
	if len(t.Extras) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\npcpkit extensions:\n")
	for _, x := range t.Extras {
		b.WriteString("  ")
		b.WriteString(x.Option)
		if pad := 22 - len(x.Option); pad >= 2 {
			b.WriteString(strings.Repeat(" ", pad))
		} else {
			b.WriteString("\n" + strings.Repeat(" ", 24))
		}
		b.WriteString(x.Text)
		b.WriteString("\n")
	}
	return b.String()
}

// HelpRequested reports whether args ask for --help spelled in full
// (before any "--"). Only then do the extensions follow the usage
// message: -?, abbreviations and errors print the real tool's message
// alone, byte for byte.
func HelpRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help" {
			return true
		}
	}
	return false
}

// WriteExtensions writes t's extensions to w when args ask for --help in
// full (HelpRequested): what a tool calls right after writing its usage
// message.
func (t *Tool) WriteExtensions(w io.Writer, args []string) {
	if HelpRequested(args) {
		io.WriteString(w, t.Extensions())
	}
}

// Help is what follows the usage message for args: t's extensions when
// args ask for --help in full (HelpRequested), else nothing.
func (t *Tool) Help(args []string) string {
	if HelpRequested(args) {
		return t.Extensions()
	}
	return ""
}

// WriteUsage writes what a tool writes on a command-line error: the
// messages it gathered with pmprintf (notes, each ended by a newline),
// then its usage message, then its extensions when args ask for --help in
// full.
func (t *Tool) WriteUsage(w io.Writer, notes []string, usage string, args []string) {
	for _, n := range notes {
		io.WriteString(w, n)
	}
	io.WriteString(w, usage)
	t.WriteExtensions(w, args)
}
