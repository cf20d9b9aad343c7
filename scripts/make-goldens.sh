#!/usr/bin/env bash
# make-goldens.sh: record what the real PCP tool prints, as golden files.
#
# Usage:
#   scripts/make-goldens.sh [TOOL]          regenerate testdata/golden/TOOL/
#   scripts/make-goldens.sh --list [TOOL]   print the cases, one a line:
#                                           ARCHIVE<TAB>SLUG<TAB>ARGS...
#   scripts/make-goldens.sh --slug 'OPTS'   print the slug of an option string
#
# TOOL defaults to pmdumplog (the others: pmlogsummary, pminfo, pmprobe;
# pminfo and pmprobe take the archive with -a, so their modes say "-a {}").
# For every archive under testdata/archives (every
# file NAME.meta or NAME.meta.{xz,gz,...}, in subdirectories too, named
# relative to testdata/archives) and every line of testdata/TOOL.modes that
# applies to it (syntax at the top of that file; the Go side is
# internal/testenv.ParseModes), the real TOOL runs in testdata/archives with
# TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C and no standard input, and its standard
# output, standard error and exit code (decimal, newline) are stored in
#   testdata/golden/TOOL/ARCHIVE/SLUG.out, .err, .rc
# exactly as printed. Old golden directories of TOOL are removed first
# (README.md is kept). The slug rule is documented at testenv.ModeSlug and in
# testdata/golden/pmdumplog/README.md; internal/testenv's tests check that this
# script and the Go code agree.
#
# Environment: REAL_TOOL=/path overrides the tool found; the tool must report
# version 6.0.3 unless ALLOW_ANY_PCP=1.
#
# With PCP638=1 the goldens are PCP 6.3.8's, in testdata/golden638/TOOL/
# (pmdumplog and pmlogsummary): the tool of the PCP 6.3.8 chroot
# ($PCPKIT_PCP638_ROOT, else /opt/pcp-6.3.8; see internal/testenv.Real638)
# runs, as root, over a copy of testdata/archives inside it, in a clean
# environment with TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "make-goldens: $*" >&2; exit 1; }

# slug OPTS: testenv.ModeSlug, in bash.
slug() {
	local -a toks
	read -r -a toks <<<"$1" || true
	if ((${#toks[@]} == 0)); then
		printf '%s\n' _none_
		return
	fi
	local out="" sep="" tok enc c option i n
	for tok in "${toks[@]}"; do
		enc=""
		option=0
		if ((${#tok} > 1)) && [[ $tok == -* ]]; then
			option=1
			tok=${tok:1}
		else
			enc="="
		fi
		n=${#tok}
		i=0
		while ((i < n)); do
			c=${tok:i:1}
			if [[ ${tok:i:2} == "{}" ]]; then
				enc+="@"
				i=$((i + 2))
				continue
			fi
			if [[ -z $enc && ($c == - || $c == .) ]]; then
				enc+=$(printf '%%%02X' "'$c")
			elif ((option)) && [[ $c == [ABCDEFGHIJKLMNOPQRSTUVWXYZ] ]]; then
				enc+="^$c"
			elif [[ $c == [abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+,-] ]]; then
				enc+=$c
			else
				enc+=$(printf '%%%02X' "'$c")
			fi
			i=$((i + 1))
		done
		out+=$sep$enc
		sep=_
	done
	printf '%s\n' "$out"
}

# matches ARCHIVE GLOB: testenv.Mode.Matches.
matches() {
	local archive=$1 glob=$2 pat
	[[ -z $glob ]] && return 0
	local -a pats
	IFS=, read -r -a pats <<<"$glob"
	for pat in "${pats[@]}"; do
		# shellcheck disable=SC2053 # $pat is a pattern on purpose
		[[ $archive == $pat ]] && return 0
	done
	return 1
}

# list_archives DIR: testenv.ListArchives.
list_archives() {
	local dir=$1
	(cd "$dir" && find . ! -type d \( -name '*.meta' -o -name '*.meta.*' \) -print) |
		sed -n -E 's#^\./##; s#\.meta(\.(xz|lzma|bz2|bz|gz|z|Z|zst))?$##p' |
		grep -v -E '(^|/)$' | sort -u
}

# read_modes FILE: fills GLOBS[] and ARGS[] (space-joined), as ParseModes.
GLOBS=()
ARGS=()
read_modes() {
	local file=$1 line lineno=0 glob first tok
	local -a toks
	local -A seen=()
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		read -r -a toks <<<"$line" || true
		((${#toks[@]} == 0)) && continue
		[[ ${toks[0]} == \#* ]] && continue
		if [[ $line == *[\'\"\\\`]* ]]; then
			die "$file:$lineno: no quoting or escapes: arguments are split on white space"
		fi
		glob=""
		first=${toks[0]}
		if [[ $first == *: && $first != -* ]]; then
			glob=${first%:}
			toks=("${toks[@]:1}")
			[[ -n $glob ]] || die "$file:$lineno: empty archive glob"
			[[ ,$glob, != *,,* ]] || die "$file:$lineno: empty pattern in archive glob"
		fi
		for tok in "${toks[@]}"; do
			[[ $tok != \#* ]] || die "$file:$lineno: comments must be on lines of their own"
		done
		local key
		key="$glob"$'\t'"$(slug "${toks[*]}" | tr '[:upper:]' '[:lower:]')"
		[[ -z ${seen[$key]:-} ]] || die "$file:$lineno: same golden file name as line ${seen[$key]}"
		seen[$key]=$lineno
		GLOBS+=("$glob")
		ARGS+=("${toks[*]}")
	done <"$file"
}

# cases: prints ARCHIVE<TAB>SLUG<TAB>ARGS for every case (testenv.Cases).
cases() {
	local archive i s
	local -A seen
	while IFS= read -r archive; do
		seen=()
		for i in "${!ARGS[@]}"; do
			matches "$archive" "${GLOBS[$i]}" || continue
			s=$(slug "${ARGS[$i]}")
			local k
			k=$(tr '[:upper:]' '[:lower:]' <<<"$s")
			[[ -z ${seen[$k]:-} ]] || die "archive $archive: two modes give the golden file name $s"
			seen[$k]=1
			printf '%s\t%s\t%s\n' "$archive" "$s" "${ARGS[$i]}"
		done
	done < <(list_archives "$root/testdata/archives")
}

mode=generate
case ${1:-} in
--slug)
	[[ $# -eq 2 ]] || die "usage: $0 --slug 'OPTS'"
	slug "$2"
	exit 0
	;;
--list)
	mode=list
	shift
	;;
-*) die "usage: $0 [--list] [TOOL] | --slug 'OPTS'" ;;
esac
tool=${1:-pmdumplog}
modes_file=$root/testdata/$tool.modes
[[ -f $modes_file ]] || die "no modes file $modes_file"
read_modes "$modes_file"

if [[ $mode == list ]]; then
	cases
	exit 0
fi

real=${REAL_TOOL:-}
want_version=6.0.3
golden=$root/testdata/golden/$tool
archives=$root/testdata/archives
run_real() { # DIR ARGS...: the real tool, in DIR
	local dir=$1
	shift
	(cd "$dir" && env TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C PATH="/usr/bin:/bin:$PATH" timeout 120 "$real" "$@")
}
if [[ ${PCP638:-} == 1 ]]; then
	chroot638=${PCPKIT_PCP638_ROOT:-/opt/pcp-6.3.8}
	[[ -x $chroot638/usr/bin/$tool ]] || die "no $tool in the PCP 6.3.8 chroot $chroot638"
	want_version=6.3.8
	golden=$root/testdata/golden638/$tool
	top=$(mktemp -d "$chroot638/tmp/make-goldens-XXXXXX")
	trap 'rm -rf "$top"' EXIT
	# the archives, and beside them the files of testdata/ that modes
	# name as ../FILE (pmlogcheck's -n ../pminfo.pmns)
	copy=$top/archives
	mkdir "$copy"
	cp -a "$archives/." "$copy"
	find "$archives/.." -maxdepth 1 -type f -exec cp {} "$top/" \;
	archives=$copy
	real=$tool
	run_real() {
		local dir=/tmp/${1#"$chroot638"/tmp/}
		shift
		timeout 120 chroot "$chroot638" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			TZ=UTC PCP_DERIVED_CONFIG= LC_ALL=C /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$tool" "$@"
	}
fi
if [[ -z $real ]]; then
	for d in /usr/bin /usr/libexec/pcp/bin /usr/lib/pcp/bin; do
		if [[ -x $d/$tool && -f $d/$tool ]]; then
			real=$d/$tool
			break
		fi
	done
fi
[[ -n $real ]] || real=$(command -v "$tool" || true)
[[ -n $real ]] || die "the real $tool is not installed (see .ci/run for how to install PCP)"
version=$(run_real "$archives" --version 2>&1 </dev/null || true)
if [[ $version == *"unrecognized option '--version'"* ]]; then
	# pmlogcheck has no --version: the release is that of the pmdumplog
	# installed beside it.
	if [[ ${PCP638:-} == 1 ]]; then
		version=$(tool=pmdumplog run_real "$archives" --version 2>&1 </dev/null || true)
	elif [[ -x $(dirname "$real")/pmdumplog ]]; then
		version=$("$(dirname "$real")/pmdumplog" --version 2>&1 </dev/null || true)
	fi
fi
if [[ $version != *" $want_version"* && ${ALLOW_ANY_PCP:-} != 1 ]]; then
	die "$real reports '$version', not $want_version (set ALLOW_ANY_PCP=1 to go on anyway)"
fi

mkdir -p "$golden"
find "$golden" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +

list=$(cases)
n=0
while IFS=$'\t' read -r archive s args; do
	[[ -n $archive ]] || continue
	read -r -a argv <<<"$args" || true
	placed=0
	for i in "${!argv[@]}"; do
		if [[ ${argv[$i]} == *"{}"* ]]; then
			argv[i]=${argv[$i]//\{\}/$archive}
			placed=1
		fi
	done
	((placed)) || argv+=("$archive")
	stem=$golden/$archive/$s
	mkdir -p "$(dirname "$stem")"
	rc=0
	run_real "$archives" "${argv[@]}" </dev/null >"$stem.out" 2>"$stem.err" || rc=$?
	[[ $rc -ne 124 ]] || die "$tool ${argv[*]}: timed out"
	printf '%d\n' "$rc" >"$stem.rc"
	n=$((n + 1))
done <<<"$list"
echo "make-goldens: $n cases of $real ($version) written to ${golden#"$root"/}"
