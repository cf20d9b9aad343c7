package getopt

// UnknownEndSec is the end, in seconds, that libpcp's pmGetContextOptions
// takes for an archive whose end cannot be found (INT_MAX): the default
// time window then runs to it, and pmval prints no "end:" line.
const UnknownEndSec = 2147483647

// UnknownEnd is what pmGetContextOptions prints on stderr (after
// flushing stdout) when pmGetArchiveEnd fails for archive: prog's
// "Cannot locate end of archive" line with the error's text (reason) and
// the warning that follows it, blank lines included.
func UnknownEnd(prog, archive, reason string) string {
	return prog + ": Cannot locate end of archive " + archive + ": " + reason + "\n" +
		"\nWARNING: This archive is sufficiently damaged that it may not be possible to\n" +
		"         produce complete information.  Continuing and hoping for the best.\n\n"
}
