#!/usr/bin/env bash
# bench-replay.sh: time pcpkit's interpolated replay against the real PCP
# 6.0.3 tools on the large synthetic archives, check that both print the
# same bytes, and print a table (docs/benchmarks.md, "Replay", has the
# results).
#
# Usage: scripts/bench-replay.sh     (BENCH_LARGE=1 for the 540 MB archive too)
#
# Steps:
#   1. go build -o bin/pmval ./cmd/pmval and bin/pmreplay ./cmd/pmreplay
#   2. make BENCH_DIR/b-v3 (and b-v3-large) with ../shared/tools/pcp-bench-gen.py
#      if absent, as scripts/bench.sh does (the same archives).
#   3. one counter metric at a 10 s step over the whole archive, for each
#      metric of BENCH_METRICS (default: kernel.all.cpu.user, a singular
#      counter logged every sample; disk.dev.read, 16+ instances with
#      hot-plugs; kernel.percpu.cpu.user, 64 instances logged every 10th
#      sample):
#        real:   pmval -a ARCHIVE -t 10sec METRIC > /dev/null
#        pcpkit: bin/pmval -a ARCHIVE -t 10sec METRIC > /dev/null
#      and every metric of the archive (pminfo -a ARCHIVE):
#        real:   pmrep -a ARCHIVE -t 10sec -o csv METRICS... > /dev/null
#        pcpkit: bin/pmreplay -a ARCHIVE -t 10sec -o csv METRICS... > /dev/null
#      each BENCH_RUNS times (default 5), keeping the best wall time, the
#      least CPU time (user + system) and the largest peak RSS, from
#      /usr/bin/time -f '%e %M %U %S'.
#   4. compare the two outputs byte for byte (cmp); a difference makes the
#      script exit 1 after the table.
#
# The machine may be shared: the CPU time column moves much less than the
# wall time, and the ratios are given for both.
#
# Environment: BENCH_DIR (/tmp/pcpkit-bench), BENCH_RUNS (5), BENCH_LARGE,
# BENCH_METRICS, BENCH_GEN, GO, REAL_PMVAL (pmval), REAL_PMREP (pmrep).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

GO=${GO:-go}
if ! command -v "$GO" >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	GO=/usr/local/go/bin/go
fi
BENCH_DIR=${BENCH_DIR:-/tmp/pcpkit-bench}
BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_GEN=${BENCH_GEN:-$root/../shared/tools/pcp-bench-gen.py}
BENCH_METRICS=${BENCH_METRICS:-kernel.all.cpu.user disk.dev.read kernel.percpu.cpu.user}
REAL_PMVAL=${REAL_PMVAL:-$(PATH=/usr/bin:$PATH command -v pmval || true)}
REAL_PMREP=${REAL_PMREP:-$(PATH=/usr/bin:$PATH command -v pmrep || true)}
PYTHON=/usr/bin/python3
export TZ=UTC PCP_DERIVED_CONFIG='' LC_ALL=C
export PATH=/usr/bin:$PATH

die() { echo "bench-replay: $*" >&2; exit 1; }
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"

echo "$GO build -o bin/pmval ./cmd/pmval; $GO build -o bin/pmreplay ./cmd/pmreplay"
"$GO" build -o bin/pmval ./cmd/pmval
"$GO" build -o bin/pmreplay ./cmd/pmreplay

make_archive() {
	local name=$1
	shift
	local base=$BENCH_DIR/$name
	if [[ -f $base.0 && -f $base.meta && -f $base.index ]] && { [[ -f $base.ok ]] || [[ $name == b-v3* ]]; }; then
		return
	fi
	[[ -f $BENCH_GEN ]] || die "the archive generator $BENCH_GEN is missing (set BENCH_GEN)"
	mkdir -p "$BENCH_DIR"
	rm -f "$base".0 "$base".meta "$base".index "$base".ok
	echo "$PYTHON $BENCH_GEN -o $base $*"
	"$PYTHON" "$BENCH_GEN" -o "$base" "$@"
	touch "$base.ok"
}

archives=(b-v3)
make_archive b-v3 --samples 20000 --metrics 100 --version 3
if [[ ${BENCH_LARGE:-} == 1 ]]; then
	make_archive b-v3-large --samples 100000 --metrics 100 --version 3
	archives+=(b-v3-large)
fi

# best_of CMD...: "WALL RSSKB CPU" over BENCH_RUNS runs.
best_of() {
	local i tmp w m u s c bw="" bc="" rss=0
	tmp=$(mktemp)
	for ((i = 0; i < BENCH_RUNS; i++)); do
		/usr/bin/time -f '%e %M %U %S' -o "$tmp" "$@" >/dev/null 2>/dev/null || die "'$*' failed"
		read -r w m u s <"$tmp"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		if [[ -z $bw ]] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w; fi
		if [[ -z $bc ]] || awk -v a="$c" -v b="$bc" 'BEGIN { exit !(a < b) }'; then bc=$c; fi
		((m > rss)) && rss=$m
	done
	rm -f "$tmp"
	echo "$bw $rss $bc"
}

rows=()
status=0
# bench ARCHIVE LABEL REALCMD... -- PCPKITCMD...
bench() {
	local name=$1 label=$2
	shift 2
	local -a real=() mine=()
	while [[ $1 != -- ]]; do real+=("$1"); shift; done
	shift
	mine=("$@")
	local r p same
	echo
	echo "== $name $label, best of $BENCH_RUNS"
	r=$(best_of "${real[@]}")
	p=$(best_of "${mine[@]}")
	if cmp -s <("${real[@]}" 2>&1) <("${mine[@]}" 2>&1); then same=identical; else same=DIFFERENT; status=1; fi
	echo "real:   $r (wall s, peak RSS KB, cpu s)"
	echo "pcpkit: $p"
	echo "output: $same"
	rows+=("$name|$label|$r|$p|$same")
}

for a in "${archives[@]}"; do
	base=$BENCH_DIR/$a
	for m in $BENCH_METRICS; do
		bench "$a" "pmval -t 10sec $m" "$REAL_PMVAL" -a "$base" -t 10sec "$m" -- bin/pmval -a "$base" -t 10sec "$m"
	done
	mapfile -t all < <(pminfo -a "$base")
	bench "$a" "pmrep -o csv (${#all[@]} metrics)" "$PYTHON" "$REAL_PMREP" -a "$base" -t 10sec -o csv "${all[@]}" -- bin/pmreplay -a "$base" -t 10sec -o csv "${all[@]}"
done

echo
printf '| archive | replay | real s | real cpu s | real RSS MB | pcpkit s | pcpkit cpu s | pcpkit RSS MB | ratio (wall) | ratio (cpu) | output |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
for row in "${rows[@]}"; do
	IFS='|' read -r name label r p same <<<"$row"
	read -r rw rm rc <<<"$r"
	read -r pw pm pc <<<"$p"
	awk -v n="$name" -v l="$label" -v rw="$rw" -v rm="$rm" -v rc="$rc" -v pw="$pw" -v pm="$pm" -v pc="$pc" -v s="$same" 'BEGIN {
		printf "| %s | %s | %.2f | %.2f | %.1f | %.2f | %.2f | %.1f | %.1fx | %.1fx | %s |\n", n, l, rw, rc, rm/1024, pw, pc, pm/1024, (pw > 0 ? rw/pw : 0), (pc > 0 ? rc/pc : 0), s
	}'
done
exit "$status"
