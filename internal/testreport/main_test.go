package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReport feeds test2json events of a package with a passing, a
// skipped and a failing test, and one that does not build.
func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: no pmcd: skipping\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestD","Output":"    d_test.go:3: no pmcd: skipping\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestD"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"=== RUN   TestC\n"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:5: got 1, want 2\n"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"--- FAIL: TestC (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.010s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":0.01}`,
		`{"ImportPath":"q","Action":"build-output","Output":"q/x.go:1: syntax error\n"}`,
		`{"ImportPath":"q","Action":"build-fail"}`,
		`{"Action":"skip","Package":"r"}`,
		`{"Action":"pass","Package":"s","Elapsed":1.5}`,
	}, "\n")
	var out strings.Builder
	r := &report{w: &out, output: map[string][]string{}, skips: map[string]map[string][]string{}}
	if err := r.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	want := "    c_test.go:5: got 1, want 2\n--- FAIL: TestC (0.00s)\n" +
		"FAIL\tp\t0.010s\n" +
		"    skipped TestB, TestD: no pmcd: skipping\n" +
		"q/x.go:1: syntax error\n" +
		"?   \tr\t[no test files]\n" +
		"ok  \ts\t1.500s\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("report differs (-want +got):\n%s", d)
	}
	if !r.failed {
		t.Error("a failed run not reported as failed")
	}
}
