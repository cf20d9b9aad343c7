package logsummary

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
)

// runMerge is --merge: it reads outputs of --json (objects, one or more
// per file, or arrays of them, such as an earlier --merge printed) and
// prints them as one JSON array sorted by archive name, one object a
// line; with --csv it reads outputs of --csv and prints one header and
// the rows sorted by archive name. The sort is stable: the rows of one
// archive keep their order, as do objects of the same name. "-" or no
// file reads the standard input.
func (s *summary) runMerge(files []string) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	if s.format == csvFormat {
		return s.mergeCSV(files)
	}
	type entry struct {
		archive string
		raw     []byte
	}
	var all []entry
	status := 0
	add := func(file string, raw json.RawMessage) bool {
		var head struct {
			Archive *string `json:"archive"`
		}
		if err := json.Unmarshal(raw, &head); err != nil || head.Archive == nil {
			s.complain("%s: not a pmlogsummary --json object: %.60s", file, raw)
			return false
		}
		var b bytes.Buffer
		json.Compact(&b, raw)
		all = append(all, entry{*head.Archive, b.Bytes()})
		return true
	}
	for _, f := range files {
		err := readInput(f, func(r io.Reader) error {
			dec := json.NewDecoder(r)
			for {
				var raw json.RawMessage
				err := dec.Decode(&raw)
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
				if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
					var arr []json.RawMessage
					if err := json.Unmarshal(raw, &arr); err != nil {
						return err
					}
					for _, o := range arr {
						if !add(f, o) {
							status = 1
						}
					}
					continue
				}
				if !add(f, raw) {
					status = 1
				}
			}
		})
		if err != nil {
			s.complain("cannot merge %s: %s", f, mergeErrText(err))
			status = 1
		}
	}
	slices.SortStableFunc(all, func(a, b entry) int { return strings.Compare(a.archive, b.archive) })
	s.out.WriteString("[")
	for i, e := range all {
		if i > 0 {
			s.out.WriteString(",")
		}
		s.out.WriteString("\n")
		s.out.Write(e.raw)
	}
	s.out.WriteString("\n]\n")
	return status
}

// mergeCSV is --merge --csv.
func (s *summary) mergeCSV(files []string) int {
	var header []string
	var rows [][]string
	status := 0
	for _, f := range files {
		err := readInput(f, func(r io.Reader) error {
			cr := csv.NewReader(r)
			cr.FieldsPerRecord = -1
			recs, err := cr.ReadAll()
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				return nil
			}
			if len(recs[0]) == 0 || recs[0][0] != "archive" {
				return errors.New("not a pmlogsummary --csv output (no header)")
			}
			if header == nil {
				header = recs[0]
			} else if !slices.Equal(header, recs[0]) {
				return fmt.Errorf("its columns differ from the first file's (%s)", strings.Join(recs[0], ","))
			}
			rows = append(rows, recs[1:]...)
			return nil
		})
		if err != nil {
			s.complain("cannot merge %s: %s", f, mergeErrText(err))
			status = 1
		}
	}
	if header == nil {
		return status
	}
	slices.SortStableFunc(rows, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	cw := csv.NewWriter(s.out)
	cw.Write(header)
	cw.WriteAll(rows)
	return status
}

// readInput calls fn with the file's contents ("-": the standard input).
func readInput(file string, fn func(io.Reader) error) error {
	if file == "-" {
		return fn(os.Stdin)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(f)
}

func mergeErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return archive.ErrText(err)
	}
	return err.Error()
}
