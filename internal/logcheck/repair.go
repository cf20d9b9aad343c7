package logcheck

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// repair is --repair OUTPUT: it copies what can be read of the archive
// into a new archive OUTPUT (written by archive's Writer, with a new
// temporal index), and says on standard error what it left out. It reads
// each file from its start, record by record, as pass 0 frames them: a
// label that decodes (the first data volume's, else the metadata's,
// else the index's) gives the new archive's; every metadata record that
// frames and decodes is copied; in each data volume, in order, every
// record that frames and decodes is copied, up to the first one that
// does not frame (the rest of that volume is left out). The old index is
// not copied. It returns the check's status, or 1 when nothing could be
// written.
func (c *checker) repair(status int) int {
	out := c.opt.repair
	files, _ := c.scan()
	var meta, index string
	vols := map[int]string{}
	for _, f := range files {
		name, _ := archive.SplitCompressed(f)
		switch fileKind(f) {
		case isMeta:
			meta = f
		case isIndex:
			index = f
		default:
			if v, err := strconv.Atoi(name[strings.LastIndexByte(name, '.')+1:]); err == nil {
				if old, ok := vols[v]; !ok || old > f {
					vols[v] = f
				}
			}
		}
	}
	var volNums []int
	for v := range vols {
		volNums = append(volNums, v)
	}
	sort.Ints(volNums)

	label := c.repairLabel(volNums, vols, meta, index)
	if label == nil {
		c.errf("pmlogcheck: --repair: no file of \"%s\" has a label pcpkit can read: nothing written\n", c.path)
		return 1
	}
	w, err := archive.Create(out, archive.WriterOptions{
		Version: label.Version, Hostname: label.Hostname, TZ: label.TZ, Zoneinfo: label.Zoneinfo,
		PID: label.PID, Start: label.Start, Features: label.Features, CoalesceData: true,
		IndexEpoch: true,
	})
	if err != nil {
		c.errf("pmlogcheck: --repair: %v\n", err)
		return 1
	}
	nmeta, ndata := 0, 0
	descs := map[pmapi.PMID]bool{}
	undescribed := map[pmapi.PMID]int{}
	if meta == "" {
		c.errf("%s: --repair: no metadata file: the copy has no descriptors\n", c.archname)
	} else {
		nmeta = c.repairFile(meta, label.Version, func(rec []byte, n int) error {
			mr, err := archive.DecodeMetaRecord(meta, rec, label.Version)
			if err != nil {
				return err
			}
			if mr.Desc != nil {
				descs[mr.Desc.PMID] = true
			}
			return putMeta(w, mr)
		})
	}
	for _, v := range volNums {
		ndata += c.repairFile(vols[v], label.Version, func(rec []byte, n int) error {
			r, err := archive.DecodeRecord(rec, label.Version)
			if err != nil {
				return err
			}
			return putData(w, r, descs, undescribed)
		})
	}
	for pmid, n := range undescribed {
		c.errf("%s: --repair: metric %s has no descriptor: its values in %d records left out\n", c.archname, pmid, n)
	}
	if nmeta == 0 || ndata == 0 {
		// An archive without metadata or data records is "empty" to
		// libpcp: there is nothing to write.
		w.Abandon()
		// Create refused existing files: these are the writer's.
		for _, suf := range []string{".meta", ".index", ".0"} {
			os.Remove(out + suf)
		}
		c.errf("pmlogcheck: --repair: %d metadata and %d data records could be read: nothing written\n", nmeta, ndata)
		return 1
	}
	if index != "" {
		c.errf("%s: --repair: the temporal index is not copied: %s has a new one\n", index, out)
	}
	if err := w.Close(); err != nil {
		c.errf("pmlogcheck: --repair: %v\n", err)
		return 1
	}
	c.errf("pmlogcheck: --repair: wrote %s: %d metadata records, %d data records\n", out, nmeta, ndata)
	return status
}

// repairLabel returns the first label that decodes, of the data volumes
// in order, then the metadata, then the index.
func (c *checker) repairLabel(volNums []int, vols map[int]string, meta, index string) *archive.Label {
	var paths []string
	for _, v := range volNums {
		paths = append(paths, vols[v])
	}
	paths = append(paths, meta, index)
	for _, p := range paths {
		if p == "" {
			continue
		}
		rc, err := archive.OpenFile(p)
		if err != nil {
			continue
		}
		b := make([]byte, archive.LabelSizeV3)
		n, _ := io.ReadFull(rc, b)
		rc.Close()
		if l, err := archive.DecodeLabel(p, b[:n]); err == nil {
			return l
		}
	}
	return nil
}

// repairFile reads the records of one file after its label and hands
// each whole one to put; a record put refuses is left out and reported.
// Reading stops at the first record that does not frame (its length
// words are wrong or the file ends inside it), and what is left of the
// file is reported. It returns the number of records put.
func (c *checker) repairFile(path string, version int, put func(rec []byte, n int) error) int {
	rc, err := archive.OpenFile(path)
	if err != nil {
		c.errf("%s: --repair: cannot open: %s: left out\n", path, archive.ErrText(err))
		return 0
	}
	defer rc.Close()
	r := bufio.NewReaderSize(rc, 256<<10)
	size := archive.LabelSizeV2
	if version == 3 {
		size = archive.LabelSizeV3
	}
	off := int64(size)
	if _, err := r.Discard(size); err != nil {
		c.errf("%s: --repair: shorter than its label: left out\n", path)
		return 0
	}
	var rec []byte
	put1 := 0
	for n := 2; ; n++ {
		var hdr [4]byte
		got, err := io.ReadFull(r, hdr[:])
		if got == 0 && err == io.EOF {
			break
		}
		why := ""
		l := int64(binary.BigEndian.Uint32(hdr[:]))
		switch {
		case got < 4:
			why = "the file ends inside its header"
		case l < 12:
			why = fmt.Sprintf("illegal length %d", l)
		default:
			if int64(cap(rec)) < l {
				rec = make([]byte, l)
			}
			rec = rec[:l]
			copy(rec, hdr[:])
			if m, _ := io.ReadFull(r, rec[4:]); int64(m) < l-4 {
				why = fmt.Sprintf("the file ends %d bytes into its %d", 4+m, l)
			} else if t := binary.BigEndian.Uint32(rec[l-4:]); int64(t) != l {
				why = fmt.Sprintf("length %d, trailer %d", l, t)
			}
		}
		if why != "" {
			c.errf("%s: --repair: record %d at offset %d does not frame (%s): left out with the rest of the file\n", path, n, off, why)
			break
		}
		if err := put(rec, n); err != nil {
			c.errf("%s: --repair: record %d at offset %d left out: %s\n", path, n, off, archive.ErrText(err))
		} else {
			put1++
		}
		off += l
	}
	return put1
}

// putMeta writes one metadata record with the writer's method for its
// type.
func putMeta(w *archive.Writer, mr *archive.MetaRecord) error {
	switch {
	case mr.Desc != nil:
		return w.PutDesc(*mr.Desc, mr.Names)
	case mr.InDom != nil:
		r := *mr.InDom
		if r.Type != archive.MetaInDomDelta {
			r.Type = archive.MetaInDom
			if w.Version() == 2 {
				r.Type = archive.MetaInDomV2
			}
		}
		return w.PutInDom(&r)
	case mr.Label != nil:
		return w.PutLabels(mr.Label)
	case mr.Text != nil:
		return w.PutText(mr.Text)
	}
	return pmapi.ErrRecType
}

// errNoValues is putData's refusal of a record none of whose value sets
// could be kept.
var errNoValues = errors.New("no value set of the record has a descriptor")

// putData writes a data record without the value sets of metrics that
// have no descriptor (counted in undescribed): nothing can read those
// values, and the real pmlogcheck stops on them. A record left with no
// value set is not written (it would read as a <mark>).
func putData(w *archive.Writer, r *archive.Record, descs map[pmapi.PMID]bool, undescribed map[pmapi.PMID]int) error {
	all := true
	for i := 0; i < r.NumPMID(); i++ {
		if !descs[r.PMID(i)] {
			all = false
			undescribed[r.PMID(i)]++
		}
	}
	if all {
		return w.PutRecord(r)
	}
	res := r.Result()
	kept := res.VSets[:0]
	for _, vs := range res.VSets {
		if descs[vs.PMID] {
			kept = append(kept, vs)
		}
	}
	if len(kept) == 0 {
		return errNoValues
	}
	res.VSets = kept
	return w.PutResult(res)
}
