#!/usr/bin/env bash
# bench-pmlogger-startup.sh: start-up CPU time (user + system, from
# /usr/bin/time) of pmloggers recording one sample (-s 1) of a large
# configuration from the local pmcd, the tools alternating in each round
# (docs/benchmarks.md, "Start-up of 1,100 metrics").
#
# Usage: scripts/bench-pmlogger-startup.sh ROUNDS unset|empty PMLOGGER...
#   unset: PCP_DERIVED_CONFIG unset (the system's derived metrics);
#   empty: PCP_DERIVED_CONFIG= (none).
# Environment: BENCH_CONFIG, the configuration text (default: kernel,
# mem, disk and network, about 1,100 metrics).
set -eu
rounds=$1 mode=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%s\n' "${BENCH_CONFIG:-log mandatory on 10 sec { kernel mem disk network }}" >"$dir/config"
for _ in $(seq "$rounds"); do
	for p in "$@"; do
		rm -f "$dir"/a.* "$dir/log"
		if [ "$mode" = unset ]; then env=(env -u PCP_DERIVED_CONFIG); else env=(env PCP_DERIVED_CONFIG=); fi
		/usr/bin/time -f "$p %U %S" "${env[@]}" TZ=UTC "$p" -c "$dir/config" -s 1 -l "$dir/log" "$dir/a" 2>&1 | tail -1
	done
done | awk '{c[$1]+=$2+$3; n[$1]++} END {for (k in c) printf "%s %.3f s (mean of %d)\n", k, c[k]/n[k], n[k]}'
