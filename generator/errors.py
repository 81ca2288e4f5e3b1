"""Findings about specs: each names a file, a line, a path in the spec, what is wrong and the fix."""

from __future__ import annotations

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
        # a file's line and column; an argument ("--set x=1", "--at B=0") has none to give
        where = f"{self.file}:{self.line}:{self.col}:" if self.line else f"{self.file}:"
        label = "" if self.severity == "error" else "warning: "
        path = f" {self.path}:" if self.path else ""
        text = f"{where}{path} {label}{self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return safe(text)


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
