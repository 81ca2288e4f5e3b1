"""Numeric evaluation of every quantity: derive once, lambdify once, cache on disk.

The cache holds, per quantity, the lambdified NumPy source, its argument names
and LaTeX with placeholders for every symbol (so values can be substituted into
the printed formula without SymPy).  It is keyed by the source of this package
and the SymPy and NumPy versions, so editing a formula invalidates it.  With a
warm cache, evaluation imports neither SymPy nor this package's SymPy modules.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\\mathit\{v(\d+)\}")


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


def cache_dir() -> Path:
    base = os.environ.get("GENREPORT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "genreport")
    return Path(base)


def _cache_key() -> str:
    h = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    for dist in ("sympy", "numpy"):
        try:
            h.update(metadata.version(dist).encode())
        except metadata.PackageNotFoundError:  # pragma: no cover
            h.update(b"?")
    return h.hexdigest()[:20]


def _namespace() -> dict:
    ns = dict(np.__dict__)
    ns["reduce"] = functools.reduce
    ns["numpy"] = np
    ns["builtins"] = __builtins__
    return ns


def _materialise(entry: dict) -> Compiled:
    ns = _namespace()
    exec(compile(entry["src"], f"<genreport:{entry['id']}>", "exec"), ns)  # our own generated code
    fn = ns["_lambdifygenerated"]
    return Compiled(
        id=entry["id"], args=tuple(entry["args"]), fn_args=tuple(entry["fn_args"]), fn=fn, latex=entry["latex"],
        steps={v: tuple(tuple(s) for s in st) for v, st in entry["steps"].items()}, symbol=entry["symbol"], unit=entry["unit"],
        params=tuple(entry["params"]), title=entry["title"], source=entry["source"], integer=entry["integer"],
    )


def placeholder_latex(expr, args: tuple[str, ...]) -> str:
    """LaTeX of ``expr`` with each argument symbol printed as ``\\mathit{vK}``."""
    import sympy as sp

    from .glossary import sym

    names = {sym(a): rf"\mathit{{v{i}}}" for i, a in enumerate(args)}
    extra = {s: rf"\mathit{{v{len(args) + j}}}" for j, s in enumerate(sorted(expr.free_symbols - set(names), key=str))}
    if extra:  # every symbol must be an argument
        raise ValueError(f"symbols {sorted(map(str, extra))} are not arguments")
    num, den = sp.fraction(sp.together(expr)) if (expr.is_Mul or expr.is_Add) else (expr, 1)
    zero = {sym("a"): 0, sym("N_e"): 0}
    if den != 1 and sp.expand(num.subs(zero)).could_extract_minus_sign():
        num, den = sp.expand(-num), sp.expand(-den)
    if den != 1:  # print x/y as one fraction, as written, not 1/y times x
        return rf"\frac{{{sp.latex(num, symbol_names=names, mul_symbol='dot')}}}" \
               rf"{{{sp.latex(den, symbol_names=names, mul_symbol='dot')}}}"
    return sp.latex(expr, symbol_names=names, mul_symbol="dot")


# Display variants: which optional symbols are dropped from the printed formula.
# "dense": N_a = N; "seed": also N_e = 0 (all weights streamed); "+a" keeps activation traffic.
VARIANTS = ("full", "dense", "seed", "dense+a", "seed+a", "exact", "exact+a")


def _variant(expr, variant: str):
    from .glossary import sym
    from .quantities import tidy

    subs = {}
    if "+a" not in variant and variant != "full":
        subs[sym("a")] = 0
    if variant.startswith(("dense", "seed")):
        subs[sym("N_a")] = sym("N")
    if variant.startswith("seed"):
        subs[sym("N_e")] = 0
    if variant.startswith("exact"):
        subs[sym("N_a")] = sym("N") - sym("N_e")
    out = expr.subs(subs) if subs else expr
    return tidy(out) if out.is_Mul or out.is_Pow or out.is_Add else out


def _build_entry(q) -> dict:
    import inspect

    import sympy as sp

    expr = q.expr()
    steps = q.steps() if q.steps else ()
    shown = {v: _variant(expr, v) for v in VARIANTS}
    shown_steps = {v: [(st.label, st.lhs, _variant(st.expr, v)) for st in steps] for v in VARIANTS}
    free = set(expr.free_symbols)
    for v in VARIANTS:
        free |= shown[v].free_symbols
        for _, _, e in shown_steps[v]:
            free |= e.free_symbols
    args = tuple(sorted((s.name for s in free), key=str))
    fn_args = tuple(sorted((s.name for s in expr.free_symbols), key=str))
    fn = sp.lambdify([sp.Symbol(a, positive=True) for a in fn_args], expr, "numpy", cse=True)
    return {
        "id": q.id, "args": list(args), "fn_args": list(fn_args), "src": inspect.getsource(fn),
        "latex": {v: placeholder_latex(shown[v], args) for v in VARIANTS},
        "steps": {v: [[lab, lhs, placeholder_latex(e, args)] for lab, lhs, e in shown_steps[v]] for v in VARIANTS},
        "symbol": q.symbol, "unit": q.unit, "params": list(q.params), "title": q.title,
        "source": q.source, "integer": q.integer,
    }


@functools.lru_cache(maxsize=1)
def load() -> dict[str, Compiled]:
    """All quantities, compiled; from the disk cache when it is current."""
    key = _cache_key()
    path = cache_dir() / f"formulas-{key}.json"
    entries = None
    if path.is_file():
        try:
            entries = json.loads(path.read_text())
        except (OSError, ValueError):
            entries = None
    if entries is None:
        from .quantities import DEFS

        entries = [_build_entry(q) for q in DEFS]
        save_json(path, entries)
    return {e["id"]: _materialise(e) for e in entries}


def save_json(path: Path, obj) -> None:
    """Write a cache file atomically; a read-only cache folder only makes the next run slower."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
            json.dump(obj, fh)
        os.replace(fh.name, path)
    except OSError:
        pass


def render_latex(template: str, args: tuple[str, ...], values: dict[str, str] | None = None) -> str:
    """Fill a placeholder LaTeX string with glossary LaTeX, or with formatted values."""
    from .glossary import BY_NAME

    def sub(m: re.Match) -> str:
        name = args[int(m.group(1))]
        if values is not None and name in values:
            return values[name]
        return BY_NAME[name].latex

    text = _PLACEHOLDER.sub(sub, template)
    if values is None:
        text = text.replace(r" \cdot ", r" \, ")
    else:
        text = text.replace(r" \cdot ", r" \times ")
    return text
