"""Quantities with units, parsed once at load into SI floats.

Three base dimensions are tracked: information (byte), computation (FLOP) and
time (second).  Everything else is a product of powers of those, so a bandwidth
given in TFLOP/s is caught as a dimension error instead of silently accepted.

Decimal prefixes are powers of 1000 (``GB = 1e9 B``), binary prefixes powers of
1024 (``GiB = 2**30 B``), as the seeds require.

>>> parse("3.35 TB/s").value
3350000000000.0
>>> parse("80 GiB").value
85899345920.0
>>> parse("989.4 TFLOP/s").dim == RATE_FLOP
True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal

# Dimension vectors: (byte, FLOP, second) exponents.
Dim = tuple[int, int, int]
BYTES: Dim = (1, 0, 0)
FLOPS_COUNT: Dim = (0, 1, 0)
SECONDS: Dim = (0, 0, 1)
RATE_BYTES: Dim = (1, 0, -1)
RATE_FLOP: Dim = (0, 1, -1)
DIMENSIONLESS: Dim = (0, 0, 0)

DIM_NAMES = {
    BYTES: ("a size", "B", '"80 GiB"'),
    RATE_BYTES: ("a bandwidth", "B/s", '"3.35 TB/s"'),
    RATE_FLOP: ("a compute rate", "FLOP/s", '"989.4 TFLOP/s"'),
    FLOPS_COUNT: ("an amount of work", "FLOP", '"16.06 GFLOP"'),
    SECONDS: ("a time", "s", '"4.79 ms"'),
    DIMENSIONLESS: ("a plain number", "", "4096"),
}

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}

# base unit name -> (scale, dimension)
_BASE: dict[str, tuple[float, Dim]] = {
    "B": (1.0, BYTES),
    "byte": (1.0, BYTES),
    "bytes": (1.0, BYTES),
    "bit": (0.125, BYTES),
    "bits": (0.125, BYTES),
    "FLOP": (1.0, FLOPS_COUNT),
    "FLOPs": (1.0, FLOPS_COUNT),
    "OP": (1.0, FLOPS_COUNT),
    "OPs": (1.0, FLOPS_COUNT),
    # "FLOPS" and "OPS" (capital S) are rates, as on datasheets.
    "FLOPS": (1.0, RATE_FLOP),
    "OPS": (1.0, RATE_FLOP),
    "TOPS": (1e12, RATE_FLOP),
}

# inf and nan in any case, spelled out: under re.IGNORECASE 'i' also matches 'ı' and 'İ', which float() rejects.
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:[iI][nN][fF]|[nN][aA][nN])"
_QTY = re.compile(rf"^\s*(?P<num>{_NUMBER})\s*(?P<unit>[^\s].*?)?\s*$")


MAX_CHARS = 100  # a quantity is a number and a unit: '3.35 TB/s'
# a number's product with a unit's scale, exact (at most 100 digits times 17) and never trapping: '1e999999 TB/s' is
# inf, as the float product read it, not decimal.Overflow
_EXACT = Context(prec=256, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])


class UnitError(ValueError):
    """A quantity string that cannot be parsed; the message says how to write it."""


@dataclass(frozen=True)
class Quantity:
    value: float  # SI: bytes, FLOP, seconds and their ratios
    dim: Dim
    text: str

    def __float__(self) -> float:
        return self.value


def _unit_factor(token: str) -> tuple[float, Dim]:
    """Scale and dimension of one unit token such as ``TB``, ``GiB``, ``TFLOP``, ``ms``."""
    if token in _TIME:
        return _TIME[token], SECONDS
    if token in _BASE:
        return _BASE[token]
    for prefix, scale in _BINARY.items():
        rest = token[len(prefix):]
        if token.startswith(prefix) and rest in _BASE and _BASE[rest][1] == BYTES:
            return scale * _BASE[rest][0], _BASE[rest][1]
    if len(token) > 1 and token[0] in _DECIMAL and token[1:] in _BASE:
        base_scale, dim = _BASE[token[1:]]
        return _DECIMAL[token[0]] * base_scale, dim
    hint = ""
    if token.lower() in {"b", "gb", "tb", "mb", "kb"} and token != token.upper():
        hint = " (write B for bytes: lowercase b is ambiguous with bits)"
    elif token.lower().endswith("flops"):
        hint = " (write FLOP/s, e.g. '989.4 TFLOP/s')"
    raise UnitError(f"unknown unit '{token}'{hint}")


def _combine(a: Dim, b: Dim, sign: int) -> Dim:
    return (a[0] + sign * b[0], a[1] + sign * b[1], a[2] + sign * b[2])


def parse_unit(text: str) -> tuple[float, Dim]:
    """Scale and dimension of a unit expression like ``TB/s`` or ``GiB``."""
    text = text.strip()
    if not text:
        return 1.0, DIMENSIONLESS
    parts = text.split("/")
    if any(not p.strip() for p in parts) or len(parts) > 2:
        raise UnitError(f"cannot read unit '{text}'")
    scale, dim = _unit_factor(parts[0].strip())
    if len(parts) == 2:
        s2, d2 = _unit_factor(parts[1].strip())
        scale, dim = scale / s2, _combine(dim, d2, -1)
    return scale, dim


def parse(text: str) -> Quantity:
    """Parse ``"<number> <unit>"`` into a :class:`Quantity` in SI units."""
    if not isinstance(text, str):
        raise UnitError(f"expected a quantity string like '3.35 TB/s', got {text!r}")
    if len(text) > MAX_CHARS:
        raise UnitError(f"'{text[:20]}...' is {len(text):,} characters, too long for a quantity; write e.g. '3.35 TB/s'")
    if re.match(r"^\s*[+-]?\d+,\d", text):  # '3,35 TB/s': a decimal comma read "unknown unit ',35 TB'"
        if re.match(r"^\s*[+-]?\d{1,3}(,\d{3})+(?![\d.,])", text):  # '1,000 GB': thousands, or a decimal comma
            plain = re.sub(r"(?<=\d),(?=\d{3})", "", text.strip())
            raise UnitError(f"cannot read '{text}': a comma in the number; write it without one, e.g. '{plain}' "
                            "(a decimal point for a fraction)")
        pointed = re.sub(r"(?<=\d),(?=\d)", ".", text.strip(), count=1)
        raise UnitError(f"cannot read '{text}': a decimal comma; write a point, e.g. '{pointed}'")
    if re.match(r"^\s*[+-]?\d+(_\d+)+", text):  # '1_000 GB/s' (YAML 1.1 reads 1_000 as 1000) read "unknown unit '_000'"
        plain = re.sub(r"(?<=\d)_(?=\d)", "", text.strip())
        raise UnitError(f"cannot read '{text}': an underscore in the number; write it without one, e.g. '{plain}'")
    m = _QTY.match(text)
    if not m:
        raise UnitError(f"cannot read '{text}': write a number and a unit, e.g. '3.35 TB/s'")
    scale, dim = parse_unit(m.group("unit") or "")
    # the number times the unit's scale in decimal, then rounded once: "2.039 TB/s" is 2,039,000,000,000 B/s, where
    # the float product read 2039000000000.0002 into results.json (QA); a scale's repr is its exact decimal (1e12,
    # 0.001, 1073741824.0)
    return Quantity(float(_EXACT.multiply(Decimal(m.group("num")), Decimal(repr(scale)))), dim, text)


def describe(dim: Dim) -> str:
    name = DIM_NAMES.get(dim)
    if name:
        return f"{name[0]} ({name[1]})" if name[1] else name[0]
    b, f, s = dim
    return f"B^{b} FLOP^{f} s^{s}"


def expect(text: str, dim: Dim) -> Quantity:
    """Parse and check the dimension; the error names what was given and what is needed."""
    q = parse(text)
    if q.dim != dim:
        want = DIM_NAMES[dim]
        raise UnitError(
            f"'{text}' is {describe(q.dim)}, but this field needs {want[0]} in {want[1]}, e.g. {want[2]}"
        )
    if math.isnan(q.value) or math.isinf(q.value):
        raise UnitError(f"'{text}' is not a finite number")
    return q


def format_si(value: float, unit: str, binary: bool = False, digits: int = 3) -> str:
    """Human form of an SI value: ``format_si(3.35e12, 'B/s') == '3.35 TB/s'``."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g} {unit}".strip()
    if binary:
        steps = [(2.0**50, "Pi"), (2.0**40, "Ti"), (2.0**30, "Gi"), (2.0**20, "Mi"), (2.0**10, "Ki")]
    else:
        steps = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
    for scale, prefix in steps:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"
