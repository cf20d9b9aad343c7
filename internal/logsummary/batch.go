package logsummary

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pcpkit/pcpkit/archive"
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

// parseShard parses "K/N" with 0 <= K < N.
func parseShard(arg string) (k, n int, ok bool) {
	ks, ns, found := strings.Cut(arg, "/")
	if !found {
		return 0, 0, false
	}
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, false
	}
	return k, n, true
}

// shardOf is the shard (of n) of an archive: FNV-1a (32 bits) of its name
// as --each reports it, modulo n. It depends on the name alone, so every
// member of a fleet job, given the same arguments in any order, agrees.
func shardOf(name string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(n))
}

// hasGlobMeta reports whether s holds a glob metacharacter.
func hasGlobMeta(s string) bool { return strings.ContainsAny(s, `*?[`) }

// expandEach turns the arguments of --each into the archives to
// summarise, each once, in argument order:
//
//   - a directory stands for every archive under it, at any depth (found
//     by its .meta file, compressed or not), in lexical order;
//   - an argument with a glob metacharacter that names no file is
//     expanded (filepath.Glob, lexical order), each match as an argument:
//     a directory as above, a file as the archive it belongs to;
//   - a file is the archive it belongs to (x.0, x.meta.xz: x);
//   - anything else is one archive context, as without --each: a base
//     name, or a comma-separated multi-archive list.
//
// An archive met twice is summarised once, where it was first met. A
// directory or glob that gives no archive is complained about.
func (s *summary) expandEach(args []string) ([]string, int) {
	var out []string
	seen := map[string]bool{}
	status := 0
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	walk := func(dir string) int {
		n := 0
		walkArchives(dir, func(base string) {
			add(base)
			n++
		}, func(p string, err error) {
			s.complain("%s: %s", p, archive.ErrText(err))
		})
		return n
	}
	for _, a := range args {
		if !strings.Contains(a, ",") {
			if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() {
				// a file of an archive: the archive
				add(archive.BaseName(a))
				continue
			} else if err == nil && st.IsDir() {
				if walk(a) == 0 {
					s.complain("no archives in directory %q", a)
					status = 1
				}
				continue
			} else if err != nil && hasGlobMeta(a) {
				matches, _ := filepath.Glob(a)
				n := 0
				for _, m := range matches {
					if st, err := os.Stat(m); err == nil && st.IsDir() {
						n += walk(m)
						continue
					}
					add(archive.BaseName(m))
					n++
				}
				if n == 0 {
					s.complain("no archives match %q", a)
					status = 1
				}
				continue
			}
		}
		add(a)
	}
	return out, status
}

// splitCompressSuffix strips a compression suffix as libpcp recognises
// them.
func splitCompressSuffix(name string) (string, string) {
	for _, suf := range []string{".xz", ".lzma", ".bz2", ".bz", ".gz", ".Z", ".z", ".zst"} {
		if strings.HasSuffix(name, suf) && len(name) > len(suf) {
			return name[:len(name)-len(suf)], suf
		}
	}
	return name, ""
}

// result is the output of one archive of --each.
type result struct {
	stdout, stderr []byte
	status         int
}

// runEach is --each: the archives are summarised independently by a
// pool of workers, and their outputs written in argument order.
func (s *summary) runEach(args []string) int {
	names, status := s.expandEach(args)
	if s.shardN > 0 {
		kept := names[:0]
		for _, n := range names {
			if shardOf(n, s.shardN) == s.shardK {
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

// walkArchives calls found with the base name of every archive (a .meta
// file, compressed or not) under dir, in lexical order as filepath.WalkDir
// goes, following symbolic links to directories (dir itself may be one):
// each directory is read once, so a link back up the tree ends there.
// Errors below dir go to complain; an unreadable dir gives nothing.
func walkArchives(dir string, found func(base string), complain func(path string, err error)) {
	seen := map[string]bool{}
	var walk func(d string, top bool)
	walk = func(d string, top bool) {
		real, err := filepath.EvalSymlinks(d)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			if !top {
				complain(d, err)
			}
			return
		}
		if seen[real] {
			return
		}
		seen[real] = true
		ents, err := os.ReadDir(d)
		if err != nil {
			if !top {
				complain(d, err)
			}
			return
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					isDir = true
				}
			}
			if isDir {
				walk(p, false)
				continue
			}
			base, _ := splitCompressSuffix(e.Name())
			if b, ok := strings.CutSuffix(base, ".meta"); ok && b != "" {
				found(filepath.Join(d, b))
			}
		}
	}
	walk(dir, true)
}
