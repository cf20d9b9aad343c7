package pmlogger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
)

// pipeFake is a pduFake that can leave a fetch in flight (pipeSource),
// as the pmcd client does: StartFetch takes the sample (the fake's
// clock and values move then) and FinishFetchPDU hands over its reply,
// or its error. Every other request made while a fetch is in flight is
// a violation: pmcd answers in order, so the real client refuses it.
type pipeFake struct {
	*pduFake
	inflight   bool
	pdu        []byte
	typ        uint32
	changes    uint32
	err        error
	fetches    int // data fetches: StartFetch and FetchPDU
	starts     int // of which StartFetch
	violations []string
}

func (f *pipeFake) check(op string) {
	if f.inflight {
		f.violations = append(f.violations, op)
	}
}

func (f *pipeFake) StartFetch(pmids []pmapi.PMID) error {
	f.check("StartFetch")
	f.fetches++
	f.starts++
	pdu, typ, changes, err := f.pduFake.FetchPDU(pmids)
	f.pdu = append(f.pdu[:0], pdu...)
	f.typ, f.changes, f.err = typ, changes, err
	f.inflight = true
	return nil
}

func (f *pipeFake) FinishFetchPDU() ([]byte, uint32, uint32, error) {
	if !f.inflight {
		f.violations = append(f.violations, "FinishFetchPDU without StartFetch")
	}
	f.inflight = false
	if f.err != nil {
		return nil, 0, f.changes, f.err
	}
	return f.pdu, f.typ, f.changes, nil
}

func (f *pipeFake) FetchPDU(pmids []pmapi.PMID) ([]byte, uint32, uint32, error) {
	f.check("FetchPDU")
	f.fetches++
	return f.pduFake.FetchPDU(pmids)
}

func (f *pipeFake) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	f.check("Fetch")
	return f.pduFake.Source.Fetch(pmids)
}

func (f *pipeFake) LookupNames(names []string) ([]pmapi.PMID, error) {
	f.check("LookupNames")
	return f.pduFake.Source.LookupNames(names)
}

func (f *pipeFake) NamesOf(pmid pmapi.PMID) ([]string, error) {
	f.check("NamesOf")
	return f.pduFake.Source.NamesOf(pmid)
}

func (f *pipeFake) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	f.check("Desc")
	return f.pduFake.Source.Desc(pmid)
}

func (f *pipeFake) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	f.check("InDom")
	return f.pduFake.Source.InDom(indom)
}

func (f *pipeFake) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	f.check("Labels")
	return f.pduFake.Source.Labels(typ, ident)
}

func (f *pipeFake) Text(typ uint32, ident uint32) (string, error) {
	f.check("Text")
	return f.pduFake.Source.Text(typ, ident)
}

func (f *pipeFake) Reconnect() error {
	f.check("Reconnect")
	return f.pduFake.Source.Reconnect()
}

const pipeConfig = `log mandatory on 10 msec {
    fake.counter fake.instant fake.seq fake.cpu.user fake.disk.read fake.string fake.float fake.big
}
log mandatory on once { fake.string }
log mandatory on 30 msec { fake.disk.read [ "disk1" "disk3" ] fake.counter }
`

// TestPipelineSameArchive drives the engine sample by sample over the
// same fetches with deferred replies (WriteLag above the groups'
// intervals) and without (WriteLag 0), under -s and -v limits, new
// volumes (as SIGHUP makes them) and pmlc requests between samples: the
// archives, logs and stats must be byte for byte the same, no request
// may be made while a fetch is in flight, and most samples must have
// been deferred.
func TestPipelineSameArchive(t *testing.T) {
	cases := []struct {
		name   string
		end    Limit
		volume Limit
		groups string
	}{
		{name: "samples", end: Limit{Samples: 700}},
		{name: "bytes", end: Limit{Bytes: 400 << 10}},
		{name: "volume-samples", end: Limit{Samples: 300}, volume: Limit{Samples: 50}},
		{name: "volume-bytes", end: Limit{Samples: 300}, volume: Limit{Bytes: 60 << 10}},
		{name: "one-group", end: Limit{Samples: 200}, groups: "log mandatory on 10 msec { fake.counter fake.cpu.user }\n"},
	}
	for _, tc := range cases {
		for _, version := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/v%d", tc.name, version), func(t *testing.T) {
				config := pipeConfig
				if tc.groups != "" {
					config = tc.groups
				}
				dir := t.TempDir()
				var bases [2]string
				var logs [2]bytes.Buffer
				var stats [2]Stats
				var starts [2]int
				for k, lag := range []time.Duration{time.Second, 0} {
					src := &pipeFake{pduFake: &pduFake{Source: newFake()}}
					src.Changes = func(n int) uint32 {
						if n%97 == 0 {
							return 1 // PMCD_ADD_AGENT: a <mark>, in a deferred reply
						}
						return 0
					}
					base := filepath.Join(dir, "a")
					bases[k] = filepath.Join(dir, fmt.Sprint("run", k))
					l, err := New(Options{Archive: base, Source: src, Version: version, Log: &logs[k],
						Groups: groupsFor(t, src.Source, config, nil), WriteLag: lag, End: tc.end, Volume: tc.volume,
						Now: func() time.Time { return epoch }}) // the log's times
					if err != nil {
						t.Fatal(err)
					}
					if err := l.Start(); err != nil {
						t.Fatal(err)
					}
					calls, sampled := 0, 0
					for i := 0; l.Reason() == "" && i < 100000; i++ {
						for g := range l.groups {
							if l.groups[g].Once() && i > 0 || g == 2 && i%3 != 0 {
								continue
							}
							if err := l.Sample(g); err != nil {
								t.Fatal(err)
							}
							sampled++
							if l.Reason() != "" {
								break
							}
						}
						switch {
						case i%41 == 40:
							// SIGHUP's switch.
							if err := l.newVolume("SIGHUP"); err != nil {
								t.Fatal(err)
							}
						case i%29 == 28:
							// A pmlc request runs with nothing in flight.
							l.calls <- &loopCall{fn: func() {
								calls++
								if l.flight.g != nil || src.inflight {
									t.Errorf("pmlc request with a sample in flight")
								}
							}, done: make(chan struct{})}
							if err := l.runCalls(); err != nil {
								t.Fatal(err)
							}
						}
					}
					st, err := l.Finish()
					if err != nil {
						t.Fatal(err)
					}
					if calls == 0 {
						t.Errorf("no pmlc request ran")
					}
					// -s N stops at the Nth sample, not at the one after
					// (its reply is not left in flight).
					if tc.end.Samples > 0 && int64(sampled) != tc.end.Samples {
						t.Errorf("WriteLag %v: -s %d stopped after %d samples", lag, tc.end.Samples, sampled)
					}
					if len(src.violations) > 0 {
						t.Errorf("WriteLag %v: requests made with a fetch in flight: %q", lag, src.violations[:min(5, len(src.violations))])
					}
					stats[k], starts[k] = st, src.starts
					for _, ext := range []string{".meta", ".index"} {
						if err := os.Rename(base+ext, bases[k]+ext); err != nil {
							t.Fatal(err)
						}
					}
					for v := 0; v < st.Volumes; v++ {
						if err := os.Rename(fmt.Sprintf("%s.%d", base, v), fmt.Sprintf("%s.%d", bases[k], v)); err != nil {
							t.Fatal(err)
						}
					}
				}
				if stats[0] != stats[1] {
					t.Errorf("stats with deferral %+v, without %+v", stats[0], stats[1])
				}
				if starts[1] != 0 || starts[0] < int(stats[0].Samples)/2 {
					t.Errorf("%d samples deferred with WriteLag 1s, %d with 0, of %d", starts[0], starts[1], stats[0].Samples)
				}
				exts := []string{".meta", ".index"}
				for v := 0; v < stats[0].Volumes; v++ {
					exts = append(exts, fmt.Sprintf(".%d", v))
				}
				sameFiles(t, "with deferral and without", bases[0], bases[1], exts)
				if a, b := logs[0].String(), logs[1].String(); a != b {
					t.Errorf("logs differ:\n%s\n---\n%s", a, b)
				}
				checkReal(t, bases[0])
			})
		}
	}
}

// TestPipelineRun records with the real loop and timers, deferring
// replies, until a signal or a limit: every sample fetched is in the
// archive (none is lost with a reply in flight), its last record is
// written before the epilogue, and nothing else is asked of the source
// while a fetch is in flight.
func TestPipelineRun(t *testing.T) {
	cases := []struct {
		name  string
		stop  os.Signal
		end   Limit
		endAt time.Duration
		vol   Limit
	}{
		{name: "SIGTERM", stop: syscall.SIGTERM},
		{name: "SIGINT-volumes", stop: syscall.SIGINT, vol: Limit{Duration: 40 * time.Millisecond}},
		{name: "samples", end: Limit{Samples: 40}},
		{name: "duration", end: Limit{Duration: 150 * time.Millisecond}},
		{name: "finish-time", endAt: 120 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := &pipeFake{pduFake: &pduFake{Source: newFake()}}
			sigs := make(chan os.Signal, 2)
			var log strings.Builder
			o := Options{Source: src, Groups: groupsFor(t, src.Source, "log mandatory on 3 msec { fake.counter fake.cpu.user fake.disk.read }", nil),
				WriteLag: time.Second, End: tc.end, Volume: tc.vol, Signals: sigs, Log: &log}
			if tc.endAt > 0 {
				o.EndTime = time.Now().Add(tc.endAt)
			}
			if tc.stop != nil {
				go func() {
					time.Sleep(50 * time.Millisecond)
					sigs <- syscall.SIGHUP
					time.Sleep(50 * time.Millisecond)
					sigs <- tc.stop
				}()
			}
			base, st := record(t, o)
			if len(src.violations) > 0 {
				t.Errorf("requests made with a fetch in flight: %q", src.violations[:min(5, len(src.violations))])
			}
			if src.inflight {
				t.Errorf("a fetch was left in flight")
			}
			if st.Records != src.fetches || st.Errors != 0 {
				t.Errorf("%d data records for %d fetches (%d deferred), %d errors\n%s", st.Records, src.fetches, src.starts, st.Errors, log.String())
			}
			if src.starts < src.fetches/2 {
				t.Errorf("%d of %d fetches deferred", src.starts, src.fetches)
			}
			if tc.end.Samples > 0 && st.Samples != tc.end.Samples {
				t.Errorf("%d samples for -s %d", st.Samples, tc.end.Samples)
			}
			_, recs := readRecords(t, base)
			if n := len(recs) - 2; n != st.Records {
				t.Errorf("%d data records read, %d written", n, st.Records)
			}
			last := recs[len(recs)-1]
			if len(last.VSets) != 5 || last.VSets[0].PMID != pmidHost {
				t.Errorf("the last record is not the epilogue")
			}
			for i := 1; i < len(recs); i++ {
				if recs[i].Timestamp.Before(recs[i-1].Timestamp) {
					t.Errorf("record %d at %v before record %d at %v", i, recs[i].Timestamp, i-1, recs[i-1].Timestamp)
				}
			}
			checkReal(t, base)
		})
	}
}

// TestPipelineLostReply: the connection is lost with a reply in flight
// (its read fails): the sample is an error, the logger reconnects and
// writes a <mark>, and recording goes on with deferral.
func TestPipelineLostReply(t *testing.T) {
	src := &pipeFake{pduFake: &pduFake{Source: newFake()}}
	var log strings.Builder
	o := Options{Archive: filepath.Join(t.TempDir(), "a"), Source: src,
		Groups:   groupsFor(t, src.Source, "log mandatory on 2 msec { fake.counter }", nil),
		WriteLag: time.Second, End: Limit{Samples: 80}, Log: &log, Backoff: []time.Duration{5 * time.Millisecond}}
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(40 * time.Millisecond)
		src.Source.Lose()
	}()
	st, err := l.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(src.violations) > 0 {
		t.Errorf("requests made with a fetch in flight: %q", src.violations[:min(5, len(src.violations))])
	}
	if st.Marks != 1 || st.Errors < 1 || !strings.Contains(log.String(), "Lost connection to PMCD") {
		t.Errorf("stats %+v\n%s", st, log.String())
	}
	if st.Records+st.Errors != src.fetches {
		t.Errorf("%d records and %d errors for %d fetches", st.Records, st.Errors, src.fetches)
	}
	checkReal(t, o.Archive)
}

// TestPipelineNotDeferred: no deferral without WriteLag, with --sync, for
// groups at WriteLag or slower, and for sources that cannot (the plain
// fake source).
func TestPipelineNotDeferred(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"no-lag", Options{}},
		{"sync", Options{WriteLag: time.Second, Sync: true}},
		{"slow-group", Options{WriteLag: 2 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &pipeFake{pduFake: &pduFake{Source: newFake()}}
			o := tc.o
			o.Source = src
			o.Groups = groupsFor(t, src.Source, "log mandatory on 2 msec { fake.counter }", nil)
			o.End = Limit{Samples: 20}
			_, st := record(t, o)
			if src.starts != 0 || st.Records != 20 {
				t.Errorf("%d of %d samples deferred", src.starts, st.Records)
			}
		})
	}
	src := newFake()
	_, st := record(t, Options{Source: src, Groups: groupsFor(t, src, "log mandatory on 2 msec { fake.counter }", nil),
		WriteLag: time.Second, End: Limit{Samples: 20}})
	if st.Records != 20 {
		t.Errorf("plain fake source: %d records", st.Records)
	}
}

// countingClient is a pmcd client that counts its deferred fetches.
type countingClient struct {
	*pmcd.Client
	starts int
}

func (c *countingClient) StartFetch(pmids []pmapi.PMID) error {
	c.starts++
	return c.Client.StartFetch(pmids)
}

// TestInteropPipeline records 300 samples every 10 msec from the local
// pmcd with deferred replies, through the real loop: nearly every sample
// is deferred and written by the fast path, each fast record is what
// the general path makes of its reply, pmcd's timestamps are 10 ms
// apart (the fetch goes out at the sample's time, not at the next), and
// the real pmlogcheck and pmdumplog read the archive.
func TestInteropPipeline(t *testing.T) {
	needPMCD(t)
	config := `log mandatory on 10 msec {
    kernel.all.load kernel.all.cpu kernel.percpu.cpu.user mem.util disk.dev.read network.interface.in.bytes
    filesys.used hinv.ncpu pmcd.pdu_in.total
}
`
	for _, version := range []int{2, 3} {
		cl, err := pmcd.Dial("local:")
		if err != nil {
			t.Fatal(err)
		}
		c := &countingClient{Client: cl}
		groups, _, err := ParseGroups([]byte(config), "test.config", c, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		const samples = 300
		var log strings.Builder
		l, err := New(Options{Archive: filepath.Join(t.TempDir(), "a"), Source: c, Version: version, Groups: groups,
			WriteLag: time.Second, End: Limit{Samples: samples}, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		nfast := checkFast(t, l, c)
		st, err := l.Run()
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if fast := *nfast; st.Records != samples || st.Errors != 0 || c.starts < samples*9/10 || fast < samples*9/10 {
			t.Errorf("v%d: %d records, %d errors, %d deferred, %d fast of %d samples\n%s", version, st.Records, st.Errors, c.starts, fast, samples, log.String())
		}
		_, recs := readRecords(t, l.o.Archive)
		var gaps []time.Duration
		for i := 2; i < len(recs)-1; i++ {
			g := time.Duration(pcptime.Sub(recs[i].Timestamp, recs[i-1].Timestamp) * 1e9)
			if g <= 0 {
				t.Errorf("v%d: record %d is not after record %d", version, i, i-1)
			}
			gaps = append(gaps, g)
		}
		slices.Sort(gaps)
		if med := gaps[len(gaps)/2]; med < 9*time.Millisecond || med > 11*time.Millisecond {
			t.Errorf("v%d: pmcd's timestamps are a median %v apart, for samples every 10 msec", version, med)
		}
		checkReal(t, l.o.Archive)
	}
}
