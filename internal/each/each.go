// Package each lists the archives of pcpkit's --each (pmlogsummary,
// pcp2arrow): archives, directories (walked for archives) and globs, each
// archive once; and splits them into shards (--shard K/N) by name.
package each

import (
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
)

// ParseShard parses "K/N" with 0 <= K < N.
func ParseShard(arg string) (k, n int, ok bool) {
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

// Shard is the shard (of n) of an archive: FNV-1a (32 bits) of its name
// as --each reports it, modulo n. It depends on the name alone, so every
// member of a fleet job, given the same arguments in any order, agrees.
func Shard(name string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(n))
}

// hasGlobMeta reports whether s holds a glob metacharacter.
func hasGlobMeta(s string) bool { return strings.ContainsAny(s, `*?[`) }

// Expand turns the arguments of --each into the archives to
// read, each once, in argument order:
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
// An archive met twice is read once, where it was first met. A
// directory or glob that gives no archive is complained about (complain
// gets a message without the tool's name or a newline), and the status
// returned is 1.
func Expand(args []string, complain func(format string, a ...any)) ([]string, int) {
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
			complain("%s: %s", p, archive.ErrText(err))
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
					complain("no archives in directory %q", a)
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
					complain("no archives match %q", a)
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
