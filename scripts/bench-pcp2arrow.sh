#!/usr/bin/env bash
# bench-pcp2arrow.sh: pcpkit's pcp2arrow against the real PCP 6.0.3 pmrep
# -o csv, every metric of the benchmark archive at a 10 s step, in paired
# runs (docs/benchmarks.md, "pcp2arrow", has the results).
#
# Usage: scripts/bench-pcp2arrow.sh [ARCHIVE]   (default /tmp/bench/b-v3)
#
# Each round runs, one after the other, the real
#   pmrep -a ARCHIVE -t 10sec -o csv NAMES... > /dev/null
# and
#   bin/pcp2arrow -a ARCHIVE -t 10sec -o OUT.parquet NAMES...
#   bin/pcp2arrow --layout=long -a ARCHIVE -t 10sec -o OUT.parquet NAMES...
# (NAMES: pminfo -a ARCHIVE), alternating which goes first, BENCH_RUNS
# rounds (default 5), each under /usr/bin/time -f '%e %M %U %S'. It prints
# every run (wall s, peak RSS KB, user s, system s), the medians, the
# ratios of the medians of CPU time (user + system) and of wall time, and
# the load average before and after: the machine may be shared, so the CPU
# time is the measure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ARCHIVE=${1:-/tmp/bench/b-v3}
BENCH_RUNS=${BENCH_RUNS:-5}
GO=${GO:-go}
export TZ=UTC PCP_DERIVED_CONFIG='' LC_ALL=C
export PATH=/usr/bin:$PATH
die() { echo "bench-pcp2arrow: $*" >&2; exit 1; }
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
[[ -f $ARCHIVE.meta ]] || die "no archive $ARCHIVE"

CGO_ENABLED=0 "$GO" build -o bin/pcp2arrow ./cmd/pcp2arrow
mapfile -t names < <(pminfo -a "$ARCHIVE")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # LABEL CMD...: one timed run, appended to $out/LABEL
	local label=$1
	shift
	/usr/bin/time -o "$out/t" -f '%e %M %U %S' "$@" >/dev/null
	cat "$out/t" >>"$out/$label"
}
real() { run pmrep /usr/bin/python3 "$(command -v pmrep)" -a "$ARCHIVE" -t 10sec -o csv "${names[@]}"; }
wide() { run wide bin/pcp2arrow -a "$ARCHIVE" -t 10sec -o "$out/w.parquet" "${names[@]}"; }
long() { run long bin/pcp2arrow --layout=long -a "$ARCHIVE" -t 10sec -o "$out/l.parquet" "${names[@]}"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < BENCH_RUNS; i++)); do
	if ((i % 2 == 0)); then real; wide; long; else long; wide; real; fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%-6s %8s %8s %8s  runs (wall s, RSS KB, user s, sys s)\n' tool wall cpu rssMB
for t in pmrep wide long; do
	w=$(awk '{print $1}' "$out/$t" | median)
	c=$(awk '{print $3+$4}' "$out/$t" | median)
	m=$(awk '{print $2}' "$out/$t" | sort -g | tail -1)
	printf '%-6s %8.2f %8.2f %8.1f  %s\n' "$t" "$w" "$c" "$(echo "$m/1024" | bc -l)" "$(tr '\n' ';' <"$out/$t")"
	eval "wall_$t=$w cpu_$t=$c"
done
for t in wide long; do
	eval "w=\$wall_$t c=\$cpu_$t"
	printf 'pcp2arrow %s / pmrep: wall %.3f, cpu %.3f\n' "$t" "$(echo "$w/$wall_pmrep" | bc -l)" "$(echo "$c/$cpu_pmrep" | bc -l)"
done
ls -l "$out"/*.parquet
