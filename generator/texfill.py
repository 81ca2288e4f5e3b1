"""Filling a formula's printed LaTeX: the placeholders SymPy's printer leaves for the arguments
(``\\mathit{v0}``, ``\\mathit{v1}``, ...), replaced by each argument's symbol or by a formatted value.

Shared by the formulas (``formulas.compiled.render_latex``, with the glossary's symbols) and the render stage
(with the symbols the report model gives), so presentation needs neither SymPy nor the formulas.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PLACEHOLDER = re.compile(r"\\mathit\{v(\d+)\}")


def fill(template: str, args: tuple[str, ...], symbols: Mapping[str, str], values: Mapping[str, str] | None = None) -> str:
    """``template`` with argument i as ``values[name]`` when given, else ``symbols[name]``; a product of symbols
    reads as juxtaposition, a product of numbers with a times sign."""

    def sub(m: re.Match) -> str:
        name = args[int(m.group(1))]
        if values is not None and name in values:
            value = values[name]
            # a number in scientific form or negative, raised to a power: bracketed, or "1 \times 10^{-4}^{2}" is a
            # double superscript (no formula reads it; latex2mathml refuses it) and "-2^{2}" reads as -(2^2)
            if m.string.startswith("^", m.end()) and (" " in value or value.startswith("-")):
                return rf"\left({value}\right)"
            return value
        return symbols[name]

    text = PLACEHOLDER.sub(sub, template)
    return text.replace(r" \cdot ", r" \, " if values is None else r" \times ")
