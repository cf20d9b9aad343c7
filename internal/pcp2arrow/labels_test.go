package pcp2arrow

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// pminfoLabels runs the real `pminfo -a a [-O origin] -l names...` and
// returns the labels it prints: by metric, then instance number ("" for
// the metric's own line). (With -O, pminfo's fetch fails at the end of the
// archive for the metrics not logged after origin: those have none.)
func pminfoLabels(t *testing.T, a, origin string, names []string) map[string]map[string]string {
	t.Helper()
	args := []string{"-a", a, "-l"}
	if origin != "" {
		args = append(args, "-O", origin)
	}
	out, errb, rc := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), append(args, names...)...)
	if rc != 0 && origin == "" || len(out) == 0 {
		t.Fatalf("pminfo %q: exit %d: %s", args, rc, errb)
	}
	labels := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case line == "":
		case !strings.HasPrefix(line, " "):
			cur = map[string]string{}
			labels[line] = cur
		case strings.HasPrefix(line, "    labels "):
			cur[""] = strings.TrimPrefix(line, "    labels ")
		case strings.HasPrefix(line, "    inst ["):
			// inst [N or "NAME"] labels {...}
			num, rest, _ := strings.Cut(strings.TrimPrefix(line, "    inst ["), ` or "`)
			if _, l, ok := strings.Cut(rest, `"] labels `); ok {
				cur[num] = l
			}
		}
	}
	return labels
}

// TestInteropLabels is the proof of --labels: in the long layout, each
// row's labels are the merged label set the real `pminfo -a ARCH -l`
// prints for its metric's instance (for an instance without a label set
// of its own, and for a singular metric, the metric's), on archives with
// context, domain, instance domain, cluster, item and instance labels.
// pminfo looks them up at the time its fetches reach: where each label
// set was logged once (the labels never change after), every row is
// compared with pminfo -O (a time after the last label set), elsewhere
// the first sample's rows with pminfo at the archive's start.
func TestInteropLabels(t *testing.T) {
	_, duck := interop(t)
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	root := testenv.RepoRoot(t)
	n := 0
	for _, a := range []string{
		filepath.Join(root, "testdata", "archives", "pmcd-v3"),
		filepath.Join(qa, "sample-labels"), filepath.Join(qa, "omnibus_v3"), filepath.Join(qa, "sample-proc_v3"),
		filepath.Join(qa, "20190628.04.03"), filepath.Join(qa, "pcp-atop-boot"), filepath.Join(qa, "ok-foo_v3"),
	} {
		names, _ := reportable(t, a)
		var real []string // (libpcp's anonymous metrics left out)
		for _, nm := range names {
			if !strings.HasPrefix(nm, "event.") {
				real = append(real, nm)
			}
		}
		file := runExport(t, append([]string{"--layout=long", "--labels", "-t", "0.5", "-a", a}, real...)...)
		tb := duck(`SELECT epoch_ns("timestamp")::VARCHAR AS ts, metric, instance, labels FROM read_parquet(` + sqlString(file) + `)`)
		if len(tb.Rows) == 0 {
			t.Errorf("%s: no rows", a)
			continue
		}
		last, static := labelsLoggedOnce(t, a)
		origin := ""
		if static {
			origin = time.Unix(last.Sec, int64(last.Nsec)+1000).UTC().Format("@Mon Jan 2 15:04:05.000000 2006")
		}
		want := pminfoLabels(t, a, origin, real)
		number := instNumbers(t, a)
		rows := 0
		for _, r := range tb.Rows {
			metric, _ := r[1].(string)
			if !static && r[0] != tb.Rows[0][0] || want[metric] == nil && static {
				continue
			}
			inst, _ := r[2].(string)
			w, ok := want[metric][number(metric, inst)]
			if !ok {
				w = want[metric][""]
			}
			if got, _ := r[3].(string); got != w || w == "" {
				t.Errorf("%s at %s: %s[%s] labels %s, pminfo %q", filepath.Base(a), r[0], metric, inst, got, w)
			}
			rows++
		}
		n += rows
	}
	t.Logf("%d rows' labels compared with pminfo -l", n)
}

// instNumbers returns the numbers of the instances of archive a's
// metrics, by metric and name ("" for none).
func instNumbers(t *testing.T, a string) func(metric, name string) string {
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	meta := c.Meta()
	cache := map[string]string{}
	return func(metric, name string) string {
		if name == "" {
			return ""
		}
		if n, ok := cache[metric+"\x00"+name]; ok {
			return n
		}
		p, _ := meta.Lookup(metric)
		d, _ := meta.Desc(p)
		n := "?"
		for _, s := range meta.InDomHistory(d.InDom) {
			for i, nm := range s.Names {
				if nm == name {
					n = strconv.Itoa(int(s.Insts[i]))
				}
			}
		}
		cache[metric+"\x00"+name] = n
		return n
	}
}

// labelsLoggedOnce reports whether each label set of archive a was
// logged once, and the time of the last.
func labelsLoggedOnce(t *testing.T, a string) (last pmapi.Timestamp, once bool) {
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seen := map[[2]uint32]bool{}
	for _, r := range c.Meta().Labels {
		k := [2]uint32{r.Type, r.Ident}
		if seen[k] {
			return last, false
		}
		seen[k] = true
		if last.Before(r.Stamp) {
			last = r.Stamp
		}
	}
	return last, true
}
