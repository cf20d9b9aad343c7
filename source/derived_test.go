package source_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/source"
)

// Metrics of the fake source: one with the instances of pmcd's load
// average, a counter and a singular U32, in domain 60.
var (
	pmidLoad  = pmapi.NewPMID(60, 2, 0)
	pmidCount = pmapi.NewPMID(60, 0, 20)
	pmidNCPU  = pmapi.NewPMID(60, 0, 32)
	indomLoad = pmapi.NewInDom(60, 2)
)

// fake is a Source with three metrics whose values do not change; it
// counts its instance-domain reads.
type fake struct {
	inDomReads int
	fetched    [][]pmapi.PMID
}

var fakeDescs = map[string]pmapi.Desc{
	"k.load":  {PMID: pmidLoad, Type: pmapi.TypeU32, InDom: indomLoad, Sem: pmapi.SemInstant},
	"k.count": {PMID: pmidCount, Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter},
	"k.ncpu":  {PMID: pmidNCPU, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete},
}

func (f *fake) Host() string { return "fake" }

func (f *fake) LookupNames(names []string) ([]pmapi.PMID, error) {
	out := make([]pmapi.PMID, len(names))
	for i, n := range names {
		out[i] = pmapi.PMIDNull
		if d, ok := fakeDescs[n]; ok {
			out[i] = d.PMID
		}
	}
	return out, nil
}

func (f *fake) Traverse(name string) ([]string, error) {
	var out []string
	for _, n := range []string{"k.load", "k.count", "k.ncpu"} {
		if n == name || strings.HasPrefix(n, name+".") {
			out = append(out, n)
		}
	}
	if out == nil {
		return nil, pmapi.ErrName
	}
	return out, nil
}

func (f *fake) NamesOf(pmid pmapi.PMID) ([]string, error) {
	for n, d := range fakeDescs {
		if d.PMID == pmid {
			return []string{n}, nil
		}
	}
	return nil, pmapi.ErrPMID
}

func (f *fake) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	for _, d := range fakeDescs {
		if d.PMID == pmid {
			return d, nil
		}
	}
	return pmapi.Desc{}, pmapi.ErrPMID
}

func (f *fake) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	f.inDomReads++
	if indom != indomLoad {
		return nil, nil, pmapi.ErrInDom
	}
	return []int32{1, 5, 15}, []string{"1 minute", "5 minute", "15 minute"}, nil
}

func (f *fake) Labels(uint32, uint32) ([]archive.LabelSet, error) { return []archive.LabelSet{}, nil }

func (f *fake) Text(uint32, uint32) (string, error) { return "", pmapi.ErrText }

func (f *fake) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	f.fetched = append(f.fetched, append([]pmapi.PMID(nil), pmids...))
	res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: 100}}
	for _, p := range pmids {
		vs := pmapi.ValueSet{PMID: p}
		switch p {
		case pmidLoad:
			for i, inst := range []int32{1, 5, 15} {
				vs.Values = append(vs.Values, pmapi.Value{Inst: inst, Insitu: int32(10 * (i + 1))})
			}
		case pmidNCPU:
			vs.Values = []pmapi.Value{{Inst: pmapi.InstNull, Insitu: 4}}
		case pmidCount:
			vs.ValFmt = pmapi.ValFmtDptr
			vs.Values = []pmapi.Value{{Inst: pmapi.InstNull, BlockType: pmapi.TypeU64, Block: binary.BigEndian.AppendUint64(nil, 7)}}
		default:
			vs.NumVal = int32(pmapi.ErrNoAgent)
			res.VSets = append(res.VSets, vs)
			continue
		}
		vs.NumVal = int32(len(vs.Values))
		res.VSets = append(res.VSets, vs)
	}
	return res, 0, nil
}

func (f *fake) Close() error { return nil }

// finder is the fake with pmcd's pmLookupInDom, whose rule here is the
// proc PMDA's: a name is an instance number, leading zeros allowed.
type finder struct{ *fake }

func (f finder) InstID(indom pmapi.InDom, name string) (int32, error) {
	if n, err := strconv.Atoi(name); err == nil && (n == 1 || n == 5 || n == 15) {
		return int32(n), nil
	}
	return 0, pmapi.ErrInst
}

// wrapper hides the finder behind a source that wraps it.
type wrapper struct{ source.Source }

func (w wrapper) Unwrap() source.Source { return w.Source }

const defs = `
one = k.load[1]
fifteen = k.load[0015]
five = matchinst(/^5/, k.load)
twice = k.ncpu * 2
bad = no.such.metric + 1
sem = k.load + k.count
`

func newDerived(t *testing.T, src source.Source, opts source.DerivedOptions) *source.Derived {
	t.Helper()
	reg := derive.NewRegistry(derive.Dialect603)
	var msgs strings.Builder
	if reg.LoadConfigData("defs", []byte(defs), &msgs); msgs.Len() > 0 {
		t.Fatalf("registering: %s", msgs.String())
	}
	return source.NewDerived(src, reg, opts)
}

// values is a value set as instance: value text.
func values(t *testing.T, vs pmapi.ValueSet) []string {
	t.Helper()
	if vs.NumVal < 0 {
		return []string{pmapi.Error(vs.NumVal).Error()}
	}
	out := []string{}
	for _, v := range vs.Values {
		var s string
		switch {
		case len(v.Block) == 8:
			s = strconv.FormatUint(binary.BigEndian.Uint64(v.Block), 10)
		default:
			s = strconv.FormatUint(uint64(uint32(v.Insitu)), 10)
		}
		out = append(out, strconv.Itoa(int(v.Inst))+":"+s)
	}
	return out
}

func TestDerivedFetch(t *testing.T) {
	for _, c := range []struct {
		name string
		src  func(*fake) source.Source
		want map[string][]string
	}{
		{"no InstLookup: [name] by the name or its first word", func(f *fake) source.Source { return f }, map[string][]string{
			"one": {"1:10"}, "fifteen": {}, "five": {"5:20"}, "twice": {"-1:8"},
		}},
		{"InstLookup: [name] is the source's", func(f *fake) source.Source { return finder{f} }, map[string][]string{
			"one": {"1:10"}, "fifteen": {"15:30"}, "five": {"5:20"}, "twice": {"-1:8"},
		}},
		{"InstLookup behind a Wrapper", func(f *fake) source.Source { return wrapper{finder{f}} }, map[string][]string{
			"one": {"1:10"}, "fifteen": {"15:30"}, "five": {"5:20"}, "twice": {"-1:8"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fk := &fake{}
			d := newDerived(t, c.src(fk), source.DerivedOptions{})
			var names []string
			var pmids []pmapi.PMID
			for n := range c.want {
				p, ok := d.LookupName(n)
				if !ok {
					t.Fatalf("LookupName(%s): not found", n)
				}
				names, pmids = append(names, n), append(pmids, p)
			}
			for round := 0; round < 2; round++ {
				res, _, err := d.Fetch(pmids)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string][]string{}
				for i, vs := range res.VSets {
					got[names[i]] = values(t, vs)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("fetch %d (-want +got):\n%s", round+1, diff)
				}
			}
			// operands are fetched with the metrics; the derived
			// PMIDs are asked for too (pmcd answers them with errors)
			if last := fk.fetched[len(fk.fetched)-1]; len(last) != len(pmids)+2 {
				t.Errorf("fetched %v for %v", last, pmids)
			}
			// matchinst() read the instance domain once per fetch at most
			if fk.inDomReads == 0 || fk.inDomReads > 2 {
				t.Errorf("%d reads of the instance domain in 2 fetches", fk.inDomReads)
			}
		})
	}
}

// TestDerivedNames: pmLookupName finds derived metrics whether or not
// they bind, pmTraversePMNS lists those that bind, in order, and
// pmLookupDesc of one that does not fails with its semantic error
// written once.
func TestDerivedNames(t *testing.T) {
	var errw strings.Builder
	d := newDerived(t, &fake{}, source.DerivedOptions{Errors: &errw})
	for _, c := range []struct {
		name  string
		found bool
		desc  error
	}{
		{"one", true, nil},
		{"twice", true, nil},
		{"bad", true, pmapi.ErrBadDerive},
		{"sem", true, pmapi.ErrBadDerive},
		{"k.load", false, nil},
		{"nothing", false, nil},
	} {
		p, ok := d.LookupName(c.name)
		if ok != c.found {
			t.Errorf("LookupName(%s): found %v, want %v", c.name, ok, c.found)
		}
		if !ok {
			continue
		}
		if _, err := d.Desc(p); !errors.Is(err, c.desc) || (err == nil) != (c.desc == nil) {
			t.Errorf("Desc(%s): %v, want %v", c.name, err, c.desc)
		}
	}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"", []string{"one", "fifteen", "five", "twice"}},
		{"one", []string{"one"}},
		{"on", nil},
		{"bad", nil},
	} {
		if got := d.Traverse(c.name); !cmp.Equal(got, c.want) {
			t.Errorf("Traverse(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	want := "Semantic error: derived metric sem: k.load + k.count: Illegal operator for non-counter and counter\n"
	if errw.String() != want {
		t.Errorf("errors written:\n%s\nwant:\n%s", errw.String(), want)
	}
}

// TestDerivedNamespace: with a Namespace, operands resolve in it, not in
// the source.
func TestDerivedNamespace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pmns")
	if err := os.WriteFile(file, []byte("root {\n\tother\t60:0:32\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ns, err := pmns.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	reg := derive.NewRegistry(derive.Dialect603)
	reg.LoadConfigData("defs", []byte("a = other + 1\nb = k.ncpu + 1\n"), &strings.Builder{})
	d := source.NewDerived(&fake{}, reg, source.DerivedOptions{Namespace: ns})
	for name, binds := range map[string]bool{"a": true, "b": false} {
		p, _ := d.LookupName(name)
		if _, err := d.Desc(p); (err == nil) != binds {
			t.Errorf("%s: Desc: %v, want binding %v", name, err, binds)
		}
	}
}
