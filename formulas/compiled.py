"""Numeric evaluation of every quantity, from Python generated ahead of time and shipped in the package.

``formulas/_generated.py`` holds, per quantity, its NumPy function (SymPy's ``lambdify`` source,
``cse=True``), argument names, and LaTeX with placeholders for every symbol (so values can be
substituted into the printed formula without SymPy). It is written by
``python -m genreport.formulas.generate`` and committed; nothing is compiled per machine and no
file from a cache folder is ever executed. The module records a digest of the formula sources it
was generated from: when a formula is edited and the module not regenerated, :func:`load` warns
and derives in memory (a test fails on a stale module).
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .variants import VARIANTS, substitutions

HERE = Path(__file__).resolve().parent
GENERATED = "_generated.py"


@dataclass(frozen=True)
class Compiled:
    id: str
    args: tuple[str, ...]  # glossary symbol names of the printed formulas (placeholder order)
    fn_args: tuple[str, ...]  # what the numeric function takes, in call order
    fn: Callable
    latex: dict[str, str]  # variant -> LaTeX with placeholders \mathit{vK} for args[K]
    steps: dict[str, tuple[tuple[str, str, str], ...]]  # variant -> (label, lhs, rhs-with-placeholders)
    symbol: str
    unit: str
    params: tuple[str, ...]
    title: str
    source: str
    integer: str

    def __call__(self, env: dict[str, object]):
        return self.fn(*(env[a] for a in self.fn_args))


def source_digest() -> str:
    """Hash of the formula sources the generated code depends on (every module here but the generated and
    generating ones)."""
    h = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        if path.name in (GENERATED, "generate.py", "jsgen.py"):
            continue
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:24]


def placeholder_latex(expr, args: tuple[str, ...], together: bool = True) -> str:
    """LaTeX of ``expr`` with each argument symbol printed as ``\\mathit{vK}``, positive terms of a sum first;
    ``together=False`` prints it as built (a sum of named terms stays a sum)."""
    import sympy as sp

    from .glossary import sym

    index = {a: i for i, a in enumerate(args)}
    extra = expr.free_symbols - {sym(a) for a in args}
    if extra:  # every symbol must be an argument
        raise ValueError(f"symbols {sorted(map(str, extra))} are not arguments")
    printer = _shared_latex()({"mul_symbol": "dot"})

    def placed(tex: str) -> str:  # each symbol's mark its placeholder
        return _MARK.sub(lambda m: rf"\mathit{{v{index[m.group(1)]}}}", tex)

    if not together or (expr.is_Add and expr.free_symbols & {sym("R"), sym("I_KV")}):
        return placed(printer.doprint(expr))  # a display form that is a sum (I_KV + 2 N / (S c)): keep its terms apart
    num, den = sp.fraction(sp.together(expr)) if (expr.is_Mul or expr.is_Add) else (expr, 1)
    zero = {sym("a"): 0, sym("N_e"): 0}
    if den != 1 and sp.expand(num.subs(zero)).could_extract_minus_sign():
        num, den = sp.expand(-num), sp.expand(-den)
    if den != 1:  # print x/y as one fraction, as written, not 1/y times x
        return placed(rf"\frac{{{printer.doprint(num)}}}{{{printer.doprint(den)}}}")
    return placed(printer.doprint(expr))


_MARK = re.compile("\x00([^\x00]+)\x00")


@functools.cache
def _shared_latex():
    """The LaTeX printer of :func:`placeholder_latex`, made once: each symbol printed as a mark of its name
    (``\\x00name\\x00``, made its placeholder after), so that what a sub-expression prints to is the same in every
    formula, whatever the formula's placeholders, and is remembered across formulas.  The pipelined bounds and the
    serial estimates share their ledgers' terms: printing them once each was a third of a regeneration."""
    from .solve import _Latex

    class SharedLatex(_Latex):
        memo: dict = {}

        def _print_Symbol(self, expr, style="plain"):
            return f"\x00{expr.name}\x00"

        def _print(self, expr, **kwargs):
            if kwargs or not getattr(expr, "args", None):
                return super()._print(expr, **kwargs)
            tex = self.memo.get(expr)
            if tex is None:
                tex = self.memo[expr] = super()._print(expr)
            return tex

        def _print_Piecewise(self, expr):
            from .parallel import RING_CALLS

            call = RING_CALLS.get(expr)
            if call is None:
                return super()._print_Piecewise(expr)
            n, z = call  # the ring all-reduce NCCL's tuner picks the protocol of, by its group and message
            return rf"\tilde{{t}}_{{\mathrm{{ring}}}}\left({self._print(n)}, {self._print(z)}\right)"

    return SharedLatex


def _variant(expr, variant: str, tidy_it: bool = True):
    """``expr`` with the substitutions of ``variant`` (the table is in :mod:`.variants`)."""
    from .glossary import sym
    from .quantities import tidy

    def value(text: str):
        if text == "0":
            return 0
        if text == "N - N_e":
            return sym("N") - sym("N_e")
        return sym(text)

    free = expr.free_symbols
    subs = {s: value(v) for k, v in substitutions(variant).items() if (s := sym(k)) in free}
    # xreplace, not subs: each key a symbol, the same expression (regen --check confirms it) without subs' matching
    out = expr.xreplace(subs) if subs else expr  # a variant that touches none of its symbols: the expression itself
    return tidy(out) if tidy_it and (out.is_Mul or out.is_Pow or out.is_Add) else out


def display_form(q, variant: str, shown):
    """The quantity's explanatory form in ``variant`` (in terms of the ridge R and the attention intensity I_KV),
    or ``shown`` when it has none or when the form does not equal ``shown`` in this variant (checked by SymPy)."""
    if q.display is None:
        return shown
    import sympy as sp

    from .glossary import sym

    disp = q.display()
    subs = {sym(k): 0 if v == "0" else (sym("N") - sym("N_e") if v == "N - N_e" else sym(v))
            for k, v in substitutions(variant).items()}
    disp = disp.xreplace(subs) if subs else disp
    back = {sym("R"): sym("P") / sym("W"),
            sym("I_KV"): 4 * sym("H_q") * sym("L") * sym("d_h") / sym("c")}
    if sp.simplify(disp.subs(back) - shown) != 0:
        return shown
    return disp


def broadcasting_printer():
    """SymPy's NumPy printer, with ``And`` and ``Or`` folded pairwise (``logical_and(logical_and(a, b), c)``): its own
    ``logical_and.reduce((a, b))`` makes one array of the conditions first, which fails where one is a scalar and
    another an array (a condition on a per-context root beside one on the batch); ``Max`` and ``Min`` nested the same
    way (SymPy's ``reduce(maximum, [a, b])`` builds a list and calls functools.reduce at every evaluation)."""
    from sympy.printing.numpy import NumPyPrinter

    class Printer(NumPyPrinter):
        @staticmethod
        def _nest(func: str, args: list[str]) -> str:
            out = args[0]
            for arg in args[1:]:
                out = f"{func}({out}, {arg})"
            return out

        def _fold(self, op: str, expr) -> str:
            return self._nest(self._module_format("numpy." + op), [self._print(a) for a in expr.args])

        def _helper_minimum_maximum(self, op: str, *args) -> str:
            # maximum(maximum(a, b), c), not reduce(maximum, [a, b, c]): the same calls in the same order (the same
            # bits), without a list and functools.reduce each time (807,060 reduce calls, 5% of 33 serving what-ifs'
            # evaluation, stop 77)
            if not args:
                raise NotImplementedError(f"Need at least one argument for {op}")
            return self._nest(op, [self._print(a) for a in args])

        def _print_And(self, expr):
            return self._fold("logical_and", expr)

        def _print_Or(self, expr):
            return self._fold("logical_or", expr)

    return Printer({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                    "user_functions": {}})


def build_entry(q) -> dict:
    """Everything the report needs of one quantity: LaTeX per variant, steps, and its lambdified source."""
    import inspect

    import sympy as sp

    expr = q.expr()
    steps = q.steps() if q.steps else ()
    built = bool(q.extras.get("as_built"))  # printed as the formula is written, not over one denominator
    shown = {v: display_form(q, v, _variant(expr, v, not built)) for v in VARIANTS}
    shown_steps = {v: [(st.label, st.lhs, _variant(st.expr, v)) for st in steps] for v in VARIANTS}
    free = set(expr.free_symbols)
    for v in VARIANTS:
        free |= shown[v].free_symbols
        for _, _, e in shown_steps[v]:
            free |= e.free_symbols
    args = tuple(sorted((s.name for s in free), key=str))
    fn_args = tuple(sorted((s.name for s in expr.free_symbols), key=str))
    fn = sp.lambdify([sp.Symbol(a, positive=True) for a in fn_args], expr, "numpy", cse=True,
                     printer=broadcasting_printer())
    printed: dict = {}  # the variants often give one expression: printed once (a pure function of it)

    def latex(e, together: bool = True) -> str:
        key = (e, together)
        if key not in printed:
            printed[key] = placeholder_latex(e, args, together)
        return printed[key]

    return {
        "id": q.id, "args": list(args), "fn_args": list(fn_args), "fn": fn, "src": inspect.getsource(fn),
        "latex": {v: latex(shown[v], not built) for v in VARIANTS},
        "steps": {v: [[lab, lhs, latex(e)] for lab, lhs, e in shown_steps[v]] for v in VARIANTS},
        "symbol": q.symbol, "unit": q.unit, "params": list(q.params), "title": q.title,
        "source": q.source, "integer": q.integer,
    }


def _compiled(entry: dict) -> Compiled:
    return Compiled(
        id=entry["id"], args=tuple(entry["args"]), fn_args=tuple(entry["fn_args"]), fn=entry["fn"],
        latex=dict(entry["latex"]), steps={v: tuple(tuple(s) for s in st) for v, st in entry["steps"].items()},
        symbol=entry["symbol"], unit=entry["unit"], params=tuple(entry["params"]), title=entry["title"],
        source=entry["source"], integer=entry["integer"],
    )


def generated_module():
    """The committed generated module when it is current, else None (with a warning once)."""
    from . import _generated

    if _generated.DIGEST == source_digest():
        return _generated
    _warn_stale()
    return None


@functools.cache
def _warn_stale() -> None:
    print("genreport: formulas/_generated.py is older than the formulas; deriving in memory "
          "(regenerate it with: python -m genreport.formulas.generate)", file=sys.stderr)


@functools.lru_cache(maxsize=1)
def load() -> dict[str, Compiled]:
    """All quantities, compiled: from the generated module, or derived in memory when it is stale."""
    gen = generated_module()
    if gen is not None:
        entries = gen.QUANTITIES
    else:
        from .quantities import DEFS

        entries = [build_entry(q) for q in DEFS]
    return {e["id"]: _compiled(e) for e in entries}


def render_latex(template: str, args: tuple[str, ...], values: dict[str, str] | None = None,
                 names: dict[str, str] | None = None) -> str:
    """Fill a placeholder LaTeX string with glossary LaTeX (or ``names``' symbol for a name), or with values."""
    if values is None and names is None:
        return _symbols_latex(template, args)
    from genreport.texfill import fill

    return fill(template, args, {**_glossary_latex(), **(names or {})}, values)


@functools.lru_cache(maxsize=4096)
def _symbols_latex(template: str, args: tuple[str, ...]) -> str:
    """A formula's LaTeX in the glossary's symbols: the same for every point a quantity is stated at (an evaluation
    states one formula at each batch and context), so filled once."""
    from genreport.texfill import fill

    return fill(template, args, _glossary_latex())


def glossary_latex() -> dict[str, str]:
    """Glossary name -> its LaTeX symbol (a new dict each call)."""
    return dict(_glossary_latex())


@functools.cache
def _glossary_latex() -> dict[str, str]:
    from .glossary import BY_NAME

    return {name: e.latex for name, e in BY_NAME.items()}
