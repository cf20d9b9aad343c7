// Command testreport reads `go test -json` on standard input and prints
// what `go test` prints without -v (one line per package, and the output
// of every failed test), then, for each package, the tests it skipped,
// grouped by the reason they gave. It exits 1 when a package failed or did
// not build. `make test` pipes go test through it, so that a run on a
// machine without PCP or ../shared says what it did not test.
//
//	go test -json ./... | go run ./internal/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json's output (go doc test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

// report is the state of a run.
type report struct {
	w      io.Writer
	output map[string][]string            // package+"\x00"+test: its output lines
	skips  map[string]map[string][]string // package: reason: tests
	failed bool
}

func main() {
	r := &report{w: os.Stdout, output: map[string][]string{}, skips: map[string]map[string][]string{}}
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	if r.failed {
		os.Exit(1)
	}
}

func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// not test2json (go test's own complaints): as it is
			fmt.Fprintf(r.w, "%s\n", line)
			continue
		}
		r.event(&e)
	}
	return sc.Err()
}

func (r *report) event(e *event) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "output":
		r.output[key] = append(r.output[key], e.Output)
	case "build-output":
		fmt.Fprint(r.w, e.Output)
	case "build-fail":
		r.failed = true
	case "skip":
		if e.Test == "" {
			// a package without tests or skipped whole
			fmt.Fprintf(r.w, "?   \t%s\t[no test files]\n", e.Package)
			break
		}
		why := reason(r.output[key])
		if r.skips[e.Package] == nil {
			r.skips[e.Package] = map[string][]string{}
		}
		r.skips[e.Package][why] = append(r.skips[e.Package][why], e.Test)
		delete(r.output, key)
	case "pass":
		delete(r.output, key)
		if e.Test == "" {
			fmt.Fprintf(r.w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			r.printSkips(e.Package)
		}
	case "fail":
		if e.Test != "" {
			for _, l := range r.output[key] {
				if !strings.HasPrefix(l, "=== ") {
					fmt.Fprint(r.w, l)
				}
			}
			delete(r.output, key)
			break
		}
		r.failed = true
		// the package's own output (a panic, TestMain, FAIL lines)
		for _, l := range r.output[key] {
			if !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- PASS") &&
				l != "FAIL\n" && !strings.HasPrefix(l, "FAIL\t") {
				fmt.Fprint(r.w, l)
			}
		}
		delete(r.output, key)
		fmt.Fprintf(r.w, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
		r.printSkips(e.Package)
	}
}

// reason is a skipped test's reason: its output without go test's own
// lines ("=== RUN", "--- SKIP"), the file:line prefix taken off.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " / ")
}

// printSkips prints pkg's skipped tests, one line per reason, the
// subtests of a skipped test not counted again.
func (r *report) printSkips(pkg string) {
	byReason := r.skips[pkg]
	reasons := make([]string, 0, len(byReason))
	for why := range byReason {
		reasons = append(reasons, why)
	}
	sort.Strings(reasons)
	for _, why := range reasons {
		tests := byReason[why]
		sort.Strings(tests)
		names := tests
		more := ""
		if len(names) > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", len(tests)-3)
		}
		fmt.Fprintf(r.w, "    skipped %s%s: %s\n", strings.Join(names, ", "), more, why)
	}
	delete(r.skips, pkg)
}
