"""Options every command takes: -q/--quiet and -v/--verbose (genreport.terminal's level, set by the CLI)."""

from __future__ import annotations

import argparse

from genreport.terminal import NORMAL, QUIET, VERBOSE

FLAGS = {"-q": QUIET, "--quiet": QUIET, "-v": VERBOSE, "--verbose": VERBOSE}


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose error for an option it does not know names the closest it does ("--kv fp8": did you
    mean --kv-cache?), as the commands and the spec keys do for their words.  Every command's parser is one."""

    def error(self, message: str):  # noqa: D401 - argparse's hook; exits as argparse does
        if message.startswith("unrecognized arguments:"):
            import difflib

            known = [o for o in self._option_string_actions if o.startswith("--")]
            hints = []
            for word in message.split(":", 1)[1].split():
                option = word.split("=", 1)[0]
                if not option.startswith("--"):
                    continue
                # a prefix of a longer option (abbreviations are refused) is the likeliest slip, else a near spelling
                prefixed = [o for o in known if o.startswith(option)]
                pick = prefixed if len(prefixed) == 1 else difflib.get_close_matches(option, known, n=1, cutoff=0.6)
                if pick:
                    hints.append(f"{option}: did you mean {pick[0]}?")
            if hints:
                message = f"{message} ({'; '.join(hints)})"
        super().error(message)


def add_verbosity(p: argparse.ArgumentParser) -> None:
    """-q/--quiet (errors only) and -v/--verbose (also what was read and how long it took), one or the other."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", help="print only errors (and the data asked for)")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="also print what was read and how long each step took")


def level_of(argv: list[str]) -> int:
    """The verbosity the words ask for (the last of -q / -v wins; nothing after '--' counts)."""
    level = NORMAL
    for a in argv:
        if a == "--":
            break
        level = FLAGS.get(a, level)
    return level
