#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What an installed profrun brings beside the binaries: profrun(1), the
bash completion and profrun.pc, checked against the one source of truth,
the CLI's own --help.

Usage: install.py CASE   (exit 0 pass, 1 fail, 77 skip).  Environment:
PROFRUN (the built CLI), MAN_PAGE (the configured profrun.1), COMPLETION
(the bash completion script), SOURCE_ROOT, BUILD_ROOT."""

import json
import os
import re
import shutil
import subprocess
import sys

PROFRUN = os.environ.get("PROFRUN", "profrun")
MAN_PAGE = os.environ.get("MAN_PAGE", "")
COMPLETION = os.environ.get("COMPLETION", "")
SOURCE_ROOT = os.environ.get("SOURCE_ROOT", ".")
BUILD_ROOT = os.environ.get("BUILD_ROOT", "")
BASH_COMPLETION = os.environ.get(
    "BASH_COMPLETION_SCRIPT", "/usr/share/bash-completion/bash_completion")

# Variables the man page documents that libraries read on profrun's behalf.
READ_BY_LIBRARIES = {"DEBUGINFOD_URLS"}
# Every format name one of the --format options could take.
ALL_FORMATS = {"text", "json", "csv", "markdown", "gmon", "pprof", "html"}
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e import Failure, Skip, expect  # noqa: E402,F401  (the runner's)
import e2e  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def expect_same(what, got, want):
    """Two collections with the same members, or a message naming the
    members each lacks."""
    got, want = set(got), set(want)
    if got != want:
        raise Failure(f"{what}: missing {sorted(want - got)}, unexpected {sorted(got - want)}")


# ---------------------------------------------------------------- --help

def help_text(sub=""):
    cp = subprocess.run([PROFRUN] + ([sub] if sub else []) + ["--help"],
                        capture_output=True, text=True, timeout=30)
    expect(cp.returncode == 0, f"profrun {sub} --help exited {cp.returncode}")
    return cp.stdout


# An option line of a --help: the option at most 8 columns in, its tag
# ("-o, --output PATH") ending at two spaces.
HELP_OPTION = re.compile(r"^ {2,8}(-\S.*?)(?: {2,}|$)")


def help_tags(text):
    return [m.group(1).strip() for m in map(HELP_OPTION.match, text.splitlines()) if m]


def help_options(text):
    """The option words of a --help: -o, --output, --color= ..."""
    words = []
    for tag in help_tags(text):
        for word in tag.replace(",", " ").split():
            if word.startswith("-"):
                words.append(word.split("=")[0] + "=" if "=" in word else word)
    return words


def help_subcommands(text):
    block = text.split("\nSubcommands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.startswith("  ")]


def help_exit_codes(text):
    tail = text[text.index("Exit status"):]
    return set(re.findall(r"\b\d+\b", tail.split("\n\n", 1)[0]))


def help_option_text(text, option):
    """The description of OPTION in a --help, its continuation lines
    included."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = HELP_OPTION.match(line)
        if m and option in m.group(1).replace(",", " ").split("=")[0].split():
            out = [line[m.end():]]
            for more in lines[i + 1:]:
                if HELP_OPTION.match(more) or not more.startswith("   "):
                    break
                out.append(more)
            return "\n".join(out)
    raise Failure(f"--help has no {option}")


def help_report_formats(text):
    """The table of formats under report's --format."""
    return re.findall(r"^ {24}([a-z]+) {2,}", text, re.M)


# ---------------------------------------------------------------- the page

def roff_text(line):
    """A line of roff source as plain text: fonts and escapes dropped."""
    line = re.sub(r"^\.(B|I|R|BR|RB|IR|RI|BI|IB|SY)\s+", "", line)
    line = re.sub(r"\\f[BIRP]", "", line)
    line = line.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    line = line.replace("\\(lq", '"').replace("\\(rq", '"')
    return line.replace('"', "").strip()


def man_sections():
    """{(SH, SS): [lines]} of the page; SS is "" before the first .SS."""
    with open(MAN_PAGE) as f:
        source = f.read().splitlines()
    sections, key = {}, ("", "")
    for line in source:
        if line.startswith(".SH "):
            key = (roff_text(line[4:]), "")
        elif line.startswith(".SS "):
            key = (key[0], roff_text(line[4:]))
        sections.setdefault(key, []).append(line)
    return sections


def man_tags(lines, depth=0):
    """The tags of .TP/.TQ paragraphs at indentation DEPTH (.RS/.RE)."""
    tags, level, tag_next = [], 0, False
    for line in lines:
        if tag_next and level == depth:
            tags.append(roff_text(line))
        tag_next = False
        if line.startswith(".RS"):
            level += 1
        elif line.startswith(".RE"):
            level -= 1
        elif re.match(r"\.(TP|TQ)\b", line):
            tag_next = True
    return tags


def man_commands(sections):
    """{subcommand: lines} from the COMMANDS section's .SS "profrun X ..."."""
    out = {}
    for (sh, ss), lines in sections.items():
        if sh == "COMMANDS" and ss.startswith("profrun "):
            out[ss.split()[1]] = lines
    return out


# Lines that are only a macro, with no text (.TP 5, .PP, .RS ...).
LAYOUT = re.compile(r'^\.(\\"|TP|TQ|PP|P|LP|IP|RS|RE|SH|SS|TH|YS|EX|EE|nh|ad)\b')


def text_of(lines):
    return " ".join(roff_text(l) for l in lines if not LAYOUT.match(l))


# ---------------------------------------------------------------- the code

def variables_read():
    """Environment variables profrun and the shim read: getenv literals
    and the shim's PROFRUN_* table."""
    names = set()
    for top in ("cli", "preload"):
        for d, _, files in os.walk(os.path.join(SOURCE_ROOT, top)):
            for name in files:
                if not name.endswith((".c", ".h")):
                    continue
                with open(os.path.join(d, name)) as f:
                    src = f.read()
                names.update(re.findall(r'getenv\s*\(\s*"([A-Za-z_0-9]+)"', src))
                names.update(re.findall(r'"(PROFRUN_[A-Z_0-9]+)"', src))
    return names


# ---------------------------------------------------------------- cases

@case
def man_page_agrees_with_every_help(tmp):
    """Each --help's options are the page's option tags for that command,
    and the reverse; the same for the subcommands, the exit codes, report's
    formats; and every environment variable the code reads is documented."""
    sections = man_sections()
    commands = man_commands(sections)
    top = help_text()
    subs = help_subcommands(top)
    expect_same("subcommands of the page's COMMANDS vs profrun --help", commands, subs)
    synopsis = text_of(sections.get(("SYNOPSIS", ""), []))
    for sub in subs:
        expect(f"profrun {sub}" in synopsis, f"SYNOPSIS lacks profrun {sub}")

    run_lines = sections.get(("OPTIONS", ""), [])
    expect_same("options of a run: OPTIONS vs profrun --help", man_tags(run_lines), help_tags(top))
    status = sections.get(("EXIT STATUS", ""), [])
    run_status = status[:next((i for i, l in enumerate(status) if l == ".PP"), len(status))]
    expect_same("exit codes of a run: EXIT STATUS vs profrun --help",
                re.findall(r"\b\d+\b", text_of(run_status)),
                help_exit_codes(top))

    for sub in subs:
        text = help_text(sub)
        lines = commands[sub]
        expect_same(f"options of profrun {sub}: the page vs --help", man_tags(lines), help_tags(text))
        prose = text_of(lines)
        expect("Exit status:" in prose, f"profrun {sub}: the page gives no exit status")
        expect_same(f"exit codes of profrun {sub}: the page vs --help",
                    re.findall(r"\b\d+\b", prose[prose.index("Exit status:"):]),
                    help_exit_codes(text))

    expect(help_report_formats(help_text("report")) == man_tags(commands["report"], 1),
           f"formats of profrun report: the page lists {man_tags(commands['report'], 1)}, "
           f"--help {help_report_formats(help_text('report'))}")

    documented = set(man_tags(sections.get(("ENVIRONMENT", ""), [])))
    read = variables_read()
    expect_same("ENVIRONMENT vs the variables the code reads (and libdwfl's)",
                documented, read | (documented & READ_BY_LIBRARIES))


@case
def man_page_renders_without_warnings(tmp):
    """`man --warnings` renders the page as lintian does, with nothing on
    stderr, and the rendering has every section."""
    man = shutil.which("man")
    if not man:
        raise Skip("man (man-db) is not installed")
    env = dict(os.environ, MANWIDTH="80", MANROFFSEQ="", LC_ALL="C.UTF-8")
    cp = subprocess.run([man, "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", MAN_PAGE],
                        capture_output=True, text=True, env=env, timeout=60)
    expect(cp.returncode == 0 and cp.stderr == "",
           f"man --warnings exited {cp.returncode}: {cp.stderr.strip()}")
    cp = subprocess.run([man, "-l", MAN_PAGE], capture_output=True, text=True,
                        env=dict(env, MANPAGER="cat", PAGER="cat"), timeout=60)
    for title in ("NAME", "SYNOPSIS", "OPTIONS", "COMMANDS", "EXIT STATUS",
                  "ENVIRONMENT", "FILES"):
        expect(f"\n{title}\n" in cp.stdout, f"the rendered page lacks {title}")
    expect("@" not in re.sub(r"\S+@\S+", "", cp.stdout),
           "the rendered page has an unsubstituted @VARIABLE@")


# Completes LINE (argv[1]) as bash would on TAB at its end: words split at
# blanks, an empty last word when LINE ends with one.
COMPLETE = r'''
. "$BASH_COMPLETION" || exit 3
. "$COMPLETION" || exit 3
compopt() { :; }   # only valid inside a real completion
line=$1
read -ra COMP_WORDS <<<"$line"
[[ $line == *' ' || -z $line ]] && COMP_WORDS+=("")
COMP_LINE=$line COMP_POINT=${#line} COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_profrun
printf '%s\n' "${COMPREPLY[@]}"
'''


def completer(tmp):
    if not shutil.which("bash") or not os.path.exists(BASH_COMPLETION):
        raise Skip(f"bash or {BASH_COMPLETION} is not installed")
    bindir = os.path.join(tmp, "bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(PROFRUN), os.path.join(bindir, "profrun"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"),
               BASH_COMPLETION=BASH_COMPLETION, COMPLETION=os.path.abspath(COMPLETION))

    def complete(line, cwd=None):
        cp = subprocess.run(["bash", "--norc", "--noprofile", "-c", COMPLETE, "complete", line],
                            capture_output=True, text=True, env=env, cwd=cwd or tmp, timeout=60)
        expect(cp.returncode == 0 and cp.stderr == "",
               f"completing {line!r} exited {cp.returncode}: {cp.stderr.strip()}")
        return [w for w in cp.stdout.splitlines() if w]
    return complete


@case
def bash_completion_offers_subcommands_options_and_formats(tmp):
    """TAB after profrun offers every subcommand; after a dash, exactly the
    options of that command's --help; after --format, its formats; in
    PROFILE place, profiles (*.prof directories and files); after a
    program, that program's own completion, not profrun's options."""
    complete = completer(tmp)
    top = help_text()
    subs = help_subcommands(top)
    first = complete("profrun ")
    expect(set(subs) <= set(first), f"profrun <TAB> lacks subcommands {sorted(set(subs) - set(first))}")
    for sub in subs:
        expect(sub in complete(f"profrun {sub[:2]}"), f"profrun {sub[:2]}<TAB> does not offer {sub}")

    expect_same("profrun -<TAB>", complete("profrun -"), help_options(top))
    for sub in subs:
        expect_same(f"profrun {sub} -<TAB>", complete(f"profrun {sub} -"),
                    help_options(help_text(sub)))

    expect(complete("profrun report --format ") == help_report_formats(help_text("report")),
           "profrun report --format <TAB> is not the formats of report --help")
    for sub in ("", "diff"):
        described = set(re.findall(r"[a-z]+", help_option_text(help_text(sub), "--format")))
        expect_same(f"profrun {sub} --format <TAB>".replace("  ", " "),
                    complete(f"profrun {sub} --format ".replace("  ", " ")),
                    described & ALL_FORMATS)
    fail_on = help_option_text(help_text("diff"), "--fail-on")
    offered = complete("profrun diff --fail-on ")
    expect(offered and all(re.search(rf"\b{w}\b", fail_on) for w in offered),
           f"profrun diff --fail-on <TAB> offers {offered}, not the values of --help")
    color = help_option_text(help_text("annotate"), "--color")
    offered = complete("profrun annotate --color=")
    expect(offered and all(re.search(rf"\b{w}\b", color) for w in offered),
           f"profrun annotate --color=<TAB> offers {offered}, not the values of --help")

    work = os.path.join(tmp, "work")
    os.makedirs(os.path.join(work, "app.prof"))
    for name in ("4242.prof", "notes.txt", "base.json"):
        open(os.path.join(work, name), "w").close()
    got = set(complete("profrun report ", cwd=work))
    expect({"app.prof", "4242.prof"} <= got and "notes.txt" not in got,
           f"profrun report <TAB> offers {sorted(got)}")
    got = set(complete("profrun diff ", cwd=work))
    expect({"app.prof", "base.json"} <= got and "notes.txt" not in got,
           f"profrun diff <TAB> offers {sorted(got)}")

    expect("true" in complete("profrun -q -o x.prof -- tru"), "no program after --")
    expect("true" in complete("profrun -F 100 tru"), "no program after the options")
    for tag in help_tags(top):
        words = tag.replace(",", " ").split()
        if "=" in tag or words[-1].startswith("-"):
            continue  # takes no separate argument
        for option in words[:-1]:
            expect("--quiet" in complete(f"profrun {option} x -"),
                   f"profrun {option} x -<TAB>: the argument of {option} taken for the program")
    after = complete("profrun ./prog --f", cwd=work)
    expect("--format" not in after and "--freq" not in after,
           f"profrun's options offered for the program's arguments: {after}")


@case
def install_puts_each_file_where_it_is_looked_for(tmp):
    """meson's install plan: the man page under MANDIR/man1, the completion
    where bash-completion looks, profrun.pc under DATADIR/pkgconfig giving
    -I for INCLUDEDIR, the header there when the tree has one, the
    page naming the shim's installed path, and the musl shim beside the
    glibc one when musl-gcc is there."""
    if not BUILD_ROOT or not shutil.which("meson"):
        raise Skip("meson or BUILD_ROOT not available")
    cp = subprocess.run(["meson", "introspect", "--installed", "--buildoptions", BUILD_ROOT],
                        capture_output=True, text=True, timeout=60)
    expect(cp.returncode == 0, f"meson introspect: {cp.stderr.strip()}")
    intro = json.loads(cp.stdout)
    options = {o["name"]: o["value"] for o in intro["buildoptions"]}
    installed = intro["installed"]
    prefix = options["prefix"]

    def under(opt, *parts):
        return os.path.join(prefix, options[opt], *parts)

    dest = {os.path.basename(src): dst for src, dst in installed.items()}
    expect(dest.get("profrun") == under("bindir", "profrun"), f"profrun goes to {dest.get('profrun')}")
    expect(dest.get("profrun.1") == under("mandir", "man1", "profrun.1"),
           f"profrun.1 goes to {dest.get('profrun.1')}")
    shim = dest.get("libprofrun.so", "")
    expect(shim.startswith(under("libdir", "profrun") + "/"), f"the shim goes to {shim}")
    with open(MAN_PAGE) as f:
        expect(shim in f.read(), f"the page does not name the installed shim {shim}")
    # the musl shim, where musl-gcc builds it, beside the glibc one: the CLI
    # and the shim look for it there
    if shutil.which("musl-gcc") and options.get("musl") != "disabled":
        musl = dest.get("libprofrun-musl.so", "")
        expect(musl == os.path.join(os.path.dirname(shim), "libprofrun-musl.so"),
               f"the musl shim goes to {musl!r}, not beside {shim}")

    comp = dest.get("profrun.bash", "")
    wanted = options["bash_completion_dir"]
    if not wanted:
        pc = subprocess.run(["pkg-config", "--variable=completionsdir",
                             f"--define-variable=datadir={under('datadir')}", "bash-completion"],
                            capture_output=True, text=True)
        wanted = pc.stdout.strip() if pc.returncode == 0 else under("datadir", "bash-completion",
                                                                        "completions")
    expect(comp == os.path.join(prefix, wanted, "profrun"), f"the completion goes to {comp}, not {wanted}")

    pcfile = [s for s in installed if s.endswith("/profrun.pc")]
    expect(len(pcfile) == 1 and installed[pcfile[0]] == under("datadir", "pkgconfig", "profrun.pc"),
           f"profrun.pc goes to {[installed[s] for s in pcfile]}")
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcfile[0]),
               PKG_CONFIG_ALLOW_SYSTEM_CFLAGS="1")
    for flag, want in (("--cflags", f"-I{under('includedir')}"), ("--libs", "")):
        cp = subprocess.run(["pkg-config", flag, "profrun"], capture_output=True, text=True, env=env)
        expect(cp.returncode == 0 and cp.stdout.strip() == want,
               f"pkg-config {flag} profrun gives {cp.stdout.strip()!r} ({cp.stderr.strip()}), not {want!r}")
    if os.path.exists(os.path.join(SOURCE_ROOT, "include", "profrun", "profrun.h")):
        expect(under("includedir", "profrun", "profrun.h") in installed.values(),
               "include/profrun/profrun.h is not installed as <profrun/profrun.h>")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "install.py"))
