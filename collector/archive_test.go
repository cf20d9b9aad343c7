package collector

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// recordArchive writes a Version 3 archive of nsamples fetches of names
// from c, with the metadata a pmlogger would write: descriptors, instance
// domains, label sets and one-line help.
func recordArchive(t *testing.T, c *Collector, base string, names []string, nsamples int) {
	t.Helper()
	ids, _ := c.LookupNames(names)
	res, _, err := c.Fetch(ids)
	if err != nil {
		t.Fatal(err)
	}
	w, err := archive.Create(base, archive.WriterOptions{Version: 3, Hostname: c.Host(), TZ: "UTC",
		Start: res.Timestamp})
	if err != nil {
		t.Fatal(err)
	}
	put := func(typ uint32, ident uint32) {
		sets, err := c.Labels(typ, ident)
		if err != nil {
			t.Fatalf("Labels(%#x, %#x): %v", typ, ident, err)
		}
		if len(sets) == 0 {
			return
		}
		if err := w.PutLabels(&archive.LabelRecord{Stamp: res.Timestamp, Type: typ, Ident: ident, Sets: sets}); err != nil {
			t.Fatal(err)
		}
	}
	put(archive.LabelContext, uint32(pmapi.PMIDNull))
	put(archive.LabelDomain, 60)
	put(archive.LabelDomain, 2)
	seenInDom := map[pmapi.InDom]bool{}
	for i, id := range ids {
		d, _ := c.Desc(id)
		if err := w.PutDesc(d, []string{names[i]}); err != nil {
			t.Fatal(err)
		}
		put(archive.LabelItem, uint32(id))
		if txt, err := c.Text(archive.TextOneLine|archive.TextPMID, uint32(id)); err == nil {
			w.PutText(&archive.HelpText{Type: archive.TextOneLine | archive.TextPMID, Ident: uint32(id), Text: txt})
		}
		if d.InDom != pmapi.InDomNull && !seenInDom[d.InDom] {
			seenInDom[d.InDom] = true
			insts, inames, err := c.InDom(d.InDom)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.PutInDom(&archive.InDomRecord{Stamp: res.Timestamp, InDom: d.InDom, Insts: insts, Names: inames}); err != nil {
				t.Fatal(err)
			}
			put(archive.LabelInDom, uint32(d.InDom))
			put(archive.LabelInstances, uint32(d.InDom))
		}
	}
	for k := 0; k < nsamples; k++ {
		if k > 0 {
			time.Sleep(50 * time.Millisecond)
			if res, _, err = c.Fetch(ids); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.PutResult(res); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// descBlocks splits pmdumplog -d output into its per-metric blocks,
// sorted.
func descBlocks(out []byte) []string {
	var blocks []string
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "PMID: "):
			blocks = append(blocks, l)
		case strings.HasPrefix(l, "    ") && len(blocks) > 0:
			blocks[len(blocks)-1] += "\n" + l
		}
	}
	sort.Strings(blocks)
	return blocks
}

var reStampLine = regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d+$`)

// labelLines returns pmdumplog -e output without its time stamps, sorted.
func labelLines(out []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) == "" || reStampLine.MatchString(l) {
			continue
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return lines
}

// TestArchiveWithRealTools records an archive from the Collector with
// pcpkit's archive writer and checks it with the real pmlogcheck and
// pmdumplog; then it records the same metrics with the real pmlogger from
// the local pmcd and compares the descriptors (pmdumplog -d) and label
// sets (pmdumplog -e) of the two archives.
func TestArchiveWithRealTools(t *testing.T) {
	needPmcd(t)
	testenv.RealTool(t, "pmlogger")
	c := newLocal(t)
	names := c.Names()
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours")
	recordArchive(t, c, ours, names, 3)

	out, errb, rc := testenv.RunReal(t, "pmlogcheck", ours)
	if rc != 0 || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("pmlogcheck: rc=%d\n%s%s", rc, out, errb)
	}
	out, errb, rc = testenv.RunReal(t, "pmdumplog", "-a", ours)
	if rc != 0 || len(errb) != 0 {
		t.Errorf("pmdumplog -a: rc=%d\n%s", rc, errb)
	}
	if n := bytes.Count(out, []byte("kernel.all.load")); n < 3 {
		t.Errorf("pmdumplog -a shows kernel.all.load %d times", n)
	}

	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("log mandatory on 100 msec {\n"+strings.Join(names, "\n")+"\n}\n"), 0o644)
	realBase := filepath.Join(dir, "real")
	_, errb, rc = testenv.RunReal(t, "pmlogger", "-c", cfg, "-s", "2", "-l", filepath.Join(dir, "pmlogger.log"), realBase)
	if rc != 0 {
		log, _ := os.ReadFile(filepath.Join(dir, "pmlogger.log"))
		t.Fatalf("pmlogger: rc=%d\n%s\n%s", rc, errb, log)
	}
	ourD, _, _ := testenv.RunReal(t, "pmdumplog", "-d", ours)
	realD, _, _ := testenv.RunReal(t, "pmdumplog", "-d", realBase)
	ob, rb := descBlocks(ourD), descBlocks(realD)
	// The real pmlogger also logs its own pmcd.pmlogger.* and pmcd.pid/
	// pmcd.seqnum descriptors; compare the metrics both have.
	rset := map[string]bool{}
	for _, b := range rb {
		rset[b] = true
	}
	missing := 0
	for _, b := range ob {
		if !rset[b] {
			missing++
			t.Errorf("our descriptor not in the real pmlogger's archive:\n%s", b)
		}
	}
	if len(ob) != len(names) {
		t.Errorf("%d descriptors for %d names", len(ob), len(names))
	}
	ourE, _, _ := testenv.RunReal(t, "pmdumplog", "-e", ours)
	realE, _, _ := testenv.RunReal(t, "pmdumplog", "-e", realBase)
	if ol, rl := labelLines(ourE), labelLines(realE); strings.Join(ol, "\n") != strings.Join(rl, "\n") {
		t.Errorf("label sets differ:\n--- ours\n%s\n--- real pmlogger\n%s", strings.Join(ol, "\n"), strings.Join(rl, "\n"))
	}
	t.Logf("%d descriptors, %d label lines compared", len(ob), len(labelLines(ourE)))
}
