package pcp2arrow

import (
	"fmt"
	"hash/fnv"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pmapi"
)

// partitioned writes the samples of one archive into a Hive-partitioned
// dataset under dir: dir/host=H/date=YYYY-MM-DD/part-ID.parquet, a file
// for each UTC day of samples, ID the archive's (partID). The host and
// the date are the directories' (as Hive, DuckDB and Spark read them),
// not columns of the files.
type partitioned struct {
	dir, host, part string
	open            func(out io.Writer) (layoutWriter, error)
	day             int64 // the current file's day since the epoch
	f               *os.File
	w               layoutWriter
	files           int
}

// partID is an archive's part of a dataset: FNV-1a (64 bits) of its name
// as --each lists it, in hex; the same for an archive whatever the
// other archives, the order or the shard.
func partID(archive string) string {
	h := fnv.New64a()
	h.Write([]byte(archive))
	return fmt.Sprintf("%016x", h.Sum64())
}

// hivePart is s as a Hive partition value: escaped as a URL path segment
// ("/" and "=" among what is escaped).
func hivePart(s string) string {
	return url.PathEscape(s)
}

func (p *partitioned) add(ts pmapi.Timestamp) error {
	ns := ts.Sec*1e9 + int64(ts.Nsec)
	day := floorDiv(ns, 86400e9)
	if p.w == nil || day != p.day {
		if err := p.closeFile(); err != nil {
			return err
		}
		date := time.Unix(day*86400, 0).UTC().Format("2006-01-02")
		d := filepath.Join(p.dir, "host="+hivePart(p.host), "date="+date)
		if err := os.MkdirAll(d, 0o777); err != nil {
			return fmt.Errorf("pcp2arrow: %v\n", err)
		}
		f, err := os.Create(filepath.Join(d, "part-"+p.part+".parquet"))
		if err != nil {
			return fmt.Errorf("pcp2arrow: %v\n", err)
		}
		w, err := p.open(f)
		if err != nil {
			f.Close()
			return err
		}
		p.f, p.w, p.day = f, w, day
		p.files++
	}
	return p.w.add(ts)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// closeFile ends the current file, if any.
func (p *partitioned) closeFile() error {
	if p.w == nil {
		return nil
	}
	err := p.w.close()
	if cerr := p.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("pcp2arrow: %v\n", cerr)
	}
	p.w, p.f = nil, nil
	return err
}

func (p *partitioned) close() error { return p.closeFile() }

// newLayout is a function making o's layout's writer for s's samples on
// an output; host says whether the long layout has a host column.
func newLayout(s *sampler.Sampler, o *options, host bool) func(out io.Writer) (layoutWriter, error) {
	return func(out io.Writer) (layoutWriter, error) {
		if o.layout == "long" {
			h := s.Label().Hostname
			var l *labeler
			if o.labels {
				l = newLabeler(s)
			}
			return newLong(s.Metrics, h, host, l, out), nil
		}
		return newWide(s.Metrics, out)
	}
}
