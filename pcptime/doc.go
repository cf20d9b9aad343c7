// Package pcptime reproduces how the PCP 6.0.3 tools handle time: the C
// library's interpretation of the TZ variable, the ctime(3)-based
// timestamp formats, and libpcp's parsing of intervals (-t, -A) and time
// windows (-S, -T, -O).
//
// Zones. The tools format times with localtime(3) after setting TZ to the
// user's $TZ, an archive label's zone (-z) or -Z's argument. LoadZone gives
// the zone glibc 2.36 makes of such a string, LocalZone that of the
// process environment. Zone.Lookup and Zone.Civil are localtime(3).
// Besides TZif files and POSIX rule strings this covers glibc's fallbacks
// for malformed strings (what was parsed before the error stays: "garbage!"
// is UTC named "garbage"), rules applied for the UTC year and counted from
// 1970 for earlier years, and the "posixrules" treatment of "std offset
// dst" strings without rules (see LoadZone).
//
// Formats. AppendCtime, AppendCtimeStamp, AppendStamp and their parts
// append the layouts the tools print ("Tue Nov 14 22:13:20.000000000 2023",
// "22:13:20.000000") to a byte slice.
//
// Parsing. ParseInterval is pmParseHighResInterval(3) (note that "10ms" is
// ten minutes), ParseWindowSpec and ParseWindow are
// pmParseHighResTimeWindow(3), with libpcp's messages in ParseError.
//
// The tests compare the package with the real C library (a small program
// compiled with gcc, or date(1)), with libpcp itself (linked into a test
// helper) and with the real pmdumplog, and skip what is not installed.
package pcptime
