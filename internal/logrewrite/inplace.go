package logrewrite

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
)

// In-place rewriting (-i) replaces an archive's files by those of the new
// archive, written beside it under a temporary base name, so that a
// process killed at any moment leaves, under the archive's name, either
// the old archive or the new one, never a mix of their files:
//
//  1. The new archive is written whole under the temporary name T, and
//     made durable (fsync of each file and of the directory).
//  2. Each old file gets a second name under a backup base B (a hard
//     link: nothing is copied), and a journal (".NAME.pmlogrewrite",
//     in the archive's directory) records the three names. Both are made
//     durable. Until here the old archive is untouched.
//  3. The old .meta file is removed first: from then on the archive
//     cannot be opened (every PCP tool needs the .meta), so no reader can
//     ever see old and new files together. The other old files are
//     removed and the new data volumes and index renamed into place.
//  4. The commit: T.meta is renamed to the archive's .meta (one atomic
//     rename), and the directory made durable. The backups and the
//     journal are removed.
//
// A kill between 3 and 4 (a few renames) leaves the journal and an
// archive without .meta. The next "pmlogrewrite -i" of that archive (and
// Recover) finds the journal and puts the old archive back from its
// backups before it starts; a kill after 4 leaves only backups and the
// journal to remove, which it also does.

func journalPath(base string) string {
	return filepath.Join(filepath.Dir(base), "."+filepath.Base(base)+".pmlogrewrite")
}

// archiveFiles lists the files of archive base: the suffixes after the
// base name (".meta", ".index", ".0", ".0.xz", ...).
func archiveFiles(base string) []string {
	dir, name := filepath.Split(base)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		suf, ok := strings.CutPrefix(e.Name(), name+".")
		if !ok {
			continue
		}
		part := strings.SplitN(suf, ".", 2)[0]
		if part == "meta" || part == "index" || isDigits(part) {
			out = append(out, "."+suf)
		}
	}
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isMeta(suf string) bool { return suf == ".meta" || strings.HasPrefix(suf, ".meta.") }

func syncDirOf(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// replace puts the new archive tmp in the place of the input archive.
func replace(input string, a *archive.Archive, tmp string, o *Options) error {
	base := a.BaseName()
	a.Close()
	bak := tempBase(base)
	oldFiles := archiveFiles(base)
	newFiles := archiveFiles(tmp)
	fail := func(err error) error {
		return errorf("%s: Error: in-place rewrite of \"%s\": %v\n", prog, input, err)
	}
	for _, suf := range newFiles {
		f, err := os.Open(tmp + suf)
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil {
			removeArchive(tmp)
			return fail(err)
		}
	}
	for _, suf := range oldFiles {
		if err := os.Link(base+suf, bak+suf); err != nil {
			removeFiles(bak, oldFiles)
			removeArchive(tmp)
			return fail(err)
		}
	}
	j := fmt.Sprintf("base %s\nbak %s\ntmp %s\nold %s\nnew %s\n", base, bak, tmp, strings.Join(oldFiles, " "), strings.Join(newFiles, " "))
	if err := writeDurable(journalPath(base), j); err != nil {
		removeFiles(bak, oldFiles)
		removeArchive(tmp)
		return fail(err)
	}
	if err := syncDirOf(base); err != nil {
		return fail(err)
	}
	// From here a failure is what a kill would leave: the journal.
	steps := 0
	step := func(err error) error {
		steps++
		if err == nil && o.failAfterRename > 0 && steps >= o.failAfterRename {
			return o.failErr
		}
		return err
	}
	for _, suf := range oldFiles {
		if isMeta(suf) {
			if err := step(os.Remove(base + suf)); err != nil {
				return fail(err)
			}
		}
	}
	if err := syncDirOf(base); err != nil {
		return fail(err)
	}
	for _, suf := range oldFiles {
		if !isMeta(suf) {
			if err := step(os.Remove(base + suf)); err != nil {
				return fail(err)
			}
		}
	}
	var metaSuf string
	for _, suf := range newFiles {
		if isMeta(suf) {
			metaSuf = suf
			continue
		}
		if err := step(os.Rename(tmp+suf, base+suf)); err != nil {
			return fail(err)
		}
	}
	if err := syncDirOf(base); err != nil {
		return fail(err)
	}
	if err := step(os.Rename(tmp+metaSuf, base+metaSuf)); err != nil {
		return fail(err)
	}
	if err := syncDirOf(base); err != nil {
		return fail(err)
	}
	removeFiles(bak, oldFiles)
	os.Remove(journalPath(base))
	return nil
}

func removeFiles(base string, sufs []string) {
	for _, suf := range sufs {
		os.Remove(base + suf)
	}
}

func writeDurable(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err = f.WriteString(text); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Recover finishes what an in-place rewrite of archive base that was
// killed left: after the commit (the new .meta in place) it removes the
// backups; before, it puts the old archive back. It does nothing when
// there is no journal.
func Recover(base string) error {
	base = archive.BaseName(base)
	jp := journalPath(base)
	f, err := os.Open(jp)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	fields := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		fields[k] = v
	}
	f.Close()
	bak, tmp := fields["bak"], fields["tmp"]
	oldFiles := strings.Fields(fields["old"])
	newFiles := strings.Fields(fields["new"])
	if bak == "" || tmp == "" || fields["base"] != base {
		return fmt.Errorf("%s: journal does not describe this archive", jp)
	}
	committed := false
	for _, suf := range newFiles {
		if isMeta(suf) {
			if _, err := os.Stat(tmp + suf); errors.Is(err, os.ErrNotExist) {
				committed = true
			}
		}
	}
	if !committed {
		// back to the old archive: its files from the backups
		for _, suf := range newFiles {
			if isMeta(suf) {
				os.Remove(base + suf)
			}
		}
		for _, suf := range newFiles {
			os.Remove(base + suf)
		}
		// the .meta last, so that the archive opens only when whole
		for _, meta := range []bool{false, true} {
			for _, suf := range oldFiles {
				if isMeta(suf) != meta {
					continue
				}
				os.Remove(base + suf)
				if err := os.Link(bak+suf, base+suf); err != nil {
					return err
				}
			}
		}
		removeFiles(tmp, newFiles)
	}
	if err := syncDirOf(base); err != nil {
		return err
	}
	removeFiles(bak, oldFiles)
	return os.Remove(jp)
}
