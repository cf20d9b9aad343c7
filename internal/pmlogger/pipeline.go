package pmlogger

import (
	"github.com/pcpkit/pcpkit/pmapi"
)

// Deferred replies. A recorder that samples every few milliseconds is
// woken twice per sample: by its timer, and then, a fraction of a
// millisecond after it sent the fetch, by pmcd's reply. The wake-up is
// most of what a sample costs (docs/benchmarks.md, section "pmlogger").
// For a group logged more often than Options.WriteLag, the logger sends
// the fetch at the sample's time and reads the reply at the group's next
// sample, before that sample's fetch: the reply has long been in the
// socket (which is outside the runtime's poller, so its arrival wakes
// nobody), and each sample costs one wake-up.
//
// The archive is the same: a record's timestamp is pmcd's, taken when it
// answered, and the records are written in the same order. What changes
// is when a record reaches the file: up to one interval later. So this
// is only done at short intervals, never with --sync, and the sample in
// flight is settled (its reply read and its record written) before
// anything else touches the source or the archive: another group's
// sample, a new volume, a pmlc request, the end of the recording. A
// logger killed with a fetch in flight loses that sample, which it had
// not written, as the real one killed between its fetch and its write.
//
// The last sample of a -s count is never deferred, and the -s byte
// limit and -v switches are applied when the record is written, so the
// recording stops, and volumes switch, after the same records as
// without deferral.

// pipeSource is a pduSource that can send a fetch and read its reply
// later (*pmcd.Client).
type pipeSource interface {
	pduSource
	StartFetch(pmids []pmapi.PMID) error
	FinishFetchPDU() (pdu []byte, typ uint32, changes uint32, err error)
}

// maxDeferredReply bounds the reply of a fetch that may wait in the
// socket: well under what a loopback or local TCP socket's buffers hold,
// so that pmcd never blocks writing it.
const maxDeferredReply = 64 << 10

// inFlight is the sample whose fetch was sent and whose record is not
// written yet (g nil: none). A value in the Logger: a sample allocates
// nothing.
type inFlight struct {
	g  *group
	fg *fetchGroup
}

// canDefer reports whether the fetch of fg, the last of g's sample, may
// be left in flight until g's next sample.
func (l *Logger) canDefer(g *group, fg *fetchGroup) bool {
	if l.o.WriteLag <= 0 || l.o.Sync || g.Once() || g.Interval >= l.o.WriteLag {
		return false
	}
	if l.disconnected || !fg.metaDone || fg.replyLen <= 0 || fg.replyLen > maxDeferredReply {
		return false
	}
	if l.o.End.Samples > 0 && l.stats.Samples+1 >= l.o.End.Samples {
		return false // the last sample is written at once
	}
	return l.pipe != nil
}

// startDeferred sends the fetch of fg, the last of g's sample, and
// leaves it in flight. A fetch that cannot be sent is the sample's
// failed fetch, handled and accounted for here.
func (l *Logger) startDeferred(g *group, fg *fetchGroup) error {
	l.useProfile(fg)
	if err := l.pipe.StartFetch(fg.pmids); err != nil {
		if err := l.recordResult(g, fg, nil, 0, err, nil, 0); err != nil {
			return err
		}
		return l.account(g)
	}
	l.flight = inFlight{g: g, fg: fg}
	return nil
}

// settle reads the reply of the sample in flight, if any, writes its
// record and accounts for the sample (which may reach a limit, and so
// set l.stop, or switch volumes).
func (l *Logger) settle() error {
	f := l.flight
	if f.g == nil {
		return nil
	}
	l.flight = inFlight{}
	pdu, typ, changes, err := l.pipe.FinishFetchPDU()
	if err := l.recordPDU(f.g, f.fg, l.psrc, pdu, typ, changes, err); err != nil {
		return err
	}
	return l.account(f.g)
}
