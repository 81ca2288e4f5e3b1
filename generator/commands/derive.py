"""``genreport derive``: the closed form of any quantity, solved for any symbol, evaluated for a spec.

    genreport derive critical_context
    genreport derive critical_context --spec specs/llama8b-h100.yaml
    genreport derive critical_context --for W --at critical_context=1024 --spec specs/llama8b-h100.yaml
    genreport derive capacity_batch --for H_kv --at capacity_batch=128 --context 8k --spec specs/llama8b-h100.yaml
    genreport derive decode_intensity --for B --at decode_intensity=0.9*ridge_point --context 8k --spec ...

The symbolic work is :mod:`formulas.solve`; this module parses arguments, evaluates numbers
with the spec's inputs and prints.  Values after ``--at`` are read by :func:`formulas.solve.parse_value`
(numbers, glossary symbols, quantity ids joined by ``*`` and ``/``), never by ``sympify``.
"""

from __future__ import annotations

import argparse
import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from genreport.errors import Finding, SpecError
from genreport.terminal import safe

PARAM_OPTIONS = ("batch", "context", "tokens", "n", "m", "recipe")
DERIVE_SECONDS = 15.0  # the whole command: every solve, simplification and numeric root search


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="genreport derive",
        description="Print the closed form of a quantity (an id of results.json), solve it for any symbol, "
                    "and evaluate it with a spec's inputs.",
        epilog="examples:\n"
               "  genreport derive critical_context --spec specs/llama8b-h100.yaml\n"
               "  genreport derive critical_context --for W --at critical_context=1024 --spec specs/llama8b-h100.yaml\n"
               "  genreport derive capacity_batch --for H_kv --at capacity_batch=128 --context 8k --spec SPEC\n"
               "  genreport derive decode_intensity --for B --at decode_intensity=0.9*ridge_point --context 8k "
               "--spec SPEC\n"
               "  genreport derive --list",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("quantity", nargs="?", metavar="QUANTITY",
                   help="quantity id, e.g. critical_context (an '_exact' suffix selects the exact accounting)")
    p.add_argument("--for", dest="target", metavar="SYMBOL", help="solve for this glossary symbol, e.g. W, B, H_kv")
    p.add_argument("--at", dest="at", action="append", default=[], metavar="NAME=VALUE",
                   help="set the quantity's value (--at critical_context=1024, --at decode_intensity=0.9*ridge_point) "
                        "or an input symbol (--at W=4.8e12); VALUE: numbers, symbols and quantity ids joined by * and /")
    p.add_argument("--spec", metavar="SPEC", help="evaluate with this report spec's inputs")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="with --spec: override a spec value as in a what-if report, e.g. "
                        "hardware.memory.bandwidth=\"4.8 TB/s\" (repeatable)")
    p.add_argument("--accounting", choices=("seed", "exact"),
                   help="seed: N_a = N, N_e = 0, a = 0 (default without --spec); exact: per matrix "
                        "(default: the spec's)")
    p.add_argument("--general", action="store_true", help="keep N_a, N_e and a as symbols (no accounting substitution)")
    p.add_argument("--expand", action="append", default=None, choices=("c",),
                   help="expand c = 2 L H_kv d_h b_kv (automatic when the symbol solved for is inside c)")
    for name in PARAM_OPTIONS:
        p.add_argument(f"--{name}", metavar="N" if name != "recipe" else "NAME",
                       help=f"workload parameter '{name}' (default: the spec's first)")
    p.add_argument("--pretty", action="store_true", help="two-dimensional ASCII formulas instead of one line")
    p.add_argument("--no-latex", action="store_true", help="do not print the LaTeX")
    p.add_argument("--elasticities", action="store_true",
                   help="with --spec: d ln q / d ln x for every input x of the quantity")
    p.add_argument("--list", action="store_true", help="list the quantity ids and their parameters")
    return p


def _err(where: str, message: str, hint: str = "") -> SpecError:
    return SpecError([Finding(where, 1, 1, "", message, hint)])


@dataclass
class Numbers:
    """The spec's inputs at the workload point, and what a root needs to vary B or S."""

    spec: object
    env_obj: object  # genreport.model.evaluate.Env
    values: dict
    params: dict
    overridden: set = field(default_factory=set)  # input symbols set with --at


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from genreport.formulas.quantities import BY_ID, DEFS

    if args.list or not args.quantity:
        width = max(len(q.id) for q in DEFS)
        for q in DEFS:
            params = f"({', '.join(q.params)})" if q.params else ""
            print(f"{q.id:<{width}}  {q.title} [{q.unit}] {params}".rstrip())
        return 0
    qid, accounting = args.quantity, args.accounting
    if qid.endswith("_exact") and qid[: -len("_exact")] in BY_ID:
        qid, accounting = qid[: -len("_exact")], accounting or "exact"
    if qid not in BY_ID:
        close = difflib.get_close_matches(qid, list(BY_ID), n=1, cutoff=0.5)
        raise _err("derive", f"no quantity '{args.quantity}'",
                   f"did you mean '{close[0]}'?" if close else "see 'genreport derive --list'")
    from genreport.formulas.solve import TimeLimit, time_limit

    try:
        with time_limit(DERIVE_SECONDS) as deadline:
            text = derive_text(qid, args, accounting)
    except TimeLimit as exc:
        if exc.deadline != deadline:
            raise
        raise _err("derive", f"the derivation took more than {DERIVE_SECONDS:g} s and was stopped",
                   "give --at a simpler value (fewer factors), or solve for another symbol") from None
    print(safe(text, newlines=True))
    return 0


def derive_text(qid: str, args, accounting: str | None) -> str:
    from genreport.formulas import solve as so
    from genreport.formulas.glossary import BY_NAME, sym
    from genreport.formulas.quantities import BY_ID

    q = BY_ID[qid]
    if getattr(args, "overrides", None) and not args.spec:
        raise _err(f"--set {args.overrides[0]}", "--set changes a spec's inputs, and no spec is given",
                   "add --spec SPEC")
    nums = _numbers(args, accounting, qid) if args.spec else None
    accounting = accounting or (nums.env_obj.accounting if nums else "seed")
    if args.general:
        variant = "full"
    elif nums:
        variant = so.variant_for(accounting, nums.spec.model.moe is not None, bool(nums.values.get("a")))
    else:
        variant = so.variant_for(accounting)
    qsym, qtex = so.quantity_symbol(qid)
    names = {} if qsym.name in BY_NAME else {qsym: qtex}
    expr = so.quantity_expr(qid, variant)
    target = _target(args.target)
    value, input_overrides = _at(args.at, qid, variant)
    out: list[str] = []
    fmt_eq = so.pretty if args.pretty else so.text
    out.append(f"{qid}: {q.title} [{q.unit}]")
    out.append(f"source: {q.source}")
    out.append(f"accounting: {accounting}, variant '{variant}' ({so.accounting_note(variant)})")
    out.append("")
    out += _indent(fmt_eq(qsym, expr, names))
    if not args.no_latex:
        out.append("  LaTeX: " + so.latex(qsym, expr, names))
    if q.steps and target is None and not args.pretty:
        out.append("  derivation:")
        for st in q.steps():
            out.append(f"    {st.label}: {_plain_lhs(st.lhs)} = {so.expr_text(so.apply_variant(st.expr, variant))}")
    if input_overrides:
        subs = {sym(k): v for k, (v, _) in input_overrides.items()}
        out.append("  with " + ", ".join(f"{k} = {t}" for k, (_, t) in input_overrides.items()) + ":")
        out += _indent(fmt_eq(qsym, so.normal(expr.subs(subs)), names), 4)

    if nums:
        for k, (v, _) in input_overrides.items():
            nums.values[k] = float(v)
            nums.overridden.add(k)
        out.append("")
        out += _numbers_header(nums, expr, qid)
        own, why = _own_value(qid, nums)
        out.append(f"  {so.expr_text(qsym)} = " + (_fmt(own, q.unit, q.integer) if own is not None else f"none: {why}"))
    if args.elasticities:
        out += _elasticity_lines(qid, nums, variant)

    if target is None and value is None:
        return "\n".join(out).rstrip()
    if target is None:
        raise _err("--at", f"--at {qid}=... needs --for SYMBOL: which input should give that value?",
                   f"e.g. --for {_guess_target(expr)}")
    expand_names = tuple(args.expand) if args.expand else None
    out.append("")
    general = so.solve_quantity(qid, target, variant, None, expand_names)
    sols = [] if value is not None and general.note else [("", general)]
    if value is not None:
        at_expr = so.value_expr(value, variant)
        sols.append((value.text, so.solve_quantity(qid, target, variant, at_expr, expand_names)))
    for label, sol in sols:
        out += _solution_lines(sol, label, qsym, fmt_eq, args, nums, value if label else None, variant)
        out.append("")
    return "\n".join(out).rstrip()


def _plain_lhs(lhs: str) -> str:
    from genreport.formulas.solve import plain_name

    return plain_name("", lhs) or lhs


def _indent(text: str, n: int = 2) -> list[str]:
    return [" " * n + line for line in text.splitlines()]


def _guess_target(expr) -> str:
    names = sorted(s.name for s in expr.free_symbols)
    return "W" if "W" in names else (names[0] if names else "W")


def _target(name: str | None):
    from genreport.formulas.glossary import BY_NAME, sym

    if name is None:
        return None
    if name not in BY_NAME:
        close = difflib.get_close_matches(name, list(BY_NAME), n=1, cutoff=0.4)
        raise _err("--for", f"no symbol '{name}' in the glossary",
                   f"did you mean '{close[0]}'?" if close else f"one of {', '.join(BY_NAME)}")
    return sym(name)


def _at(items: list[str], qid: str, variant: str):
    """Split ``--at`` into the quantity's value and numeric overrides of input symbols."""
    from genreport.formulas import solve as so
    from genreport.formulas.glossary import BY_NAME
    from genreport.formulas.quantities import BY_ID

    value, overrides = None, {}
    for item in items:
        where = f"--at {item[:70]}..." if len(item) > 80 else f"--at {item}"
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name or not text.strip():
            raise _err(where, "write NAME=VALUE", f"e.g. --at {qid}=1024")
        try:
            parsed = so.parse_value(text, BY_ID)
        except so.BadValue as exc:
            raise _err(where, str(exc), f"e.g. --at {qid}=1024 or --at {qid}=0.9*ridge_point") from None
        if name == qid:
            if value is not None:
                raise _err(where, f"{qid} is set twice")
            value = parsed
        elif name in BY_NAME:
            if parsed.quantities or parsed.symbols:
                raise _err(where, "an input symbol takes a number", f"e.g. --at {name}=4.8e12")
            number = so.value_expr(parsed, variant)
            overrides[name] = (number, text.strip())
        elif name in BY_ID:
            raise _err(where, f"'{name}' is another quantity; only {qid} can be set",
                       f"write --at {qid}=... or derive {name}")
        else:
            raise _err(where, f"'{name}' is neither {qid} nor a glossary symbol",
                       f"write --at {qid}=VALUE or --at SYMBOL=NUMBER")
    return value, overrides


# ----------------------------------------------------------------------------------------------- numbers

def _numbers(args, accounting: str | None, qid: str) -> Numbers:
    from genreport.formulas.memory import TRAINING_RECIPES, recipe_bytes_per_param
    from genreport.formulas.quantities import BY_ID
    from genreport.load.loader import load_report, tokens
    from genreport.model.evaluate import spec_env

    spec = load_report(Path(args.spec), overrides=tuple(getattr(args, "overrides", ()) or ()))
    acc = accounting or spec.accounting
    env_obj = spec_env(spec, acc)
    needed = set(BY_ID[qid].params)
    for item in args.at:
        for word in item.replace("*", " ").replace("/", " ").replace("=", " ").split():
            if word in BY_ID:
                needed |= set(BY_ID[word].params)
    w = spec.workloads
    defaults = {
        "batch": w.decode_batch[0] if w.decode_batch else None,
        "context": w.decode_context[0] if w.decode_context else None,
        "tokens": (w.prefill_prompt or ((w.training_tokens,) if w.training_tokens else (None,)))[0],
        "n": spec.gemms[0][1] if spec.gemms else None,
        "m": spec.gemms[0][2] if spec.gemms else None,
        "recipe": w.recipes[0] if w.recipes else "bf16-grads",
    }
    params: dict[str, object] = {}
    from genreport.formulas.glossary import PARAM_SYMBOL as symbol_of
    for name in PARAM_OPTIONS:
        given = getattr(args, name)
        if name not in needed and given is None:
            continue
        if given is None:
            given = defaults[name]
            if given is None:
                raise _err(args.spec, f"{qid} needs a {name}, and the spec has none", f"give --{name}")
        if name == "recipe":
            if given not in TRAINING_RECIPES:
                raise _err(f"--recipe {given}", "unknown recipe", f"one of {', '.join(TRAINING_RECIPES)}")
            params[name] = given
        else:
            try:
                params[name] = tokens(given) if isinstance(given, str) else given
            except ValueError as exc:
                raise _err(f"--{name} {given}", str(exc), "write an integer or '8k' (k = 1024)") from None
    extra = {symbol_of[k]: float(v) for k, v in params.items() if k in ("tokens", "n", "m")}
    if "recipe" in params:
        extra["k"] = float(recipe_bytes_per_param(params["recipe"]))
    env = env_obj.at(batch=params.get("batch"), context=params.get("context"), **extra)
    values = {k: (float(v) if np.ndim(v) == 0 else v) for k, v in env.items()}
    from genreport.model.layouts import spec_values  # tp, pp, links...: the spec's layout, one GPU by default

    values.update({k: v for k, v in spec_values(spec, acc, params.get("batch")).items() if k not in values})
    if spec.efficiency is not None:  # achievable fractions, where the spec gives them
        values.setdefault("eta_W", float(spec.efficiency.bandwidth))
        values.setdefault("eta_P", float(spec.efficiency.compute))
    return Numbers(spec, env_obj, values, params)


def _numbers_header(nums: Numbers, expr, qid: str) -> list[str]:
    from genreport.formulas.glossary import BY_NAME

    spec = nums.spec
    where = ", ".join(f"{k} = {v}" for k, v in nums.params.items())
    lines = [f"{spec.name} ({spec.file}): {spec.model.name} on {spec.hardware.name}, {spec.precision.label()}, "
             f"{nums.env_obj.accounting} accounting" + (f"; {where}" if where else "")]
    shown = []
    for s in sorted(expr.free_symbols, key=lambda s: s.name):
        if s.name in nums.values:
            shown.append(f"{s.name} = {_fmt(nums.values[s.name], BY_NAME[s.name].unit)}")
    if shown:
        lines.append("  inputs: " + ", ".join(shown))
    return lines


def _own_value(qid: str, nums: Numbers) -> tuple[float | None, str]:
    """The value the report states at this point (the evaluation stage's rules: a numeric S* past a sliding
    window, no negative capacity or crossover), and why there is none."""
    from genreport.formulas.compiled import load
    from genreport.model.evaluate import stated_value

    q = load()
    missing = [a for a in q[qid].fn_args if a not in nums.values]
    if missing:
        raise _err(nums.spec.file or "--spec", f"{qid} needs {', '.join(missing)}, which the spec does not give",
                   "set " + " ".join(f"--at {m}=NUMBER" for m in missing))
    return stated_value(q, nums.env_obj, qid, nums.values)


def _fmt(v, unit: str, integer: str = "") -> str:
    if v is None or not np.isfinite(v):
        return "none (no finite value)"
    v = float(v)
    unit_text = "" if unit == "1" else f" {unit}"
    s = f"{v:.6g}{unit_text}"
    if unit in ("B/s", "FLOP/s", "B") and abs(v) >= 1e3:
        from genreport.load.units import format_si

        s += f" ({format_si(v, unit, digits=4)})"
    if integer == "round" and abs(v) >= 1 and v != round(v):
        s += f" (rounded: {round(v)})"
    elif integer == "floor" and abs(v) >= 1 and v != math.floor(v):
        s += f" (floor: {math.floor(v)})"
    return s


def _elasticity_lines(qid: str, nums: Numbers | None, variant: str) -> list[str]:
    if nums is None:
        raise _err("--elasticities", "elasticities are numbers at a spec's inputs", "add --spec SPEC")
    from genreport.formulas.sensitivity import at

    el = at(nums.values, qid, variant)
    lines = ["", "  elasticities d ln q / d ln x (a 1 % rise of x changes q by this many %):"]
    for name, v in sorted(el.items(), key=lambda kv: (-abs(float(kv[1])), kv[0])):
        lines.append(f"    {name:<6} {float(v):+.4f}")
    return lines


# ----------------------------------------------------------------------------------------------- solutions

def _solution_lines(sol, label: str, qsym, fmt_eq, args, nums: Numbers | None, value, variant: str) -> list[str]:
    from genreport.formulas import solve as so

    lines = []
    head = f"solved for {sol.target}" + (f", at {so.expr_text(qsym)} = {label}" if label else "")
    if label:
        lines.append(f"{head}:  {so.text(sol.lhs, sol.rhs)}")
    else:
        lines.append(head + ":")
    notes = []
    if sol.expanded:
        notes.append(f"expanded c = 2 L H_kv d_h b_kv to reach {sol.target}")
    if sol.floor_dropped:
        notes.append("floor dropped: the root is where the integer steps")
    if notes:
        lines.append("  (" + "; ".join(notes) + ")")
    if sol.note:
        lines.append("  " + sol.note)
        return lines
    for br in sol.branches:
        tag = f"[{br.label}] " if br.label else ""
        if not br.roots:
            lines.append(f"  {tag}{br.note}")
        for root in br.roots:
            eq = fmt_eq(sol.target, root, sol.names)
            if tag and "\n" in eq:
                lines.append(f"  {tag}")
                lines += _indent(eq, 4)
            else:
                lines += _indent(tag + eq)
            if not args.no_latex:
                lines.append("  LaTeX: " + so.latex(sol.target, root, sol.names))
    if nums is not None:
        lines += _solution_numbers(sol, qsym, nums, value, variant)
    return lines


def _solution_numbers(sol, qsym, nums: Numbers, value, variant: str) -> list[str]:
    from genreport.formulas import solve as so
    from genreport.formulas.glossary import BY_NAME
    from genreport.formulas.quantities import BY_ID

    unit = BY_NAME[sol.target.name].unit
    qunit = BY_ID[sol.qid].unit
    vals = dict(nums.values)
    if value is None:
        own, why = _own_value(sol.qid, nums)
        if own is None:
            return [f"  with the spec: {so.expr_text(qsym)} has no value ({why}), so there is nothing to solve at "
                    "the spec's point; give one with --at"]
        vals[qsym.name] = own
        lines = [f"  with the spec: {so.expr_text(qsym)} = {_fmt(own, qunit)} (the spec's own value)"]
    else:
        vexpr = so.value_expr(value, variant)
        number = None if sol.target in vexpr.free_symbols else _evaluate(vexpr, vals)
        shown = f" = {_fmt(number, qunit)}" if number is not None and value.text != f"{number:g}" else ""
        lines = [f"  with the spec: {so.expr_text(qsym)} = {value.text}{shown}"]
    found = []
    why = _numeric_reason(sol, nums)
    held = "  (closed form, holding N and c at the spec's point)" if why else ""
    for br in sol.branches:
        tag = f"[{br.label}] " if br.label else ""
        for root in br.roots:
            x = _evaluate(root, vals)
            if x is None or not np.isfinite(x):
                continue
            if x <= 0:
                lines.append(f"    {tag}{sol.target} = {x:.6g} is not positive: no {sol.target} reaches this value")
                continue
            if br.piece is not None and not _branch_active(br, sol.target, x, vals):
                lines.append(f"    {tag}{sol.target} = {_fmt(x, unit)} is not valid: there the step is not "
                             f"{br.label}")
                continue
            found.append(x)
            lines.append(f"    {tag}{sol.target} = {_fmt(x, unit)}{_direction(sol, x, vals)}{held}")
    warning = _expansion_warning(sol, nums)
    if warning:
        lines.append(warning)
    if why or (not found and not warning):
        reason = why or ("SymPy found no closed form" if not any(b.roots for b in sol.branches)
                         else "no closed form gave a valid positive value")
        roots = _numeric(sol, nums, vals)
        for x in roots:
            lines.append(f"    {sol.target} = {_fmt(x, unit)}  (numeric root: {reason})")
        if not roots and not found and any(b.roots for b in sol.branches) and not why:
            lines.append(f"    a numeric root search finds no positive {sol.target} either")
        elif not roots:
            lines.append(f"    no positive {sol.target} reaches this value (numeric root search: {reason})")
    return lines


def _evaluate(expr, vals: dict) -> float | None:
    import sympy as sp

    free = sorted(expr.free_symbols, key=lambda s: s.name)
    missing = [s.name for s in free if s.name not in vals]
    if missing:
        return None
    fn = sp.lambdify(free, expr, "numpy")
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*[vals[s.name] for s in free]), dtype=complex if expr.has(sp.sqrt) else float)
    except (OverflowError, ZeroDivisionError):  # exact numbers past a float's range (1e300*1e300): no finite value
        return None
    if np.iscomplexobj(out):
        if abs(out.imag) > 1e-9 * max(abs(out.real), 1.0):
            return None
        out = out.real
    return float(out)


def _branch_active(br, target, x: float, vals: dict) -> bool:
    vals = {**vals, target.name: x}
    p = [_evaluate(piece, vals) for piece in br.pieces]
    mine = _evaluate(br.piece, vals)
    if mine is None or any(v is None for v in p):
        return True
    best = max(p) if br.kind == "max" else min(p)
    return abs(mine - best) <= 1e-9 * max(abs(best), 1e-300)


def _direction(sol, x: float, vals: dict) -> str:
    """For a dropped floor: on which side of the root the integer is at least the value."""
    if not sol.floor_dropped:
        return ""
    import sympy as sp

    d = sp.diff(sol.rhs, sol.target)
    slope = _evaluate(d, {**vals, sol.target.name: x})
    if slope is None or slope == 0:
        return ""
    side = "<=" if slope < 0 else ">="
    return f"; {sol.qid} >= {_plain(sol.lhs)} while {sol.target} {side} {x:.6g}"


def _plain(expr) -> str:
    from genreport.formulas import solve as so

    return so.expr_text(expr)


def _numeric_reason(sol, nums: Numbers) -> str:
    """Why the closed form does not hold for this model, if it does not: then a numeric root is sought."""
    from genreport.formulas import architecture as arch

    model = nums.spec.model
    t = sol.target.name
    if t == "B" and model.moe is not None and sol.rhs.has(_sym("N")):
        return "mixture of experts: the parameters read, N, grow with the batch"
    if t == "S" and arch.local_layers(model) and sol.rhs.has(_sym("c")) and "c" not in nums.overridden:
        return "sliding-window layers: the KV bytes per token, c, shrink with the context"
    return ""


def _expansion_warning(sol, nums: Numbers) -> str:
    """The expanded c = 2 L H_kv d_h b_kv against the model's own c (MLA and windows differ)."""
    if "c" not in sol.expanded:
        return ""
    from genreport.formulas.memory import kv_bytes_per_token

    formula = _evaluate(kv_bytes_per_token(), nums.values)
    own = float(np.asarray(nums.values["c"]).ravel()[0])
    if formula is None or abs(formula - own) <= 1e-9 * formula:
        return ""
    return (f"    note: this model caches c = {own:.6g} B/token, but 2 L H_kv d_h b_kv = {formula:.6g} "
            f"(MLA latent or sliding windows); the values above use the formula")


def _sym(name: str):
    from genreport.formulas.glossary import sym

    return sym(name)


def _numeric(sol, nums: Numbers, vals: dict) -> list[float]:
    """Bracketing roots of value - quantity, varying the target (B and S through the spec's model)."""
    import sympy as sp
    from genreport.formulas.solve import numeric_roots

    eq = sol.rhs - sol.lhs
    free = sorted(eq.free_symbols, key=lambda s: s.name)
    if any(s.name not in vals and s != sol.target for s in free):
        return []
    fn = sp.lambdify(free, eq, "numpy")
    t = sol.target.name
    env_obj, params = nums.env_obj, nums.params

    def inputs(x):
        if t == "B":
            env = env_obj.at(batch=x, context=params.get("context"))
        elif t == "S":
            env = env_obj.at(batch=params.get("batch"), context=x)
        else:
            env = {}
        merged = {**vals, **{k: env[k] for k in ("N", "c") if k in env and k not in nums.overridden}}
        merged[t] = x
        return merged

    def f(x):
        v = inputs(np.asarray(x, dtype=float))
        return fn(*[v[s.name] for s in free])

    return numeric_roots(f)
