#!/usr/bin/env bash
# bench.sh: time pcpkit's pmdumplog and pmlogsummary against the real PCP
# 6.0.3 tools on a large synthetic archive, check that both print the same
# bytes, and print a table (docs/benchmarks.md has pmdumplog's results,
# docs/pmlogsummary.md pmlogsummary's).
#
# Usage: scripts/bench.sh            (or `make bench`, which runs the Go
#                                     benchmarks first)
#
# Steps:
#   1. go build -o bin/pmdumplog ./cmd/pmdumplog (and bin/pmlogsummary)
#   2. make the benchmark archive BENCH_DIR/b-v3 if it is absent (about 108 MB,
#      a few seconds), with ../shared/tools/pcp-bench-gen.py beside the clone:
#        /usr/bin/python3 pcp-bench-gen.py -o BENCH_DIR/b-v3 --samples 20000 --metrics 100 --version 3
#      The generator is deterministic, so the archive is the same every time;
#      BENCH_DIR/b-v3.ok marks a complete one (a partial one is remade).
#   3. for each tool and mode (pmdumplog -a: everything, -m: the values
#      only; pmlogsummary with no option ("def") and -a), run each tool
#      BENCH_RUNS times (default 3) as `TOOL MODE ARCHIVE > /dev/null` and
#      keep the best wall time and CPU time, and the largest peak RSS (from
#      /usr/bin/time -f '%e %M %U %S'; without /usr/bin/time, bash's `time`
#      gives the times and the RSS column says "-").
#   4. compare the two tools' output byte for byte, streaming
#      (cmp <(real) <(pcpkit)); a difference is reported with the first
#      differing lines and makes the script exit 1 (after the table).
#   5. pmlogsummary's batch mode: BENCH_FLEET (default 100) symbolic-link
#      copies of b-v3 in BENCH_DIR/fleet, summarised with -a by the real
#      tool once per archive in a shell loop, then by
#      `pmlogsummary --each -j N -a BENCH_DIR/fleet` for N = 1, 2 and the
#      number of CPUs; the --each output must be the loop's, each archive
#      under its "==> NAME <==" line.
#
# Both tools run with TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C, as in the tests.
# Columns: seconds (best wall time), MB/s (archive bytes, all three files,
# over seconds; 1 MB = 2^20 bytes), peak RSS MB (2^20 bytes), ratio (the
# real tool's seconds over this row's: above 1 is faster than the real
# tool), and cpu s (the least user + system CPU time of the runs: on a busy
# machine it moves much less than the wall time; Go's garbage collector
# runs on other threads, so it can exceed the wall time).
#
# Environment:
#   BENCH_DIR=/tmp/pcpkit-bench  where the archives are made and kept
#   BENCH_RUNS=3                 timed runs per tool and mode (best is kept)
#   BENCH_TOOLS="pmdumplog pmlogsummary"
#                                the tools to time
#   BENCH_FLEET=100              archives in pmlogsummary's batch run (0: none)
#   BENCH_LARGE=1                also a 5x longer archive (b-v3-large,
#                                --samples 100000, about 540 MB), to show
#                                that RSS does not grow with archive length
#   BENCH_V2=1                   also the same archive in format version 2
#   BENCH_GEN=PATH               the generator (default
#                                ../shared/tools/pcp-bench-gen.py)
#   REAL_TOOL=PATH               the real pmdumplog (default: from PATH)
#   REAL_SUMMARY=PATH            the real pmlogsummary (default: from PATH)
#   GO=go                        the go command
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

GO=${GO:-go}
if ! command -v "$GO" >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	GO=/usr/local/go/bin/go
fi
BENCH_DIR=${BENCH_DIR:-/tmp/pcpkit-bench}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_GEN=${BENCH_GEN:-$root/../shared/tools/pcp-bench-gen.py}
BENCH_TOOLS=${BENCH_TOOLS:-pmdumplog pmlogsummary}
BENCH_FLEET=${BENCH_FLEET:-100}
PYTHON=/usr/bin/python3
# The tool being timed: bench, compare and the table use these.
tool=pmdumplog
PCPKIT=$root/bin/pmdumplog

die() { echo "bench: $*" >&2; exit 1; }

# The real tools' environment, for both tools.
export TZ=UTC PCP_DERIVED_CONFIG='' LC_ALL=C

# --fleet-loop REAL DIR [--headers]: the real pmlogsummary -a on every
# archive of DIR, one run each (with --headers, each output under
# "==> DIR/NAME <==" as pmlogsummary --each prints it).
if [[ ${1:-} == --fleet-loop ]]; then
	first=1
	for meta in "$3"/*.meta; do
		a=${meta%.meta}
		if [[ ${4:-} == --headers ]]; then
			((first)) || echo
			echo "==> $a <=="
		fi
		first=0
		"$2" -a "$a"
	done
	exit 0
fi


# --- 1. build ------------------------------------------------------------------
for t in $BENCH_TOOLS; do
	echo "$GO build -o bin/$t ./cmd/$t"
	"$GO" build -o "bin/$t" "./cmd/$t"
done

# find_real NAME OVERRIDE: the real tool's path ("" if absent), with a
# warning when it is not 6.0.3's.
find_real() {
	local name=$1 path=${2:-$(command -v "$1" || true)} v
	if [[ -n $path ]]; then
		v=$("$path" --version 2>&1 </dev/null || true)
		if [[ $v != *" 6.0.3"* ]]; then
			echo "bench: WARNING: $path reports '$v', not 6.0.3" >&2
		fi
	else
		echo "bench: WARNING: the real $name is not installed (see README.md);" \
			"timing pcpkit alone, no output comparison" >&2
	fi
	echo "$path"
}
real_dumplog=$(find_real pmdumplog "${REAL_TOOL:-}")
real_summary=$(find_real pmlogsummary "${REAL_SUMMARY:-}")
real_tool=$real_dumplog

if [[ -x /usr/bin/time ]]; then
	have_gnu_time=1
else
	have_gnu_time=0
	echo "bench: /usr/bin/time is missing (apt-get install time): no peak RSS, wall time from bash's time"
fi

# --- 2. the archives -------------------------------------------------------------
# make_archive NAME ARGS...: make BENCH_DIR/NAME with the generator unless a
# complete one is there.
make_archive() {
	local name=$1
	shift
	local base=$BENCH_DIR/$name
	if [[ -f $base.ok && -f $base.0 && -f $base.meta && -f $base.index ]]; then
		return
	fi
	[[ -f $BENCH_GEN ]] || die "the archive generator $BENCH_GEN is missing (set BENCH_GEN)"
	mkdir -p "$BENCH_DIR"
	rm -f "$base".0 "$base".meta "$base".index "$base".ok
	echo "$PYTHON $BENCH_GEN -o $base $*"
	local t0=$SECONDS
	"$PYTHON" "$BENCH_GEN" -o "$base" "$@"
	echo "generated $name in $((SECONDS - t0))s"
	touch "$base.ok"
}

archive_bytes() {
	local base=$1 total=0 f
	for f in "$base".0 "$base".meta "$base".index; do
		total=$((total + $(stat -c %s "$f")))
	done
	echo "$total"
}

# --- 3. timing ---------------------------------------------------------------------
# time_once TOOL ARGS...: run it with stdout to /dev/null, print "SECONDS
# RSSKB CPUSECONDS" (RSSKB is "-" without /usr/bin/time; CPUSECONDS is user +
# system time). A failing run is fatal.
time_once() {
	local tmp rc=0
	tmp=$(mktemp)
	if ((have_gnu_time)); then
		/usr/bin/time -f '%e %M %U %S' -o "$tmp" "$@" >/dev/null 2>"$tmp.err" || rc=$?
	else
		local TIMEFORMAT='%R - %U %S'
		{ time "$@" >/dev/null 2>"$tmp.err"; } 2>"$tmp" || rc=$?
	fi
	if ((rc != 0)); then
		echo "bench: '$*' failed (exit $rc):" >&2
		cat "$tmp.err" >&2
		rm -f "$tmp" "$tmp.err"
		exit 1
	fi
	tail -n 1 "$tmp" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'
	rm -f "$tmp" "$tmp.err"
}

# best_of TOOL ARGS...: BENCH_RUNS runs; print "BEST_SECONDS MAX_RSSKB
# BEST_CPUSECONDS".
best_of() {
	local i s m c out best="" rss="-" cpu=""
	for ((i = 0; i < BENCH_RUNS; i++)); do
		out=$(time_once "$@") || exit 1
		read -r s m c <<<"$out"
		if [[ -z $best ]] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$s
		fi
		if [[ -z $cpu ]] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then
			cpu=$c
		fi
		if [[ $m != - ]] && { [[ $rss == - ]] || ((m > rss)); }; then
			rss=$m
		fi
	done
	echo "$best $rss $cpu"
}

# compare NAME MODE BASE: stream both tools' output through cmp; on a
# difference show where, and the first differing lines.
compare() {
	local name=$1 mode=$2 base=$3 out rc=0
	local -a m
	read -ra m <<<"$(modeargs "$mode")"
	out=$(cmp <("$real_tool" "${m[@]}" "$base" 2>&1) <("$PCPKIT" "${m[@]}" "$base" 2>&1) 2>&1) || rc=$?
	if ((rc == 0)); then
		echo "identical"
		return 0
	fi
	{
		echo
		echo "DIFFERENCE: $name $tool $mode (cmp REAL PCPKIT): $out"
		# "A B differ: byte N, line L" (or "char N", or "EOF on B after byte
		# N, line L"): diff the first L+5 lines of both (diff's "<" lines
		# are the real tool's).
		local line
		line=$(sed -n 's/.*line \([0-9]*\).*/\1/p' <<<"$out")
		if [[ -n $line ]]; then
			local upto=$((line + 5))
			diff <("$real_tool" "${m[@]}" "$base" 2>&1 | head -n "$upto") \
				<("$PCPKIT" "${m[@]}" "$base" 2>&1 | head -n "$upto") | head -n 40 || true
		fi
		echo
	} >&2
	echo "DIFFERENT"
	return 1
}

rows=()
status=0

kb() { if [[ $1 == - ]]; then echo "-"; else echo "$1 KB"; fi; }

# modeargs MODE: the options of a mode ("def" is none).
modeargs() { if [[ $1 != def ]]; then echo "$1"; fi; }

# bench NAME MODE: time both tools on BENCH_DIR/NAME with MODE, compare.
bench() {
	local name=$1 mode=$2 base=$BENCH_DIR/$1 bytes real_s="" s rss cpu out same="-"
	local -a m
	read -ra m <<<"$(modeargs "$mode")"
	bytes=$(archive_bytes "$base")
	echo
	echo "== $name ($bytes bytes): $tool ${m[*]} ARCHIVE > /dev/null, best of $BENCH_RUNS"
	if [[ -n $real_tool ]]; then
		out=$(best_of "$real_tool" "${m[@]}" "$base") || exit 1
		read -r real_s rss cpu <<<"$out"
		echo "real $tool:   ${real_s}s  cpu ${cpu}s  peak RSS $(kb "$rss")"
		rows+=("$name $tool $mode real $real_s $rss $bytes $real_s $cpu")
	fi
	out=$(best_of "$PCPKIT" "${m[@]}" "$base") || exit 1
	read -r s rss cpu <<<"$out"
	echo "pcpkit $tool: ${s}s  cpu ${cpu}s  peak RSS $(kb "$rss")"
	rows+=("$name $tool $mode pcpkit $s $rss $bytes ${real_s:--} $cpu")
	if [[ -n $real_tool ]]; then
		same=$(compare "$name" "$mode" "$base") || status=1
		echo "output: $same"
	fi
}

table() {
	echo
	printf '%-12s %-12s %-4s %-7s %8s %8s %12s %7s %7s\n' archive program mode tool seconds MB/s "peak RSS MB" ratio "cpu s"
	local r name prog mode who s rss bytes real_s cpu
	for r in "${rows[@]}"; do
		read -r name prog mode who s rss bytes real_s cpu <<<"$r"
		awk -v name="$name" -v prog="$prog" -v mode="$mode" -v tool="$who" -v s="$s" -v rss="$rss" \
			-v bytes="$bytes" -v real="$real_s" -v cpu="$cpu" 'BEGIN {
			mbs = (s > 0) ? sprintf("%.1f", bytes / 1048576 / s) : "-"
			rssmb = (rss == "-") ? "-" : sprintf("%.1f", rss / 1024)
			ratio = (real == "-" || s <= 0) ? "-" : sprintf("%.2fx", real / s)
			printf "%-12s %-12s %-4s %-7s %8.2f %8s %12s %7s %7.2f\n", name, prog, mode, tool, s, mbs, rssmb, ratio, cpu
		}'
	done
}

# fleet: pmlogsummary's batch mode on BENCH_FLEET links to b-v3. The real
# tool has no batch mode: it runs once per archive in a shell loop
# (scripts/bench.sh --fleet-loop DIR is that loop).
fleet() {
	local n=$BENCH_FLEET dir=$BENCH_DIR/fleet i name bytes out s rss cpu real_s="" j
	((n > 0)) || return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	for ((i = 0; i < n; i++)); do
		name=$(printf 'b-v3-%03d' "$i")
		for ext in 0 meta index; do
			ln -s "$BENCH_DIR/b-v3.$ext" "$dir/$name.$ext"
		done
	done
	bytes=$(($(archive_bytes "$BENCH_DIR/b-v3") * n))
	tool=pmlogsummary
	PCPKIT=$root/bin/pmlogsummary
	real_tool=$real_summary
	echo
	echo "== fleet: $n links to b-v3 ($bytes bytes): pmlogsummary -a, best of $BENCH_RUNS"
	if [[ -n $real_tool ]]; then
		out=$(best_of bash "$root/scripts/bench.sh" --fleet-loop "$real_tool" "$dir") || exit 1
		read -r real_s rss cpu <<<"$out"
		echo "real pmlogsummary, a loop:  ${real_s}s  cpu ${cpu}s  peak RSS $(kb "$rss")"
		rows+=("fleet$n pmlogsummary loop real $real_s $rss $bytes $real_s $cpu")
	fi
	local -a jobs=(1 2)
	(($(nproc) > 2)) && jobs+=("$(nproc)")
	for j in "${jobs[@]}"; do
		out=$(best_of "$PCPKIT" --each -j "$j" -a "$dir") || exit 1
		read -r s rss cpu <<<"$out"
		echo "pcpkit pmlogsummary --each -j $j: ${s}s  cpu ${cpu}s  peak RSS $(kb "$rss")"
		rows+=("fleet$n pmlogsummary -j$j pcpkit $s $rss $bytes ${real_s:--} $cpu")
	done
	if [[ -n $real_tool ]]; then
		if cmp -s <(bash "$root/scripts/bench.sh" --fleet-loop "$real_tool" "$dir" --headers) \
			<("$PCPKIT" --each -a "$dir"); then
			echo "output: identical (with a \"==> NAME <==\" line before each archive)"
		else
			echo "DIFFERENCE: fleet: pmlogsummary --each -a differs from the real tool's loop" >&2
			echo "output: DIFFERENT"
			status=1
		fi
	fi
}

echo
echo "machine: $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB memory, $(uname -srm)"
echo "go: $("$GO" version)"
[[ -n $real_dumplog ]] && echo "real pmdumplog: $real_dumplog ($("$real_dumplog" --version 2>&1 </dev/null || true))"
[[ -n $real_summary ]] && echo "real pmlogsummary: $real_summary ($("$real_summary" --version 2>&1 </dev/null || true))"

archives=(b-v3)
make_archive b-v3 --samples 20000 --metrics 100 --version 3
if [[ ${BENCH_V2:-} == 1 ]]; then
	make_archive b-v2 --samples 20000 --metrics 100 --version 2
	archives+=(b-v2)
fi
if [[ ${BENCH_LARGE:-} == 1 ]]; then
	make_archive b-v3-large --samples 100000 --metrics 100 --version 3
	archives+=(b-v3-large)
fi

for t in $BENCH_TOOLS; do
	tool=$t
	PCPKIT=$root/bin/$t
	case $t in
	pmdumplog) real_tool=$real_dumplog modes=(-a -m) ;;
	pmlogsummary) real_tool=$real_summary modes=(def -a) ;;
	*) die "unknown tool $t" ;;
	esac
	for a in "${archives[@]}"; do
		for mode in "${modes[@]}"; do
			bench "$a" "$mode"
		done
	done
done
if [[ " $BENCH_TOOLS " == *" pmlogsummary "* ]]; then
	fleet
fi

table
if ((status != 0)); then
	echo
	echo "bench: the outputs differ (see DIFFERENCE above)"
fi
exit "$status"
