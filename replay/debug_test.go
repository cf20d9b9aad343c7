package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestDebugOps is a tool for investigating a difference, not a test: it
// runs the oracle operations in the file DEBUG_OPS on archive
// DEBUG_ARCHIVE of the shared set DEBUG_SET, for DEBUG_METRICS, with the
// environment settings DEBUG_ENV (space separated, e.g.
// PCP_COUNTER_WRAP=1), on both libpcp and replay, and writes both outputs
// to want.txt and got.txt in DEBUG_OUT (default the temporary directory).
// The files ORACLE_SAVE keeps for a failing case are its input:
//
//	DEBUG_SET=pcp-qa-archives DEBUG_ARCHIVE=$(cat case.archive) \
//	DEBUG_METRICS=$(cat case.metrics) DEBUG_OPS=case.ops \
//	go test -run TestDebugOps ./replay
//
// Without DEBUG_OPS it is skipped.
func TestDebugOps(t *testing.T) {
	f := os.Getenv("DEBUG_OPS")
	if f == "" {
		t.Skip("a tool: set DEBUG_OPS to use it")
	}
	ops, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.SharedDir(t, os.Getenv("DEBUG_SET"))
	a, m := os.Getenv("DEBUG_ARCHIVE"), os.Getenv("DEBUG_METRICS")
	env := strings.Fields(os.Getenv("DEBUG_ENV"))
	want, crashed := runOracle(t, dir, a, m, string(ops), env...)
	got := runScript(t, dir, a, m, string(ops), env...)
	out := os.Getenv("DEBUG_OUT")
	if out == "" {
		out = os.TempDir()
	}
	os.WriteFile(filepath.Join(out, "want.txt"), []byte(want), 0o644)
	os.WriteFile(filepath.Join(out, "got.txt"), []byte(got), 0o644)
	fmt.Printf("same=%v crashed=%v (%s)\n", want == got, crashed, out)
}
