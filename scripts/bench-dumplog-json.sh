#!/bin/bash
# bench-dumplog-json.sh: pmdumplog --json against pmdumplog's text, both
# written to a file (issue 18: --json at least as fast as the text).
#
# Each round runs, in turn, the text, the --json of $KIT's pmdumplog and,
# if $BASE names another pmdumplog, its --json, for -a and for the records
# alone, each into a file under $OUT (removed after each run), under
# /usr/bin/time; then prints the medians of CPU (user+sys) and wall time and
# the median of the pairs' CPU ratios (json/text).
#
#	go build -o /tmp/kit/ ./cmd/pmdumplog
#	KIT=/tmp/kit/pmdumplog BASE=/tmp/old/pmdumplog scripts/bench-dumplog-json.sh
#
# Environment: ARCHIVE (default /tmp/bench/b-v3), RUNS (default 7), OUT
# (default /tmp), KIT (default bin/pmdumplog), BASE (optional).
set -eu
ARCHIVE=${ARCHIVE:-/tmp/bench/b-v3}
RUNS=${RUNS:-7}
OUT=${OUT:-/tmp}
KIT=${KIT:-bin/pmdumplog}
BASE=${BASE:-}
times=$(mktemp)
trap 'rm -f "$times" "$OUT"/bench-dumplog-json.out' EXIT

uptime
for r in $(seq "$RUNS"); do
	for opt in -a -m; do
		forms="text json"
		[ -n "$BASE" ] && forms="$forms base"
		for f in $forms; do
			case $f in
			text) cmd=("$KIT" "$opt" "$ARCHIVE") ;;
			json) cmd=("$KIT" --json "$opt" "$ARCHIVE") ;;
			base) cmd=("$BASE" --json "$opt" "$ARCHIVE") ;;
			esac
			/usr/bin/time -a -o "$times" -f "$r $opt $f %e %U %S" "${cmd[@]}" >"$OUT"/bench-dumplog-json.out
			echo "$opt $f $(wc -c <"$OUT"/bench-dumplog-json.out) bytes" >>"$times.bytes"
			rm -f "$OUT"/bench-dumplog-json.out
		done
	done
done
uptime
sort -u "$times.bytes"
rm -f "$times.bytes"
/usr/bin/python3 - "$times" <<'EOF'
import collections, statistics, sys
cpu, wall = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, opt, form, e, u, s = line.split()
    cpu[opt, form].append(float(u) + float(s))
    wall[opt, form].append(float(e))
for opt in ("-a", "-m"):
    for form in ("text", "json", "base"):
        if cpu[opt, form]:
            print(f"{opt} {form}: CPU median {statistics.median(cpu[opt, form]):.3f} s, wall median {statistics.median(wall[opt, form]):.3f} s")
    pairs = [j / t for j, t in zip(cpu[opt, "json"], cpu[opt, "text"])]
    print(f"{opt} json/text CPU, median of pairs: {statistics.median(pairs):.2f}")
EOF
