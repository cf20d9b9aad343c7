package cli

import (
	"fmt"
	"sort"
	"strings"
)

// argKind is what an option's argument is, for completion.
type argKind int

const (
	argNone    argKind = iota // no argument
	argOther                  // an argument completion knows nothing of
	argArchive                // an archive: base names and directories
	argFile                   // a file
	argHost                   // a host name
)

// kindOf is the kind of the argument of the long option name.
func kindOf(name string) argKind {
	switch name {
	case "archive", "nointerp": // pmval -U ARCHIVE
		return argArchive
	case "config", "log", "namespace", "uniqnames", "derived":
		return argFile
	case "host":
		return argHost
	}
	return argOther
}

// option is one option as completion knows it.
type option struct {
	short byte   // 0: long only
	long  string // "": short only
	kind  argKind
}

// options is t's option table: every short option of its getopt string
// and every long option, an option with both spellings once.
func (t *Tool) options() []option {
	var opts []option
	byShort := map[byte]int{}
	for i := 0; i < len(t.Short); i++ {
		c := t.Short[i]
		if c == ':' || c == '?' {
			continue
		}
		o := option{short: c}
		if i+1 < len(t.Short) && t.Short[i+1] == ':' {
			o.kind = argOther
		}
		byShort[c] = len(opts)
		opts = append(opts, o)
	}
	for _, l := range t.Longs {
		if l.Name == "" {
			continue // a short option in the table only for its place
		}
		kind := argNone
		if l.HasArg {
			kind = kindOf(l.Name)
		}
		if l.Short > 0 && l.Short < 128 {
			if i, ok := byShort[byte(l.Short)]; ok && opts[i].long == "" {
				opts[i].long = l.Name
				if opts[i].kind != argNone {
					opts[i].kind = kindOf(l.Name)
				}
				continue
			}
		}
		opts = append(opts, option{long: l.Name, kind: kind})
	}
	return opts
}

// words are t's options as typed, sorted, and those of them taking an
// argument of each kind.
func (t *Tool) words() (all []string, withArg map[argKind][]string) {
	withArg = map[argKind][]string{}
	for _, o := range t.options() {
		var spell []string
		if o.short != 0 {
			spell = append(spell, "-"+string(o.short))
		}
		if o.long != "" {
			spell = append(spell, "--"+o.long)
		}
		all = append(all, spell...)
		if o.kind != argNone {
			withArg[o.kind] = append(withArg[o.kind], spell...)
		}
	}
	sort.Strings(all)
	return all, withArg
}

// Completion returns the completion script of tools for shell: "bash",
// "zsh" (the bash script, through zsh's bashcompinit) or "fish". Each
// completes the tool's options (the real tool's and pcpkit's), archive
// base names (a name.meta, compressed or not, offers name) and
// directories for archive operands and -a, files for the options taking
// one (-c, -l, -n...), host names for -h, and metric names for metric
// operands: those of the archive given (-a, or the first operand where an
// archive comes first), else of the pmcd of -h or the local one, as
// pminfo lists them.
func Completion(shell string, tools []*Tool) (string, error) {
	switch shell {
	case "bash":
		return bashScript(tools), nil
	case "zsh":
		return "# zsh completion for pcpkit's tools: source this file from ~/.zshrc.\n" +
			"autoload -U +X compinit && compinit\n" +
			"autoload -U +X bashcompinit && bashcompinit\n" + bashScript(tools), nil
	case "fish":
		return fishScript(tools), nil
	}
	return "", fmt.Errorf("no completion for shell %q (bash, zsh or fish)", shell)
}

const bashHeader = `# bash completion for pcpkit's tools. Generated from each tool's option
# table by ` + "`make completions`" + ` (internal/cli): do not edit.

# _pcpkit_archives CUR: archive base names (NAME.meta, compressed or not,
# offers NAME) and directories starting with CUR.
_pcpkit_archives() {
	local f IFS=$'\n'
	for f in $(compgen -f -- "$1"); do
		if [[ -d $f ]]; then
			printf '%s\n' "$f"
		else
			case $f in
			*.meta | *.meta.xz | *.meta.lzma | *.meta.bz2 | *.meta.bz | *.meta.gz | *.meta.Z | *.meta.z | *.meta.zst)
				printf '%s\n' "${f%.meta*}" ;;
			esac
		fi
	done | sort -u
}

# _pcpkit_metrics CUR SOURCE-OPTION SOURCE: metric names starting with CUR,
# from the archive (-a) or host (-h) given, else the local pmcd.
_pcpkit_metrics() {
	local IFS=$'\n'
	compgen -W "$(pminfo ${2:+"$2"} ${3:+"$3"} 2>/dev/null)" -- "$1"
}

# _pcpkit_complete ARCHIVE-OPTS FILE-OPTS HOST-OPTS OTHER-OPTS OPERANDS
# OPTIONS: the completion of the current word for a tool whose options
# taking an archive, a file, a host or something else are the words of
# the first four arguments, whose operands are OPERANDS (archive-metrics,
# metrics, archives, archive) and whose options are OPTIONS.
_pcpkit_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	local IFS=$'\n'
	COMPREPLY=()
	if [[ " $1 " == *" $prev "* ]]; then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(_pcpkit_archives "$cur"))
		return
	elif [[ " $2 " == *" $prev "* ]]; then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	elif [[ " $3 " == *" $prev "* ]]; then
		COMPREPLY=($(compgen -A hostname -- "$cur"))
		return
	elif [[ " $4 " == *" $prev "* ]]; then
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(IFS=' ' compgen -W "$6" -- "$cur"))
		return
	fi
	# The operands before the current word, and the source of metrics.
	local i w n=0 first= srcopt= src=
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ " $1 " == *" $w "* ]]; then
			srcopt=-a src=${COMP_WORDS[i + 1]}
			((i++))
		elif [[ " $3 " == *" $w "* ]]; then
			srcopt=-h src=${COMP_WORDS[i + 1]}
			((i++))
		elif [[ " $2 $4 " == *" $w "* ]]; then
			((i++))
		elif [[ $w != -* ]]; then
			((n++ == 0)) && first=$w
		fi
	done
	case $5 in
	archive-metrics)
		if ((n == 0)); then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(_pcpkit_archives "$cur"))
		else
			COMPREPLY=($(_pcpkit_metrics "$cur" -a "$first"))
		fi ;;
	metrics)
		COMPREPLY=($(_pcpkit_metrics "$cur" "$srcopt" "$src")) ;;
	archives)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(_pcpkit_archives "$cur")) ;;
	*)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
`

// operandWord is the name _pcpkit_complete knows ops by.
func operandWord(ops Operands) string {
	switch ops {
	case ArchiveMetrics:
		return "archive-metrics"
	case Metrics:
		return "metrics"
	case Archives:
		return "archives"
	}
	return "archive"
}

func bashScript(tools []*Tool) string {
	var b strings.Builder
	b.WriteString(bashHeader)
	for _, t := range tools {
		all, withArg := t.words()
		fn := "_pcpkit_" + strings.ReplaceAll(t.Name, "-", "_")
		fmt.Fprintf(&b, "\n%s() {\n\t_pcpkit_complete %q %q %q %q %s %q\n}\ncomplete -F %s %s\n",
			fn,
			strings.Join(withArg[argArchive], " "), strings.Join(withArg[argFile], " "),
			strings.Join(withArg[argHost], " "), strings.Join(withArg[argOther], " "),
			operandWord(t.Operands), strings.Join(all, " "), fn, t.Name)
	}
	return b.String()
}

const fishHeader = `# fish completion for pcpkit's tools. Generated from each tool's option
# table by ` + "`make completions`" + ` (internal/cli): do not edit.

# archive base names (NAME.meta, compressed or not, offers NAME) and directories
function __pcpkit_archives
	set -l cur (commandline -ct)
	for f in $cur*
		if test -d $f
			echo $f/
		else
			string match -qr '\.meta(\.(xz|lzma|bz2|bz|gz|Z|z|zst))?$' -- $f; and string replace -r '\.meta(\..*)?$' '' -- $f
		end
	end | sort -u
end

# metric names from the archive (-a) or host (-h) on the command line,
# else from the first operand (pmdumplog, pmlogsummary), else the local pmcd
function __pcpkit_metrics
	set -l words (commandline -opc)
	set -l src
	for i in (seq 2 (count $words))
		switch $words[$i]
			case -a --archive -h --host
				set src $words[$i] $words[(math $i + 1)]
		end
	end
	if test (count $argv) -gt 0 -a -z "$src"
		for w in $words[2..-1]
			string match -q -- '-*' $w; and continue
			set src -a $w
			break
		end
	end
	pminfo $src 2>/dev/null
end
`

func fishScript(tools []*Tool) string {
	var b strings.Builder
	b.WriteString(fishHeader)
	for _, t := range tools {
		fmt.Fprintf(&b, "\n# %s\ncomplete -c %s -f\n", t.Name, t.Name)
		for _, o := range t.options() {
			fmt.Fprintf(&b, "complete -c %s", t.Name)
			if o.short != 0 {
				fmt.Fprintf(&b, " -s %s", fishQuote(string(o.short)))
			}
			if o.long != "" {
				fmt.Fprintf(&b, " -l %s", fishQuote(o.long))
			}
			switch o.kind {
			case argArchive:
				b.WriteString(" -x -a '(__pcpkit_archives)'")
			case argFile:
				b.WriteString(" -r -F")
			case argHost:
				b.WriteString(" -x -a '(__fish_print_hostnames)'")
			case argOther:
				b.WriteString(" -x")
			}
			b.WriteString("\n")
		}
		switch t.Operands {
		case ArchiveMetrics:
			fmt.Fprintf(&b, "complete -c %s -n 'not __fish_seen_argument -s a' -a '(__pcpkit_archives)'\n", t.Name)
			fmt.Fprintf(&b, "complete -c %s -a '(__pcpkit_metrics first)'\n", t.Name)
		case Metrics:
			fmt.Fprintf(&b, "complete -c %s -a '(__pcpkit_metrics)'\n", t.Name)
		case Archives:
			fmt.Fprintf(&b, "complete -c %s -a '(__pcpkit_archives)'\n", t.Name)
		default:
			fmt.Fprintf(&b, "complete -c %s -F\n", t.Name)
		}
	}
	return b.String()
}

// fishQuote quotes s for fish when it needs it.
func fishQuote(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
