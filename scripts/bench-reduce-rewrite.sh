#!/usr/bin/env bash
# bench-reduce-rewrite.sh: paired runs of pcpkit's pmlogrewrite,
# pmlogreduce and pmlogcheck against the real PCP 6.0.3 tools on the
# benchmark archive (docs/benchmarks.md, "pmlogrewrite (issue 17)",
# "pmlogreduce (issue 17)" and "pmlogcheck (issue 17)", has the results).
#
# Usage: scripts/bench-reduce-rewrite.sh [case...]
#   cases: rewrite, reduce10 (pmlogreduce -t 10), reduce (the default
#   10-minute interval), check (pmlogcheck ARCHIVE, every pass); all four
#   by default.
#
# Steps:
#   1. go build -o bin/pmlogrewrite ./cmd/pmlogrewrite and bin/pmlogreduce
#      ./cmd/pmlogreduce.
#   2. for each case, BENCH_PAIRS pairs (default 10), each the real tool
#      then pcpkit's, each output removed before the next run:
#        rewrite:  pmlogrewrite -c bench.conf ARCHIVE OUT, bench.conf being
#                    global { hostname -> benchhost }
#                    metric bench.extra.m049 { sem -> discrete }
#        reduce10: pmlogreduce -t 10 ARCHIVE OUT
#        reduce:   pmlogreduce ARCHIVE OUT
#        check:    pmlogcheck ARCHIVE (no output archive; its report must
#                  be the same)
#      timed by /usr/bin/time -f '%e %U %S %M'.
#   3. print each pair, then the medians of the wall and CPU (user +
#      system) times, the range of max RSS and the medians (and ranges) of
#      the per-pair ratios pcpkit/real, and the load average before and
#      after.
#   4. compare the last pair's outputs: byte for byte for pmlogrewrite;
#      pmdumplog -zal of both, less the pid line, for pmlogreduce (the
#      real tool writes its own pid in the labels). A difference makes the
#      script exit 1.
#
# Environment: BENCH_ARCHIVE (/tmp/bench/b-v3), BENCH_PAIRS (10),
# BENCH_OUT (a new temporary directory), GO, REAL_PMLOGREWRITE and
# REAL_PMLOGREDUCE (/usr/lib/pcp/bin/...), REAL_PMLOGCHECK
# (/usr/bin/pmlogcheck).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

GO=${GO:-go}
if ! command -v "$GO" >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	GO=/usr/local/go/bin/go
fi
BENCH_ARCHIVE=${BENCH_ARCHIVE:-/tmp/bench/b-v3}
BENCH_PAIRS=${BENCH_PAIRS:-10}
REAL_PMLOGREWRITE=${REAL_PMLOGREWRITE:-/usr/lib/pcp/bin/pmlogrewrite}
REAL_PMLOGREDUCE=${REAL_PMLOGREDUCE:-/usr/lib/pcp/bin/pmlogreduce}
REAL_PMLOGCHECK=${REAL_PMLOGCHECK:-/usr/bin/pmlogcheck}
export TZ=UTC PCP_DERIVED_CONFIG='' LC_ALL=C
export PATH=/usr/bin:$PATH

die() { echo "bench-reduce-rewrite: $*" >&2; exit 1; }
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
[[ -f $BENCH_ARCHIVE.0 ]] || die "no archive $BENCH_ARCHIVE (make it with ../shared/tools/pcp-bench-gen.py --samples 20000 --metrics 100 --version 3)"

cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=(rewrite reduce10 reduce check)

for t in pmlogrewrite pmlogreduce pmlogcheck; do
	echo "$GO build -o bin/$t ./cmd/$t"
	"$GO" build -o "bin/$t" "./cmd/$t"
done

out=${BENCH_OUT:-$(mktemp -d /tmp/bench-reduce-rewrite.XXXXXX)}
mkdir -p "$out"
printf 'global { hostname -> benchhost }\nmetric bench.extra.m049 { sem -> discrete }\n' >"$out/bench.conf"

# run TOOL ARGS...: one timed run writing $out/o (but for check, whose
# report goes to $out/o.report), its times appended to $out/times ("%e
# %U %S %M").
run() {
	rm -f "$out"/o.*
	if [[ $c == check ]]; then
		/usr/bin/time -o "$out/t" -f '%e %U %S %M' "$@" >"$out/o.report" 2>&1 || true
	else
		/usr/bin/time -o "$out/t" -f '%e %U %S %M' "$@" "$out/o" >/dev/null
	fi
	cat "$out/t" >>"$out/times"
}

status=0
for c in "${cases[@]}"; do
	case $c in
	rewrite)
		real=("$REAL_PMLOGREWRITE" -c "$out/bench.conf" "$BENCH_ARCHIVE")
		kit=(bin/pmlogrewrite -c "$out/bench.conf" "$BENCH_ARCHIVE") ;;
	reduce10)
		real=("$REAL_PMLOGREDUCE" -t 10 "$BENCH_ARCHIVE")
		kit=(bin/pmlogreduce -t 10 "$BENCH_ARCHIVE") ;;
	reduce)
		real=("$REAL_PMLOGREDUCE" "$BENCH_ARCHIVE")
		kit=(bin/pmlogreduce "$BENCH_ARCHIVE") ;;
	check)
		real=("$REAL_PMLOGCHECK" "$BENCH_ARCHIVE")
		kit=(bin/pmlogcheck "$BENCH_ARCHIVE") ;;
	*) die "unknown case $c" ;;
	esac
	echo
	echo "== $c: ${real[*]}  vs  ${kit[*]} (OUT after each but for check)"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	: >"$out/times"
	for ((i = 0; i < BENCH_PAIRS; i++)); do
		run "${real[@]}"
		for f in "$out"/o.*; do mv "$f" "$out/real.${f##*/o.}"; done
		run "${kit[@]}"
	done
	echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	python3 - "$out/times" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
pairs = [(rows[i], rows[i + 1]) for i in range(0, len(rows) - 1, 2)]
print("pair  real: wall user sys maxrss   pcpkit: wall user sys maxrss   ratio wall cpu")
wr, cr = [], []
for n, (r, k) in enumerate(pairs, 1):
    w = k[0] / r[0] if r[0] else float("nan")
    c = (k[1] + k[2]) / (r[1] + r[2]) if r[1] + r[2] else float("nan")
    wr.append(w); cr.append(c)
    print(f"{n:4}  {r[0]:5.2f} {r[1]:5.2f} {r[2]:5.2f} {int(r[3]):7}   {k[0]:5.2f} {k[1]:5.2f} {k[2]:5.2f} {int(k[3]):7}   {w:5.2f} {c:5.2f}")
med = statistics.median
for name, i in (("real", 0), ("pcpkit", 1)):
    p = [x[i] for x in pairs]
    print(f"{name:6}  wall median {med(x[0] for x in p):.2f} s, CPU median {med(x[1] + x[2] for x in p):.2f} s, max RSS {int(min(x[3] for x in p))}-{int(max(x[3] for x in p))} KB")
print(f"ratio   wall median {med(wr):.2f}x ({min(wr):.2f}-{max(wr):.2f}), CPU median {med(cr):.2f}x ({min(cr):.2f}-{max(cr):.2f})")
PY
	if [[ $c == check ]]; then
		cmp -s "$out/real.report" "$out/o.report" || { echo "DIFFERENT: $out/real.report $out/o.report"; status=1; }
	elif [[ $c == rewrite ]]; then
		for s in 0 meta index; do
			cmp -s "$out/real.$s" "$out/o.$s" || { echo "DIFFERENT: $out/real.$s $out/o.$s"; status=1; }
		done
	else
		if ! cmp -s <(pmdumplog -zal "$out/real" | grep -v '^PID for pmlogger') <(pmdumplog -zal "$out/o" | grep -v '^PID for pmlogger'); then
			echo "DIFFERENT: pmdumplog -zal $out/real $out/o"
			status=1
		fi
	fi
	[[ $status == 0 ]] && echo "outputs: the same"
done
[[ -n ${BENCH_OUT:-} ]] || rm -rf "$out"
exit $status
