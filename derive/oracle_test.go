package derive

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// The real libpcp is asked through testdata/oracle.py, which calls
// pmRegisterDerived / pmRegisterDerivedMetric with ctypes.

type oracleReq struct {
	Op   string `json:"op"` // "reg" or "regm"
	Name string `json:"name"`
	Expr string `json:"expr"`
}

type oracleResp struct {
	OK     bool    `json:"ok"`
	Pos    int     `json:"pos"`
	Msg    *string `json:"msg"`
	ErrMsg string  `json:"errmsg"`
	Stderr string  `json:"stderr"`
}

// latin1 maps each byte of s to the rune of the same value, so that JSON
// can carry any byte string to the oracle (which encodes back to latin-1).
func latin1(s string) string {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

func unlatin1(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}

// needOracle skips (or fails, with PCP_INTEROP=1) when the real PCP is not
// installed.
func needOracle(t *testing.T) string {
	t.Helper()
	testenv.RealTool(t, "pminfo")
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if testenv.Interop() {
			t.Fatalf("PCP_INTEROP=1 but %s is missing", py)
		}
		t.Skipf("%s not found", py)
	}
	return py
}

// runOracle sends reqs, in order, to one oracle process of the host's
// libpcp (6.0.3).
func runOracle(t *testing.T, reqs []oracleReq) []oracleResp {
	t.Helper()
	py := needOracle(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "oracle.py"))
	cmd := exec.Command(py, script)
	cmd.Env = testenv.RealEnv()
	return runOracleCmd(t, cmd, reqs)
}

// oracle638 is the oracle in the PCP 6.3.8 chroot: the script and the
// files the requests name are copied into a directory inside it.
type oracle638 struct {
	c            *testenv.Chroot
	host, inside string
}

func newOracle638(t *testing.T) *oracle638 {
	t.Helper()
	c := testenv.Real638(t)
	o := &oracle638{c: c}
	o.host, o.inside = c.TempDir(t)
	script, err := os.ReadFile(filepath.Join("testdata", "oracle.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.host, "oracle.py"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return o
}

// archive copies an archive (a base name) into the chroot and returns the
// name to open it by there.
func (o *oracle638) archive(t *testing.T, base string) string {
	t.Helper()
	testenv.CopyArchive(t, base, o.host)
	return filepath.Join(o.inside, filepath.Base(base))
}

// file writes a file into the chroot and returns its path there.
func (o *oracle638) file(t *testing.T, name, text string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(o.host, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(o.inside, name)
}

// run sends reqs, in order, to one oracle process of libpcp 6.3.8.
func (o *oracle638) run(t *testing.T, reqs []oracleReq) []oracleResp {
	t.Helper()
	return runOracleCmd(t, o.c.Command(o.inside, nil, "python3", "oracle.py"), reqs)
}

func runOracleCmd(t *testing.T, cmd *exec.Cmd, reqs []oracleReq) []oracleResp {
	t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, r := range reqs {
		r.Name = latin1(r.Name)
		r.Expr = latin1(r.Expr)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("oracle: %v\n%s", err, errb.String())
	}
	var resps []oracleResp
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r oracleResp
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("oracle output: %v", err)
		}
		if r.Msg != nil {
			m := unlatin1(*r.Msg)
			r.Msg = &m
		}
		r.ErrMsg = unlatin1(r.ErrMsg)
		r.Stderr = unlatin1(r.Stderr)
		resps = append(resps, r)
	}
	if len(resps) != len(reqs) {
		t.Fatalf("oracle answered %d of %d requests; stderr:\n%s", len(resps), len(reqs), errb.String())
	}
	return resps
}

// describe formats a registration outcome as the tests compare them.
func describeResp(r oracleResp) string {
	if r.OK {
		return "OK"
	}
	msg := "<nil>"
	if r.Msg != nil {
		msg = *r.Msg
	}
	return "pos " + strconv.Itoa(r.Pos) + " " + msg
}
