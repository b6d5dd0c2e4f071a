# bash completion for profrun(1)                           -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Subcommands and options are read from profrun's own --help, so they are
# never out of date; what takes which kind of argument (a format, a
# profile, a directory) is known here.  tests/install/install.py checks both.

# The subcommands listed by `profrun --help`.
_profrun_subcommands()
{
	LC_ALL=C "$1" --help 2>/dev/null |
		sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# The options of `profrun [SUBCOMMAND] --help`, one a line; an option
# written --name=VALUE there is offered as "--name=".  With a third
# argument "argument", only the options written with a separate argument
# ("-o, --output PATH").
_profrun_options()
{
	local line tag word
	LC_ALL=C "$1" ${2:+"$2"} --help 2>/dev/null |
		while IFS= read -r line; do
			[[ $line =~ ^\ {2,8}(-[^ ].*) ]] || continue
			tag=${BASH_REMATCH[1]%%  *}
			[[ ${3-} == argument && ${tag##* } == -* ]] && continue
			for word in ${tag//,/ }; do
				case $word in
				--*=*) printf '%s\n' "${word%%=*}=" ;;
				-*) printf '%s\n' "$word" ;;
				esac
			done
		done
}

# The formats --format takes, for SUBCOMMAND ("" for a run) of PROFRUN:
# report's from the table in its --help.
_profrun_formats()
{
	case $1 in
	report)
		LC_ALL=C "$2" report --help 2>/dev/null |
			sed -n 's/^ \{24\}\([a-z][a-z0-9-]*\)  .*/\1/p'
		;;
	diff) echo text markdown json html ;;
	*) echo text json ;;
	esac
}

# Complete the argument of option PREV of SUBCOMMAND; returns 1 when PREV
# takes no argument.
_profrun_option_argument()
{
	local sub=$1 prev=$2
	case $prev in
	--format)
		COMPREPLY=($(compgen -W "$(_profrun_formats "$sub" "${words[0]}")" -- "$cur"))
		;;
	--fail-on)
		COMPREPLY=($(compgen -W 'regression any none' -- "$cur"))
		;;
	--color)
		COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
		;;
	--debug-dir | --source-dir | --sysroot)
		_filedir -d
		;;
	-o | --output)
		# a run directory for a run and for merge, a file otherwise
		case $sub in
		'' | merge) _filedir -d ;;
		*) _filedir ;;
		esac
		;;
	--toggle-signal)
		COMPREPLY=($(compgen -W 'USR1 USR2 HUP WINCH URG RTMIN+' -- "$cur"))
		;;
	-F | --freq | --top | --tid | --pid | --module | --threshold | --confidence | \
		--stack-size | --stack-samples | --callers | --callees | --delay | --duration | --same)
		;; # a number or a name: nothing to offer
	-*)
		# any other option --help shows with an argument: a file
		[[ $'\n'$(_profrun_options "${words[0]}" "$sub" argument)$'\n' == *$'\n'"$prev"$'\n'* ]] ||
			return 1
		_filedir
		;;
	*)
		return 1
		;;
	esac
	return 0
}

# profrun [OPTIONS] [--] PROGRAM [ARGS...]: options up to PROGRAM, then
# PROGRAM's own completion; the subcommands beside the programs first.
_profrun_run()
{
	local i word with_argument
	with_argument=$'\n'$(_profrun_options "${words[0]}" "" argument)$'\n'
	for ((i = 1; i < cword; i++)); do
		word=${words[i]}
		case $word in
		--)
			_command_offset $((i + 1))
			return
			;;
		-*)
			[[ $with_argument == *$'\n'"$word"$'\n'* ]] && ((i++))
			;;
		*)
			_command_offset $i
			return
			;;
		esac
	done
	_profrun_option_argument "" "$prev" && return
	$split && return
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_profrun_options "${words[0]}")" -- "$cur"))
		return
	fi
	_command_offset "$cword"
	if ((cword == 1)); then
		COMPREPLY+=($(compgen -W "$(_profrun_subcommands "${words[0]}")" -- "$cur"))
	fi
}

_profrun()
{
	local cur prev words cword split
	_init_completion -s || return

	local sub=""
	if ((cword > 1)); then
		local s
		for s in $(_profrun_subcommands "${words[0]}"); do
			[[ ${words[1]} == "$s" ]] && sub=$s
		done
	fi
	if [[ -z $sub ]]; then
		_profrun_run
		return
	fi

	_profrun_option_argument "$sub" "$prev" && return
	$split && return
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_profrun_options "${words[0]}" "$sub")" -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	case $sub in
	diff) _filedir '@(prof|json)' ;; # BASE and NEW: profiles or JSON reports
	*) _filedir prof ;;              # profiles: run directories, member files
	esac
} &&
	complete -F _profrun profrun

# ex: filetype=sh
