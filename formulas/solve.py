"""Any quantity solved for any symbol it contains: ``quantity == value`` handed to SymPy.

Pure functions over SymPy expressions (no files, no specs).  :mod:`generator.cmd_derive`
parses the command line, evaluates numbers and prints; this module only derives.

* The value a quantity is set to is either its own symbol (``S* = 2 N W / (P c - 4 H_q L W d_h)``
  solved for ``W`` gives ``W = P S* c / (4 H_q L S* d_h + 2 N)``) or an expression the user wrote,
  parsed by :func:`parse_value` into numbers, glossary symbols and quantity ids -- user text is
  never given to ``sympify`` (``N``, ``S``, ``I`` and ``E`` are SymPy names, and it calls ``eval``).
* A symbol hidden inside ``c`` (``L``, ``H_kv``, ``d_h``, ``b_kv``) is reached by expanding
  ``c = 2 L H_kv d_h b_kv`` first.
* ``floor`` (capacity batch) is dropped: the inner expression is solved, and its threshold is
  where the floor steps.
* ``Max`` (a step is as slow as its slower bound) is split into its branches, each solved on its
  own; a root counts only where its branch is the active one.
* Where SymPy finds no closed form, :func:`numeric_roots` brackets and bisects (numpy only).

>>> from formulas.glossary import sym
>>> s = solve_quantity("critical_context", sym("W"), variant="seed")
>>> text(s.target, s.branches[0].roots[0], s.names)
'W = P S* c/(4 H_q L S* d_h + 2 N)'
"""

from __future__ import annotations

import math
import re
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.str import StrPrinter

from . import portable
from .glossary import BY_NAME, LATEX_NAMES, sym
from .memory import kv_bytes_per_token
from .variants import accounting_note, variant_for  # noqa: F401 - re-exported

# Symbols that ``c`` hides: c = 2 L H_kv d_h b_kv (K and V, every layer).
EXPANSIONS = {"c": kv_bytes_per_token}
SOLVE_SECONDS = 10.0  # one solve (SymPy's cancel, solve and the tidying of roots), wall clock
MAX_FACTORS = 16  # factors in a value such as 0.9*ridge_point; more only make SymPy slow
MAX_NUMBER_CHARS = 40  # characters in one number of a value


# ----------------------------------------------------------------------------------------------- symbols

def plain_name(qid: str, latex_symbol: str) -> str:
    r"""A plain-text name for a quantity's own symbol: ``S^{*}`` -> ``S*``, ``t_{mem}(B, S)`` -> ``t_mem``.

    >>> plain_name("decode_tokens_per_s", r"\text{tok/s}(B, S)")
    'tok_s'
    >>> plain_name("kv_capacity_tokens", r"S_{\mathrm{max}}")
    'S_max'
    >>> plain_name("weight_bytes", "N b")
    'weight_bytes'
    """
    s = re.sub(r"\(.*\)$", "", latex_symbol.strip())
    s = re.sub(r"\\(?:text|mathrm)\{([^}]*)\}", r"\1", s)
    s = s.replace(r"\infty", "inf").replace(r"\,", "")
    s = re.sub(r"\^\{([^}]*)\}", r"\1", s)
    s = re.sub(r"_\{([^}]*)\}", r"_\1", s)
    s = s.replace("\\", "").replace("/", "_").strip()
    return s if s and " " not in s else qid


def quantity_symbol(qid: str, expr: sp.Expr | None = None) -> tuple[sp.Symbol, str]:
    """The symbol standing for the value of quantity ``qid``, and its LaTeX.

    A glossary symbol when the name is one (``R`` for the ridge point), else a new positive symbol.
    """
    from .quantities import BY_ID

    q = BY_ID[qid]
    name = plain_name(qid, q.symbol)
    tex = re.sub(r"\(.*\)$", "", q.symbol.strip())
    if name in BY_NAME:
        return sym(name), BY_NAME[name].latex
    return sp.Symbol(name, positive=True), tex


def apply_variant(expr: sp.Expr, variant: str, tidy: bool = True) -> sp.Expr:
    """``expr`` with the substitutions of ``variant`` (see :mod:`.variants`), put over one denominator unless
    ``tidy`` is false (an expression printed as written)."""
    from .compiled import _variant

    return _variant(expr, variant, tidy)


def quantity_expr(qid: str, variant: str = "seed") -> sp.Expr:
    """The expression of ``qid`` with the substitutions of ``variant`` (see :func:`variant_for`)."""
    from .quantities import BY_ID

    return apply_variant(BY_ID[qid].expr(), variant)


# ----------------------------------------------------------------------------------------------- values

@dataclass(frozen=True)
class Term:
    """One factor of a value: a number, a glossary symbol or a quantity id."""

    kind: str  # "number", "symbol", "quantity"
    text: str
    number: Fraction | None = None


@dataclass(frozen=True)
class Value:
    """A product of factors, each multiplied (``*``) or divided (``/``): ``0.9*ridge_point``."""

    text: str
    factors: tuple[tuple[str, Term], ...]  # ("*" | "/", term)

    @property
    def quantities(self) -> tuple[str, ...]:
        return tuple(t.text for _, t in self.factors if t.kind == "quantity")

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(t.text for _, t in self.factors if t.kind == "symbol")


_NUMBER = re.compile(r"^[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?$|^\.[0-9]+(?:[eE][-+]?[0-9]+)?$")
_COUNT = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([kKM])$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class BadValue(ValueError):
    """A value the user wrote that cannot be read; the message says what is allowed."""


def parse_value(text: str, quantity_ids) -> Value:
    """Read ``0.9*ridge_point``, ``1024``, ``8k``, ``2*P/W`` without ``sympify``.

    Factors are joined by ``*`` and ``/``; each is a decimal number (``8k`` = 8192), a glossary
    symbol or a quantity id.

    >>> v = parse_value("0.9*ridge_point", {"ridge_point"})
    >>> [(op, t.kind, t.text) for op, t in v.factors]
    [('*', 'number', '0.9'), ('*', 'quantity', 'ridge_point')]
    """
    raw = text.strip()
    if not raw:
        raise BadValue("empty value")
    if raw.count("*") + raw.count("/") >= MAX_FACTORS:
        raise BadValue(f"'{raw[:60]}{'...' if len(raw) > 60 else ''}' has {raw.count('*') + raw.count('/') + 1} "
                       f"factors; write at most {MAX_FACTORS}")
    pieces = re.split(r"\s*([*/])\s*", raw)
    ops = ["*"] + pieces[1::2]
    items = pieces[0::2]
    factors = []
    for op, item in zip(ops, items, strict=True):
        item = item.strip()
        if (_NUMBER.match(item) or _COUNT.match(item)) and len(item) > MAX_NUMBER_CHARS:
            raise BadValue(f"the number '{item[:20]}...' has {len(item):,} characters; write at most "
                           f"{MAX_NUMBER_CHARS}, e.g. 1.5e12")
        if _NUMBER.match(item):
            _check_range(item, float(item))
            if op == "/" and float(item) == 0:
                raise BadValue(f"'{raw[:60]}' divides by zero")
            factors.append((op, Term("number", item, Fraction(item))))
        elif _COUNT.match(item):
            m = _COUNT.match(item)
            scale = {"k": 1024, "K": 1024, "M": 1024**2}[m.group(2)]
            factors.append((op, Term("number", item, Fraction(m.group(1)) * scale)))
        elif _NAME.match(item) and item in quantity_ids:
            factors.append((op, Term("quantity", item)))
        elif _NAME.match(item) and item in BY_NAME:
            factors.append((op, Term("symbol", item)))
        elif item.startswith("-") and (_NUMBER.match(item[1:]) or _COUNT.match(item[1:])):
            raise BadValue(f"'{item}' is below 0: the inputs and quantities here have no value there; write a "
                           "positive number")  # --at W=-1 said "cannot read '-1'"
        else:
            raise BadValue(
                f"cannot read '{item}' in '{raw}': write numbers (1024, 0.9, 3.35e12, 8k), glossary symbols "
                "(P, W, ...) or quantity ids (ridge_point, ...) joined by * and /")
    number = Fraction(1)
    for op, t in factors:
        if t.kind == "number" and t.number:
            number = number * t.number if op == "*" else number / t.number
    if number and not 2.2250738585072014e-308 <= abs(number) <= 1.7976931348623157e308:
        raise BadValue(f"the numbers in '{raw[:60]}' multiply to about 1e{_exponent(number)}, outside a float's range "
                       "(1e-308 to 1.8e308)")
    return Value(raw, tuple(factors))


def _exponent(x: Fraction) -> int:
    """log10 |x|, roughly, without converting a huge x to float."""
    x = abs(x)
    return len(str(x.numerator)) - len(str(x.denominator))


def _check_range(item: str, x: float) -> None:
    """A number must be an ordinary float: 1e400 (infinite) and 1e-400 (zero but not 0) are refused before
    ``Fraction`` builds their exact value (``1e999999999`` has a billion digits)."""
    if not math.isfinite(x):
        raise BadValue(f"{item} is too large: numbers go up to about 1.8e308")
    if x == 0 and re.search(r"[1-9]", item.lower().split("e")[0]):
        raise BadValue(f"{item} is too small to tell from 0: numbers go down to about 2.2e-308")
    if 0 < abs(x) < 2.2250738585072014e-308:
        raise BadValue(f"{item} is too small: numbers go down to about 2.2e-308")


def value_expr(value: Value, variant: str) -> sp.Expr:
    """The symbolic value: quantity ids replaced by their expressions, numbers kept exact."""
    out = sp.Integer(1)
    for op, t in value.factors:
        if t.kind == "number":
            f = sp.Rational(t.number.numerator, t.number.denominator)
            x = float(f)
            if x != 0 and math.isfinite(x) and abs(math.log10(abs(x))) > 15:  # 1e-300 exact printed 300 digits
                f = sp.Float(x, 15)
        elif t.kind == "symbol":
            f = sym(t.text)
        else:
            f = quantity_expr(t.text, variant)
        out = out * f if op == "*" else out / f
    return out


# ----------------------------------------------------------------------------------------------- solving

@dataclass(frozen=True)
class Branch:
    label: str  # "" when the expression has one branch, else e.g. "memory-bound"
    piece: sp.Expr | None  # the argument of Max/Min this branch takes (None: no Max/Min)
    pieces: tuple[sp.Expr, ...]  # all arguments of the Max/Min, to check which is active
    kind: str  # "max" or "min" or ""
    roots: tuple[sp.Expr, ...]  # closed forms; empty when SymPy found none
    note: str = ""  # why there is no closed form


@dataclass(frozen=True)
class Solution:
    qid: str
    target: sp.Symbol
    lhs: sp.Expr  # the value side: the quantity's symbol, or the value the user set
    rhs: sp.Expr  # the quantity's expression as solved (after expansions, floor dropped)
    branches: tuple[Branch, ...]
    expanded: tuple[str, ...] = ()  # symbols expanded to reach the target (e.g. "c")
    floor_dropped: bool = False
    names: dict = field(default_factory=dict)  # extra symbol -> (plain, latex) for printing
    note: str = ""  # e.g. "does not depend on W"

    @property
    def closed(self) -> bool:
        return bool(self.branches) and all(b.roots for b in self.branches)


def expand(expr: sp.Expr, names=("c",)) -> sp.Expr:
    """Replace derived symbols by their definition: ``c -> 2 L H_kv d_h b_kv``."""
    subs = {sym(n): EXPANSIONS[n]() for n in names if n in EXPANSIONS}
    return expr.subs(subs) if subs else expr


def needs_expansion(expr: sp.Expr, target: sp.Symbol) -> tuple[str, ...]:
    """The derived symbols to expand so that ``target`` hidden inside them is reached."""
    out = []
    for name, build in EXPANSIONS.items():
        if expr.has(sym(name)) and target in build().free_symbols:
            out.append(name)
    return tuple(out)


def drop_floor(expr: sp.Expr) -> tuple[sp.Expr, bool]:
    """``floor(u) -> u``: the continuous threshold the integer steps at."""
    if not expr.has(sp.floor):
        return expr, False
    return expr.replace(sp.floor, lambda arg: arg), True


def _branches(expr: sp.Expr):
    """Split one Max/Min into (label, piece, pieces, kind, expression with the piece)."""
    atoms = sorted(expr.atoms(sp.Max, sp.Min), key=sp.default_sort_key)
    if not atoms:
        return [("", None, (), "", expr)]
    m = atoms[0]  # the quantities have at most one; nested ones stay inside the branch
    kind = "max" if isinstance(m, sp.Max) else "min"
    out = []
    for i, piece in enumerate(m.args):
        out.append((_piece_label(piece, i), piece, tuple(m.args), kind, expr.xreplace({m: piece})))
    return out


def _piece_label(piece: sp.Expr, i: int) -> str:
    P, W = sym("P"), sym("W")
    if piece.has(W) and not piece.has(P):
        return "memory-bound"
    if piece.has(P) and not piece.has(W):
        return "compute-bound"
    return f"branch {i + 1}"


class TimeLimit(Exception):
    """Raised in the main thread when a :func:`time_limit` runs out; ``deadline`` says which one."""

    def __init__(self, deadline: float):
        super().__init__(deadline)
        self.deadline = deadline


_deadlines: list[float] = []  # time.monotonic() deadlines of the limits in force, outermost first
_old_handler = None


def _arm() -> None:
    if _deadlines:
        signal.setitimer(signal.ITIMER_REAL, max(min(_deadlines) - time.monotonic(), 1e-3))
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _on_alarm(signum, frame):
    if _deadlines:
        raise TimeLimit(min(_deadlines))


@contextmanager
def time_limit(seconds: float):
    """Stop the work inside after ``seconds`` of wall clock with :class:`TimeLimit` (SIGALRM).

    Limits nest: the earliest deadline fires first, and its ``TimeLimit.deadline`` is the deadline
    this context yields, so a caller catches only its own.  Main thread only; elsewhere no limit.
    Native code (a huge integer multiplication) is not interrupted: inputs are bounded instead
    (:data:`MAX_FACTORS`, :data:`MAX_NUMBER_CHARS`).
    """
    global _old_handler
    deadline = time.monotonic() + seconds
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield deadline
        return
    if not _deadlines:
        _old_handler = signal.signal(signal.SIGALRM, _on_alarm)
    _deadlines.append(deadline)
    _arm()
    try:
        yield deadline
    finally:
        _deadlines.remove(deadline)
        _arm()
        if not _deadlines:
            signal.signal(signal.SIGALRM, _old_handler)


def _solve(eq_lhs: sp.Expr, eq_rhs: sp.Expr, target: sp.Symbol) -> tuple[tuple[sp.Expr, ...], str]:
    try:
        roots = sp.solve(sp.Eq(eq_lhs, eq_rhs), target, dict=False)
    except (NotImplementedError, ValueError, TypeError) as exc:
        return (), f"SymPy found no closed form ({type(exc).__name__})"
    roots = [r for r in roots if not r.has(sp.floor, sp.Max, sp.Min, sp.I, sp.Piecewise)]
    if not roots:
        return (), "SymPy found no closed form"
    return tuple(normal(r) for r in roots), ""


def normal(expr: sp.Expr) -> sp.Expr:
    """One fraction, numerator without a leading minus: ``-(2 N x - P)/y`` -> ``(P - 2 N x)/y``."""
    if expr.has(sp.Max, sp.Min, sp.floor, sp.Piecewise) or any(
            p.exp.is_Rational and not p.exp.is_Integer for p in expr.atoms(sp.Pow)):
        return expr  # keep radicals and branches as SymPy wrote them
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    num, den = sp.expand(num), sp.expand(den)
    terms = sp.Add.make_args(num) + sp.Add.make_args(den)
    negative = sum(1 for t in terms if t.could_extract_minus_sign())
    if 2 * negative > len(terms) or (negative and den.could_extract_minus_sign() and len(sp.Add.make_args(den)) == 1):
        num, den = -num, -den
    return num / den


def solve_quantity(qid: str, target: sp.Symbol, variant: str = "seed", value: sp.Expr | None = None,
                   expand_names: tuple[str, ...] | None = None, seconds: float = SOLVE_SECONDS) -> Solution:
    """Solve ``value == quantity`` for ``target``.

    ``value`` defaults to the quantity's own symbol (``S*`` for the critical context).  Derived
    symbols hiding ``target`` are expanded unless ``expand_names`` says which to expand.
    """
    qsym, qtex = quantity_symbol(qid)
    expr = quantity_expr(qid, variant)
    names = {} if qsym.name in BY_NAME else {qsym: qtex}
    lhs = qsym if value is None else value
    if value is None and qsym in expr.free_symbols:
        return Solution(qid, target, lhs, expr, (), names=names,
                        note=f"{qid} is the input {qsym} itself; there is nothing to solve")
    want = needs_expansion(expr, target) if expand_names is None else tuple(expand_names)
    if want:
        expr = expand(expr, want)
    if value is not None and want:
        lhs = expand(lhs, want)
    expr, floored = drop_floor(expr)
    if target not in expr.free_symbols and target not in lhs.free_symbols:
        hint = ""
        if value is None:
            hint = f"; set its value with --at {qid}=... to solve an equation that contains {target}"
        return Solution(qid, target, lhs, expr, (), want, floored, names,
                        note=f"{qid} does not depend on {target}{hint}")
    branches = []
    for label, piece, pieces, kind, e in _branches(expr):
        if target not in e.free_symbols and target not in lhs.free_symbols:
            branches.append(Branch(label, piece, pieces, kind, (), f"this branch does not depend on {target}"))
            continue
        # the whole of a branch's symbolic work is timed: cancel and tidying the roots can take
        # longer than sp.solve itself (a value of 60 factors spent minutes in cancel, outside the limit)
        try:
            with time_limit(seconds) as deadline:
                if target not in sp.cancel(e - lhs).free_symbols:
                    roots, note = (), f"here {qid} does not depend on {target}"
                else:
                    roots, note = _solve(lhs, e, target)
        except TimeLimit as exc:
            if exc.deadline != deadline:
                raise
            roots, note = (), f"SymPy found no closed form within {seconds:.3g} s"
        branches.append(Branch(label, piece, pieces, kind, roots, note))
    return Solution(qid, target, lhs, expr, tuple(branches), want, floored, names)


# ----------------------------------------------------------------------------------------------- printing

class _PositiveFirst:
    """Print the positive terms of a sum first: ``P c - 4 H_q L W d_h``, not ``-4 H_q L W d_h + P c``."""

    def _as_ordered_terms(self, expr, order=None):
        terms = list(super()._as_ordered_terms(expr, order=order))
        return sorted(terms, key=lambda t: t.could_extract_minus_sign())  # stable


class _Str(_PositiveFirst, StrPrinter):
    pass


class _Latex(_PositiveFirst, LatexPrinter):
    pass


class _Pretty(_PositiveFirst, PrettyPrinter):
    pass


T_RING = sp.Function("t_ring")


def named_rings(expr):
    """``expr`` with each ring all-reduce it holds (formulas.parallel.all_reduce_time_ring_protocols) as
    ``t_ring(n, Z)``: written out, the tuner's choice of protocol repeats every protocol's forms in each condition (a
    layout's decode_time_serial printed 63 KB, then 185 KB).  For printing only."""
    from .parallel import RING_CALLS

    if not RING_CALLS or not expr.has(sp.Piecewise):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Piecewise) and e in RING_CALLS, lambda e: T_RING(*RING_CALLS[e]))


RING_NOTE = ("t_ring(n, Z): one ring all-reduce of Z bytes a GPU over n GPUs with the protocol NCCL's tuner runs, "
             "as the estimate charges it (formulas/parallel.py: all_reduce_time_ring_protocols; derive "
             "decode_time_serial names its parts)")


def _printable(expr: sp.Expr) -> tuple[sp.Expr, dict[str, str]]:
    """Swap odd symbol names (``S*``, ``tok/s``) for placeholders the string printer keeps intact."""
    swap, back = {}, {}
    for i, s in enumerate(sorted(expr.free_symbols, key=str)):
        if not _NAME.match(s.name):
            ph = sp.Symbol(f"Zqz{i}qz", positive=True)
            swap[s] = ph
            back[ph.name] = s.name
    return expr.xreplace(swap), back


def expr_text(expr: sp.Expr, as_built: bool = False) -> str:
    """One-line plain text: products with spaces, powers with ``^``: ``2 N W/(P c - 4 H_q L W d_h)``; over one
    denominator (:func:`normal`), or ``as_built`` as the expression was written (derive's named parts of B_P:
    ``P n_St n_TP theta (T_out - 1)``, not ``P T_out n_St n_TP theta - P n_St n_TP theta``)."""
    e, back = _printable(named_rings(expr) if as_built else normal(named_rings(expr)))
    s = _Str().doprint(e).replace("**", "^").replace("*", " ")
    for ph, name in back.items():
        s = s.replace(ph, name)
    return s


def text(lhs: sp.Expr, rhs: sp.Expr, names: dict | None = None) -> str:
    """``W = P S* c/(4 H_q L S* d_h + 2 N)``."""
    return f"{expr_text(lhs)} = {expr_text(rhs)}"


def pretty(lhs: sp.Expr, rhs: sp.Expr, names: dict | None = None) -> str:
    """Two-dimensional form (``sympy.pretty``, Unicode, so that ``S*`` reads apart from the product dots)."""
    printer = _Pretty({"use_unicode": True})
    return printer.doprint(sp.Eq(normal(lhs), normal(named_rings(rhs)), evaluate=False))


def latex(lhs: sp.Expr, rhs: sp.Expr, names: dict | None = None) -> str:
    """LaTeX with the glossary's names (``H_{kv}``) and the quantity's own (``S^{*}``)."""
    table = dict(LATEX_NAMES)
    table.update(names or {})
    printer = _Latex({"symbol_names": table, "mul_symbol": " "})
    return f"{printer.doprint(normal(lhs))} = {printer.doprint(normal(named_rings(rhs)))}"


# ----------------------------------------------------------------------------------------------- numeric roots

def numeric_roots(f, lo: float = 1e-9, hi: float = 1e24, points: int = 3001, iterations: int = 200,
                  rtol: float = 1e-9) -> list[float]:
    """Positive roots of ``f`` (vectorised over numpy arrays) by a log-spaced scan and bisection.

    Every sign change of ``f`` on ``points`` log-spaced values in [lo, hi] is bisected (in log
    space, all brackets at once) until the bracket is ``rtol`` wide; a sign change across a pole
    (where ``|f|`` grows instead of vanishing) is dropped.

    >>> [round(r, 6) for r in numeric_roots(lambda x: x**2 - 2.0)]
    [1.414214]
    """
    x = portable.geomspace(lo, hi, points)  # the same bits on every CPU
    with np.errstate(all="ignore"):
        y = np.asarray(f(x), dtype=float) * np.ones_like(x)
    ok = np.isfinite(y)
    s = np.sign(y)
    idx = np.nonzero(ok[:-1] & ok[1:] & (s[:-1] * s[1:] <= 0) & ~((s[:-1] == 0) & (s[1:] == 0)))[0]
    if not len(idx):
        return []
    a, b = portable.log(x[idx]), portable.log(x[idx + 1])
    fa = y[idx]
    with np.errstate(all="ignore"):
        for _ in range(iterations):
            mid = 0.5 * (a + b)
            fm = np.asarray(f(portable.exp(mid)), dtype=float) * np.ones_like(mid)
            left = np.sign(fm) == np.sign(fa)
            a = np.where(left, mid, a)
            fa = np.where(left, fm, fa)
            b = np.where(left, b, mid)
            if np.all(b - a < rtol):
                break
        roots = portable.exp(0.5 * (a + b))
        at_root = np.abs(np.asarray(f(roots), dtype=float) * np.ones_like(roots))
        scale = np.maximum(np.abs(y[idx]), np.abs(y[idx + 1]))
    keep = np.isfinite(at_root) & (at_root <= scale)  # a pole's |f| grows as the bracket closes
    out = sorted({float(r) for r in roots[keep]})
    merged: list[float] = []
    for r in out:
        if not merged or r > merged[-1] * (1 + 1e-6):
            merged.append(r)
    return merged
