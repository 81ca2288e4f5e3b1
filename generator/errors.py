"""Findings about specs: each names a file, a line, a path in the spec, what is wrong and the fix."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from genreport.terminal import safe


@dataclass(frozen=True, order=True)
class Finding:
    file: str  # a file, or a command-line argument (line 0: it has no lines)
    line: int
    col: int
    path: str
    message: str
    hint: str = ""
    severity: str = "error"  # "error" or "warning"

    def format(self) -> str:
        """One line for a terminal: user text in it (a title, a quantity string) has its control characters
        escaped (see :mod:`genreport.terminal`)."""
        # a file's line and column; an argument ("--set x=1", "--at B=0") has none to give, and is cut where a
        # hostile one is long (a 5,000-character --set was echoed whole on each of its findings), as quoted values
        where = f"{self.file}:{self.line}:{self.col}:" if self.line else f"{_cut(self.file, _LONGEST_ARGUMENT)}:"
        label = "" if self.severity == "error" else "warning: "
        path = f" {self.path}:" if self.path else ""
        text = f"{where}{path} {label}{_echoed(self.message)}"
        if self.hint:
            text += f" (hint: {_echoed(self.hint)})"
        return safe(text)


_LONGEST = 100  # characters of a quoted value or a bare number a finding echoes
_LONGEST_ARGUMENT = 300  # ... of a command-line argument it names (a --set with a long path stays whole)
# a quoted value with no space or slash in it (never a file's name, nor the words between two quoted values) or a bare
# number, of more than _LONGEST characters
_QUOTED = re.compile(r"'([^'\s/]{" + str(_LONGEST + 1) + r",})'")
_NUMBER = re.compile(r"(?<![\w/.])[0-9][0-9.eE+-]{" + str(_LONGEST) + r",}")


def _cut(text: str, longest: int = _LONGEST) -> str:
    """``text`` as a finding echoes it: whole up to ``longest`` characters, else its start, '...' and its length."""
    return text if len(text) <= longest else f"{text[:longest - 20]}... ({len(text):,} characters)"


def _echoed(text: str) -> str:
    """A finding's message or hint with each long quoted value and bare number cut (:func:`_cut`)."""
    return _NUMBER.sub(lambda m: _cut(m.group(0)), _QUOTED.sub(lambda m: f"'{_cut(m.group(1))}'", text))


class SpecError(Exception):
    """Raised with every finding once a pass has found errors; never for a single first error."""

    def __init__(self, findings: list[Finding]):
        self.findings = sorted(findings, key=lambda f: (f.file, f.line, f.col, f.message))
        super().__init__("\n".join(f.format() for f in self.findings))


class BuildError(Exception):
    """A failure outside the specs (output folder, renderer); the message says what to do."""


@dataclass
class Findings:
    """A collector: add findings during a pass, then `raise_if_errors()` once."""

    items: list[Finding] = field(default_factory=list)

    def add(self, finding: Finding) -> None:
        if finding not in self.items:
            self.items.append(finding)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.items if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.items if f.severity == "warning"]

    def raise_if_errors(self, strict: bool = False) -> None:
        bad = self.items if strict else self.errors
        if bad:
            raise SpecError([
                f if f.severity == "error" else Finding(**{**f.__dict__, "severity": "error"}) for f in bad
            ])
