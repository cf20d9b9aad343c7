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
#
# BENCH_RAW=1 measures the raw export on one core instead (issue 19's 20
# million values a second): GOMAXPROCS=1 bin/pcp2arrow -r -t 1 in both
# layouts, BENCH_RUNS rounds, and with BENCH_BASE=BINARY the same runs of
# another build (an earlier commit's) alternating with them. It prints the
# medians and, given BENCH_VALUES (the values of the export: 8745079 for
# b-v3, the long file's rows), the values a second of wall time.
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

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

if [[ ${BENCH_RAW:-} == 1 ]]; then
	raw() { # LABEL BINARY LAYOUT
		run "$1" env GOMAXPROCS=1 "$2" --layout="$3" -r -t 1 -a "$ARCHIVE" -o "$out/$1.parquet" "${names[@]}"
	}
	labels=(wide long)
	[[ -n ${BENCH_BASE:-} ]] && labels+=(base-wide base-long)
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for ((i = 0; i < BENCH_RUNS; i++)); do
		if [[ -n ${BENCH_BASE:-} ]] && ((i % 2 == 1)); then
			raw base-wide "$BENCH_BASE" wide; raw wide bin/pcp2arrow wide
			raw base-long "$BENCH_BASE" long; raw long bin/pcp2arrow long
		else
			raw wide bin/pcp2arrow wide; raw long bin/pcp2arrow long
			if [[ -n ${BENCH_BASE:-} ]]; then raw base-wide "$BENCH_BASE" wide; raw base-long "$BENCH_BASE" long; fi
		fi
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-9s %8s %8s %8s  runs (wall s, RSS KB, user s, sys s)\n' run wall cpu rssMB
	for t in "${labels[@]}"; do
		w=$(awk '{print $1}' "$out/$t" | median)
		c=$(awk '{print $3+$4}' "$out/$t" | median)
		m=$(awk '{print $2}' "$out/$t" | sort -g | tail -1)
		printf '%-9s %8.2f %8.2f %8.1f  %s\n' "$t" "$w" "$c" "$(echo "$m/1024" | bc -l)" "$(tr '\n' ';' <"$out/$t")"
		if [[ -n ${BENCH_VALUES:-} ]]; then
			printf '%-9s %.2f million values a second (wall), %.2f (CPU)\n' "$t" "$(echo "$BENCH_VALUES/$w/1000000" | bc -l)" "$(echo "$BENCH_VALUES/$c/1000000" | bc -l)"
		fi
	done
	ls -l "$out"/*.parquet
	exit 0
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < BENCH_RUNS; i++)); do
	if ((i % 2 == 0)); then real; wide; long; else long; wide; real; fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

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
