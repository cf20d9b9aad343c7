#!/usr/bin/env bash
# bench.sh: time pcpkit's pmdumplog against the real PCP 6.0.3 pmdumplog on a
# large synthetic archive, check that both print the same bytes, and print a
# table (docs/benchmarks.md has the results and how to read them).
#
# Usage: scripts/bench.sh            (or `make bench`, which runs the Go
#                                     benchmarks first)
#
# Steps:
#   1. go build -o bin/pmdumplog ./cmd/pmdumplog
#   2. make the benchmark archive BENCH_DIR/b-v3 if it is absent (about 108 MB,
#      a few seconds), with ../shared/tools/pcp-bench-gen.py beside the clone:
#        /usr/bin/python3 pcp-bench-gen.py -o BENCH_DIR/b-v3 --samples 20000 --metrics 100 --version 3
#      The generator is deterministic, so the archive is the same every time;
#      BENCH_DIR/b-v3.ok marks a complete one (a partial one is remade).
#   3. for each mode (-a: everything; -m: the values only), run each tool
#      BENCH_RUNS times (default 3) as `pmdumplog MODE ARCHIVE > /dev/null` and
#      keep the best wall time and CPU time, and the largest peak RSS (from
#      /usr/bin/time -f '%e %M %U %S'; without /usr/bin/time, bash's `time`
#      gives the times and the RSS column says "-").
#   4. compare the two tools' output byte for byte, streaming
#      (cmp <(real) <(pcpkit)); a difference is reported with the first
#      differing lines and makes the script exit 1 (after the table).
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
#   BENCH_LARGE=1                also a 5x longer archive (b-v3-large,
#                                --samples 100000, about 540 MB), to show
#                                that RSS does not grow with archive length
#   BENCH_V2=1                   also the same archive in format version 2
#   BENCH_GEN=PATH               the generator (default
#                                ../shared/tools/pcp-bench-gen.py)
#   REAL_TOOL=PATH               the real pmdumplog (default: from PATH)
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
PYTHON=/usr/bin/python3
PCPKIT=$root/bin/pmdumplog

die() { echo "bench: $*" >&2; exit 1; }

# The real tools' environment, for both tools.
export TZ=UTC PCP_DERIVED_CONFIG='' LC_ALL=C

# --- 1. build ------------------------------------------------------------------
echo "$GO build -o bin/pmdumplog ./cmd/pmdumplog"
"$GO" build -o bin/pmdumplog ./cmd/pmdumplog

real_tool=${REAL_TOOL:-$(command -v pmdumplog || true)}
if [[ -n $real_tool ]]; then
	v=$("$real_tool" --version 2>&1 </dev/null || true)
	if [[ $v != *" 6.0.3"* ]]; then
		echo "bench: WARNING: $real_tool reports '$v', not 6.0.3"
	fi
else
	echo "bench: WARNING: the real pmdumplog is not installed (see README.md);" \
		"timing pcpkit alone, no output comparison"
fi

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
	out=$(cmp <("$real_tool" "$mode" "$base" 2>&1) <("$PCPKIT" "$mode" "$base" 2>&1) 2>&1) || rc=$?
	if ((rc == 0)); then
		echo "identical"
		return 0
	fi
	{
		echo
		echo "DIFFERENCE: $name pmdumplog $mode (cmp REAL PCPKIT): $out"
		# "A B differ: byte N, line L" (or "char N", or "EOF on B after byte
		# N, line L"): diff the first L+5 lines of both (diff's "<" lines
		# are the real tool's).
		local line
		line=$(sed -n 's/.*line \([0-9]*\).*/\1/p' <<<"$out")
		if [[ -n $line ]]; then
			local upto=$((line + 5))
			diff <("$real_tool" "$mode" "$base" 2>&1 | head -n "$upto") \
				<("$PCPKIT" "$mode" "$base" 2>&1 | head -n "$upto") | head -n 40 || true
		fi
		echo
	} >&2
	echo "DIFFERENT"
	return 1
}

rows=()
status=0

kb() { if [[ $1 == - ]]; then echo "-"; else echo "$1 KB"; fi; }

# bench NAME MODE: time both tools on BENCH_DIR/NAME with MODE, compare.
bench() {
	local name=$1 mode=$2 base=$BENCH_DIR/$1 bytes real_s="" s rss cpu out same="-"
	bytes=$(archive_bytes "$base")
	echo
	echo "== $name ($bytes bytes): pmdumplog $mode ARCHIVE > /dev/null, best of $BENCH_RUNS"
	if [[ -n $real_tool ]]; then
		out=$(best_of "$real_tool" "$mode" "$base") || exit 1
		read -r real_s rss cpu <<<"$out"
		echo "real pmdumplog:   ${real_s}s  cpu ${cpu}s  peak RSS $(kb "$rss")"
		rows+=("$name $mode real $real_s $rss $bytes $real_s $cpu")
	fi
	out=$(best_of "$PCPKIT" "$mode" "$base") || exit 1
	read -r s rss cpu <<<"$out"
	echo "pcpkit pmdumplog: ${s}s  cpu ${cpu}s  peak RSS $(kb "$rss")"
	rows+=("$name $mode pcpkit $s $rss $bytes ${real_s:--} $cpu")
	if [[ -n $real_tool ]]; then
		same=$(compare "$name" "$mode" "$base") || status=1
		echo "output: $same"
	fi
}

table() {
	echo
	printf '%-12s %-4s %-7s %8s %8s %12s %7s %7s\n' archive mode tool seconds MB/s "peak RSS MB" ratio "cpu s"
	local r name mode tool s rss bytes real_s cpu
	for r in "${rows[@]}"; do
		read -r name mode tool s rss bytes real_s cpu <<<"$r"
		awk -v name="$name" -v mode="$mode" -v tool="$tool" -v s="$s" -v rss="$rss" \
			-v bytes="$bytes" -v real="$real_s" -v cpu="$cpu" 'BEGIN {
			mbs = (s > 0) ? sprintf("%.1f", bytes / 1048576 / s) : "-"
			rssmb = (rss == "-") ? "-" : sprintf("%.1f", rss / 1024)
			ratio = (real == "-" || s <= 0) ? "-" : sprintf("%.2fx", real / s)
			printf "%-12s %-4s %-7s %8.2f %8s %12s %7s %7.2f\n", name, mode, tool, s, mbs, rssmb, ratio, cpu
		}'
	done
}

echo
echo "machine: $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB memory, $(uname -srm)"
echo "go: $("$GO" version)"
[[ -n $real_tool ]] && echo "real pmdumplog: $real_tool ($("$real_tool" --version 2>&1 </dev/null || true))"

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

for a in "${archives[@]}"; do
	for mode in -a -m; do
		bench "$a" "$mode"
	done
done

table
if ((status != 0)); then
	echo
	echo "bench: the outputs differ (see DIFFERENCE above)"
fi
exit "$status"
