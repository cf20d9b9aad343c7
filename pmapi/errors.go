package pmapi

import (
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
)

// Error is a PCP error code, as libpcp's functions return them: a PM_ERR_*
// code (PM_ERR_BASE is -12345), or a negated errno value. Its text is the
// one pmErrStr gives.
type Error int32

// ErrBase is PM_ERR_BASE, the first PCP error code.
const ErrBase Error = -12345

// The PCP error codes, as pmerr -l lists them (PCP 6.0.3).
const (
	ErrGeneric        Error = -12345 // PM_ERR_GENERIC
	ErrPMNS           Error = -12346 // PM_ERR_PMNS
	ErrNoPMNS         Error = -12347 // PM_ERR_NOPMNS
	ErrDupPMNS        Error = -12348 // PM_ERR_DUPPMNS
	ErrText           Error = -12349 // PM_ERR_TEXT
	ErrAppVersion     Error = -12350 // PM_ERR_APPVERSION
	ErrValue          Error = -12351 // PM_ERR_VALUE
	ErrTimeout        Error = -12353 // PM_ERR_TIMEOUT
	ErrNoData         Error = -12354 // PM_ERR_NODATA
	ErrReset          Error = -12355 // PM_ERR_RESET
	ErrName           Error = -12357 // PM_ERR_NAME
	ErrPMID           Error = -12358 // PM_ERR_PMID
	ErrInDom          Error = -12359 // PM_ERR_INDOM
	ErrInst           Error = -12360 // PM_ERR_INST
	ErrType           Error = -12397 // PM_ERR_TYPE
	ErrUnit           Error = -12361 // PM_ERR_UNIT
	ErrConv           Error = -12362 // PM_ERR_CONV
	ErrTrunc          Error = -12363 // PM_ERR_TRUNC
	ErrSign           Error = -12364 // PM_ERR_SIGN
	ErrProfile        Error = -12365 // PM_ERR_PROFILE
	ErrIPC            Error = -12366 // PM_ERR_IPC
	ErrTLS            Error = -12414 // PM_ERR_TLS
	ErrEOF            Error = -12368 // PM_ERR_EOF
	ErrNotHost        Error = -12369 // PM_ERR_NOTHOST
	ErrEOL            Error = -12370 // PM_ERR_EOL
	ErrMode           Error = -12371 // PM_ERR_MODE
	ErrLabel          Error = -12372 // PM_ERR_LABEL
	ErrLogRec         Error = -12373 // PM_ERR_LOGREC
	ErrLogFile        Error = -12375 // PM_ERR_LOGFILE
	ErrNotArchive     Error = -12374 // PM_ERR_NOTARCHIVE
	ErrNoContext      Error = -12376 // PM_ERR_NOCONTEXT
	ErrProfileSpec    Error = -12377 // PM_ERR_PROFILESPEC
	ErrPMIDLog        Error = -12378 // PM_ERR_PMID_LOG
	ErrInDomLog       Error = -12379 // PM_ERR_INDOM_LOG
	ErrInstLog        Error = -12380 // PM_ERR_INST_LOG
	ErrNoProfile      Error = -12381 // PM_ERR_NOPROFILE
	ErrNoAgent        Error = -12386 // PM_ERR_NOAGENT
	ErrPermission     Error = -12387 // PM_ERR_PERMISSION
	ErrConnLimit      Error = -12388 // PM_ERR_CONNLIMIT
	ErrAgain          Error = -12389 // PM_ERR_AGAIN
	ErrIsConn         Error = -12390 // PM_ERR_ISCONN
	ErrNotConn        Error = -12391 // PM_ERR_NOTCONN
	ErrNeedPort       Error = -12392 // PM_ERR_NEEDPORT
	ErrNonLeaf        Error = -12394 // PM_ERR_NONLEAF
	ErrPMDANotReady   Error = -13394 // PM_ERR_PMDANOTREADY
	ErrPMDAReady      Error = -13393 // PM_ERR_PMDAREADY
	ErrBotch          Error = -12442 // PM_ERR_BOTCH
	ErrTooSmall       Error = -12443 // PM_ERR_TOOSMALL
	ErrTooBig         Error = -12444 // PM_ERR_TOOBIG
	ErrFault          Error = -12445 // PM_ERR_FAULT
	ErrThread         Error = -12398 // PM_ERR_THREAD
	ErrNoContainer    Error = -12399 // PM_ERR_NOCONTAINER
	ErrBadStore       Error = -12400 // PM_ERR_BADSTORE
	ErrLogOverlap     Error = -12401 // PM_ERR_LOGOVERLAP
	ErrLogHost        Error = -12402 // PM_ERR_LOGHOST
	ErrLogChangeType  Error = -12404 // PM_ERR_LOGCHANGETYPE
	ErrLogChangeSem   Error = -12405 // PM_ERR_LOGCHANGESEM
	ErrLogChangeInDom Error = -12406 // PM_ERR_LOGCHANGEINDOM
	ErrLogChangeUnits Error = -12407 // PM_ERR_LOGCHANGEUNITS
	ErrNeedClientCert Error = -12408 // PM_ERR_NEEDCLIENTCERT
	ErrBadDerive      Error = -12409 // PM_ERR_BADDERIVE
	ErrNoLabels       Error = -12410 // PM_ERR_NOLABELS
	ErrPMDAFenced     Error = -12411 // PM_ERR_PMDAFENCED
	ErrRecType        Error = -12412 // PM_ERR_RECTYPE
	ErrFeature        Error = -12413 // PM_ERR_FEATURE
	ErrArg            Error = -12415 // PM_ERR_ARG (PCP 6.3 and later)
	ErrNYI            Error = -21344 // PM_ERR_NYI
)

// Error returns the code's text exactly as libpcp's pmErrStr does.
func (e Error) Error() string { return ErrStr(int32(e)) }

// Name is the code's symbolic name as pmerr -l prints it ("PM_ERR_EOL"),
// or "" for a code that is not a PCP error code.
func (e Error) Name() string {
	for _, p := range pcpErrors {
		if p.code == e {
			return p.name
		}
	}
	return ""
}

// ErrorCodes returns the PCP error codes in the order pmerr -l lists them.
func ErrorCodes() []Error {
	codes := make([]Error, len(pcpErrors))
	for i, p := range pcpErrors {
		codes[i] = p.code
	}
	return codes
}

// ErrStr returns the text of an error code as libpcp's pmErrStr does in
// the PCP version pcpkit's tools behave as (pcpconf.Version; see
// ErrStrOf):
//   - 0: "No error";
//   - a PM_ERR_* code: its text ("End of PCP archive log", ...);
//   - another code from -12345 down to -21343, or a positive code:
//     "No such PMAPI error code (N)";
//   - -1 .. -12344: the C library's strerror(-code) (glibc's texts,
//     "No such file or directory", or "Unknown error N");
//   - -21345 .. -22344 (SASL): "Authentication - " and the SASL text, or
//     "Authentication - undefined error!";
//   - below -22344 (secure sockets): "Unknown secure sockets error N (M)"
//     with M = N+21344.
func ErrStr(code int32) string { return ErrStrOf(code, pcpconf.Version()) }

// ErrStrOf is ErrStr in PCP version v (pcpconf.Version603 or
// Version638). PCP 6.3.8 says "PCP archive" where 6.0.3 says "PCP
// archive log" (and "archive file" for "archive log file"), and knows
// PM_ERR_ARG, which 6.0.3 has no text for.
func ErrStrOf(code int32, v string) string {
	if v == pcpconf.Version638 {
		if code == int32(ErrArg) {
			return "Bad value for function argument"
		}
		return strings.Replace(errStr603(code), "archive log", "archive", 1)
	}
	return errStr603(code)
}

// errStr603 is ErrStrOf for PCP 6.0.3.
func errStr603(code int32) string {
	switch {
	case code == 0:
		return "No error"
	case code > 0:
		return noSuchCode(code)
	case code > int32(ErrBase):
		return strerror(-code)
	case code < int32(ErrNYI)-1000:
		return "Unknown secure sockets error " + strconv.FormatInt(int64(code), 10) +
			" (" + strconv.FormatInt(int64(code)-int64(ErrNYI), 10) + ")"
	case code < int32(ErrNYI):
		if t, ok := saslText[code-int32(ErrNYI)]; ok {
			return "Authentication - " + t
		}
		return "Authentication - undefined error!"
	}
	for _, p := range pcpErrors {
		if int32(p.code) == code {
			return p.text
		}
	}
	return noSuchCode(code)
}

func noSuchCode(code int32) string {
	return "No such PMAPI error code (" + strconv.FormatInt(int64(code), 10) + ")"
}

// strerror returns glibc's text for errno n > 0. Go's own syscall.Errno
// texts are not used: they are lower case and miss some values.
func strerror(n int32) string {
	if int(n) < len(errnoText) && errnoText[n] != "" {
		return errnoText[n]
	}
	return "Unknown error " + strconv.FormatInt(int64(n), 10)
}

// pcpErrors lists the PCP error codes in the order pmerr -l prints them.
var pcpErrors = [...]struct {
	code Error
	name string
	text string
}{
	{ErrGeneric, "PM_ERR_GENERIC", "Generic error, already reported above"},
	{ErrPMNS, "PM_ERR_PMNS", "Problems parsing PMNS definitions"},
	{ErrNoPMNS, "PM_ERR_NOPMNS", "PMNS not accessible"},
	{ErrDupPMNS, "PM_ERR_DUPPMNS", "Attempt to reload the PMNS"},
	{ErrText, "PM_ERR_TEXT", "One-line or help text is not available"},
	{ErrAppVersion, "PM_ERR_APPVERSION", "Metric not supported by this version of monitored application"},
	{ErrValue, "PM_ERR_VALUE", "Missing metric value(s)"},
	{ErrTimeout, "PM_ERR_TIMEOUT", "Timeout waiting for a response from PMCD"},
	{ErrNoData, "PM_ERR_NODATA", "Empty archive log file"},
	{ErrReset, "PM_ERR_RESET", "PMCD reset or configuration change"},
	{ErrName, "PM_ERR_NAME", "Unknown metric name"},
	{ErrPMID, "PM_ERR_PMID", "Unknown or illegal metric identifier"},
	{ErrInDom, "PM_ERR_INDOM", "Unknown or illegal instance domain identifier"},
	{ErrInst, "PM_ERR_INST", "Unknown or illegal instance identifier"},
	{ErrType, "PM_ERR_TYPE", "Unknown or illegal metric type"},
	{ErrUnit, "PM_ERR_UNIT", "Illegal pmUnits specification"},
	{ErrConv, "PM_ERR_CONV", "Impossible value or scale conversion"},
	{ErrTrunc, "PM_ERR_TRUNC", "Truncation in value conversion"},
	{ErrSign, "PM_ERR_SIGN", "Negative value in conversion to unsigned"},
	{ErrProfile, "PM_ERR_PROFILE", "Explicit instance identifier(s) required"},
	{ErrIPC, "PM_ERR_IPC", "IPC protocol failure"},
	{ErrTLS, "PM_ERR_TLS", "TLS protocol failure"},
	{ErrEOF, "PM_ERR_EOF", "IPC channel closed"},
	{ErrNotHost, "PM_ERR_NOTHOST", "Operation requires context with host source of metrics"},
	{ErrEOL, "PM_ERR_EOL", "End of PCP archive log"},
	{ErrMode, "PM_ERR_MODE", "Illegal mode specification"},
	{ErrLabel, "PM_ERR_LABEL", "Illegal label record at start of a PCP archive log file"},
	{ErrLogRec, "PM_ERR_LOGREC", "Corrupted record in a PCP archive log"},
	{ErrLogFile, "PM_ERR_LOGFILE", "Missing PCP archive log file"},
	{ErrNotArchive, "PM_ERR_NOTARCHIVE", "Operation requires context with archive source of metrics"},
	{ErrNoContext, "PM_ERR_NOCONTEXT", "Attempt to use an illegal context"},
	{ErrProfileSpec, "PM_ERR_PROFILESPEC", "NULL pmInDom with non-NULL instlist"},
	{ErrPMIDLog, "PM_ERR_PMID_LOG", "Metric not defined in the PCP archive log"},
	{ErrInDomLog, "PM_ERR_INDOM_LOG", "Instance domain identifier not defined in the PCP archive log"},
	{ErrInstLog, "PM_ERR_INST_LOG", "Instance identifier not defined in the PCP archive log"},
	{ErrNoProfile, "PM_ERR_NOPROFILE", "Missing profile - protocol botch"},
	{ErrNoAgent, "PM_ERR_NOAGENT", "No PMCD agent for domain of request"},
	{ErrPermission, "PM_ERR_PERMISSION", "No permission to perform requested operation"},
	{ErrConnLimit, "PM_ERR_CONNLIMIT", "PMCD connection limit for this host exceeded"},
	{ErrAgain, "PM_ERR_AGAIN", "Try again. Information not currently available"},
	{ErrIsConn, "PM_ERR_ISCONN", "Already Connected"},
	{ErrNotConn, "PM_ERR_NOTCONN", "Not Connected"},
	{ErrNeedPort, "PM_ERR_NEEDPORT", "A non-null port name is required"},
	{ErrNonLeaf, "PM_ERR_NONLEAF", "Metric name is not a leaf in PMNS"},
	{ErrPMDANotReady, "PM_ERR_PMDANOTREADY", "PMDA is not yet ready to respond to requests"},
	{ErrPMDAReady, "PM_ERR_PMDAREADY", "PMDA is now responsive to requests"},
	{ErrBotch, "PM_ERR_BOTCH", "Internal inconsistency detected or assertion failed"},
	{ErrTooSmall, "PM_ERR_TOOSMALL", "Insufficient elements in list"},
	{ErrTooBig, "PM_ERR_TOOBIG", "Result size exceeded"},
	{ErrFault, "PM_ERR_FAULT", "QA fault injected"},
	{ErrThread, "PM_ERR_THREAD", "Operation not supported for multi-threaded applications"},
	{ErrNoContainer, "PM_ERR_NOCONTAINER", "Container not found"},
	{ErrBadStore, "PM_ERR_BADSTORE", "Bad input to pmstore"},
	{ErrLogOverlap, "PM_ERR_LOGOVERLAP", "Archives overlap in time"},
	{ErrLogHost, "PM_ERR_LOGHOST", "Archives differ by host"},
	{ErrLogChangeType, "PM_ERR_LOGCHANGETYPE", "The type of a metric has changed in an archive"},
	{ErrLogChangeSem, "PM_ERR_LOGCHANGESEM", "The semantics of a metric has changed in an archive"},
	{ErrLogChangeInDom, "PM_ERR_LOGCHANGEINDOM", "The instance domain of a metric has changed in an archive"},
	{ErrLogChangeUnits, "PM_ERR_LOGCHANGEUNITS", "The units of a metric have changed in an archive"},
	{ErrNeedClientCert, "PM_ERR_NEEDCLIENTCERT", "PMCD requires a client certificate"},
	{ErrBadDerive, "PM_ERR_BADDERIVE", "Derived metric definition failed"},
	{ErrNoLabels, "PM_ERR_NOLABELS", "No support for metric label metadata"},
	{ErrPMDAFenced, "PM_ERR_PMDAFENCED", "PMDA is currently fenced and unable to respond to requests"},
	{ErrRecType, "PM_ERR_RECTYPE", "Incorrect record type in an archive"},
	{ErrFeature, "PM_ERR_FEATURE", "Archive feature not supported"},
	{ErrNYI, "PM_ERR_NYI", "Functionality not yet implemented"},
}

// errnoText holds the C library's strerror text for errno values 1..133
// (glibc, as pmErrStr prints them); empty entries are unknown errnos.
var errnoText = [...]string{
	1:   "Operation not permitted",
	2:   "No such file or directory",
	3:   "No such process",
	4:   "Interrupted system call",
	5:   "Input/output error",
	6:   "No such device or address",
	7:   "Argument list too long",
	8:   "Exec format error",
	9:   "Bad file descriptor",
	10:  "No child processes",
	11:  "Resource temporarily unavailable",
	12:  "Cannot allocate memory",
	13:  "Permission denied",
	14:  "Bad address",
	15:  "Block device required",
	16:  "Device or resource busy",
	17:  "File exists",
	18:  "Invalid cross-device link",
	19:  "No such device",
	20:  "Not a directory",
	21:  "Is a directory",
	22:  "Invalid argument",
	23:  "Too many open files in system",
	24:  "Too many open files",
	25:  "Inappropriate ioctl for device",
	26:  "Text file busy",
	27:  "File too large",
	28:  "No space left on device",
	29:  "Illegal seek",
	30:  "Read-only file system",
	31:  "Too many links",
	32:  "Broken pipe",
	33:  "Numerical argument out of domain",
	34:  "Numerical result out of range",
	35:  "Resource deadlock avoided",
	36:  "File name too long",
	37:  "No locks available",
	38:  "Function not implemented",
	39:  "Directory not empty",
	40:  "Too many levels of symbolic links",
	42:  "No message of desired type",
	43:  "Identifier removed",
	44:  "Channel number out of range",
	45:  "Level 2 not synchronized",
	46:  "Level 3 halted",
	47:  "Level 3 reset",
	48:  "Link number out of range",
	49:  "Protocol driver not attached",
	50:  "No CSI structure available",
	51:  "Level 2 halted",
	52:  "Invalid exchange",
	53:  "Invalid request descriptor",
	54:  "Exchange full",
	55:  "No anode",
	56:  "Invalid request code",
	57:  "Invalid slot",
	59:  "Bad font file format",
	60:  "Device not a stream",
	61:  "No data available",
	62:  "Timer expired",
	63:  "Out of streams resources",
	64:  "Machine is not on the network",
	65:  "Package not installed",
	66:  "Object is remote",
	67:  "Link has been severed",
	68:  "Advertise error",
	69:  "Srmount error",
	70:  "Communication error on send",
	71:  "Protocol error",
	72:  "Multihop attempted",
	73:  "RFS specific error",
	74:  "Bad message",
	75:  "Value too large for defined data type",
	76:  "Name not unique on network",
	77:  "File descriptor in bad state",
	78:  "Remote address changed",
	79:  "Can not access a needed shared library",
	80:  "Accessing a corrupted shared library",
	81:  ".lib section in a.out corrupted",
	82:  "Attempting to link in too many shared libraries",
	83:  "Cannot exec a shared library directly",
	84:  "Invalid or incomplete multibyte or wide character",
	85:  "Interrupted system call should be restarted",
	86:  "Streams pipe error",
	87:  "Too many users",
	88:  "Socket operation on non-socket",
	89:  "Destination address required",
	90:  "Message too long",
	91:  "Protocol wrong type for socket",
	92:  "Protocol not available",
	93:  "Protocol not supported",
	94:  "Socket type not supported",
	95:  "Operation not supported",
	96:  "Protocol family not supported",
	97:  "Address family not supported by protocol",
	98:  "Address already in use",
	99:  "Cannot assign requested address",
	100: "Network is down",
	101: "Network is unreachable",
	102: "Network dropped connection on reset",
	103: "Software caused connection abort",
	104: "Connection reset by peer",
	105: "No buffer space available",
	106: "Transport endpoint is already connected",
	107: "Transport endpoint is not connected",
	108: "Cannot send after transport endpoint shutdown",
	109: "Too many references: cannot splice",
	110: "Connection timed out",
	111: "Connection refused",
	112: "Host is down",
	113: "No route to host",
	114: "Operation already in progress",
	115: "Operation now in progress",
	116: "Stale file handle",
	117: "Structure needs cleaning",
	118: "Not a XENIX named type file",
	119: "No XENIX semaphores available",
	120: "Is a named type file",
	121: "Remote I/O error",
	122: "Disk quota exceeded",
	123: "No medium found",
	124: "Wrong medium type",
	125: "Operation canceled",
	126: "Required key not available",
	127: "Key has expired",
	128: "Key has been revoked",
	129: "Key was rejected by service",
	130: "Owner died",
	131: "State not recoverable",
	132: "Operation not possible due to RF-kill",
	133: "Memory page has hardware error",
}

// saslText holds the texts of the SASL result codes (code+21344 for
// codes -22344..-21345), without the "Authentication - " prefix.
var saslText = map[int32]string{
	-1:   "generic failure",
	-2:   "no memory available",
	-3:   "overflowed buffer",
	-4:   "no mechanism available",
	-5:   "bad protocol / cancel",
	-6:   "can't request information until later in exchange",
	-7:   "invalid parameter supplied",
	-8:   "transient failure (e.g., weak key)",
	-9:   "integrity check failed",
	-10:  "server failed mutual authentication step",
	-11:  "mechanism doesn't support requested feature",
	-12:  "SASL library is not initialized",
	-13:  "authentication failure",
	-14:  "authorization failure",
	-15:  "mechanism too weak for this user",
	-16:  "encryption needed to use mechanism",
	-17:  "One time use of a plaintext password will enable requested mechanism for user",
	-18:  "passphrase expired, has to be reset",
	-19:  "account disabled",
	-20:  "user not found",
	-21:  "passphrase locked",
	-22:  "requested change was not needed",
	-23:  "version mismatch with plug-in",
	-24:  "remote authentication server unavailable",
	-26:  "user exists, but no verifier for user",
	-27:  "passphrase is too weak for security policy",
	-28:  "user supplied passwords are not permitted",
	-29:  "sasl_setpass needs old password in order to perform password change",
	-30:  "sasl_setpass can't store a property because of a constraint violation",
	-32:  "channel binding failure",
	-100: "error when parsing configuration file",
}
