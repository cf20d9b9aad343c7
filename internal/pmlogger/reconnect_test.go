package pmlogger

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
)

// pmcdProxy forwards TCP connections to the local pmcd; cut closes the
// current ones and refuses new ones for a while: a pmcd that went away
// and came back, without touching the real pmcd.
type pmcdProxy struct {
	ln      net.Listener
	mu      sync.Mutex
	conns   []net.Conn
	refuse  time.Time
	accepts int
}

func newPMCDProxy(t *testing.T) *pmcdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pmcdProxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut(0) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			refused := time.Now().Before(p.refuse)
			p.accepts++
			p.mu.Unlock()
			if refused {
				c.Close()
				continue
			}
			up, err := net.Dial("tcp", "localhost:44321")
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *pmcdProxy) addr() string { return p.ln.Addr().String() }

// cut drops every connection and refuses new ones for d.
func (p *pmcdProxy) cut(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.refuse = time.Now().Add(d)
}

// TestInteropReconnect cuts the connection to pmcd in the middle of a
// recording, for the real pmlogger and for pcpkit's: both must go on
// after the connection comes back, with one <mark>, the same records
// otherwise, and the same messages in the log.
func TestInteropReconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	real := testenv.RealTool(t, "pmlogger")
	needPMCD(t)
	dir := t.TempDir()
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	cfg := filepath.Join(dir, "r.config")
	os.WriteFile(cfg, []byte("log mandatory on 100 msec { kernel.all.load hinv.ncpu }\n"), 0o644)
	logs := map[string]string{}
	for _, tool := range []struct{ name, prog string }{{"real", real}, {"pcpkit", exe}} {
		p := newPMCDProxy(t)
		base := filepath.Join(dir, tool.name)
		done := make(chan struct{})
		var rc int
		var errb []byte
		go func() {
			defer close(done)
			_, errb, rc = testenv.RunCommand(t, dir, loggerEnv(), tool.prog, "-h", p.addr(), "-c", cfg, "-T", "9sec", "-l", base+".log", base)
		}()
		time.Sleep(1500 * time.Millisecond)
		p.cut(1500 * time.Millisecond)
		<-done
		if rc != 0 {
			t.Fatalf("%s: rc %d: %s", tool.name, rc, errb)
		}
		b, _ := os.ReadFile(base + ".log")
		logs[tool.name] = string(b)
		_, recs := readRecords(t, base)
		marks := 0
		for i, r := range recs {
			if r.IsMark() {
				marks++
				if i == 0 || pcptime.Sub(r.Timestamp, recs[i-1].Timestamp) > 0.0011 {
					t.Errorf("%s: mark at %v, not 1 ms after the record before it", tool.name, r.Timestamp)
				}
			}
		}
		if marks != 1 {
			t.Errorf("%s: %d marks", tool.name, marks)
		}
		t.Logf("%s: %d records, %d connections accepted\n%s", tool.name, len(recs), p.accepts, logs[tool.name])
		if tool.name == "pcpkit" {
			checkReal(t, base)
		}
	}
	// The lines about the connection, times and error texts aside.
	pick := func(s string) string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "connection to PMCD") || strings.Contains(line, "Validating metrics") {
				out = append(out, regexp.MustCompile(` at .*`).ReplaceAllString(line, " at DATE"))
			}
		}
		return strings.Join(out, "\n")
	}
	if r, p := pick(logs["real"]), pick(logs["pcpkit"]); r != p {
		t.Errorf("connection messages differ:\nreal:\n%s\npcpkit:\n%s", r, p)
	}
}
