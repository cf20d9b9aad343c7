#!/bin/bash
# qa-run.sh: run PCP's own QA test scripts through PCP's QA harness
# (pcp-testsuite's ./check) once with the real PCP tools and once with
# pcpkit's tools in their place, and report per test whether the two
# outputs are the same. The measure is the test's output with pcpkit against
# its output with the real tools, not against the test's .out file.
#
# Usage (as root, pmcd running; `apt-get install pcp-testsuite sudo
# libpcp3-dev libpcp-pmda3-dev libpcp-archive1-dev libpcp-import1-dev
# libpcp-mmv1-dev libpcp-trace2-dev libpcp-web1-dev libpcp-gui2-dev` so that
# the harness can build QA's helper programs, which its filters use; the
# sample, sampledso and simple PMDAs installed and tmparch's archives made,
# as docs/qa-scripts.md says):
#
#	scripts/qa-run.sh select          # classify the tests only
#	scripts/qa-run.sh run [TEST...]   # select, run both ways, compare
#	scripts/qa-run.sh mode MODE [TEST...]  # one run only (MODE real or pcpkit)
#	scripts/qa-run.sh compare         # recompare the saved outputs
#
# With PARALLEL=1, run starts the two runs at once (each in its own copy of
# QA_DIR with its own lock file); timing-sensitive tests then see a busier
# machine, the same in both runs. Several OUT directories with disjoint test
# lists can run at once too (shards); "merge" combines their reports:
#
#	OUT=DIR scripts/qa-run.sh merge SHARD_OUT...
#
# Environment: QA_DIR (default /var/lib/pcp/testsuite), OUT (default
# /tmp/pcpkit-qa), KIT (a directory of pcpkit binaries; default: built from
# this checkout into $OUT/kit).
#
# Selection ("runnable"). A test (not retired or reserved in the group file)
# is runnable when its script, comment lines left out:
#   - calls at least one PCP tool that pcpkit provides (a PCP tool is a file
#     of the pcp, pcp-conf or python3-pcp package in /usr/bin or
#     $PCP_BINADM_DIR; pcpkit provides those of its binaries in $KIT), and
#     no other PCP tool except the neutral helpers pmsleep, pmhostname,
#     pmdate, pmpause, pmsignal and pmcd_wait ("pmcd" counts only when the
#     script starts a pmcd itself);
#   - runs none of QA's own C helpers (src/...): they exercise libpcp, not a
#     tool, and need PCP's headers to build;
#   - runs no Python or Perl (the bindings are libpcp);
#   - needs no service or PMDA set-up: none of _service, _prepare_pmda*,
#     _restore_pmda*, _cleanup_pmda, _save_config, _restore_config,
#     _change_config, _stop_auto_restart, _sighup_pmcd, "pmcd restart",
#     $PCP_RC_DIR, a PMDA's ./Install or ./Remove, pmcd.conf, or
#     tmparch/mkbig1 (which installs the bigun PMDA);
#   - and is not reported "not run" by the harness in the run with the real
#     tools (the test decided its prerequisites are missing).
# The word scan is a heuristic; $OUT/selection.txt gives each test's verdict
# and reason.
#
# How the tools are swapped. Nothing of the system's PCP is changed. Two
# directories, $OUT/tools-MODE/bin and $OUT/tools-MODE/binadm, hold symbolic links to
# every file of /usr/bin and of the real $PCP_BINADM_DIR; for the pcpkit run
# the links of pcpkit's tools point at $KIT instead. The harness runs with
# PCP_BIN_DIR and PCP_BINADM_DIR set to those directories (pcp.env lets the
# environment override pcp.conf) and PATH starting with them, so a test
# reaches the same binary by name, through $PCP_BIN_DIR or through
# $PCP_BINADM_DIR. Both runs use the same paths, so only the binaries differ.
# Commands run by `sudo` alone take sudo's secure_path and so the real tools;
# the tests reach pmlogger through $PCP_BINADM_DIR, which sudo -E keeps.
#
# The harness runs in a copy of QA_DIR ($OUT/testsuite-MODE) whose common.setup
# has OPTION_AGENTS=false and OPTION_LOGGER=false: after a failing test,
# ./check would otherwise re-install the sample PMDAs and start a primary
# pmlogger (changing pmcd's configuration) and abort the run when it cannot;
# `check -q` already skips the same checks before the first test. The
# installed QA_DIR is not changed; each run gets a fresh copy, whose check
# takes its own lock file ($OUT/testsuite-MODE.lock).
#
# Output: $OUT/real/NNN and $OUT/pcpkit/NNN are each test's output as the
# harness saw it ($seq.out when it passed, $seq.out.bad otherwise);
# $OUT/diff/NNN the diff of the two; $OUT/report.txt one line per test:
# "NNN same|differs|not-runnable REASON", and the counts at the end; a
# differing test's line ends with [hints]: what it does that is known to
# differ (debug: libpcp's -D output; local: -L contexts; valgrind;
# pmlogger).
set -u

QA_DIR=${QA_DIR:-/var/lib/pcp/testsuite}
OUT=${OUT:-/tmp/pcpkit-qa}
here=$(cd "$(dirname "$0")/.." && pwd)

# neutral helpers a runnable test may call besides pcpkit's tools
NEUTRAL="pmsleep pmhostname pmdate pmpause pmsignal pmcd_wait"

die() { echo "qa-run: $*" >&2; exit 1; }

binadm() {
	sed -n -e 's/^PCP_BINADM_DIR=//p' /etc/pcp.conf
}

build_kit() {
	if [ -z "${KIT:-}" ]; then
		KIT=$OUT/kit
		mkdir -p "$KIT"
		(cd "$here" && go build -o "$KIT/" ./cmd/...) || die "go build failed"
	fi
	[ -d "$KIT" ] || die "KIT=$KIT is not a directory"
}

# pcp_tools prints the PCP tools: the PCP packages' files in the bin dirs.
pcp_tools() {
	local ba
	ba=$(binadm)
	for p in pcp pcp-conf python3-pcp; do dpkg -L $p 2>/dev/null; done |
		grep -E "^(/usr/bin|/usr/sbin|$ba)/[^/]*$" | xargs -n1 basename | sort -u
}

# kit_tools prints the PCP tools pcpkit provides.
kit_tools() {
	ls "$KIT" | sort | comm -12 - "$OUT/pcptools"
}

select_tests() {
	mkdir -p "$OUT"
	pcp_tools | grep -vx -e pcp -e pmcd >"$OUT/pcptools"
	kit_tools >"$OUT/kittools"
	grep -E '^[0-9]+[ 	]' "$QA_DIR/group" | awk '{print $1}' |
	while read -r seq; do
		[ -f "$QA_DIR/$seq" ] || continue
		awk -v seq="$seq" -v neutral="$NEUTRAL" \
			-v kitfile="$OUT/kittools" -v toolfile="$OUT/pcptools" '
BEGIN {
	while ((getline t <kitfile) > 0) kit[t] = 1
	while ((getline t <toolfile) > 0) tool[t] = 1
	n = split(neutral, a, " "); for (i = 1; i <= n; i++) neu[a[i]] = 1
}
/^[ \t]*#/ { next }
{
	if ($0 ~ /(^|[^A-Za-z0-9_])src\//) helper = 1
	if ($0 ~ /\$python|\$PCP_PYTHON_PROG|(^|[ \t|;(])perl[ \t]/) script = 1
	if ($0 ~ /_service[ \t]|_prepare_pmda|_restore_pmda|_cleanup_pmda|_save_config|_restore_config|_change_config|_stop_auto_restart|_sighup_pmcd|pmcd restart|\$PCP_RC_DIR/) svc = 1
	if ($0 ~ /\.\/Install|\.\/Remove|Install[ \t]*<|pmcd\.conf|PCP_PMCDCONF_PATH|mkbig1/) svc = 1
	if ($0 ~ /\$PCP_BINADM_DIR\/pmcd([^A-Za-z0-9_.-]|$)|\$PCP_PMCD_PROG|^[ \t]*pmcd[ \t]/) other["pmcd"] = 1
	n = split($0, w, /[^A-Za-z0-9_.-]+/)
	for (i = 1; i <= n; i++) {
		if (w[i] in kit) used[w[i]] = 1
		else if ((w[i] in tool) && !(w[i] in neu)) other[w[i]] = 1
	}
}
END {
	u = ""; for (t in used) u = u (u == "" ? "" : ",") t
	o = ""; for (t in other) o = o (o == "" ? "" : ",") t
	if (u == "") v = "not-runnable no pcpkit tool"
	else if (o != "") v = "not-runnable calls " o
	else if (helper) v = "not-runnable QA helper program (src/)"
	else if (script) v = "not-runnable Python or Perl"
	else if (svc) v = "not-runnable needs service or PMDA set-up"
	else v = "candidate uses " u
	print seq, v
}' "$QA_DIR/$seq"
	done >"$OUT/selection.txt"
	grep -c ' candidate ' "$OUT/selection.txt" | sed 's/$/ candidate tests/'
}

# make_tools MODE links $OUT/tools-MODE/{bin,binadm} for MODE real or pcpkit.
make_tools() {
	local mode=$1 ba t tools=$OUT/tools-$1
	ba=$(binadm)
	rm -rf "$tools"
	mkdir -p "$tools/bin" "$tools/binadm"
	for f in /usr/bin/*; do ln -s "$f" "$tools/bin/"; done
	for f in "$ba"/*; do ln -s "$f" "$tools/binadm/"; done
	if [ "$mode" = pcpkit ]; then
		while read -r t; do
			for d in bin binadm; do
				if [ -L "$tools/$d/$t" ]; then
					ln -sf "$KIT/$t" "$tools/$d/$t"
				fi
			done
		done <"$OUT/kittools"
	fi
}

# make_copy MODE copies QA_DIR to $OUT/testsuite-MODE with the post-failure
# PMDA and pmlogger checks off and a lock file of its own.
make_copy() {
	local ts=$OUT/testsuite-$1
	rm -rf "$ts"
	cp -a "$QA_DIR" "$ts" || die "cannot copy $QA_DIR"
	sed -i -e 's/^OPTION_AGENTS=true/OPTION_AGENTS=false/' \
		-e 's/^OPTION_LOGGER=true/OPTION_LOGGER=false/' "$ts/common.setup"
	sed -i -e "s|^CHECKLOCK=/tmp/PCP-QA-LOCK\$|CHECKLOCK=$ts.lock|" "$ts/check"
	grep -q '^OPTION_AGENTS=false' "$ts/common.setup" || die "cannot patch common.setup"
	grep -q "^CHECKLOCK=$ts.lock\$" "$ts/check" || die "cannot patch check"
}

# run_mode MODE TEST... runs the tests through ./check and saves outputs.
run_mode() {
	local mode=$1 seq
	shift
	make_tools "$mode"
	make_copy "$mode"
	rm -rf "${OUT:?}/$mode"
	mkdir -p "$OUT/$mode"
	(
		cd "$OUT/testsuite-$mode" || exit 1
		for seq in "$@"; do rm -f "$seq.out.bad" "$seq.notrun"; done
		export PCP_BIN_DIR=$OUT/tools-$mode/bin PCP_BINADM_DIR=$OUT/tools-$mode/binadm
		export PATH=$PCP_BIN_DIR:$PCP_BINADM_DIR:/usr/sbin:/usr/bin:$(binadm):/sbin:/bin
		export TZ=${TZ:-UTC}
		# -q: no PMDA checks or re-installs; -s: no diff on the terminal
		./check -q -s "$@" >"$OUT/$mode.log" 2>&1
		for seq in "$@"; do
			if [ -f "$seq.out.bad" ]; then
				mv "$seq.out.bad" "$OUT/$mode/$seq"
			elif [ -f "$seq.out" ]; then
				cp "$seq.out" "$OUT/$mode/$seq"
			fi
			[ -f "$seq.full" ] && mv "$seq.full" "$OUT/$mode/$seq.full"
		done
		true
	)
	sed -n -e 's/^Not run://p' "$OUT/$mode.log" | tr ' ' '\n' | grep . >"$OUT/$mode.notrun"
	# which tests did not match their .out file
	sed -n -e 's/^Failures://p' "$OUT/$mode.log" | tr ' ' '\n' | grep . >"$OUT/$mode.failed"
}

# hint prints what a differing test does that pcpkit's tools do not do as
# libpcp does: libpcp's debug output (-D, PCP_DEBUG), a local context (-L,
# PCP_LOCALMODE: libpcp loads the PMDAs' DSOs), a valgrind run (a Go binary
# under valgrind), pmlogger (recording from pmcd).
hint() {
	local f="$QA_DIR/$1" h=""
	grep -v '^[[:space:]]*#' "$f" >"$OUT/hint.tmp"
	grep -qE '(^|[ 	"])-D ?[a-zA-Z0-9]|PCP_DEBUG|--debug' "$OUT/hint.tmp" && h="$h,debug"
	grep -qE '(^|[ 	])-L([ 	]|$)|PCP_LOCALMODE|PCP_LOCALPMDA' "$OUT/hint.tmp" && h="$h,local"
	grep -q '_run_valgrind\|valgrind ' "$OUT/hint.tmp" && h="$h,valgrind"
	grep -qE '(^|[^A-Za-z0-9_.-])pmlogger([^A-Za-z0-9_.-]|$)' "$OUT/hint.tmp" && h="$h,pmlogger"
	rm -f "$OUT/hint.tmp"
	echo "${h#,}"
}

compare() {
	local seq verdict why same=0 differs=0 notrun=0 realfail=0 n
	rm -rf "${OUT:?}/diff"
	mkdir -p "$OUT/diff"
	: >"$OUT/report.txt"
	while read -r seq verdict why; do
		if [ "$verdict" != candidate ]; then
			echo "$seq not-runnable $why" >>"$OUT/report.txt"
			notrun=$((notrun + 1))
			continue
		fi
		# (a test the harness did not run may have left no output)
		if grep -qx "$seq" "$OUT/real.notrun"; then
			echo "$seq not-runnable harness: not run with the real tools" >>"$OUT/report.txt"
			notrun=$((notrun + 1))
			continue
		fi
		[ -f "$OUT/real/$seq" ] || continue # not in this run
		n=""
		grep -qx "$seq" "$OUT/real.failed" && { n=" (real tools differ from .out)"; realfail=$((realfail + 1)); }
		if diff -u "$OUT/real/$seq" "$OUT/pcpkit/$seq" >"$OUT/diff/$seq"; then
			rm -f "$OUT/diff/$seq"
			echo "$seq same$n" >>"$OUT/report.txt"
			same=$((same + 1))
		else
			echo "$seq differs$n [$(hint "$seq")]" >>"$OUT/report.txt"
			differs=$((differs + 1))
		fi
	done <"$OUT/selection.txt"
	{
		echo "runnable: $((same + differs))  same: $same  differs: $differs  not runnable: $notrun"
		echo "runnable tests whose real-tool output differs from their .out: $realfail"
	} | tee -a "$OUT/report.txt"
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case $cmd in
select)
	build_kit
	select_tests
	;;
run)
	[ "$(id -u)" = 0 ] || die "run as root (the QA harness needs root or sudo)"
	[ -d "$QA_DIR" ] || die "no $QA_DIR: apt-get install pcp-testsuite"
	pminfo -f sample.milliseconds sampledso.milliseconds simple.numfetch >/dev/null 2>&1 ||
		die "the QA PMDAs sample, sampledso and simple are not installed (see docs/qa-scripts.md)"
	build_kit
	select_tests
	if [ $# -gt 0 ]; then tests="$*"; else tests=$(awk '$2 == "candidate" {print $1}' "$OUT/selection.txt"); fi
	if [ "${PARALLEL:-}" = 1 ]; then
		# shellcheck disable=SC2086
		run_mode real $tests &
		# shellcheck disable=SC2086
		run_mode pcpkit $tests
		wait
	else
		# shellcheck disable=SC2086
		run_mode real $tests
		# shellcheck disable=SC2086
		run_mode pcpkit $tests
	fi
	compare
	;;
mode)
	[ $# -gt 0 ] || die "mode: real or pcpkit?"
	mode=$1
	shift
	build_kit
	[ -f "$OUT/selection.txt" ] || select_tests
	if [ $# -gt 0 ]; then tests="$*"; else tests=$(awk '$2 == "candidate" {print $1}' "$OUT/selection.txt"); fi
	# shellcheck disable=SC2086
	run_mode "$mode" $tests
	;;
compare)
	compare
	;;
merge)
	# one line per test: a verdict from the shard that ran it wins over
	# the "not-runnable" lines every shard's selection gives
	mkdir -p "$OUT"
	for d in "$@"; do grep -E '^[0-9]+ ' "$d/report.txt"; done |
		awk '{ v = ($2 == "not-runnable") ? 0 : 1 }
		     !($1 in line) || v > ran[$1] { line[$1] = $0; ran[$1] = v }
		     END { for (t in line) print line[t] }' | sort -n >"$OUT/report.txt"
	awk '$2 == "same" { s++ } $2 == "differs" { d++ } $2 == "not-runnable" { n++ }
	     / \(real tools differ from .out\)/ { r++ }
	     END { printf "runnable: %d  same: %d  differs: %d  not runnable: %d\n", s + d, s, d, n
		   printf "runnable tests whose real-tool output differs from their .out: %d\n", r }' \
		"$OUT/report.txt" | tee -a "$OUT/report.txt"
	;;
*)
	die "unknown command $cmd (select, run, mode, compare, merge)"
	;;
esac
