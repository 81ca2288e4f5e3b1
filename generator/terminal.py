"""Text from outside (spec titles, quantity strings, results.json, file names) made safe for a terminal.

A spec title such as ``"\\e]0;owned\\a"`` or a unit string holding ``\\e[2J`` would, printed raw, retitle
or clear the user's terminal, hide earlier lines, or (with bidirectional overrides) make text read
differently from what it is.  :func:`safe` shows every such character escaped instead, as Python
writes it (``\\x1b``, ``\\u202e``).  Every message and table that can hold user text goes through it.

>>> safe("H100 \\x1b[31mred\\x1b[0m")
'H100 \\\\x1b[31mred\\\\x1b[0m'
>>> safe("two\\nlines", newlines=True)
'two\\nlines'
>>> safe("two\\nlines")
'two\\\\nlines'
"""

from __future__ import annotations

import re
import sys

# C0 controls (but tab), DEL, C1 controls, and the Unicode characters that reorder or hide text:
# line/paragraph separators, bidirectional marks, embeddings, overrides and isolates.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEP_NL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match) -> str:
    c = m.group(0)
    return {"\n": "\\n", "\r": "\\r"}.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def safe(text: object, newlines: bool = False) -> str:
    """``text`` with control and reordering characters escaped; ``newlines=True`` keeps line breaks."""
    s = str(text)
    return (_UNSAFE_KEEP_NL if newlines else _UNSAFE).sub(_escape, s)


# ----------------------------------------------------------------------------------------------- verbosity

QUIET, NORMAL, VERBOSE = 0, 1, 2
_level = [NORMAL]  # set by the command line's -q / -v (genreport.commands.cli), for every command alike


def set_verbosity(level: int) -> None:
    _level[0] = level


def verbosity() -> int:
    return _level[0]


def note(text: object) -> None:
    """An informational line on standard error (what was assumed, what was written): not with --quiet."""
    if _level[0] >= NORMAL:
        print(safe(text), file=sys.stderr)


def detail(text: object) -> None:
    """A line only --verbose shows: what was read, how long it took."""
    if _level[0] >= VERBOSE:
        print(safe(text), file=sys.stderr)


_progress_shown = [False]


def progress(text: object) -> None:
    """One line on a terminal that rewrites itself (builds and searches past about a second); nothing when
    standard error is not a terminal or with --quiet."""
    if _level[0] < NORMAL or not sys.stderr.isatty():
        return
    sys.stderr.write("\r\x1b[K" + safe(text)[:200])
    sys.stderr.flush()
    _progress_shown[0] = True


def progress_done() -> None:
    """Erase the progress line, if one is shown."""
    if _progress_shown[0]:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
        _progress_shown[0] = False
