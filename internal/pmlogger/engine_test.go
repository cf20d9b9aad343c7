package pmlogger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pmlogger/fakesource"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/source"
)

// fakeConfig is the configuration most engine tests record: a "once"
// group and a fast group with singular, indom and churning metrics.
const fakeConfig = `# engine tests
log mandatory on every 1 msec {
    fake.counter
    fake.seq
    fake.cpu.user [ "cpu1" 3 ]
    fake.disk.read
    fake.float
}
log mandatory on once { fake.string }
log mandatory on every 2 msec { fake.instant fake.counter }
`

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newFake returns a fake source with a 10 ms synthetic clock step.
func newFake() *fakesource.Source { return fakesource.New(epoch, 10*time.Millisecond) }

// groupsFor resolves a configuration text against src.
func groupsFor(t testing.TB, src *fakesource.Source, text string, warn io.Writer) []Group {
	t.Helper()
	// (pmcpp, and so pmlogger, drops an unfinished last line.)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	g, warnings, err := ParseGroups([]byte(text), "test.config", src, time.Second)
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	if warn == nil {
		warn = io.Discard
	}
	io.WriteString(warn, warnings)
	return g
}

// record runs a recording to its end and returns the archive base.
func record(t *testing.T, o Options) (string, Stats) {
	t.Helper()
	if o.Archive == "" {
		o.Archive = filepath.Join(t.TempDir(), "a")
	}
	if len(o.Groups) == 0 {
		t.Fatal("no fetch groups: the recording would never end")
	}
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	st, err := l.Run()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return o.Archive, st
}

// readRecords reads every record of an archive with pcpkit's reader.
func readRecords(t *testing.T, base string) (*archive.Archive, []*pmapi.Result) {
	t.Helper()
	a, err := archive.Open(base)
	if err != nil {
		t.Fatalf("open %s: %v", base, err)
	}
	t.Cleanup(func() { a.Close() })
	c := a.NewCursor()
	var out []*pmapi.Result
	for {
		r, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", base, len(out), err)
		}
		out = append(out, r.Clone().Result())
	}
	return a, out
}

// checkReal has the real pmdumplog -a and pmlogcheck read the archive
// cleanly (skipped when they are not installed).
func checkReal(t *testing.T, base string) string {
	t.Helper()
	if testenv.FindRealTool("pmdumplog") == "" && !testenv.Interop() {
		return ""
	}
	out, errb, rc := testenv.RunReal(t, "pmdumplog", "-a", base)
	if rc != 0 || len(errb) != 0 {
		t.Errorf("real pmdumplog -a %s: rc %d: %s", base, rc, errb)
	}
	cout, cerr, crc := testenv.RunReal(t, "pmlogcheck", base)
	if crc != 0 || len(cout)+len(cerr) != 0 {
		t.Errorf("real pmlogcheck %s: rc %d: %s%s", base, crc, cout, cerr)
	}
	return string(out)
}

func intValue(t *testing.T, r *pmapi.Result, pmid pmapi.PMID) (int64, bool) {
	t.Helper()
	for _, vs := range r.VSets {
		if vs.PMID == pmid && vs.NumVal == 1 {
			v := vs.Values[0]
			if v.Block == nil {
				return int64(v.Insitu), true
			}
			return int64(beU64(v.Block)), true
		}
	}
	return 0, false
}

func TestEngineRecordsFake(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			src := newFake()
			var log strings.Builder
			base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, fakeConfig, nil), Version: version,
				End: Limit{Samples: 40}, Log: &log, Report: true})
			if st.Reason != ReasonSamples || st.Samples != 40 {
				t.Fatalf("stats %+v", st)
			}
			a, recs := readRecords(t, base)
			if len(recs) != 42 {
				t.Fatalf("%d records, want 40 + prologue + epilogue", len(recs))
			}
			// Prologue and epilogue: the five metrics in their order,
			// pmcd.pid and pmcd.seqnum from the source.
			for _, r := range []*pmapi.Result{recs[0], recs[len(recs)-1]} {
				want := []pmapi.PMID{pmidHost, pmidPort, pmidArchive, pmidPid, pmidSeqnum}
				if len(r.VSets) != 5 {
					t.Fatalf("logue record has %d metrics", len(r.VSets))
				}
				for i, p := range want {
					if r.VSets[i].PMID != p {
						t.Errorf("logue metric %d is %s, want %s", i, r.VSets[i].PMID, p)
					}
				}
				if v, _ := intValue(t, r, pmidPid); v != 4242 {
					t.Errorf("pmcd.pid %d", v)
				}
				if v, _ := intValue(t, r, pmidSeqnum); v != 7 {
					t.Errorf("pmcd.seqnum %d", v)
				}
			}
			if got := a.Label().Start; got != recs[0].Timestamp {
				t.Errorf("label start %v, prologue %v", got, recs[0].Timestamp)
			}
			// The once group comes first, then every record has its
			// PMIDs in descending order and stamps increase.
			if len(recs[1].VSets) != 1 || recs[1].VSets[0].PMID != fakesource.PMIDString {
				t.Errorf("first data record is not the once group: %+v", recs[1])
			}
			prevSeq := int64(0)
			for i, r := range recs[1 : len(recs)-1] {
				for j := 1; j < len(r.VSets); j++ {
					if r.VSets[j-1].PMID <= r.VSets[j].PMID {
						t.Errorf("record %d: PMIDs not descending: %s then %s", i+1, r.VSets[j-1].PMID, r.VSets[j].PMID)
					}
				}
				if !recs[i].Timestamp.Before(r.Timestamp) {
					t.Errorf("record %d: stamp %v not after %v", i+1, r.Timestamp, recs[i].Timestamp)
				}
				if seq, ok := intValue(t, r, fakesource.PMIDSeq); ok {
					if seq <= prevSeq {
						t.Errorf("record %d: fake.seq %d after %d", i+1, seq, prevSeq)
					}
					prevSeq = seq
					// The instance list: cpu1 (by name) and 3 (by id).
					for _, vs := range r.VSets {
						if vs.PMID == fakesource.PMIDU32 {
							if vs.NumVal != 2 || vs.Values[0].Inst != 1 || vs.Values[1].Inst != 3 {
								t.Errorf("record %d: fake.cpu.user instances %+v", i+1, vs.Values)
							}
							if vs.Values[0].Insitu != int32(2*seq) {
								t.Errorf("record %d: fake.cpu.user[1] = %d, want %d", i+1, vs.Values[0].Insitu, 2*seq)
							}
						}
					}
				}
			}
			// Metadata: every logged metric has its descriptor and
			// names; the churning indom was written more than once;
			// labels and help text are there.
			m := a.Meta()
			for _, p := range []pmapi.PMID{fakesource.PMIDCounter, fakesource.PMIDSeq, fakesource.PMIDU32, fakesource.PMIDDisk, fakesource.PMIDFloat, fakesource.PMIDString, fakesource.PMIDInstant, pmidHost, pmidPid} {
				if _, ok := m.Desc(p); !ok {
					t.Errorf("no descriptor for %s", p)
				}
			}
			if n := len(m.InDomHistory(fakesource.InDomDisk)); n < 2 {
				t.Errorf("churning indom written %d times", n)
			}
			if len(m.Labels) == 0 || len(m.Texts) == 0 {
				t.Errorf("labels %d, texts %d", len(m.Labels), len(m.Texts))
			}
			if version == 3 {
				deltas := 0
				for _, r := range m.InDomRecords {
					if r.Type == archive.MetaInDomDelta {
						deltas++
					}
				}
				if deltas == 0 {
					t.Errorf("a version 3 archive with a churning indom has no delta records")
				}
			}
			if !strings.Contains(log.String(), "Group [5 metrics] {\n\tfake.seq\n\tfake.float\n\tfake.disk.read\n\tfake.cpu.user\n\tfake.counter\n} logged every 0.001 sec: ") {
				t.Errorf("-r report missing:\n%s", log.String())
			}
			if !strings.Contains(log.String(), "\nMetric fake.string logged once: ") {
				t.Errorf("-r once report missing:\n%s", log.String())
			}
			checkReal(t, base)
		})
	}
}

// TestEngineMetadataOrder checks what goes into .meta before a metric's
// first record, in the real pmlogger's order: descriptor; labels
// (context, domain, indom, item, instances); help text (one-line PMID,
// one-line indom, help PMID, help indom); the instance domain.
func TestEngineMetadataOrder(t *testing.T) {
	src := newFake()
	base, _ := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.disk.read fake.counter }", nil), End: Limit{Samples: 1}})
	raw, err := os.ReadFile(base + ".meta")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for off := archive.LabelSizeV2; off+8 <= len(raw); {
		n := int(be32(raw[off:]))
		typ := be32(raw[off+4:])
		s := ""
		switch typ {
		case archive.MetaDesc:
			s = "desc " + pmapi.PMID(be32(raw[off+8:])).String()
		case archive.MetaInDomV2:
			s = "indom " + pmapi.InDom(be32(raw[off+16:])).String()
		case archive.MetaLabelV2:
			s = fmt.Sprintf("label %d", be32(raw[off+16:]))
		case archive.MetaText:
			s = fmt.Sprintf("text %d", be32(raw[off+8:]))
		}
		got = append(got, s)
		if n <= 0 {
			t.Fatalf("bad record length %d at %d", n, off)
		}
		off += n
	}
	want := []string{
		"desc 2.3.3", "indom 2.1", "desc 2.3.0", "desc 2.3.2", "desc 2.0.23", "desc 2.0.24",
		"desc 29.1.2", "label 1", "label 2", "label 4", "label 32", "text 5", "text 9", "text 6", "text 10", "indom 29.2",
		"desc 29.0.1", "label 16", "text 5", "text 6",
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("metadata order\n got %v\nwant %v", got, want)
	}
	checkReal(t, base)
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func TestEngineIndexPolicy(t *testing.T) {
	src := newFake()
	base, _ := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter fake.disk.read }", nil), End: Limit{Samples: 30}})
	a, recs := readRecords(t, base)
	idx := a.Index()
	// The prologue, the first data record (it writes the indom), each
	// record after a churn of the indom (fetches 5, 10, ... bring new
	// instances back), and the closing entry at the epilogue.
	if len(idx) < 4 {
		t.Fatalf("%d index entries: %+v", len(idx), idx)
	}
	if idx[0].Stamp != recs[0].Timestamp || idx[0].DataOff != archive.LabelSizeV2 || idx[0].MetaOff != archive.LabelSizeV2 {
		t.Errorf("first entry %+v", idx[0])
	}
	last := idx[len(idx)-1]
	if last.Stamp != recs[len(recs)-1].Timestamp {
		t.Errorf("closing entry %+v, epilogue at %v", last, recs[len(recs)-1].Timestamp)
	}
	fi, _ := os.Stat(base + ".meta")
	if last.MetaOff != fi.Size() {
		t.Errorf("closing entry meta offset %d, .meta is %d bytes", last.MetaOff, fi.Size())
	}
	indoms := len(a.Meta().InDomHistory(fakesource.InDomDisk))
	if len(idx) != indoms+2 {
		t.Errorf("%d index entries for %d indom records (want prologue + one per indom + closing)", len(idx), indoms)
	}
}

func TestEngineVolumes(t *testing.T) {
	src := newFake()
	sigs := make(chan os.Signal, 1)
	var log strings.Builder
	l, err := New(Options{Archive: filepath.Join(t.TempDir(), "v"), Source: src,
		Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter fake.cpu.user }", nil),
		End:    Limit{Samples: 25}, Volume: Limit{Samples: 10}, Log: &log, Signals: sigs})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	// A SIGHUP before the loop starts switches after the prologue.
	sigs <- syscall.SIGHUP
	st, err := l.Run()
	if err != nil {
		t.Fatal(err)
	}
	if st.Volumes != 4 { // SIGHUP, then every 10 samples: 0 | 1-10 | 11-20 | 21-25
		t.Errorf("%d volumes\n%s", st.Volumes, log.String())
	}
	for _, want := range []string{"New log volume 1, via SIGHUP at ", "New log volume 2, via sample counter at ", "New log volume 3, via sample counter at "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	a, recs := readRecords(t, l.o.Archive)
	if len(recs) != 27 || len(a.Volumes()) != 4 {
		t.Errorf("%d records in %d volumes", len(recs), len(a.Volumes()))
	}
	checkReal(t, l.o.Archive)

	// By bytes.
	src = newFake()
	base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.big }", nil),
		End: Limit{Samples: 20}, Volume: Limit{Bytes: 3000}})
	if st.Volumes < 5 {
		t.Errorf("byte volumes: %d", st.Volumes)
	}
	checkReal(t, base)
}

// TestEngineVolumeTime: -v with a duration switches volumes on a timer.
func TestEngineVolumeTime(t *testing.T) {
	src := newFake()
	var log strings.Builder
	base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 10 msec { fake.counter }", nil),
		End: Limit{Duration: 330 * time.Millisecond}, Volume: Limit{Duration: 100 * time.Millisecond}, Log: &log})
	if st.Volumes < 3 || st.Volumes > 4 || !strings.Contains(log.String(), "New log volume 2, via sample time at ") {
		t.Errorf("%d volumes\n%s", st.Volumes, log.String())
	}
	checkReal(t, base)
}

func TestEngineLimits(t *testing.T) {
	src := newFake()
	_, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.big }", nil), End: Limit{Bytes: 10000}})
	if st.Reason != ReasonBytes || st.Records < 9 || st.Records > 11 {
		t.Errorf("byte limit: %+v", st)
	}
	src = newFake()
	start := time.Now()
	_, st = record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 10 msec { fake.counter }", nil), End: Limit{Duration: 150 * time.Millisecond}})
	if el := time.Since(start); st.Reason != ReasonTime || el < 140*time.Millisecond || el > 2*time.Second {
		t.Errorf("time limit: %+v after %v", st, el)
	}
	src = newFake()
	_, st = record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 10 msec { fake.counter }", nil), EndTime: time.Now().Add(100 * time.Millisecond)})
	if st.Reason != ReasonTime || st.Records < 2 {
		t.Errorf("-T: %+v", st)
	}
	// SIGTERM: a clean close with the epilogue.
	src = newFake()
	sigs := make(chan os.Signal, 1)
	go func() { time.Sleep(50 * time.Millisecond); sigs <- syscall.SIGTERM }()
	base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 5 msec { fake.counter }", nil), Signals: sigs})
	if st.Reason != "Caught signal 15" {
		t.Errorf("SIGTERM: %+v", st)
	}
	_, recs := readRecords(t, base)
	if last := recs[len(recs)-1]; len(last.VSets) != 5 || last.VSets[0].PMID != pmidHost {
		t.Errorf("no epilogue after SIGTERM")
	}
	checkReal(t, base)
}

func TestEngineNeverOverwrites(t *testing.T) {
	src := newFake()
	base, _ := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter }", nil), End: Limit{Samples: 2}})
	before, _ := os.ReadFile(base + ".0")
	l, err := New(Options{Archive: base, Source: newFake(), LabelHost: "vm", Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter }", nil)})
	if err != nil {
		t.Fatal(err)
	}
	err = l.Start()
	if !errors.Is(err, ErrExists) {
		t.Fatalf("Start over an archive: %v", err)
	}
	want := fmt.Sprintf("__pmLogNewFile: \"%s.index\" already exists, not over-written\n__pmLogCreate(vm, %s, ...): File exists", base, base)
	if err.Error() != want {
		t.Errorf("message\n got %q\nwant %q", err.Error(), want)
	}
	after, _ := os.ReadFile(base + ".0")
	if string(before) != string(after) {
		t.Errorf("the archive was changed")
	}
}

// TestEngineMarks: a lost connection is retried with back-off and
// followed by a <mark>; so is a PMCD_ADD_AGENT state change.
func TestEngineMarks(t *testing.T) {
	src := newFake()
	src.FetchErr = func(n int) error {
		if n == 10 {
			return fakesource.ErrLost
		}
		return nil
	}
	src.ReconnectFails = 2
	src.Changes = func(n int) uint32 {
		if n == 20 {
			return 1 // PMCD_ADD_AGENT
		}
		if n == 25 {
			return 2 // RESTART_AGENT: no mark
		}
		return 0
	}
	var log strings.Builder
	base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.seq }", nil),
		End: Limit{Samples: 40}, Log: &log, Backoff: []time.Duration{time.Millisecond, 2 * time.Millisecond}})
	if st.Marks != 2 {
		t.Errorf("%d marks, want 2\n%s", st.Marks, log.String())
	}
	if src.ReconnectCalls != 3 {
		t.Errorf("%d reconnect attempts, want 3", src.ReconnectCalls)
	}
	_, recs := readRecords(t, base)
	marks := 0
	for i, r := range recs {
		if r.IsMark() {
			marks++
			if d := pcptime.Sub(r.Timestamp, recs[i-1].Timestamp); d < 0.000999 || d > 0.001001 {
				t.Errorf("mark %v is %v s after the record before it", r.Timestamp, d)
			}
			if i+1 < len(recs) && !r.Timestamp.Before(recs[i+1].Timestamp) {
				t.Errorf("mark %v not before the next record", r.Timestamp)
			}
		}
	}
	if marks != 2 {
		t.Errorf("%d marks in the archive", marks)
	}
	if !strings.Contains(log.String(), "pmlogger: Lost connection to PMCD on \"fakehost\" at ") ||
		!strings.Contains(log.String(), "pmlogger: re-established connection to PMCD on \"fakehost\" at ") ||
		!strings.Contains(log.String(), "pmlogger: Validating metrics after PMCD state changed at ") {
		t.Errorf("log:\n%s", log.String())
	}
	checkReal(t, base)
}

// TestEngineBadSource: malformed results, failing fetches and failing
// metadata lookups never crash the engine nor reach the archive.
func TestEngineBadSource(t *testing.T) {
	src := newFake()
	src.FetchErr = func(n int) error {
		if n%7 == 0 {
			return errors.New("garbage PDU")
		}
		return nil
	}
	src.Mangle = func(n int, r *pmapi.Result) {
		switch n % 6 {
		case 1:
			if len(r.VSets) > 0 {
				r.VSets[0].NumVal = 5 // more than there are values
			}
		case 2:
			for i := range r.VSets {
				if r.VSets[i].ValFmt == pmapi.ValFmtDptr && r.VSets[i].NumVal > 0 {
					r.VSets[i].Values[0].Block = nil
				}
			}
		case 3:
			r.Timestamp.Nsec = -5
		case 4:
			r.VSets = nil
		case 5:
			r.VSets = append(r.VSets, pmapi.ValueSet{PMID: 12345, NumVal: -12357})
		}
	}
	var log strings.Builder
	base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter fake.disk.read fake.string }", nil),
		End: Limit{Samples: 60}, Log: &log})
	if st.Errors == 0 || st.Records == 0 {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(log.String(), "bad result from the source") || !strings.Contains(log.String(), "pmlogger: Error: garbage PDU\n") {
		t.Errorf("log:\n%s", log.String())
	}
	_, recs := readRecords(t, base)
	for _, r := range recs[1 : len(recs)-1] {
		for _, vs := range r.VSets {
			if vs.PMID == 12345 {
				t.Errorf("a metric nobody asked for reached the archive")
			}
		}
	}
	checkReal(t, base)
}

// TestEngineBadMetadata: malformed label sets and instance domains from
// the source are logged as problems and left out; the recording goes on.
func TestEngineBadMetadata(t *testing.T) {
	src := newFake()
	src.BadLabels, src.BadInDom = true, true
	var log strings.Builder
	base, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter fake.disk.read }", nil), End: Limit{Samples: 10}, Log: &log})
	if st.Records != 10 {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(log.String(), "pmlogger: label sets (type 2, ident 0x1d) not logged: ") || !strings.Contains(log.String(), "pmGetInDom(29.2): ") {
		t.Errorf("log:\n%s", log.String())
	}
	checkReal(t, base)
}

// TestEngineNoPMCD: a source without pmcd.pid and pmcd.seqnum (the
// built-in collector) gets 0 for both, as pmlogger -o writes them.
func TestEngineNoPMCD(t *testing.T) {
	src := newFake()
	src.NoPMCD = true
	base, _ := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 1 msec { fake.counter }", nil), End: Limit{Samples: 3}})
	_, recs := readRecords(t, base)
	for _, r := range []*pmapi.Result{recs[0], recs[len(recs)-1]} {
		if v, ok := intValue(t, r, pmidPid); !ok || v != 0 {
			t.Errorf("pmcd.pid %d %v", v, ok)
		}
	}
	checkReal(t, base)
}

// TestGroupsFrom: package loggerconf's groups become the engine's:
// "once" is interval 0, "default" the -t value, an instance list that
// keeps no instance logs them all, warnings are the real tool's text.
func TestGroupsFrom(t *testing.T) {
	src := newFake()
	var warn strings.Builder
	g := groupsFor(t, src, `log mandatory on 1 sec { no.such.metric fake.cpu.user [ "cpu1" 3 ] }
log mandatory on once { fake.string }
log mandatory on default { fake.seq fake.disk.read [ "nosuch" ] }
`, &warn)
	if !strings.HasPrefix(warn.String(), "Warning [test.config, line 1]\nProblem with lookup for metric \"no.such.metric\" ... logging not activated\nReason: Unknown metric name\n") {
		t.Errorf("warnings:\n%s", warn.String())
	}
	var once, second int
	for _, gr := range g {
		if gr.Once() {
			once++
			if len(gr.Fetches[0]) != 1 || gr.Fetches[0][0].PMID != fakesource.PMIDString {
				t.Errorf("once group %+v", gr)
			}
			continue
		}
		if gr.Interval != time.Second {
			t.Errorf("interval %v", gr.Interval)
		}
		for _, m := range gr.Fetches[0] {
			second++
			switch m.PMID {
			case fakesource.PMIDU32:
				if len(m.Insts) != 2 || m.Insts[0] != 1 || m.Insts[1] != 3 {
					t.Errorf("fake.cpu.user instances %v", m.Insts)
				}
			case fakesource.PMIDSeq:
				if m.Insts != nil {
					t.Errorf("%s: instances %v, want all", m.Name, m.Insts)
				}
			}
		}
	}
	// fake.disk.read named no instance that exists: not logged.
	if once != 1 || second != 2 {
		t.Errorf("%d once groups, %d metrics at 1 sec: %+v", once, second, g)
	}
}

// TestEngineDerived records derived metrics from the fake source: they
// are logged as 511.2048.N (N from 3: event.flags and event.missed come
// first), with their descriptors written again before every record as
// the real pmlogger writes them, and their operands are not logged.
func TestEngineDerived(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "derived.conf")
	os.WriteFile(conf, []byte("fk.sum = fake.counter + fake.counter\nfk.pct = 100 * fake.seq / fake.instant\nfk.rate = rate(fake.counter)\n"), 0o644)
	var msgs strings.Builder
	reg, _, err := LoadDerived("", conf, &msgs)
	if err != nil {
		t.Fatal(err)
	}
	src := NewDerivedSource(newFake(), reg, io.Discard)
	groups, warnings, err := ParseGroups([]byte("log mandatory on 1 msec { fk fake.cpu.user }\n"), "d.config", src, time.Second)
	msgs.WriteString(warnings)
	if err != nil || msgs.Len() > 0 {
		t.Fatalf("%v\n%s", err, msgs.String())
	}
	var log strings.Builder
	base, _ := record(t, Options{Archive: filepath.Join(dir, "d"), Source: src, Groups: groups, End: Limit{Samples: 5}, Log: &log, Report: true})
	a, recs := readRecords(t, base)
	want := []pmapi.PMID{pmapi.NewPMID(511, 2048, 5), pmapi.NewPMID(511, 2048, 4), pmapi.NewPMID(511, 2048, 3), fakesource.PMIDU32}
	for i, r := range recs[1 : len(recs)-1] {
		if len(r.VSets) != len(want) {
			t.Fatalf("record %d: %d metrics", i+1, len(r.VSets))
		}
		for j, p := range want {
			if r.VSets[j].PMID != p {
				t.Errorf("record %d metric %d: %s, want %s", i+1, j, r.VSets[j].PMID, p)
			}
		}
		seq := int64(i + 2) // the prologue was fetch 1
		if v, _ := intValue(t, r, pmapi.NewPMID(511, 2048, 3)); v != 20*seq {
			t.Errorf("record %d: fk.sum = %d, want %d", i+1, v, 20*seq)
		}
		if i == 0 && r.VSets[0].NumVal != 0 {
			t.Errorf("the first rate() has %d values", r.VSets[0].NumVal)
		}
	}
	m := a.Meta()
	for p, name := range map[pmapi.PMID]string{pmapi.NewPMID(511, 2048, 3): "fk.sum", pmapi.NewPMID(511, 2048, 4): "fk.pct", pmapi.NewPMID(511, 2048, 5): "fk.rate"} {
		d, ok := m.Desc(p)
		if !ok {
			t.Errorf("no descriptor for %s", p)
			continue
		}
		if names := m.Names(p); len(names) != 1 || names[0] != name {
			t.Errorf("%s: names %v", p, names)
		}
		switch name {
		case "fk.sum":
			if d.Type != pmapi.TypeU64 || d.Sem != pmapi.SemCounter {
				t.Errorf("fk.sum: %+v", d)
			}
		case "fk.pct", "fk.rate":
			if d.Type != pmapi.TypeDouble || d.Sem != pmapi.SemInstant {
				t.Errorf("%s: %+v", name, d)
			}
		}
	}
	if _, ok := m.Desc(fakesource.PMIDCounter); ok {
		t.Errorf("an operand was logged")
	}
	descs := 0
	raw, _ := os.ReadFile(base + ".meta")
	for off := archive.LabelSizeV2; off+8 <= len(raw); off += int(be32(raw[off:])) {
		if be32(raw[off+4:]) == archive.MetaDesc && pmapi.PMID(be32(raw[off+8:])).Domain() == 511 {
			descs++
		}
	}
	if descs != 3*5 {
		t.Errorf("%d derived descriptors in .meta, want 3 per record", descs)
	}
	if !strings.Contains(log.String(), "Group [4 metrics, 3 derived] {") {
		t.Errorf("log:\n%s", log.String())
	}
	checkReal(t, base)
}

// TestEngineDerived638: with PCPKIT_PCP_VERSION=6.3.8 pmlogger takes PCP
// 6.3.8's derived metric language (6.0.3's refuses these expressions) and
// logs the metrics as 511.2048.N as for 6.0.3.
func TestEngineDerived638(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "derived.conf")
	os.WriteFile(conf, []byte("fk.r = rate(fake.counter + fake.counter)\nfk.t = fake.seq > 0 ? fake.seq : novalue()\nfk.d = delta(fake.counter * 2)\nfk.k = mkconst(7, meta=fake.cpu.user)\n"), 0o644)
	t.Setenv("PCPKIT_PCP_VERSION", "6.0.3")
	var msgs strings.Builder
	if reg, _, err := LoadDerived("", conf, &msgs); err != nil || len(reg.Metrics()) != 2 || !strings.Contains(msgs.String(), "syntax error") {
		t.Fatalf("6.0.3: %v, %d metrics, messages:\n%s", err, len(reg.Metrics()), msgs.String())
	}
	t.Setenv("PCPKIT_PCP_VERSION", "6.3.8")
	msgs.Reset()
	reg, _, err := LoadDerived("", conf, &msgs)
	if err != nil || msgs.Len() > 0 || len(reg.Metrics()) != 6 {
		t.Fatalf("6.3.8: %v, %d metrics, messages:\n%s", err, len(reg.Metrics()), msgs.String())
	}
	src := NewDerivedSource(newFake(), reg, io.Discard)
	groups, warnings, err := ParseGroups([]byte("log mandatory on 1 msec { fk }\n"), "d.config", src, time.Second)
	if err != nil || warnings != "" {
		t.Fatalf("%v\n%s", err, warnings)
	}
	var log strings.Builder
	base, _ := record(t, Options{Archive: filepath.Join(dir, "d"), Source: src, Groups: groups, End: Limit{Samples: 4}, Log: &log, Report: true})
	a, recs := readRecords(t, base)
	pr, pt, pd, pk := pmapi.NewPMID(511, 2048, 3), pmapi.NewPMID(511, 2048, 4), pmapi.NewPMID(511, 2048, 5), pmapi.NewPMID(511, 2048, 6)
	insts, _, err := src.InDom(fakesource.InDomCPU)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs[1 : len(recs)-1] {
		if len(r.VSets) != 4 {
			t.Fatalf("record %d: %d metrics", i+1, len(r.VSets))
		}
		// a constant with the instances of fake.cpu.user's domain
		if vs := findSet(r, pk); vs == nil || int(vs.NumVal) != len(insts) || vs.Values[0].Inst != insts[0] || vs.Values[0].Insitu != 7 {
			t.Errorf("record %d: fk.k = %+v, want 7 for each of %v", i+1, vs, insts)
		}
		for _, p := range []pmapi.PMID{pr, pt, pd} {
			if findSet(r, p) == nil {
				t.Errorf("record %d: no %s", i+1, p)
			}
		}
		seq := int64(i + 2)
		if v, _ := intValue(t, r, pt); v != seq {
			t.Errorf("record %d: fk.t = %d, want %d", i+1, v, seq)
		}
		if n := findSet(r, pd).NumVal; (i == 0) != (n == 0) {
			t.Errorf("record %d: delta() has %d values", i+1, n)
		}
	}
	m := a.Meta()
	for p, name := range map[pmapi.PMID]string{pr: "fk.r", pt: "fk.t", pd: "fk.d", pk: "fk.k"} {
		if names := m.Names(p); len(names) != 1 || names[0] != name {
			t.Errorf("%s: names %v, want %s", p, names, name)
		}
	}
	if testenv.FindRealTool("pmlogcheck") == "" && !testenv.Interop() {
		return
	}
	// the real tools read it; pmlogcheck notes the constant's descriptor,
	// which has the instance domain of fake.cpu.user (another domain's)
	if _, errb, rc := testenv.RunReal(t, "pmdumplog", "-a", base); rc != 0 || len(errb) != 0 {
		t.Errorf("real pmdumplog -a %s: rc %d: %s", base, rc, errb)
	}
	cout, cerr, _ := testenv.RunReal(t, "pmlogcheck", base)
	if want := base + ".meta: fk.k [511.2048.6]: domain of pmid (511) != domain of indom (29)\n"; string(cout)+string(cerr) != want {
		t.Errorf("real pmlogcheck %s: %s%s, want %s", base, cout, cerr, want)
	}
}

func findSet(r *pmapi.Result, p pmapi.PMID) *pmapi.ValueSet {
	for i := range r.VSets {
		if r.VSets[i].PMID == p {
			return &r.VSets[i]
		}
	}
	return nil
}

// TestRecordingSource: with derived metrics loaded (as on any PCP host,
// the system's) but none in the configuration, the engine records from
// the source itself, keeping its PDU fast path and deferred replies; a
// configuration that names one records through the DerivedSource.
func TestRecordingSource(t *testing.T) {
	pdu := fakesource.NewPDU(newFake())
	reg, _, err := LoadDerived("", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ds := NewDerivedSource(pdu, reg, io.Discard)
	plain := []LogState{{PMID: pmapi.NewPMID(60, 2, 0), Mandatory: true, On: true}}
	if got := recordingSource(ds, plain); got != source.Source(pdu) {
		t.Errorf("no derived metric: recording from %T, want the wrapped %T", got, pdu)
	}
	if _, ok := recordingSource(ds, plain).(pipeSource); !ok {
		t.Errorf("no derived metric: the source has no pipelined fetches")
	}
	derived := append(plain, LogState{PMID: pmapi.NewPMID(511, 0, 3), Mandatory: true, On: true})
	if got := recordingSource(ds, derived); got != source.Source(ds) {
		t.Errorf("a derived metric: recording from %T, want the DerivedSource", got)
	}
	if got := recordingSource(pdu, nil); got != source.Source(pdu) {
		t.Errorf("no DerivedSource: recording from %T", got)
	}
}

// shrinkingSource is the fake whose CPU instance domain loses instances
// and later gains one back: its InDom and fake.cpu.user's values follow
// sets[n/every] at fetch n. Only source.Source's methods (no PDU path).
type shrinkingSource struct {
	src   *fakesource.Source
	sets  [][]int32
	every int
	n     int
	cur   []int32
}

func (s *shrinkingSource) Host() string                                 { return s.src.Host() }
func (s *shrinkingSource) LookupNames(n []string) ([]pmapi.PMID, error) { return s.src.LookupNames(n) }
func (s *shrinkingSource) Traverse(n string) ([]string, error)          { return s.src.Traverse(n) }
func (s *shrinkingSource) NamesOf(p pmapi.PMID) ([]string, error)       { return s.src.NamesOf(p) }
func (s *shrinkingSource) Desc(p pmapi.PMID) (pmapi.Desc, error)        { return s.src.Desc(p) }
func (s *shrinkingSource) Labels(typ, ident uint32) ([]archive.LabelSet, error) {
	return s.src.Labels(typ, ident)
}
func (s *shrinkingSource) Text(typ, ident uint32) (string, error) { return s.src.Text(typ, ident) }
func (s *shrinkingSource) Close() error                           { return s.src.Close() }

func (s *shrinkingSource) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	if indom != fakesource.InDomCPU || s.cur == nil {
		return s.src.InDom(indom)
	}
	var names []string
	for _, k := range s.cur {
		names = append(names, fmt.Sprintf("cpu%d", k))
	}
	return append([]int32(nil), s.cur...), names, nil
}

func (s *shrinkingSource) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	res, changes, err := s.src.Fetch(pmids)
	if err != nil {
		return res, changes, err
	}
	s.cur = s.sets[min(s.n/s.every, len(s.sets)-1)]
	s.n++
	for i := range res.VSets {
		vs := &res.VSets[i]
		if vs.PMID != fakesource.PMIDU32 || vs.NumVal <= 0 {
			continue
		}
		var keep []pmapi.Value
		for _, v := range vs.Values {
			if containsInst(s.cur, v.Inst) {
				keep = append(keep, v)
			}
		}
		vs.Values, vs.NumVal = keep, int32(len(keep))
	}
	return res, changes, nil
}

// TestEngineInDomShrinks checks that an instance domain is logged again
// when instances go away (the real pmlogger's check_inst: the sample's
// instances are not the previous sample's; PCP QA 571), not only when an
// instance it lacks appears.
func TestEngineInDomShrinks(t *testing.T) {
	src := &shrinkingSource{src: newFake(), every: 3, sets: [][]int32{{0, 1, 2, 3}, {0, 1}, {0, 1, 3}, {0, 1, 3}}}
	base, _ := record(t, Options{Source: src, Groups: groupsFor(t, src.src, "log mandatory on 1 msec { fake.cpu.user }", nil), End: Limit{Samples: 12}})
	a, err := archive.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var got [][]int32
	for _, snap := range a.Meta().InDomHistory(fakesource.InDomCPU) {
		got = append(got, snap.Insts)
	}
	if want := [][]int32{{0, 1, 2, 3}, {0, 1}, {0, 1, 3}}; !cmp.Equal(got, want) {
		t.Errorf("instance domain records %v, want %v", got, want)
	}
	checkReal(t, base)
}
