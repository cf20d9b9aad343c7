#!/usr/bin/env bash
# make-derive638-goldens.sh: record what the real pmval of PCP 6.3.8 prints
# for derived metrics, as golden files.
#
# Usage (as root, with the PCP 6.3.8 chroot .ci/run sets up):
#   scripts/make-derive638-goldens.sh
#
# For every line "ARCHIVE CONFIG MODE | MODE ..." of testdata/derive638/cases
# (syntax at the top of that file) and every metric CONFIG defines (its
# "NAME = EXPR" lines), the real pmval runs inside the chroot
# ($PCPKIT_PCP638_ROOT, default /opt/pcp-6.3.8), in a directory holding a
# copy of the archive and of CONFIG, as
#
#   env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TZ=UTC \
#       PCP_DERIVED_CONFIG= LC_ALL=C pmval --derived=CONFIG -U ARCHIVE [OPTS] METRIC
#
# (or -a ARCHIVE, as the mode's first word says; ARCHIVE is the archive's
# base name there) with no standard input, and every run of a line goes, in
# order, to testdata/golden/derive638/CONFIG-BASE.ARCHIVE-BASE.txt:
#
#   === pmval ARGS...
#   --- stdout
#   <standard output, as printed>--- stderr
#   <standard error, as printed>--- rc <exit code>
#
# An exit code above 128 is a crash of the real pmval (libpcp 6.3.8 reads
# memory it never wrote in a few constructs); the tests do not compare
# those runs. Old goldens are removed first (README.md is kept).
# internal/pmval's
# TestDerived638Goldens runs pcpkit's pmval (PCPKIT_PCP_VERSION=6.3.8) the
# same way and compares; TestDerived638Interop asks the chroot again.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
croot=${PCPKIT_PCP638_ROOT:-/opt/pcp-6.3.8}
cases=$root/testdata/derive638/cases
out=$root/testdata/golden/derive638

die() { echo "make-derive638-goldens: $*" >&2; exit 1; }

runin() { # DIR ARGS...: run ARGS in the chroot's directory DIR
	local dir=$1
	shift
	chroot "$croot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@" </dev/null
}

v=$(runin / pmval --version 2>&1) || die "cannot run pmval in $croot: $v"
[[ $v == *"version 6.3.8"* ]] || die "$croot has $v, not 6.3.8"

# archive_path NAME: where an archive of the cases file is
archive_path() {
	case $1 in
	testdata/*) echo "$root/testdata/archives/${1#testdata/}" ;;
	derive/*) echo "$root/derive/testdata/${1#derive/}" ;;
	qa/*) echo "$root/../shared/pcp-qa-archives/${1#qa/}" ;;
	made/*) echo "$root/../shared/pcp-made-archives/${1#made/}" ;;
	*) die "unknown archive $1" ;;
	esac
}

work=$(mktemp -d "$croot/tmp/derive638.XXXXXX")
trap 'rm -rf "$work"' EXIT
inside=/tmp/$(basename "$work")

mkdir -p "$out"
find "$out" -name '*.txt' -delete

quiet='import subprocess, sys
r = subprocess.run(sys.argv[1:]).returncode
sys.exit(128 - r if r < 0 else r)'

n=0
while read -r archive config modes; do
	[[ -z $archive || $archive == \#* ]] && continue
	src=$(archive_path "$archive")
	base=$(basename "$src")
	rm -rf "${work:?}"/*
	if [[ -d $src ]]; then
		cp -r "$src" "$work/$base"
	else
		cp "$src".* "$work/"
	fi
	cp "$root/testdata/derive638/$config" "$work/"
	golden=$out/${config%.conf}.$base.txt
	: >"$golden"
	metrics=$(sed -n 's/^\([A-Za-z][^=#]*\)=.*/\1/p' "$root/testdata/derive638/$config" | tr -d ' \t')
	IFS='|' read -r -a modelist <<<"$modes"
	for metric in $metrics; do
		for mode in "${modelist[@]}"; do
			read -r -a words <<<"$mode"
			args=(--derived="$config" "${words[0]}" "$base" "${words[@]:1}" "$metric")
			# (through python, whose exit code is 128+N when pmval dies of
			# signal N, and which prints nothing about it, as a shell would)
			set +e
			runin "$inside" python3 -c "$quiet" pmval "${args[@]}" >"$work/.out" 2>"$work/.err"
			rc=$?
			set -e
			{
				printf '=== pmval %s\n--- stdout\n' "${args[*]}"
				cat "$work/.out"
				printf -- '--- stderr\n'
				cat "$work/.err"
				printf -- '--- rc %d\n' "$rc"
			} >>"$golden"
			n=$((n + 1))
		done
	done
done <"$cases"
echo "make-derive638-goldens: $n runs of the real pmval 6.3.8 in $out"
