#!/usr/bin/env bash
# bench-xz.sh: compare xz decoders on PCP archive volumes: pcpkit's
# archive/internal/xz, the pure-Go modules pcpkit could use instead, and
# the real `xz -dc` (liblzma). docs/benchmarks.md ("xz decoders") has the
# results and the reason for the choice.
#
# Usage: scripts/bench-xz.sh [ROUNDS]      (default 5)
#
# Steps:
#   1. make the test files in XZBENCH_DIR (default /tmp/bench-xz, kept
#      between runs) from the benchmark volume /tmp/bench/b-v3.0 (see
#      scripts/bench.sh for how it is made):
#        b-v3.0.xz   = /tmp/bench/xz/b-v3.0.xz: xz -0 --block-size=10MiB, as
#                      pmlogger_daily compresses (11 blocks, 256 KiB dictionary)
#        b-v3-1k.xz  = xz -0 --block-size=1KiB (105,456 blocks)
#        b-v3-9.xz   = xz -9 (one block, 64 MiB dictionary; a minute to make)
#   2. build one program per candidate, each in its own throwaway Go module
#      in a temporary directory outside the repository (nothing of the
#      candidates is committed; the modules come through the module proxy):
#        ulikunitz      github.com/ulikunitz/xz v0.5.17 (pcpkit's dependency)
#        ulikunitz06    github.com/ulikunitz/xz v0.6.0-alpha.3 (skipped if it
#                       does not build)
#        xi2            github.com/xi2/xz (its latest pseudo-version)
#        therootcompany github.com/therootcompany/xz v1.0.1 (a fork of xi2)
#        pcpkit-reader  pcpkit's xz.Reader: sequential, one goroutine
#        pcpkit-file1   pcpkit's xz.File, Readahead -1 (one goroutine), read
#                       in 64 KiB pieces through Bytes
#        pcpkit-file    the same with the default readahead (GOMAXPROCS)
#      pcpkit's programs live in a module nested under archive/ (so that
#      they may import archive/internal/xz) with a replace to this
#      repository. A block larger than xz.DefaultMaxBlock (the xz -9 file)
#      makes NewFile fail with ErrTooLarge; the file programs then read
#      through xz.Reader, as the archive package does.
#      Each program decompresses the whole file to nowhere and prints the
#      number of bytes (checked against the uncompressed size).
#   3. for each file, ROUNDS rounds; in each round every candidate runs
#      once, in an order that alternates from round to round, under
#      /usr/bin/time -f '%e %U %S %M'. The table gives the best and median
#      wall time, the best and median CPU time (user + system) and the
#      largest peak RSS of each candidate.
#
# The machine has 2 CPUs and may be busy: compare candidates within one
# run of this script, not across runs.
set -euo pipefail

rounds=${1:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${XZBENCH_DIR:-/tmp/bench-xz}
raw=/tmp/bench/b-v3.0
mkdir -p "$dir"
if [ ! -f "$raw" ]; then
	echo "bench-xz: no $raw (make it with scripts/bench.sh)" >&2
	exit 1
fi
[ -x /usr/bin/time ] || { echo "bench-xz: needs /usr/bin/time" >&2; exit 1; }

make_file() { # name, xz options...
	local name=$1
	shift
	if [ ! -f "$dir/$name.ok" ]; then
		echo "bench-xz: making $dir/$name (xz $*)" >&2
		xz -T1 -c "$@" "$raw" >"$dir/$name"
		touch "$dir/$name.ok"
	fi
}
if [ -f /tmp/bench/xz/b-v3.0.xz ]; then
	cp -p /tmp/bench/xz/b-v3.0.xz "$dir/b-v3.0.xz"
	touch "$dir/b-v3.0.xz.ok"
fi
make_file b-v3.0.xz -0 --block-size=10MiB
make_file b-v3-1k.xz -0 --block-size=1KiB
make_file b-v3-9.xz -9
size=$(stat -c %s "$raw")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bin
mkdir -p "$bin"

# main_stream: a program decoding with NewReader(r) of package $1 ($2 =
# the call, e.g. "xz.NewReader(f)" or "xz.NewReader(f, 0)").
main_stream() {
	cat <<EOF
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	xz "$1"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	_ = bufio.NewReader
	r, err := $2
	if err != nil {
		panic(err)
	}
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, make([]byte, 64<<10))
	if err != nil {
		panic(err)
	}
	fmt.Println(n)
}
EOF
}

build() { # name, module path, modules to get (path@version ...), more go.mod lines, main.go
	local name=$1 mod=$2 gets=$3 more=$4 src=$5 d=$tmp/$1
	mkdir -p "$d"
	printf 'module %s\n\ngo 1.25\n%s\n' "$mod" "$more" >"$d/go.mod"
	printf '%s\n' "$src" >"$d/main.go"
	# shellcheck disable=SC2086 # $gets is a list
	if (cd "$d" && { [ -z "$gets" ] || go get $gets; } && go mod tidy && go build -o "$bin/$name" .) >"$d/err" 2>&1; then
		echo "$name"
	else
		echo "bench-xz: $name does not build (skipped): $(tail -c 300 "$d/err")" >&2
	fi
}

cands=()
add() { local c; c=$(build "$@"); [ -n "$c" ] && cands+=("$c"); return 0; }
stream_ul=$(main_stream github.com/ulikunitz/xz 'xz.NewReader(bufio.NewReaderSize(f, 1<<16))')
stream_xi2=$(main_stream github.com/xi2/xz 'xz.NewReader(bufio.NewReaderSize(f, 1<<16), 0)')
stream_trc=$(main_stream github.com/therootcompany/xz 'xz.NewReader(bufio.NewReaderSize(f, 1<<16), 0)')
add ulikunitz bench/ulikunitz github.com/ulikunitz/xz@v0.5.17 '' "$stream_ul"
add ulikunitz06 bench/ulikunitz06 github.com/ulikunitz/xz@v0.6.0-alpha.3 '' "$stream_ul"
add xi2 bench/xi2 github.com/xi2/xz@latest '' "$stream_xi2"
add therootcompany bench/therootcompany github.com/therootcompany/xz@v1.0.1 '' "$stream_trc"

# pcpkit: a module nested under archive/ in the import path.
pcpkit_file() { # readahead
	cat <<EOF
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pcpkit/pcpkit/archive/internal/xz"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	st, _ := f.Stat()
	x, err := xz.NewFile(f, st.Size(), xz.Options{Readahead: $1})
	if errors.Is(err, xz.ErrTooLarge) {
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{xz.NewReader(io.NewSectionReader(f, 0, st.Size()))}, make([]byte, 64<<10))
		if err != nil {
			panic(err)
		}
		fmt.Println(n)
		return
	}
	if err != nil {
		panic(err)
	}
	var n int64
	for off := int64(0); off < x.Size(); off += 64 << 10 {
		b, err := x.Bytes(off, 64<<10, true)
		if err != nil && err != io.EOF {
			panic(err)
		}
		n += int64(len(b))
	}
	x.Close()
	fmt.Println(n)
}
EOF
}
pcmod="require github.com/pcpkit/pcpkit v0.0.0
replace github.com/pcpkit/pcpkit => $repo"
add pcpkit-reader github.com/pcpkit/pcpkit/archive/xzbench '' "$pcmod" \
	"$(main_stream github.com/pcpkit/pcpkit/archive/internal/xz 'xz.NewReader(f), error(nil)')"
add pcpkit-file1 github.com/pcpkit/pcpkit/archive/xzbench1 '' "$pcmod" "$(pcpkit_file -1)"
add pcpkit-file github.com/pcpkit/pcpkit/archive/xzbench2 '' "$pcmod" "$(pcpkit_file 0)"
printf '#!/bin/sh\nexec xz -dc "$1" | wc -c\n' >"$bin/xz-dc"
chmod +x "$bin/xz-dc"
cands+=(xz-dc)

# One run: prints "wall cpu rssKB", or "failed" when the candidate fails
# or decodes the wrong number of bytes (reported on stderr).
run() { # candidate, file
	local out t
	if ! out=$(/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$bin/$1" "$2" 2>"$tmp/stderr") || [ "$out" != "$size" ]; then
		echo "bench-xz: $1 $2: decoded '$out' bytes, want $size: $(head -c 200 "$tmp/stderr")" >&2
		echo failed
		return
	fi
	read -r w u s m <"$tmp/time"
	t=$(echo "$u + $s" | bc)
	# xz-dc: the pipe's wc is counted in wall time; its RSS is xz's.
	echo "$w $t $m"
}

stats() { # "best median" of numbers on stdin
	sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f %.2f", a[1], m}'
}

printf '\n| file | decoder | wall best s | wall median s | CPU best s | CPU median s | peak RSS MB |\n|---|---|---:|---:|---:|---:|---:|\n'
for file in b-v3.0.xz b-v3-1k.xz b-v3-9.xz; do
	: >"$tmp/results"
	n=${#cands[@]}
	for ((r = 0; r < rounds; r++)); do
		for ((i = 0; i < n; i++)); do
			# Alternate the order: forwards in even rounds, backwards in odd.
			if ((r % 2 == 0)); then k=$i; else k=$((n - 1 - i)); fi
			c=${cands[$k]}
			echo "$c $(run "$c" "$dir/$file")" >>"$tmp/results"
		done
	done
	for c in "${cands[@]}"; do
		if grep -q "^$c failed" "$tmp/results"; then
			printf '| %s | %s | failed | | | | |\n' "$file" "$c"
			continue
		fi
		wall=$(awk -v c="$c" '$1 == c {print $2}' "$tmp/results" | stats)
		cpu=$(awk -v c="$c" '$1 == c {print $3}' "$tmp/results" | stats)
		rss=$(awk -v c="$c" '$1 == c && $4 > m {m = $4} END {printf "%.0f", m / 1024}' "$tmp/results")
		read -r wb wm <<<"$wall"
		read -r cb cm <<<"$cpu"
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$file" "$c" "$wb" "$wm" "$cb" "$cm" "$rss"
	done
done
