package archive_test

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/crashcheck"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// ---------------------------------------------------------------------------
// Crash safety: a writer killed with SIGKILL at random moments.

const helperEnv = "PCPKIT_WRITER_CRASH_HELPER"

// TestWriterCrashHelper is not a test: run with helperEnv set, it writes
// an archive until it is killed.
func TestWriterCrashHelper(t *testing.T) {
	base := os.Getenv(helperEnv)
	if base == "" {
		t.Skip("helper process only")
	}
	sync := os.Getenv(helperEnv+"_SYNC") == "1"
	coalesce := os.Getenv(helperEnv+"_COALESCE") == "1"
	w, err := archive.Create(base, archive.WriterOptions{Version: 3, Hostname: "crash", TZ: "UTC", Start: pmapi.Timestamp{Sec: 1700000000}, SyncEveryRecord: sync, CoalesceData: coalesce})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	p := pmapi.NewPMID(245, 0, 1)
	id := pmapi.NewInDom(245, 1)
	w.PutDesc(pmapi.Desc{PMID: p, Type: pmapi.TypeU32, InDom: id, Sem: pmapi.SemInstant}, []string{"crash.small"})
	w.PutDesc(pmapi.Desc{PMID: p + 1, Type: pmapi.TypeAggregate, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}, []string{"crash.big"})
	r := rand.New(rand.NewSource(int64(os.Getpid())))
	for i := int64(0); ; i++ {
		t := pmapi.Timestamp{Sec: 1700000000 + i}
		if i%7 == 0 {
			n := r.Intn(20) + 1
			rec := &archive.InDomRecord{Stamp: t, InDom: id}
			for k := 0; k < n; k++ {
				rec.Insts = append(rec.Insts, int32(k+int(i)))
				rec.Names = append(rec.Names, fmt.Sprintf("instance %d of %d", k+int(i), i))
			}
			if err := w.PutInDom(rec); err != nil {
				os.Exit(3)
			}
		}
		if i%11 == 0 {
			w.PutText(&archive.HelpText{Type: archive.TextOneLine | archive.TextPMID, Ident: uint32(p), Text: strings.Repeat("help ", r.Intn(200))})
		}
		res := &pmapi.Result{Timestamp: t, VSets: []pmapi.ValueSet{
			{PMID: p, NumVal: 1, ValFmt: pmapi.ValFmtInsitu, Values: []pmapi.Value{{Inst: int32(i), Insitu: int32(i)}}},
			{PMID: p + 1, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeAggregate, Block: make([]byte, r.Intn(20000))}}},
		}}
		if err := w.PutResult(res); err != nil {
			os.Exit(4)
		}
		if i%50 == 49 {
			w.PutMark(t.Add(1e6))
			w.NewVolume()
		}
	}
}

// TestWriterCrashSafety kills a writing process with SIGKILL at random
// moments; every archive it leaves behind must be read by pcpkit, and by
// the real pmdumplog when it is installed, up to its last complete
// record (files appear whole: an archive either has its volume 0 or is
// not there).
func TestWriterCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if k := os.Getenv("PCPKIT_KEEP"); k != "" {
		dir = k
	}
	real := testenv.FindRealTool("pmdumplog")
	if real == "" && testenv.Interop() {
		t.Fatal("PCP_INTEROP=1 but the real pmdumplog is not installed")
	}
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	left, damaged := 0, 0
	for i := 0; i < 40; i++ {
		base := filepath.Join(dir, fmt.Sprintf("k%d", i))
		cmd := exec.Command(exe, "-test.run=^TestWriterCrashHelper$")
		cmd.Env = append(os.Environ(), helperEnv+"="+base)
		switch i % 4 {
		case 3:
			cmd.Env = append(cmd.Env, helperEnv+"_SYNC=1")
		case 1:
			cmd.Env = append(cmd.Env, helperEnv+"_COALESCE=1")
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Intn(60000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if _, err := os.Stat(base + ".0"); err != nil {
			continue // killed before the archive existed
		}
		left++
		n, bad := crashcheck.ReadPcpkit(t, base, base)
		if bad {
			damaged++
		}
		if real != "" {
			crashcheck.ReadReal(t, base, base, n, bad)
		}
	}
	t.Logf("%d archives left behind, %d with a partial last record", left, damaged)
	if left == 0 {
		t.Errorf("no archive was left behind: the kills came too early")
	}
}
