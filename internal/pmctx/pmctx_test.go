package pmctx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
)

// set makes a label set from "name=value" pairs (in order), with flags.
func set(flags uint8, pairs ...string) *archive.LabelSet {
	s := &archive.LabelSet{Inst: pmapi.InstNull}
	b := []byte{'{'}
	for i, p := range pairs {
		name, value, _ := strings.Cut(p, "=")
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		e := archive.LabelEntry{NameOff: len(b), NameLen: len(name), Flags: flags}
		b = append(b, name...)
		b = append(b, '"', ':')
		e.ValueOff, e.ValueLen = len(b), len(value)
		b = append(b, value...)
		s.Labels = append(s.Labels, e)
	}
	s.JSON = string(append(b, '}'))
	return s
}

func TestMergeLabels(t *testing.T) {
	ctx := set(1, `domainname="x"`, `hostname="h"`, `userid=0`)
	dom := set(2, `agent="linux"`, `hostname="dom"`)
	opt := set(LabelOptional|4, `hostname="optional"`, `zone="z"`)
	tests := []struct {
		name string
		sets []*archive.LabelSet
		keep func(uint8) bool
		want string
		ok   bool
	}{
		{"one", []*archive.LabelSet{ctx}, nil, `{"domainname":"x","hostname":"h","userid":0}`, true},
		{"later wins", []*archive.LabelSet{ctx, dom}, nil, `{"agent":"linux","domainname":"x","hostname":"dom","userid":0}`, true},
		{"nil sets skipped", []*archive.LabelSet{nil, ctx, nil}, nil, `{"domainname":"x","hostname":"h","userid":0}`, true},
		{"none", []*archive.LabelSet{nil, nil}, nil, "", false},
		{"empty set", []*archive.LabelSet{{Inst: pmapi.InstNull}}, nil, `{}`, true},
		{"empty value", []*archive.LabelSet{set(1, "a=")}, nil, `{"a":null}`, true},
		{"filter", []*archive.LabelSet{ctx, opt}, func(f uint8) bool { return f&LabelOptional == 0 }, `{"domainname":"x","userid":0}`, true},
		{"filter keeps", []*archive.LabelSet{ctx, dom}, func(f uint8) bool { return f&LabelOptional == 0 }, `{"agent":"linux","domainname":"x","hostname":"dom","userid":0}`, true},
	}
	for _, tc := range tests {
		got, ok := MergeLabels(tc.sets, tc.keep)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: MergeLabels = %s, %v; want %s, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// In the "filter" case the optional hostname replaces the
	// intrinsic one and is then filtered out: neither is left, as in
	// libpcp's __pmMergeLabelSets.
}

// TestNameTree checks the traversal of a namespace with derived names
// grafted in against what PCP 6.0.3's pminfo -a synth3 -m printed with
// these derived metrics configured.
func TestNameTree(t *testing.T) {
	base := []string{"synth.once", "synth.multi", "synth.str", "synth.disc", "synth.inst", "synth.ctrms", "synth.ctr32"}
	tests := []struct {
		derived []string
		want    []string
		sub     map[string][]string
	}{
		{
			derived: []string{"event.flags", "event.missed", "a.x.p", "a.y.q", "a.x.r", "synth.new.a", "synth.zz", "synth.new.b", "b", "c.bad"},
			want: []string{"synth.once", "synth.multi", "synth.str", "synth.disc", "synth.inst", "synth.ctrms", "synth.ctr32",
				"synth.new.a", "synth.new.b", "synth.zz", "event.flags", "event.missed", "a.x.p", "a.x.r", "a.y.q", "b", "c.bad"},
			sub: map[string][]string{"a": {"a.x.p", "a.x.r", "a.y.q"}, "synth.new": {"synth.new.a", "synth.new.b"}, "b": {"b"}, "nosuch": nil, "a.x.p.q": nil},
		},
		{
			// a derived name that is a leaf already, and one below a leaf
			derived: []string{"event.flags", "event.missed", "synth.ctr32", "synth.once.sub", "synth.once.sub2.x"},
			want: []string{"synth.once.sub", "synth.once.sub2.x", "synth.multi", "synth.str", "synth.disc", "synth.inst", "synth.ctrms", "synth.ctr32",
				"event.flags", "event.missed"},
			sub: map[string][]string{"synth.once": {"synth.once.sub", "synth.once.sub2.x"}, "synth.ctr32": {"synth.ctr32"}},
		},
	}
	for i, tc := range tests {
		tree := pmns.NewGrafted(base, tc.derived)
		if d := cmp.Diff(tc.want, tree.Traverse("")); d != "" {
			t.Errorf("case %d: traverse(\"\") (-want +got):\n%s", i, d)
		}
		for name, want := range tc.sub {
			if d := cmp.Diff(want, tree.Traverse(name)); d != "" {
				t.Errorf("case %d: traverse(%q) (-want +got):\n%s", i, name, d)
			}
		}
	}
}

// TestLocalTable checks -K against the messages of PCP 6.0.3's pminfo
// (seen with a pmcd.conf like the one below: a DSO PMDA on domain 70,
// pmcd's own DSO on 2, linux as a pipe).
func TestLocalTable(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "pmcd.conf")
	text := "# comment\npmcd\t2\tdso\tpmcd_init\t/var/lib/pcp/pmdas/pmcd/pmda_pmcd.so\n" +
		"linux\t60\tpipe\tbinary\t\t/var/lib/pcp/pmdas/linux/pmdalinux\n" +
		"mmv\t70\tdso\tmmv_init\t/var/lib/pcp/pmdas/mmv/pmda_mmv.so\n" +
		"proc\t3\tpipe\tbinary\t\t/var/lib/pcp/pmdas/proc/pmdaproc -d 3\n\n[access]\nallow \"local:*\" : all;\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PCP_PMCDCONF_PATH", conf)
	t.Setenv("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas")
	for _, tc := range []struct {
		specs []string
		want  string // the last one's message
	}{
		{[]string{"clear"}, ""},
		{[]string{"del,60"}, ""},
		{[]string{"del,70"}, ""},
		{[]string{"del,2"}, "__pmLocalPMDA: Unknown or illegal instance domain identifier"},
		{[]string{"del,3"}, "__pmLocalPMDA: Unknown or illegal instance domain identifier"},
		{[]string{"del,,/var/lib/pcp/pmdas/linux/pmda_linux.so"}, ""},
		{[]string{"del,,/var/lib/pcp/pmdas/mmv/pmda_mmv.so"}, ""},
		{[]string{"del,,linux"}, "__pmLocalPMDA: Unknown or illegal instance domain identifier"},
		{[]string{"clear", "del,60"}, "__pmLocalPMDA: Unknown or illegal instance domain identifier"},
		{[]string{"add,99,/x,init", "del,99"}, ""},
		{[]string{"foo"}, "bad op in spec"},
		{[]string{"del"}, "expected , after op in spec"},
		{[]string{"add"}, "expected , after op in spec"},
		{[]string{"clear,x"}, "unexpected text after clear op in spec"},
		{[]string{"del,foo"}, "bad domain in spec"},
		{[]string{"del,60x"}, "bad domain in spec"},
		{[]string{"del,-1"}, "bad domain in spec"},
		{[]string{"add,999,/y,z"}, "bad domain in spec"},
		{[]string{"del, 60"}, ""},
		{[]string{"add,60"}, "missing dso-path in spec"},
		{[]string{"add,60,/x"}, "missing init-routine in spec"},
		{[]string{"add,60,/x,"}, "missing init-routine in spec"},
		{[]string{"add,60,,init"}, ""},
		{[]string{"add,,x,y"}, "missing domain in spec"},
		{[]string{"add,"}, "missing domain in spec"},
		{[]string{"del,,"}, "missing domain and dso-path in spec"},
		{[]string{"del,60,x"}, ""},
	} {
		var lt LocalTable
		got := ""
		for _, s := range tc.specs {
			got = lt.Spec(s)
		}
		if got != tc.want {
			t.Errorf("-K %s: %q, want %q", strings.Join(tc.specs, " -K "), got, tc.want)
		}
	}
}

// TestParse checks what pmGetOptions makes of option combinations and
// the PCP_* variables.
func TestParse(t *testing.T) {
	p := &Parser{Prog: "tool", Short: "a:h:LO:zZ:K:V?x", Longs: []getopt.Long{{Name: "archive", HasArg: true, Short: 'a'}}}
	for _, tc := range []struct {
		args    []string
		env     []string
		kind    Kind
		archive string
		pending string
		stderr  string
		errors  int
	}{
		{args: []string{"-a", "x", "-a", "y", "-a", "x", "-a", "xy"}, kind: KindArchive, archive: "x,y,xy"},
		{args: []string{"-a", "x,y", "-a", "y"}, kind: KindArchive, archive: "x,y"},
		{args: []string{"-h", "a", "-h", "b"}, kind: KindHost, pending: "tool: too many hosts requested: b\n", errors: 1},
		{args: []string{"-a", "x", "-h", "b"}, kind: KindArchive, archive: "x", pending: "tool: only one host or archive allowed\n", errors: 1},
		{args: []string{"-L", "-a", "x"}, kind: KindLocal, archive: "x"},
		{args: []string{"-z", "-Z", "UTC"}, pending: "tool: at most one of -Z and -z allowed\ntool: use of timezone from metric source requires a source\n", errors: 2},
		{args: []string{"-h", "x", "-O", "+1"}, kind: KindHost, pending: "tool: time window options are supported for archives only\n", errors: 1},
		{args: []string{"-V", "-q"}, stderr: "tool: invalid option -- 'q'\n", pending: version.Banner("tool"), errors: 1},
		{args: []string{"-K", "nonsense"}, pending: "tool: pmSpecLocalPMDA failed: bad op in spec\n", errors: 1},
		{args: []string{"-x"}, errors: 0},
		{env: []string{"PCP_ARCHIVE=envarch"}, kind: KindArchive, archive: "envarch"},
		{env: []string{"PCP_ARCHIVE=envarch"}, args: []string{"-a", "x"}, kind: KindArchive, archive: "envarch,x"},
		{env: []string{"PCP_HOST=h"}, args: []string{"-a", "x"}, kind: KindHost, pending: "tool: only one host or archive allowed\n", errors: 1},
		{env: []string{"PCP_HOSTZONE=1"}, pending: "tool: use of timezone from metric source requires a source\n", errors: 1},
	} {
		t.Run(strings.Join(append(tc.env, tc.args...), " "), func(t *testing.T) {
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			var stderr strings.Builder
			var own []rune
			o, _ := p.Parse(tc.args, &stderr, func(o *Opts, opt getopt.Opt) { own = append(own, opt.Short) })
			if o.Kind != tc.kind || o.Archives != tc.archive || o.Pending.String() != tc.pending || stderr.String() != tc.stderr || o.Errors != tc.errors {
				t.Errorf("kind %d, archives %q, pending %q, stderr %q, %d errors; want %d, %q, %q, %q, %d",
					o.Kind, o.Archives, o.Pending.String(), stderr.String(), o.Errors, tc.kind, tc.archive, tc.pending, tc.stderr, tc.errors)
			}
			if strings.Contains(strings.Join(tc.args, ""), "-x") && string(own) != "x" {
				t.Errorf("the tool's own options: %q, want x", string(own))
			}
		})
	}
}

// events builds an EVENT array payload: each record a timestamp (whole
// seconds), flags and, for a "missed" one, the count missed.
func events(recs ...[3]uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(recs)))
	for _, r := range recs {
		b = binary.BigEndian.AppendUint32(b, r[0])
		b = binary.BigEndian.AppendUint32(b, 555000) // microseconds
		b = binary.BigEndian.AppendUint32(b, r[1])
		b = binary.BigEndian.AppendUint32(b, r[2])
	}
	return b
}

// TestEventSummary checks pmPrintValue's summary of event arrays, with
// libpcp's way of walking past a "missed" record (it does not): the
// record is counted again for each later one, and the last timestamp
// shown is its (sample.event.records in qa/archives/eventrec prints
// "[5 event records (7 missed) timestamps 01:00:41.555...01:00:44.555]").
func TestEventSummary(t *testing.T) {
	const missed = pmapi.EventFlagMissed
	zone := pcptime.UTC
	for _, tc := range []struct {
		payload []byte
		want    string
	}{
		{events(), "[0 event records]"},
		{events([3]uint32{10, 1, 0}), "[1 event record timestamp 00:00:10.555]"},
		{events([3]uint32{10, 1, 0}, [3]uint32{11, 1, 0}), "[2 event records timestamps 00:00:10.555...00:00:11.555]"},
		{events([3]uint32{41, 1, 0}, [3]uint32{42, 1, 0}, [3]uint32{43, 1, 0}, [3]uint32{44, missed, 7}, [3]uint32{45, 1, 0}),
			"[5 event records (7 missed) timestamps 00:00:41.555...00:00:44.555]"},
		{events([3]uint32{41, missed, 2}, [3]uint32{42, 1, 0}, [3]uint32{43, 1, 0}),
			"[3 event records (4 missed) timestamps 00:00:41.555...00:00:41.555]"},
	} {
		v := pmapi.Value{BlockType: pmapi.TypeEvent, Block: tc.payload}
		if got := string(AppendValue(nil, pmapi.TypeEvent, pmapi.ValFmtDptr, &v, zone)); got != tc.want {
			t.Errorf("summary %q, want %q", got, tc.want)
		}
	}
	// an empty value block prints as pmPrintValue prints it
	v := pmapi.Value{BlockType: pmapi.TypeAggregate}
	if got := string(AppendValue(nil, pmapi.TypeAggregate, pmapi.ValFmtDptr, &v, zone)); got != `"" []` {
		t.Errorf("empty aggregate %q", got)
	}
}

// TestArchiveLabels checks __pmLogLookupLabel's choice: the latest
// record at or before the time, and of records of one time the first in
// the file (QA nvidiagpu-0: the real pminfo -l prints the instance label
// sets of the earlier record of the time).
func TestArchiveLabels(t *testing.T) {
	ts := func(sec int64) pmapi.Timestamp { return pmapi.Timestamp{Sec: sec} }
	rec := func(sec int64, ident uint32, inst int32) archive.LabelRecord {
		return archive.LabelRecord{Stamp: ts(sec), Type: archive.LabelInstances, Ident: ident,
			Sets: []archive.LabelSet{{Inst: inst}}}
	}
	m := &archive.Meta{Labels: []archive.LabelRecord{
		rec(10, 7, 1), rec(20, 7, 2), rec(20, 7, 3), rec(30, 7, 4), rec(20, 8, 5),
	}}
	for _, c := range []struct {
		ident uint32
		at    int64
		inst  int32 // -1: none
		found bool
	}{
		{7, 5, -1, true}, // before the first record
		{7, 10, 1, true}, // at it
		{7, 25, 2, true}, // the first of the two records of 20
		{7, 20, 2, true},
		{7, 99, 4, true},
		{8, 99, 5, true},
		{9, 99, -1, false}, // no record of that ident
	} {
		sets, found := archiveLabels(m, archive.LabelInstances, c.ident, ts(c.at))
		inst := int32(-1)
		if len(sets) > 0 {
			inst = sets[0].Inst
		}
		if inst != c.inst || found != c.found {
			t.Errorf("ident %d at %d: inst %d found %v, want %d %v", c.ident, c.at, inst, found, c.inst, c.found)
		}
	}
}
