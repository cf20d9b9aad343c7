package derive

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Descriptor files: testdata/ARCHIVE.desc is the output of
//
//	TZ=UTC PCP_DERIVED_CONFIG= pminfo -dm -a ARCHIVE
//
// for the shared archives synth3 and sample3 and for testdata/manpage3
// (made by testdata/mkmanpage.py). TestDescFilesReal checks them again.

var typeNames = map[string]pmapi.Type{
	"32-bit int": pmapi.Type32, "32-bit unsigned int": pmapi.TypeU32,
	"64-bit int": pmapi.Type64, "64-bit unsigned int": pmapi.TypeU64,
	"float": pmapi.TypeFloat, "double": pmapi.TypeDouble, "string": pmapi.TypeString,
	"aggregate": pmapi.TypeAggregate, "event record array": pmapi.TypeEvent,
	"highres event record array": pmapi.TypeHighresEvent, "Not Supported": pmapi.TypeNoSupport,
}

// pminfoType is how pminfo -d names a type.
func pminfoType(t pmapi.Type) string {
	for s, tt := range typeNames {
		if tt == t {
			return s
		}
	}
	return "???"
}

// formatDesc is a descriptor as the tests compare them, from pminfo -d's
// fields: "TYPE | INDOM | SEMANTICS | UNITS".
func formatDesc(d pmapi.Desc) string {
	u := d.Units.String()
	if u == "" {
		u = "none"
	}
	return fmt.Sprintf("%s | %s | %s | %s", pminfoType(d.Type), d.InDom, d.Sem, u)
}

var (
	reHead  = regexp.MustCompile(`^(\S+) PMID: (\d+)\.(\d+)\.(\d+)$`)
	reType  = regexp.MustCompile(`^\s+Data Type: (.*)  InDom: (\S+) 0x[0-9a-f]+$`)
	reSem   = regexp.MustCompile(`^\s+Semantics: (.*)  Units: (.*)$`)
	reError = regexp.MustCompile(`^(\S+): (.*)$`)
)

func parseInDom(s string) pmapi.InDom {
	if s == "PM_INDOM_NULL" {
		return pmapi.InDomNull
	}
	d, ser, _ := strings.Cut(s, ".")
	a, _ := strconv.Atoi(d)
	b, _ := strconv.Atoi(ser)
	return pmapi.NewInDom(uint32(a), uint32(b))
}

func parseSem(s string) pmapi.Sem {
	switch s {
	case "counter":
		return pmapi.SemCounter
	case "instant":
		return pmapi.SemInstant
	case "discrete":
		return pmapi.SemDiscrete
	}
	return 0
}

// parsePminfo reads pminfo -dm output: descriptors by name, and the
// per-metric error lines ("name: pmLookupDesc: ...").
func parsePminfo(t testing.TB, out []byte) (map[string]pmapi.Desc, map[string]string) {
	descs := map[string]pmapi.Desc{}
	errs := map[string]string{}
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := reHead.FindStringSubmatch(line); m != nil {
			cur = m[1]
			d, _ := strconv.Atoi(m[2])
			c, _ := strconv.Atoi(m[3])
			i, _ := strconv.Atoi(m[4])
			descs[cur] = pmapi.Desc{PMID: pmapi.NewPMID(uint32(d), uint32(c), uint32(i))}
		} else if m := reType.FindStringSubmatch(line); m != nil {
			d := descs[cur]
			typ, ok := typeNames[m[1]]
			if !ok {
				t.Fatalf("pminfo type %q", m[1])
			}
			d.Type, d.InDom = typ, parseInDom(m[2])
			descs[cur] = d
		} else if m := reSem.FindStringSubmatch(line); m != nil {
			d := descs[cur]
			d.Sem = parseSem(m[1])
			if m[2] != "none" {
				u, _, err := pmapi.ParseUnits(m[2])
				if err != nil {
					t.Fatalf("pminfo units %q: %v", m[2], err)
				}
				d.Units = u
			}
			descs[cur] = d
		} else if m := reError.FindStringSubmatch(line); m != nil {
			errs[m[1]] = m[2]
		}
	}
	return descs, errs
}

var descCache = map[string]map[string]pmapi.Desc{}

// archiveDescs reads testdata/ARCHIVE.desc.
func archiveDescs(t testing.TB, archive string) map[string]pmapi.Desc {
	if d, ok := descCache[archive]; ok {
		return d
	}
	data, err := os.ReadFile(filepath.Join("testdata", archive+".desc"))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := parsePminfo(t, data)
	descCache[archive] = d
	return d
}

// archivePath finds an archive: testdata/manpage3, or a shared one.
func archivePath(t testing.TB, archive string) string {
	if archive == "manpage3" {
		p, _ := filepath.Abs(filepath.Join("testdata", archive))
		return p
	}
	return filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), archive)
}

func TestDescFilesReal(t *testing.T) {
	pminfo := testenv.RealTool(t, "pminfo")
	for _, a := range []string{"synth3", "sample3", "manpage3"} {
		out, _, rc := testenv.RunCommand(t, "", testenv.RealEnv(), pminfo, "-dm", "-a", archivePath(t, a))
		if rc != 0 {
			t.Fatalf("pminfo %s: rc %d", a, rc)
		}
		want, err := os.ReadFile(filepath.Join("testdata", a+".desc"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("testdata/%s.desc differs from pminfo -dm -a %s", a, a)
		}
	}
}
