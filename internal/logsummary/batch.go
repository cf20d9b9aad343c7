package logsummary

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/pcpkit/pcpkit/internal/each"
	"github.com/pcpkit/pcpkit/pmapi"
)

// maxMachineBins bounds -B with --json and --csv, which hold a row's bins
// in memory (the text streams them).
const maxMachineBins = 1 << 16

// checkExtensions checks how pcpkit's options combine, and returns a
// complaint or "".
func (s *summary) checkExtensions() string {
	switch {
	case s.merge && s.each:
		return "at most one of --merge and --each allowed"
	case s.merge && (s.jobsSet || s.shardN > 0 || len(s.metricOpts) > 0):
		return "--merge takes no -j, --shard or --metric"
	case !s.each && s.jobsSet:
		return "-j requires --each"
	case !s.each && s.shardN > 0:
		return "--shard requires --each"
	case s.format != textFormat && s.nbins > maxMachineBins:
		return fmt.Sprintf("-B with --json or --csv allows at most %d bins", maxMachineBins)
	}
	return ""
}

// result is the output of one archive of --each.
type result struct {
	stdout, stderr []byte
	status         int
}

// runEach is --each: the archives are summarised independently by a
// pool of workers, and their outputs written in argument order.
func (s *summary) runEach(args []string) int {
	names, status := each.Expand(args, s.complain)
	if s.shardN > 0 {
		kept := names[:0]
		for _, n := range names {
			if each.Shard(n, s.shardN) == s.shardK {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	jobs := s.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs > len(names) {
		jobs = len(names)
	}
	if s.format == csvFormat {
		s.writeCSVHeader(s.out)
		s.out.Flush()
	}

	// Workers take the archives in order; a result waits in results
	// until those before it are written. At most window archives are
	// taken and not yet written, which bounds the memory held by
	// results when one archive is slow.
	window := 4 * jobs
	if window < 16 {
		window = 16
	}
	results := make([]chan result, len(names))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, window)
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range names {
			slots <- struct{}{}
			next <- i
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] <- s.summariseEach(names[i])
			}
		}()
	}

	p := newProgress(s.errw, len(names))
	for i := range names {
		r := <-results[i]
		<-slots
		if len(r.stderr) > 0 {
			p.write(append([]byte("==> "+names[i]+" <==\n"), r.stderr...))
		}
		if s.format == textFormat {
			if i > 0 {
				s.out.WriteByte('\n')
			}
			fmt.Fprintf(s.out, "==> %s <==\n", names[i])
		}
		s.out.Write(r.stdout)
		s.out.Flush()
		if r.status != 0 {
			status = 1
		}
		p.done(i + 1)
	}
	p.stop()
	wg.Wait()
	return status
}

// summariseEach summarises one archive of --each with the options of s,
// and returns its output.
func (s *summary) summariseEach(name string) result {
	var out, errb bytes.Buffer
	w := bufio.NewWriterSize(&out, 16<<10)
	c := &summary{options: s.options, out: w, errw: &errb, warned: map[pmapi.PMID]bool{}}
	c.pipeline = false // the workers keep the cores busy
	var rc int
	if s.format == textFormat {
		rc = c.runOne(name, s.metricOpts)
	} else {
		c.archiveName, c.metricArgs = name, s.metricOpts
		rc = c.summariseDoc()
	}
	w.Flush()
	return result{stdout: out.Bytes(), stderr: errb.Bytes(), status: rc}
}

// progress draws a progress bar on stderr when it is a terminal and the
// work has taken more than a second; otherwise it does nothing. Messages
// for stderr go through write, which clears the bar first.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool // stderr is a terminal
	total   int
	n       int
	shown   bool // the bar is on the screen
	start   time.Time
	quit    chan struct{}
	stopped chan struct{}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressDelay is how long the work runs before the bar appears.
var progressDelay = time.Second

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, on: isTerminal(w), total: total, start: time.Now()}
	if p.on {
		p.quit, p.stopped = make(chan struct{}), make(chan struct{})
		go p.run()
	}
	return p
}

func (p *progress) run() {
	defer close(p.stopped)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case now := <-t.C:
			if now.Sub(p.start) >= progressDelay {
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}
}

// draw shows the bar: "pmlogsummary: [#####     ] 37/100 archives".
func (p *progress) draw() {
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = p.n * width / p.total
	}
	fmt.Fprintf(p.w, "\rpmlogsummary: [%s%s] %d/%d archives", strings.Repeat("#", fill), strings.Repeat(" ", width-fill), p.n, p.total)
	p.shown = true
}

// clear removes the bar from the screen.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// write writes a message to stderr.
func (p *progress) write(b []byte) {
	if len(b) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.w.Write(b)
}

// done records that n archives are written.
func (p *progress) done(n int) {
	p.mu.Lock()
	p.n = n
	if p.shown {
		p.draw()
	}
	p.mu.Unlock()
}

// stop ends the bar and clears it.
func (p *progress) stop() {
	if !p.on {
		return
	}
	close(p.quit)
	<-p.stopped
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}
