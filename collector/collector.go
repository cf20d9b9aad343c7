package collector

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/source"
)

// DefaultPMDACacheDir is where the linux PMDA keeps its instance caches
// ($PCP_VAR_DIR/config/pmda).
const DefaultPMDACacheDir = "/var/lib/pcp/config/pmda"

// Option configures a Collector.
type Option func(*Collector)

// WithRoot makes the Collector read <dir>/proc, <dir>/sys and <dir>/etc
// instead of /proc, /sys and /etc, as the PMDA does with
// $LINUX_STATSPATH. File systems are still examined with statfs(2) on
// <dir>/<mount point>. With a root other than "/", the PMDA instance
// caches are not read unless WithPMDACacheDir is also given.
func WithRoot(dir string) Option {
	return func(c *Collector) { c.root = dir }
}

// WithPMDACacheDir sets the directory holding the linux PMDA's saved
// instance caches (files named 60.N); "" disables them.
func WithPMDACacheDir(dir string) Option {
	return func(c *Collector) { c.cacheDir = dir; c.cacheDirSet = true }
}

// WithHZ sets the kernel's USER_HZ, the unit of the CPU times in
// /proc/stat (default 100, the value on every Linux architecture pcpkit
// targets; Go cannot ask sysconf(_SC_CLK_TCK) without cgo).
func WithHZ(hz uint32) Option {
	return func(c *Collector) {
		if hz > 0 {
			c.hz = hz
		}
	}
}

// WithClock sets the function that stamps each Fetch (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *Collector) { c.now = now }
}

// withStatfs replaces statfs(2) for tests.
func withStatfs(f func(path string, st *syscall.Statfs_t) error) Option {
	return func(c *Collector) { c.statfs = f }
}

// Collector is the built-in source of live metrics. Create it with New.
type Collector struct {
	root        string
	cacheDir    string
	cacheDirSet bool
	hz          uint32
	now         func() time.Time
	statfs      func(path string, st *syscall.Statfs_t) error
	uid, gid    int

	metrics []*metric
	byPMID  map[pmapi.PMID]*metric
	byName  map[string]*metric
	names   []string        // every leaf name, in namespace order
	nonLeaf map[string]bool // non-leaf names

	files map[string]*openFile // open /proc and /sys files, by path relative to root
	pass  uint64               // count of fetches (and other refreshing calls)
	buf   []byte

	// what the current fetch has read; fresh[s] is set once source s
	// was refreshed, errs[s] its error.
	fresh [nSources]bool
	errs  [nSources]error

	stat        procStat
	mem         procMeminfo
	load        procLoadavg
	up          procUptime
	vm          kvValues     // /proc/vmstat, by slots().vmstat
	snmp        kvValues     // /proc/net/snmp, by slots().snmp
	netstat     kvValues     // /proc/net/netstat, by slots().snmp
	vfs         [4][3]uint64 // file-nr, inode-state, dentry-state, aio (nr, max)
	vfsN        [4]int
	softnet     softnetStat
	wwidPaths   map[string]*[2]string // disk -> its wwid attribute files
	wwids       map[string]string     // disk -> its WWID as last read
	irq         irqTable              // /proc/interrupts
	softirq     irqTable              // /proc/softirqs
	intrErr     [2]uint64             // ERR and MIS of /proc/interrupts
	intrHas     [2]bool
	netPaths    map[string]*[3]string // interface -> its mtu, flags, operstate files
	cpuinfo     []cpuInfo
	cpuSys      []cpuSysInfo      // parallel to stat.cpuIDs
	cpuPaths    map[int32]string  // CPU -> its /sys directory
	cpuOnline   map[int32]string  // CPU -> its online attribute
	missing     map[string]uint64 // /sys file -> the pass it was found missing
	cpuNodes    map[int32]uint64
	nodes       []numaNode
	nodesListed bool
	nodesPass   uint64
	sock        [nSockstat]uint64
	sockHas     [nSockstat]bool
	press       [4]pressure
	sysctl      [4]uint64 // pid_max, pty/nr, entropy_avail, poolsize
	sysctlOK    [4]bool
	cpuNames    map[int32]string
	disks       []disk
	diskCache   *instCache
	nets        []netIf
	netCache    *instCache
	fss         []filesys
	fsCache     *instCache
	zrams       []disk
	zramCache   *instCache
	zramPaths   map[string]*zramFiles
	parts       []disk
	partCache   *instCache
	tmps        []filesys
	tmpCache    *instCache
	uname       unameInfo

	dsScratch  diskStat
	ndScratch  netStat
	schedPath  map[string]string // disk name -> its scheduler attribute
	lastMounts []byte            // /proc/mounts as last parsed
	mountsOK   bool

	// instances' reused lists
	ids    []int32
	inames []string

	// Fetch's reused result.
	res    pmapi.Result
	vals   []pmapi.Value
	blocks []byte
}

var _ source.Source = (*Collector)(nil)

// New returns a Collector reading the local /proc and /sys (or those under
// WithRoot). It fails when the root has no /proc/stat: there is nothing to
// collect.
func New(opts ...Option) (*Collector, error) {
	c := &Collector{
		root:      "/",
		hz:        100,
		now:       time.Now,
		statfs:    syscall.Statfs,
		uid:       os.Getuid(),
		gid:       os.Getgid(),
		files:     map[string]*openFile{},
		cpuNames:  map[int32]string{},
		schedPath: map[string]string{},
		netPaths:  map[string]*[3]string{},
		wwidPaths: map[string]*[2]string{},
		wwids:     map[string]string{},
		zramPaths: map[string]*zramFiles{},
		cpuPaths:  map[int32]string{},
		cpuOnline: map[int32]string{},
		missing:   map[string]uint64{},
		cpuNodes:  map[int32]uint64{},
		vm:        newKV(len(slots().vmstat)),
		snmp:      newKV(slots().nSnmp),
		netstat:   newKV(slots().nSnmp),
	}
	for _, o := range opts {
		o(c)
	}
	if !c.cacheDirSet {
		if filepath.Clean(c.root) == "/" {
			c.cacheDir = DefaultPMDACacheDir
		}
	}
	if _, err := os.Stat(c.path("proc/stat")); err != nil {
		return nil, err
	}
	c.diskCache = newInstCache(c.cacheFile(1))
	c.netCache = newInstCache(c.cacheFile(3))
	c.partCache = newInstCache(c.cacheFile(10))
	c.zramCache = newInstCache(c.cacheFile(38))
	c.irq.lineCache, c.irq.cpuCache = newInstCache(c.cacheFile(4)), newInstCache(c.cacheFile(40))
	c.softirq.lineCache, c.softirq.cpuCache = newInstCache(c.cacheFile(36)), newInstCache(c.cacheFile(41))
	c.fsCache = newInstCache("")  // the PMDA does not save this one
	c.tmpCache = newInstCache("") // nor this one
	c.buildTables()
	return c, nil
}

func (c *Collector) cacheFile(serial int) string {
	if c.cacheDir == "" {
		return ""
	}
	return filepath.Join(c.cacheDir, "60."+itoa(serial))
}

// path returns the absolute path of rel under the root.
func (c *Collector) path(rel string) string { return filepath.Join(c.root, rel) }

// openFile is a file the Collector keeps open, and the pass that last
// read it.
type openFile struct {
	f    *os.File
	used uint64
}

// idleFilePasses is how many passes a kept-open file may go unread before
// it is closed (the disk or interface it describes has gone).
const idleFilePasses = 64

// newPass starts a fetch (or another call that reads the kernel's files):
// every source is to be read again. Now and then it closes files that
// have not been read for a while.
func (c *Collector) newPass() {
	c.fresh = [nSources]bool{}
	c.pass++
	if c.pass%idleFilePasses == 0 {
		for k, of := range c.files {
			if c.pass-of.used > idleFilePasses {
				of.f.Close()
				delete(c.files, k)
			}
		}
	}
}

// readFile reads the file rel (relative to the root) into the shared
// buffer and returns it; the bytes are valid until the next readFile.
// /proc and /sys files are kept open and re-read from offset 0.
func (c *Collector) readFile(rel string) ([]byte, error) {
	of := c.files[rel]
	if of == nil {
		// A missing /sys attribute (a CPU without an online file, an
		// interface without mtu) is looked for again only now and then.
		sys := strings.HasPrefix(rel, "sys/")
		if when, ok := c.missing[rel]; ok && sys && c.pass-when < idleFilePasses {
			return nil, fs.ErrNotExist
		}
		f, err := os.Open(c.path(rel))
		if err != nil {
			if sys {
				c.missing[rel] = c.pass
			}
			return nil, err
		}
		delete(c.missing, rel)
		of = &openFile{f: f}
		c.files[rel] = of
	}
	of.used = c.pass
	f := of.f
	if cap(c.buf) < 4096 {
		c.buf = make([]byte, 0, 16384)
	}
	n := 0
	b := c.buf[:cap(c.buf)]
	for {
		m, err := f.ReadAt(b[n:], int64(n))
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			delete(c.files, rel)
			return nil, err
		}
		if n == len(b) {
			nb := make([]byte, 2*len(b))
			copy(nb, b[:n])
			b = nb
			c.buf = nb[:0]
		}
	}
	return b[:n], nil
}

// readSmall reads a small file that is not kept open (sysfs attributes,
// /etc files) into the shared buffer.
func (c *Collector) readSmall(rel string) ([]byte, error) {
	f, err := os.Open(c.path(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if cap(c.buf) < 4096 {
		c.buf = make([]byte, 0, 16384)
	}
	b := c.buf[:cap(c.buf)]
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return b[:n], nil
}

// errCode turns an error into the negative code of a value set: -errno
// for a system error, PM_ERR_VALUE otherwise.
func errCode(err error) int32 {
	var pe pmapi.Error
	if errors.As(err, &pe) {
		return int32(pe)
	}
	var en syscall.Errno
	if errors.As(err, &en) && en != 0 {
		return -int32(en)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return -int32(syscall.ENOENT)
	}
	return int32(pmapi.ErrValue)
}

// Host returns the host name: the kernel's nodename, as pmcd.hostname
// reports it.
func (c *Collector) Host() string {
	c.refreshUname()
	if c.uname.s[unNodename] != "" {
		return c.uname.s[unNodename]
	}
	if h, err := os.Hostname(); err == nil {
		return h
	}
	return "localhost"
}

// LookupNames returns the PMID of each name, PMIDNull for names the
// Collector does not export.
func (c *Collector) LookupNames(names []string) ([]pmapi.PMID, error) {
	out := make([]pmapi.PMID, len(names))
	for i, n := range names {
		if m := c.byName[n]; m != nil {
			out[i] = m.desc.PMID
		} else {
			out[i] = pmapi.PMIDNull
		}
	}
	return out, nil
}

// Traverse returns the leaf names at or below name in namespace order; ""
// or "." is the whole namespace.
func (c *Collector) Traverse(name string) ([]string, error) {
	if name == "" || name == "." {
		return append([]string(nil), c.names...), nil
	}
	if c.byName[name] != nil {
		return []string{name}, nil
	}
	if !c.nonLeaf[name] {
		return nil, pmapi.ErrName
	}
	var out []string
	prefix := name + "."
	for _, n := range c.names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out, nil
}

// NamesOf returns the name of pmid (each exported metric has one name).
func (c *Collector) NamesOf(pmid pmapi.PMID) ([]string, error) {
	m := c.byPMID[pmid]
	if m == nil {
		return nil, pmapi.ErrPMID
	}
	return []string{m.name}, nil
}

// Desc returns the descriptor of pmid.
func (c *Collector) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	m := c.byPMID[pmid]
	if m == nil {
		return pmapi.Desc{}, pmapi.ErrPMID
	}
	return m.desc, nil
}

// InDom returns the current instances of indom, refreshing them from
// /proc first.
func (c *Collector) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	if indom.Domain() != 60 {
		return nil, nil, pmapi.ErrInDom
	}
	c.newPass()
	ids, names, err := c.instances(indom.Serial())
	if err != nil {
		return nil, nil, err
	}
	return append([]int32(nil), ids...), append([]string(nil), names...), nil
}

// Text returns the one-line help of a metric (pcpkit's own words, not the
// PMDA's). Long help and instance domain help are not available
// (pmapi.ErrText).
func (c *Collector) Text(typ uint32, ident uint32) (string, error) {
	if typ&archive.TextPMID == 0 || typ&archive.TextOneLine == 0 {
		return "", pmapi.ErrText
	}
	m := c.byPMID[pmapi.PMID(ident)]
	if m == nil || m.help == "" {
		return "", pmapi.ErrText
	}
	return m.help, nil
}

// Close closes the files the Collector keeps open.
func (c *Collector) Close() error {
	for k, of := range c.files {
		of.f.Close()
		delete(c.files, k)
	}
	return nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
