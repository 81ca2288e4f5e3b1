"""Options every command takes: -q/--quiet and -v/--verbose (genreport.terminal's level, set by the CLI)."""

from __future__ import annotations

import argparse

from genreport.terminal import NORMAL, QUIET, VERBOSE

FLAGS = {"-q": QUIET, "--quiet": QUIET, "-v": VERBOSE, "--verbose": VERBOSE}


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
