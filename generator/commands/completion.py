"""``genreport completion bash|zsh|fish``: shell completion for commands, options, catalog names and spec paths.

The script printed asks genreport itself for the candidates at each Tab (``genreport __complete``), so it knows
every command's options as the parsers declare them (one source: the argparse parsers), the catalog's GPU and
model names (with a project's own ``specs/hardware`` and ``specs/models``), the quantity ids of ``derive`` and
the files a word can name (report specs, results folders, claims CSVs, configs).  Install it once:

    genreport completion bash > ~/.local/share/bash-completion/completions/genreport
    genreport completion zsh > "${fpath[1]}/_genreport"         (or: source <(genreport completion zsh))
    genreport completion fish > ~/.config/fish/completions/genreport.fish
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
from pathlib import Path

from genreport.commands.options import Parser, add_verbosity

SHELLS = ("bash", "zsh", "fish")

BASH = r'''# genreport completion for bash (genreport completion bash)
_genreport() {
    local cur="${COMP_WORDS[COMP_CWORD]}" c
    COMPREPLY=()
    # one candidate a line, each quoted as the shell reads it where it must be ('my spec.yaml', 'a[1].yaml')
    while IFS= read -r c; do
        [[ $c == *[!A-Za-z0-9._/,:=@%+-]* ]] && printf -v c '%q' "$c"
        COMPREPLY+=("$c")
    done < <(genreport __complete -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null)
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then compopt -o nospace 2>/dev/null; fi
}
complete -F _genreport genreport
'''

ZSH = r'''#compdef genreport
# genreport completion for zsh (genreport completion zsh)
_genreport() {
    local -a candidates
    candidates=("${(@f)$(genreport __complete -- "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
    local -a dirs plain
    dirs=(${(M)candidates:#*/})
    plain=(${candidates:#*/})
    (( ${#plain} )) && compadd -- "${plain[@]}"
    (( ${#dirs} )) && compadd -S '' -- "${dirs[@]}"
}
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then _genreport "$@"; else compdef _genreport genreport; fi
'''

FISH = r'''# genreport completion for fish (genreport completion fish)
function __genreport_complete
    set -l words (commandline -opc)
    set -e words[1]
    genreport __complete -- $words (commandline -ct) 2>/dev/null
end
complete -c genreport -f -a '(__genreport_complete)'
'''


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="genreport completion", allow_abbrev=False,
               description=__doc__.split("\n\n")[0],
               epilog="e.g. genreport completion bash > ~/.local/share/bash-completion/completions/genreport")
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    add_verbosity(p)
    return p


def main(argv: list[str]) -> int:
    if argv[:1] == ["__complete"]:  # what the scripts call: genreport __complete -- WORDS... CURRENT
        words = argv[1:]
        if words[:1] == ["--"]:
            words = words[1:]
        words = [_dequoted(w) for w in words]  # as typed: my\ spec, 'my spec (the shell hands the word over raw)
        current = words[-1] if words else ""
        for c in candidates(words[:-1], current):
            print(c)
        return 0
    args = _parser().parse_args(argv)
    sys.stdout.write({"bash": BASH, "zsh": ZSH, "fish": FISH}[args.shell])
    return 0


def _dequoted(word: str) -> str:
    """A word as the shell will read it, from its text typed so far: ``my\\ s``, ``'my s`` and ``"my s`` are
    ``my s`` (a quote may be open: the word is being typed); the word itself where it is no one word."""
    for close in ("", "'", '"'):
        try:
            parts = shlex.split(word + close)
        except ValueError:
            continue
        return parts[0] if len(parts) == 1 else word
    return word


# ---------------------------------------------------------------------------------------------- candidates

def _command_parser(command: str | None) -> argparse.ArgumentParser:
    from genreport.commands import cli

    if command is None:
        return cli._build_parser()
    mod = importlib.import_module(cli.SUBCOMMANDS[command])
    if hasattr(mod, "_parser"):
        return mod._parser()
    return mod.parser()


def _catalog(kind: str) -> list[str]:
    """Catalog names of GPUs ('hardware') or models ('models'), the project's own folder first."""
    from genreport.paths import specs_dir

    names = set()
    for base in (Path.cwd() / "specs", specs_dir()):
        folder = base / kind
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.yaml"))
    return sorted(names)


def _paths(current: str, suffixes: tuple[str, ...], folders_only: bool = False) -> list[str]:
    """Files under the word typed so far with one of ``suffixes`` (any file when empty), and folders (with '/')."""
    head, _, tail = current.rpartition("/")
    base = Path(head or ".") if head or not current.startswith("/") else Path("/")
    if current.startswith("/") and not head:
        base, tail = Path("/"), current[1:]
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    prefix = f"{head}/" if head or current.startswith("/") else ""
    for e in entries:
        if not e.name.startswith(tail) or (e.name.startswith(".") and not tail.startswith(".")):
            continue
        try:
            is_dir = e.is_dir()
        except OSError:
            continue
        if is_dir:
            out.append(f"{prefix}{e.name}/")
        elif not folders_only and (not suffixes or e.name.endswith(suffixes)):
            out.append(f"{prefix}{e.name}")
    return out


def _values(action: argparse.Action, current: str, command: str | None) -> list[str]:
    """What the value of an option or a positional argument can be."""
    if action.choices:
        return [str(c) for c in action.choices]
    dest, meta = action.dest, str(action.metavar or "")
    if dest in ("hardware", "compare_hardware") or meta == "GPU":
        done, _, last = current.rpartition(",")  # a comma-separated list: complete its last name
        return [f"{done},{n}" if done else n for n in _catalog("hardware") if n.startswith(last)]
    if dest in ("model", "models"):
        done, _, last = current.rpartition(",")
        names = [f"{done},{n}" if done else n for n in _catalog("models") if n.startswith(last)]
        return names + ([] if done else _paths(current, (".yaml", ".yml")))
    if dest == "quantity":
        from genreport.commands.derive import quantity_ids

        return quantity_ids()
    if dest == "format" and command == "audit":  # a format its parser checks itself (no argparse choices)
        from genreport.commands.audit import FORMATS

        return list(FORMATS)
    if dest == "precision" and command == "sweep":  # a comma-separated list of formats: complete its last
        from genreport.load.spec import PRECISION_BYTES, WEIGHT_FORMAT_BYTES

        done, _, last = current.rpartition(",")
        formats = sorted(set(PRECISION_BYTES) | set(WEIGHT_FORMAT_BYTES))
        return [f"{done},{n}" if done else n for n in formats if n.startswith(last)]
    if dest == "overrides":  # --set hardware=NAME, model=NAME: the catalog's names, as the help promises
        for key, kind in (("hardware=", "hardware"), ("model=", "models")):
            if current.startswith(key):
                return [key + n for n in _catalog(kind) if n.startswith(current[len(key):])]
        return [k for k in ("hardware=", "model=") if k.startswith(current)]
    if dest in ("specs", "spec") or meta.startswith("SPEC"):
        return _paths(current, (".yaml", ".yml"))
    if dest in ("out", "output") and command in (None, "sweep"):
        return _paths(current, (), folders_only=True)
    if meta.endswith(".csv"):
        return _paths(current, (".csv",))
    if meta.endswith(".json") or dest in ("old", "new"):
        return _paths(current, (".json",))
    if dest in ("output",):
        return _paths(current, (".yaml", ".yml"))
    return []


def candidates(words: list[str], current: str) -> list[str]:
    """Completions of ``current`` after the words before it (those after 'genreport')."""
    from genreport.commands.cli import SUBCOMMANDS

    commands = [c for c in SUBCOMMANDS if not c.startswith("_")]
    command = words[0] if words and words[0] in commands else None
    rest = words[1:] if command else words
    parser = _command_parser(command)
    options = {s: a for a in parser._actions for s in a.option_strings}
    # bash splits 'hardware=h1' at '=' (COMP_WORDBREAKS): the option's value is the words since the option, joined;
    # the shell replaces only the last word, so the candidates lose what came before it
    for cut in (2, 1):  # [--set, hardware, =] + 'h1', or [--set, hardware] + '='
        head = rest[-cut - 1:-cut] if len(rest) > cut else []
        if head and head[0] in options and options[head[0]].nargs != 0 and (rest[-1] == "=" or current == "=") \
                and "=" not in rest[-cut]:
            joined = "".join(rest[-cut:]) + current
            keep = len(joined) - len(current)
            return [c[keep:] for c in _values(options[head[0]], joined, command) if c.startswith(joined)]
    if rest and rest[-1] in options and options[rest[-1]].nargs != 0:  # the value of an option
        out = _values(options[rest[-1]], current, command)
    elif current.startswith("-"):
        out = sorted(s for s in options if s.startswith("--") or len(options[s].option_strings) == 1)
    else:
        positional = [a for a in parser._actions if not a.option_strings]
        taken, skip = 0, False
        for w in rest:  # how many positional words came before this one
            if skip:
                skip = False
            elif w in options:
                skip = options[w].nargs != 0
            elif not w.startswith("-"):
                taken += 1
        action = None
        for a in positional:
            if a.nargs in ("+", "*") or taken == 0:
                action = a
                break
            taken -= 1
        out = _values(action, current, command) if action is not None else []
        if command is None and not words:  # the first word: a command, or a spec
            out = [c for c in commands if c.startswith(current)] + out + [
                n for n in _builtin_reports() if n.startswith(current) and not current.count("/")]
    return [c for c in dict.fromkeys(out) if c.startswith(current) or "," in current]


def _builtin_reports() -> list[str]:
    from genreport.paths import specs_dir

    return sorted(p.stem for p in specs_dir().glob("*.yaml"))


def split_line(line: str) -> tuple[list[str], str]:
    """A command line as typed so far, split into the words before the current one and the current one."""
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    if line.endswith(" "):
        return words[1:], ""
    return words[1:-1], (words[-1] if len(words) > 1 else "")
