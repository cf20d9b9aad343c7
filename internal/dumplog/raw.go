package dumplog

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/pcpkit/pcpkit/archive"
)

// rawDump implements -v FILE: every record of one physical file as
// 32-bit words in hex, with the framing checks the real tool makes. It
// streams the file: a corrupt length cannot make it allocate.
func (d *dumper) rawDump(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return d.fail("Cannot open %q: %s", path, archive.ErrText(underlying(err)))
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	w := d.out
	fmt.Fprintf(w, "Raw dump of physical archive file %q ...\n", path)
	var off int64
	var word [4]byte
	for {
		n, err := io.ReadFull(r, word[:])
		if n == 0 {
			return 0 // end of file, or nothing readable (a directory)
		}
		if err != nil {
			fmt.Fprintf(w, "Unexpected EOF\n")
			return 0
		}
		rlen := int32(binary.BigEndian.Uint32(word[:]))
		fmt.Fprintf(w, "Dump ... record len: %d @ offset: %d\n", rlen, off)
		body := int64(rlen) - 8
		if body < 0 {
			body = 0
		}
		var k, got int64
		short := false
		for got < body {
			want := body - got
			if want > 4 {
				want = 4
			}
			m, _ := io.ReadFull(r, word[:want])
			if m > 0 {
				if k > 0 && k%8 == 0 {
					w.WriteByte('\n')
				}
				w.WriteByte(' ')
				for _, c := range word[:m] {
					fmt.Fprintf(w, "%02x", c)
				}
				k++
			}
			got += int64(m)
			if int64(m) < want {
				short = true
				break
			}
		}
		if short {
			fmt.Fprintf(w, "Unexpected EOF\n")
		}
		w.WriteByte('\n')
		off += 4 + got
		n, err = io.ReadFull(r, word[:])
		if err != nil || n < 4 {
			fmt.Fprintf(w, "Unexpected EOF\n")
			return 0
		}
		off += 4
		if t := int32(binary.BigEndian.Uint32(word[:])); t != rlen {
			fmt.Fprintf(w, "Trailer botch: %d != %d\n", t, rlen)
			return 0
		}
	}
}

func underlying(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
