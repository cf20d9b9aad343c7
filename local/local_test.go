package local

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

func TestDaemon(t *testing.T) {
	for _, tc := range []struct {
		p    PMDA
		want string
	}{
		{PMDA{60, "/var/lib/pcp/pmdas/linux/pmda_linux.so", "linux_init"}, "/var/lib/pcp/pmdas/linux/pmdalinux"},
		{PMDA{30, "/var/lib/pcp/pmdas/sample/pmda_sample.so", "sample_init"}, "/var/lib/pcp/pmdas/sample/pmdasample"},
		{PMDA{3, "pmda_proc.so", ""}, "pmdaproc"},
		// pmproxy's metrics come from the mmv DSO with another init
		// routine: its daemon serves mmv's.
		{PMDA{4, "/var/lib/pcp/pmdas/mmv/pmda_mmv.so", "pmproxy_init"}, ""},
		{PMDA{2, "/var/lib/pcp/pmdas/pmcd/libpmda_pmcd.so", "pmcd_init"}, ""},
		{PMDA{9, "/x/pmda_.so", "_init"}, ""},
		{PMDA{9, "/x/pmda_foo.dylib", "foo_init"}, ""},
	} {
		if got := tc.p.Daemon(); got != tc.want {
			t.Errorf("%+v.Daemon() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestCopyLog(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"header and footer only",
			"Log for pmdalinux on vm started Thu Nov 26 23:40:01 2026\n\n\nLog finished Thu Nov 26 23:40:02 2026\n", ""},
		{"messages between",
			"Log for pmdacifs on vm started Thu Nov 26 23:40:01 2026\n\n[Thu Nov 26 23:40:01] pmdacifs(7) Error: no stats\nsecond\n\nLog finished Thu Nov 26 23:40:02 2026\n",
			"[Thu Nov 26 23:40:01] pmdacifs(7) Error: no stats\nsecond\n"},
		{"empty lines inside kept", "a\n\nb\n", "a\n\nb\n"},
		{"no header, no final newline", "just this", "just this\n"},
		{"trailing empty line kept without footer", "a\n\n", "a\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			copyLog(&b, strings.NewReader(tc.in))
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("copyLog (-want +got):\n%s", diff)
			}
		})
	}
}

// sampleDSO is the sample PMDA's DSO as pmcd.conf names it; its daemon
// serves it in these tests.
const sampleDSO = "/var/lib/pcp/pmdas/sample/pmda_sample.so"

// newSample is a local context with the sample PMDA as domain 30
// (sampledso), or skips the test without it.
func newSample(t *testing.T) *Source {
	t.Helper()
	p := PMDA{30, sampleDSO, "sample_init"}
	if _, err := os.Stat(p.Daemon()); err != nil {
		t.Skipf("no sample PMDA (%v): install PCP to run the local-context tests", err)
	}
	ns, err := DefaultNamespace("/var/lib/pcp")
	if err != nil {
		t.Skipf("no PMNS: %v", err)
	}
	var stderr strings.Builder
	s := New([]PMDA{p}, ns, &stderr)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		if stderr.Len() > 0 {
			t.Logf("PMDA's stderr: %s", stderr.String())
		}
	})
	return s
}

func TestSamplePMDA(t *testing.T) {
	s := newSample(t)
	names := []string{"sampledso.long.one", "sampledso.bin", "sampledso.string.hullo", "hinv.ncpu", "no.such.metric"}
	ids, err := s.LookupNames(names)
	if err != nil {
		t.Fatal(err)
	}
	if ids[4] != pmapi.PMIDNull {
		t.Errorf("no.such.metric has PMID %v", ids[4])
	}
	// hinv.ncpu is linux's (domain 60), not in this table.
	if _, err := s.Desc(ids[3]); !errors.Is(err, pmapi.ErrNoAgent) {
		t.Errorf("Desc(hinv.ncpu) = %v, want PM_ERR_NOAGENT", err)
	}
	d, err := s.Desc(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	insts, inames, err := s.InDom(d.InDom)
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 9 || insts[0] != 100 || inames[8] != "bin-900" {
		t.Errorf("sampledso.bin's instances %v %q", insts, inames)
	}
	res, _, err := s.Fetch(ids[:4])
	if err != nil {
		t.Fatal(err)
	}
	if len(res.VSets) != 4 {
		t.Fatalf("%d value sets", len(res.VSets))
	}
	if vs := res.VSets[0]; vs.PMID != ids[0] || vs.NumVal != 1 || vs.Values[0].Insitu != 1 {
		t.Errorf("sampledso.long.one: %+v", vs)
	}
	if vs := res.VSets[1]; vs.NumVal != 9 || vs.Values[8].Inst != 900 || vs.Values[8].Insitu != 900 {
		t.Errorf("sampledso.bin: %+v", vs)
	}
	if vs := res.VSets[2]; vs.NumVal != 1 || string(vs.Values[0].Block) != "hullo world!\x00" {
		t.Errorf("sampledso.string.hullo: %+v", vs)
	}
	if vs := res.VSets[3]; vs.PMID != ids[3] || vs.NumVal != int32(pmapi.ErrNoAgent) {
		t.Errorf("hinv.ncpu: %+v, want PM_ERR_NOAGENT", vs)
	}
	if res.Timestamp.Sec == 0 {
		t.Error("result not stamped")
	}
	if _, _, err := s.Fetch(nil); !errors.Is(err, pmapi.ErrTooSmall) {
		t.Errorf("Fetch(nil) = %v", err)
	}
	names2, err := s.NamesOf(ids[0])
	if err != nil || len(names2) != 1 || names2[0] != "sampledso.long.one" {
		t.Errorf("NamesOf = %q, %v", names2, err)
	}
	leaves, err := s.Traverse("sampledso.long")
	if err != nil || len(leaves) != 7 {
		t.Errorf("Traverse(sampledso.long) = %q, %v", leaves, err)
	}
	if _, err := s.Traverse("nosuch"); !errors.Is(err, pmapi.ErrName) {
		t.Errorf("Traverse(nosuch) = %v", err)
	}
}

func TestWithAgent(t *testing.T) {
	role := archive.MakeLabelSet(pmapi.InstNull, archive.LabelPair{Name: "role", Value: `"testing"`, Flags: archive.LabelDomain})
	for _, tc := range []struct {
		sets []archive.LabelSet
		want string
	}{
		{nil, `{"agent":"sample"}`},
		{[]archive.LabelSet{role}, `{"agent":"sample","role":"testing"}`},
		{[]archive.LabelSet{archive.MakeLabelSet(pmapi.InstNull, archive.LabelPair{Name: "agent", Value: `"own"`})}, `{"agent":"own"}`},
	} {
		if got := withAgent(tc.sets, "sample"); got.JSON != tc.want {
			t.Errorf("withAgent(%v) = %s, want %s", tc.sets, got.JSON, tc.want)
		}
	}
	if got := (PMDA{Path: "/x/pmda_linux.so"}).Name(); got != "linux" {
		t.Errorf("Name = %q", got)
	}
}
