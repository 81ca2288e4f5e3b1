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
import sys
from pathlib import Path

import numpy as np
from genreport.commands.derive_values import (
    Numbers,
    _err,
    _fmt,
    _indent,
    _solution_lines,
    stated_at_point,
)
from genreport.commands.options import Parser, add_verbosity
from genreport.terminal import safe

PARAM_OPTIONS = ("batch", "context", "tokens", "n", "m", "recipe")
# quantities the report states for the whole model at a layout, not one GPU's (the parameter count, chapter 5's
# training state on one card)
WHOLE_MODEL = frozenset({"parameters", "training_state_bytes"})
CUT_TOKENS = frozenset({"kv_capacity_tokens", "kv_capacity_tokens_replica"})  # stated as whole tokens, cut
DERIVE_SECONDS = 15.0  # the whole command: every solve, simplification and numeric root search


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="genreport derive", allow_abbrev=False,
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
                        "or an input symbol (--at W=4.8e12; B, S or T as a whole number also moves the point, as "
                        "--batch, --context or --tokens do: batch=, context= and tokens= name them too, and one --at "
                        "may give several, --at batch=64,context=8k); VALUE: numbers, symbols and quantity ids joined "
                        "by * and /")
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
    add_verbosity(p)
    return p






def quantity_ids() -> list[str]:
    """The ids derive takes (shell completion lists them)."""
    from genreport.formulas.quantities import BY_ID

    return sorted(BY_ID)


# the point's words, as --batch, --context and --tokens name them, for the symbols --at takes
AT_WORDS = {"batch": "B", "context": "S", "tokens": "T"}


def _at_items(items: list[str]) -> list[str]:
    """--at values as NAME=VALUE items: 'batch=64,context=8192' is two (a VALUE has no comma), and batch, context
    and tokens are B, S and T (derive --at batch=64,context=8192 read '64,context=8192' as one value, QA)."""
    out = []
    for item in items:
        parts = item.split(",") if all("=" in p for p in item.split(",")) else [item]
        for part in parts:
            name, eq, value = part.partition("=")
            out.append(f"{AT_WORDS.get(name.strip(), name.strip())}{eq}{value}" if eq else part)
    return out


def _as_typed(items: list[str]) -> dict[str, str]:
    """Each --at item as :func:`_at_items` rewrites it -> as the user typed it ('S=8kb' -> 'context=8kb'), so that an
    error names what was written (review, stop 82: --at context=8kb was answered as '--at S=8kb')."""
    out = {}
    for item in items:
        parts = item.split(",") if all("=" in p for p in item.split(",")) else [item]
        for part in parts:
            out.setdefault(_at_items([part])[0].strip(), part.strip())
    return out


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    typed = _as_typed(args.at)
    args.at = _at_items(args.at)
    import dataclasses

    from genreport.errors import SpecError

    try:
        return _derive(args)
    except SpecError as exc:  # the --at items by the words the user wrote them in

        def said(f):
            item = f.file.removeprefix("--at ")
            return dataclasses.replace(f, file=f"--at {typed[item]}") \
                if f.file.startswith("--at ") and typed.get(item, item) != item else f

        raise SpecError([said(f) for f in exc.findings]) from None


def _derive(args) -> int:
    from genreport.formulas.quantities import BY_ID, DEFS

    if args.quantity is not None and not args.quantity.strip():  # derive '' listed every quantity, exit 0
        raise _err("derive ''", "names no quantity", "name one, e.g. derive critical_context (derive --list lists them)")
    if args.list or not args.quantity:
        width = max(len(q.id) for q in DEFS)
        for q in DEFS:
            params = f"({', '.join(q.params)})" if q.params else ""
            print(f"{q.id:<{width}}  {q.title} [{q.unit}] {params}".rstrip())
        return 0
    qid, accounting = args.quantity, args.accounting
    if qid.endswith("_exact") and qid[: -len("_exact")] in BY_ID:
        qid, accounting = qid[: -len("_exact")], accounting or "exact"
    if qid.removesuffix("_exact") in STATED_FROM:  # a results.json id with no formula of its own: say whose it is
        why, target = STATED_FROM[qid.removesuffix("_exact")]
        raise _err("derive", f"'{args.quantity}' is a results.json id with no formula of its own: {why}",
                   "run: genreport plan MODEL --hardware GPU" if target == "plan"
                   else f"run: genreport derive {target} --spec SPEC")
    if qid not in BY_ID:
        close = difflib.get_close_matches(qid, list(BY_ID), n=1, cutoff=0.5)
        raise _err("derive", f"no quantity '{args.quantity}'",
                   f"did you mean '{close[0]}'?" if close else "see 'genreport derive --list'")
    from genreport.formulas.generate import max_ordering_without_factoring
    from genreport.formulas.solve import TimeLimit, time_limit

    try:
        with time_limit(DERIVE_SECONDS) as deadline, max_ordering_without_factoring():
            args.deadline = deadline  # the solves share what is left of it (derive_text)
            text = derive_text(qid, args, accounting)
    except TimeLimit as exc:
        if exc.deadline != deadline:
            raise
        raise _err("derive", f"the derivation took more than {DERIVE_SECONDS:g} s and was stopped",
                   "give --at a simpler value (fewer factors), or solve for another symbol") from None
    print(safe(text, newlines=True))
    return 0


# results.json ids a build states from another quantity's formula (or a search): what derive says for them
STATED_FROM = {
    "prefill_occupancy_bound": ("it is prefill_pass_bound, a prompt's pass through the stages, with every replica of "
                                "an expert group wider than a replica prefilling at once (the prompt alone elsewhere)",
                                "prefill_pass_bound"),
    "prefill_occupancy_serial": ("it is prefill_time_serial with every replica of an expert group wider than a "
                                 "replica prefilling at once (the prompt alone elsewhere)", "prefill_time_serial"),
    "decode_tokens_per_s_replica": ("it is B / decode_time_bound, a replica's round", "decode_time_bound"),
    "decode_tokens_per_s_gpu": ("it is B / (decode_time_bound x the replica's GPUs)", "decode_time_bound"),
    "capacity_one_card": ("it is capacity, the whole model on one card beside a layout", "capacity"),
    "weight_bytes_one_card": ("it is weight_bytes, the whole model on one card beside a layout", "weight_bytes"),
    "weight_stream_time_one_card": ("it is weight_stream_time, the whole model on one card", "weight_stream_time"),
    "kv_capacity_tokens_one_card": ("it is kv_capacity_tokens, the whole model on one card", "kv_capacity_tokens"),
    "attention_intensity_one_card": ("it is attention_intensity, the whole model on one card",
                                     "attention_intensity"),
    "min_gpus_to_fit": ("it is found by a search over layouts, not a formula", "plan"),
    "capacity_at_context": ("it is capacity, the memory C of a GPU of the stage that binds at the context (over "
                            "pipeline stages past a window another stage's than the scalar's), the C capacity_batch "
                            "there takes (its inputs line prints it)", "capacity_batch"),
}


def derive_text(qid: str, args, accounting: str | None) -> str:
    from genreport.formulas import solve as so
    from genreport.formulas.glossary import BY_NAME, sym
    from genreport.formulas.quantities import BY_ID

    q = BY_ID[qid]
    if getattr(args, "overrides", None) and not args.spec:
        raise _err(f"--set {args.overrides[0]}", "--set changes a spec's inputs, and no spec is given",
                   "add --spec SPEC")
    given = [n for n in PARAM_OPTIONS if getattr(args, n, None) is not None]
    if given and not args.spec:  # --batch x without a spec was read by nothing, and said nothing (review, stop 82)
        raise _err(f"--{given[0]} {getattr(args, given[0])}", f"--{given[0]} picks a point of a spec's workloads, and "
                   "no spec is given", "add --spec SPEC, or give a symbol's value with --at (e.g. --at B=64)")
    moved = _at_workload(args, q)
    nums = _numbers(args, accounting, qid) if args.spec else None
    accounting = accounting or (nums.env_obj.accounting if nums else "seed")
    if args.general:
        variant = "full"
    elif nums:
        from genreport.formulas.compiled import load
        from genreport.model.stated import streamed_variant

        # N_a printed apart where the point streams other weights than it computes with (as the report prints it)
        variant = streamed_variant(so.variant_for(accounting, nums.spec.model.moe is not None,
                                                  bool(nums.values.get("a"))), nums.values, load()[qid].args)
    else:
        variant = so.variant_for(accounting)
    qsym, qtex = so.quantity_symbol(qid)
    names = {} if qsym.name in BY_NAME else {qsym: qtex}
    target = _target(args.target)
    value, input_overrides = _at(args.at, qid, variant)
    for name in moved:  # the point itself, as --batch/--context/--tokens: no input set apart from it
        input_overrides.pop(name, None)
    # a layout's serial rounds: the sum of named parts, each part's closed form on its own line (_term_lines), not
    # the whole expanded (10 KB at tp 8 x ep 8); solving, --at inputs and --pretty take the whole
    forms = crossings = None
    plain = target is None and value is None and not input_overrides and not args.pretty
    if qid in NAMED and plain:
        # each stage's own attention named apart only where the spec's stages hold global layers unevenly
        from genreport.model.stages import stage_shares

        staged = bool(nums and nums.spec.parallelism and stage_shares(nums.spec.model, nums.spec.parallelism.pp))
        shown, forms = _term_lines(qid, qsym, variant, staged)
        import sympy as sp

        expr = sp.Tuple(*(e for _, _, e in forms))  # its free symbols: the inputs the header lists
    elif qid == CROSSOVER and plain:
        shown, crossings, expr = _crossover_lines(qsym, variant)
    else:
        expr = so.quantity_expr(qid, variant)
    unused = [k for k in input_overrides if sym(k) not in expr.free_symbols]
    if unused:  # '--at Q=3' printed "with Q = 3:" and the formula as it was
        given = input_overrides[unused[0]][1]
        raise _err(f"--at {unused[0]}={given}", f"{unused[0]} is not an input of {qid}'s formula",
                   "set one of its inputs: " + ", ".join(sorted(str(x) for x in expr.free_symbols if x != qsym)))
    out: list[str] = []
    fmt_eq = so.pretty if args.pretty else so.text
    from genreport.present.fmt import device

    # a spec's hardware says its noun for one device (Hardware.noun: "chip" for a TPU or a Gaudi) in the headers and
    # labels; the formulas and the source line (a paper's title) as they are
    noun = nums.spec.hardware.noun if nums else "GPU"
    out.append(device(f"{qid}: {q.title} [{q.unit}]", noun))
    out.append(f"source: {q.source}")
    out.append(f"accounting: {accounting}, variant '{variant}' ({so.accounting_note(variant)})")
    out.append("")
    if forms is not None or crossings is not None:
        out += device(shown, noun)
    else:
        out += _indent(fmt_eq(qsym, expr, names))
        if not args.no_latex:
            out.append("  LaTeX: " + so.latex(qsym, expr, names))
        if any("t_ring(" in line or "t_{ring}" in line for line in out):
            out.append("  where " + so.RING_NOTE)
    if q.steps and target is None and not args.pretty and crossings is None:
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
        _round_inputs(qid, nums, {k for k in input_overrides})
        _fastest_schedule(qid, nums)
        _hold(nums)
        out.append("")
        out += device(_numbers_header(nums, expr, qid), noun)
        if forms is not None:
            out.append(_term_values(forms, nums.values))
        if crossings is not None:
            out.append(_crossing_values(crossings, nums.values))
        # the KV tokens that fit are stated whole, cut (679,123.69 -> 679,123), where six significant digits would
        # round them up to a number the report does not state
        integer = q.integer or ("floor" if qid in CUT_TOKENS else "")
        own, why, scope = stated_at_point(qid, nums, q.unit, integer)
        if own is None and qid == "prefix_capacity_batch":
            why = _prefix_past_context(nums.values) or why
        out.append(f"  {so.expr_text(qsym)} = " + (_fmt(own, q.unit, integer) if own is not None
                                                   else f"none: {device(why, noun)}"))
        out += device(scope, noun)
    if args.elasticities:
        if nums is not None and own is None:
            # no value at this point (S* where the ceiling never falls below the ridge, B* past it): the report's
            # sensitivity table leaves such a row out; printed, the derivatives of the negative closed form read as
            # the quantity's (B* = none beside "c -1.19")
            out += ["", f"  elasticities: none: {so.expr_text(qsym)} has no value at this point, so no input moves it"]
        else:
            out += _elasticity_lines(qid, nums, variant, forms)

    if target is None and value is None:
        return "\n".join(out).rstrip()
    if target is None:
        raise _err("--at", f"--at {qid}=... needs --for SYMBOL: which input should give that value?",
                   f"e.g. --for {_guess_target(expr)}")
    expand_names = tuple(args.expand) if args.expand else None
    out.append("")
    general = so.solve_quantity(qid, target, variant, None, expand_names, _solve_seconds(args, 2 if value else 1))
    sols = [] if value is not None and general.note else [("", general)]
    if value is not None:
        at_expr = so.value_expr(value, variant)
        sols.append((value.text, so.solve_quantity(qid, target, variant, at_expr, expand_names,
                                                   _solve_seconds(args, 1))))
    for label, sol in sols:
        out += _solution_lines(sol, label, qsym, fmt_eq, args, nums, value if label else None, variant)
        out.append("")
    return "\n".join(out).rstrip()


def _solve_seconds(args, solves: int) -> float:
    """Each of the ``solves`` left its share of what derive's limit leaves, less the seconds the numbers after them
    take (a numeric root's search, a recount), at most SymPy's own limit per solve: two solves of a cubic in h_p
    (``goodput_rate_capacity``, whose prompt attends to its cached prefix) took 10 s each and stopped the whole
    command at 15 s before the numeric root that answers it (stop 90's review)."""
    import time

    from genreport.formulas.solve import SOLVE_SECONDS

    deadline = getattr(args, "deadline", None)
    if deadline is None:
        return SOLVE_SECONDS
    return max(0.5, min(SOLVE_SECONDS, (deadline - time.monotonic() - NUMBERS_SECONDS) / solves))


NUMBERS_SECONDS = 3.0  # what derive keeps after its solves for the numbers below them


def _plain_lhs(lhs: str) -> str:
    from genreport.formulas.solve import plain_name

    return plain_name("", lhs) or lhs




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


# --at of a workload's own symbol: the option that sets the point there
AT_PARAMS = {"B": "batch", "S": "context", "T": "tokens"}


def _at_workload(args, q) -> set[str]:
    """``--at B=``, ``S=`` or ``T=`` (a whole number) with a spec, for a quantity taken at that workload parameter:
    the point is evaluated there, as ``--batch``, ``--context`` or ``--tokens`` would, so that the inputs that follow
    it (d_h and c of windowed or chunked layers, the experts a batch reads) are the point's and not the spec's first
    point's.  An option given as well wins (the --at value is then an input set apart, as any other).  A fraction is
    refused, with a spec or without: the point's batch and context count sequences and tokens.  (prompt_chunk's B,
    no point of its own, takes one: the serving chapter's steady state carries a mean batch, Little's law.)  Returns
    the symbols that moved the point."""
    import re

    from genreport.formulas.glossary import BY_NAME

    moved: set[str] = set()
    for item in args.at:
        name, eq, text = item.partition("=")
        option = AT_PARAMS.get(name.strip())
        if option in q.params and eq and text.strip() and not re.fullmatch(r"[0-9]+[kKmM]?|[A-Za-z_].*", text.strip()):
            # B=1.5 was evaluated at 1.5 under a header that said batch = 1; without --spec, S=1000.5 and B=2.5 were
            # substituted as they stood (a point's batch and context count whole sequences and tokens)
            raise _err(f"--at {item.strip()}", f"{name.strip()} is a count ({BY_NAME[name.strip()].meaning})",
                       f"write a whole number in digits, e.g. --at {name.strip()}=8 or {name.strip()}=8k")
        if not args.spec:
            continue
        if option in q.params and re.fullmatch(r"0+[kKmM]?", text.strip()):
            # before the option it sets, whose message named --context, which the user never wrote (S=0)
            _no_zero(f"--at {item.strip()}", name.strip())
        if (option in q.params and eq and getattr(args, option) is not None
                and re.fullmatch(r"[0-9]+[kKmM]?", text.strip()) and _count(text) != _count(getattr(args, option))):
            # two points: the header named --batch's while the inputs took --at's (review, stop 82)
            raise _err(f"--at {item.strip()}", f"the point is given twice, --{option} {getattr(args, option)} and "
                       f"--at {item.strip()}", "give one of them")
        if (option in q.params and eq and getattr(args, option) is None
                and re.fullmatch(r"[0-9]+[kKmM]?", text.strip())):
            setattr(args, option, text.strip())
            moved.add(name.strip())
    return moved


def _count(text) -> int | None:
    """A whole-number point written as --batch or --at write it ('8k'), or None where it is not one."""
    from genreport.load.loader import tokens

    try:
        return tokens(str(text).strip())
    except ValueError:
        return None


_EXAMPLE = {"B/s": "3.35e12", "FLOP/s": "9.89e14", "s": "0.05"}  # an --at example per unit, where 1 does not read


def _no_zero(where: str, name: str):
    """A symbol of glossary.ABOVE_ZERO given 0."""
    from genreport.formulas.glossary import BY_NAME

    entry = BY_NAME[name]
    raise _err(where, f"{name} ({entry.meaning}) has no physical value at 0",
               f"give a number above 0, e.g. --at {name}={_EXAMPLE.get(entry.unit, '1')}")


_DIMENSIONS = ("B", "FLOP", "s")  # a token and a count are numbers: 'token' and '1' are both dimensionless here


def _dimension(unit: str) -> tuple[int, ...] | None:
    """Exponents of B, FLOP and s in a glossary or quantity unit ('FLOP/B', 'B/token', '1/s'); None for a unit this
    reading does not know (then nothing is checked)."""
    num, _, den = unit.partition("/")
    out = [0, 0, 0]
    for part, sign in ((num, 1), (den, -1)):
        part = part.strip()
        if not part or part in ("1", "token"):
            continue
        if part not in _DIMENSIONS:
            return None
        out[_DIMENSIONS.index(part)] += sign
    return tuple(out)


def _unit_mismatch(parsed, want: str) -> str:
    """The unit of ``parsed`` (derive --at's VALUE) where it is not ``want``, the quantity's ('' where it is, or where a
    plain number scales nothing: a number takes the quantity's unit)."""
    from genreport.formulas.glossary import BY_NAME
    from genreport.formulas.quantities import BY_ID

    if not (parsed.quantities or parsed.symbols):
        return ""
    dim = [0, 0, 0]
    for op, t in parsed.factors:
        if t.kind == "number":
            continue
        d = _dimension(BY_ID[t.text].unit if t.kind == "quantity" else BY_NAME[t.text].unit)
        if d is None:
            return ""
        dim = [a + (b if op == "*" else -b) for a, b in zip(dim, d, strict=True)]
    target = _dimension(want)
    if target is None or tuple(dim) == target:
        return ""
    num = " ".join(f"{u}^{e}" if e > 1 else u for u, e in zip(_DIMENSIONS, dim, strict=True) if e > 0) or "1"
    den = " ".join(f"{u}^{-e}" if e < -1 else u for u, e in zip(_DIMENSIONS, dim, strict=True) if e < 0)
    return num + (f"/{den}" if den else "")


def _at(items: list[str], qid: str, variant: str):
    """Split ``--at`` into the quantity's value and numeric overrides of input symbols."""
    from genreport.formulas import solve as so
    from genreport.formulas.glossary import ABOVE_ZERO, AT_MOST_ONE, BELOW_ONE, BY_NAME, WHOLE
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
            wrong = _unit_mismatch(parsed, BY_ID[qid].unit)
            if wrong:  # critical_context=ridge_point solved tokens against FLOP/B (hostile review, stop 75)
                raise _err(where, f"{qid} is in {BY_ID[qid].unit}, but {text.strip()} is in {wrong}",
                           f"write a value in {BY_ID[qid].unit}: a number, or quantities and symbols of that unit")
            value = parsed
        elif name in BY_NAME:
            if parsed.quantities or parsed.symbols:
                raise _err(where, "an input symbol takes a number",
                           f"e.g. --at {name}={_EXAMPLE.get(BY_NAME[name].unit, '8')}")
            number = so.value_expr(parsed, variant)
            if name in ABOVE_ZERO and number == 0:
                _no_zero(where, name)
            if (name in BELOW_ONE and number >= 1) or (name in AT_MOST_ONE and number > 1):
                # p_a=1.5 gave a B_P, e_m=1.5 a serial estimate under the strict bound (hostile review, stop 77)
                limit = "below 1" if name in BELOW_ONE else "at most 1"
                raise _err(where, f"{name} ({BY_NAME[name].meaning}) is a share {limit}: {text.strip()} has no "
                           "physical value", f"write a number {limit}, e.g. --at {name}="
                           + ("0.85" if name == "p_a" else "0.5" if name == "h_p" else "0.8"))
            if name in WHOLE and not (number.is_number and number.is_integer):  # n_TP=0.5: no layout has half a GPU
                raise _err(where, f"{name} is a count ({BY_NAME[name].meaning})",
                           f"write a whole number, e.g. --at {name}={_EXAMPLE.get(BY_NAME[name].unit, '8')}")
            if name in overrides:  # --at W=1 --at W=2 took the last silently (hostile review, stop 75)
                raise _err(where, f"{name} is set twice (--at {name}={overrides[name][1]} before)",
                           f"give --at {name}=... once")
            overrides[name] = (number, text.strip())
        elif name in BY_ID:
            raise _err(where, f"'{name}' is another quantity; only {qid} can be set",
                       f"write --at {qid}=... or derive {name}")
        else:
            raise _err(where, f"'{name}' is neither {qid} nor a glossary symbol",
                       f"write --at {qid}=VALUE or --at SYMBOL=NUMBER")
    return value, overrides


# ----------------------------------------------------------------------------------------------- numbers

# The serving chapter's ceilings taken at the weights their own steady state streams: the key of the chapter's numbers
# that holds those weights (techniques.report) and whose tokens make them, for derive's point line.
CEILING_WEIGHTS = {"goodput_rate_tpot": ("tpot_weights", "its own"),
                   "goodput_rate_capacity": ("capacity_weights", "the running sequences'"),
                   "goodput_rate_engine": ("engine_weights", "its M_s running sequences'")}


def _numbers(args, accounting: str | None, qid: str, spec=None) -> Numbers:
    """derive's inputs at its point: the spec's (``spec``, else loaded from ``args.spec`` with its --set)."""
    from genreport.formulas.memory import TRAINING_RECIPES, recipe_bytes_per_param
    from genreport.formulas.quantities import BY_ID
    from genreport.load.loader import load_report, tokens
    from genreport.model.layout import report_env

    # a speculative verify round: the serving chapter's, at its point (its last row's batch, a request's last
    # context); a request's decode rounds summed: its end to end less its TTFT, at its last row's batch
    from genreport.model.serving import REQUEST, VERIFY

    if spec is None:
        spec = load_report(Path(args.spec), overrides=tuple(getattr(args, "overrides", ()) or ()))
        for w in spec.warnings:  # what a build of the same spec warns of (a hit past the last token), on stderr
            print(w, file=sys.stderr)
    acc = accounting or spec.accounting
    env_obj = report_env(spec, acc)
    needed = set(BY_ID[qid].params)
    for item in args.at:
        for word in item.replace("*", " ").replace("/", " ").replace("=", " ").split():
            if word in BY_ID:
                needed |= set(BY_ID[word].params)
    w = spec.workloads
    defaults = {
        "batch": w.decode_batch[0] if w.decode_batch else None,
        "context": w.decode_context[0] if w.decode_context else None,
        # a training quantity at the spec's micro-batch, as the report states it; the rest at its first prompt
        "tokens": (((w.training_tokens,) if w.training_tokens and qid.startswith("training") else ())
                   or w.prefill_prompt or ((w.training_tokens,) if w.training_tokens else (None,)))[0],
        "n": spec.gemms[0][1] if spec.gemms else None,
        "m": spec.gemms[0][2] if spec.gemms else None,
        "recipe": w.recipes[0] if w.recipes else "bf16-grads",
    }
    if qid in REQUEST and spec.serving is not None:  # the serving chapter's request: its prompt, its output
        defaults["tokens"] = spec.serving.prompt
    if qid in AT_LAST_CONTEXT and spec.serving is not None:
        # the serving chapter states what a replica holds beside the draft, and beside the shared prefix (its prefix
        # caching row), at a request's last context (a review read "no sequence fits" at the spec's first decode
        # context, 1,024, shorter than the 2,048 cached tokens, beside the chapter's 1,965)
        from genreport.model.serving import last_context

        defaults["context"] = last_context(spec.serving.prompt, spec.serving.output)
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
                # what each counts, in its error ("'0' is not a count of sequences", as plan says)
                noun = {"batch": "sequences", "n": "rows", "m": "columns"}.get(name, "tokens")
                params[name] = tokens(given, noun) if isinstance(given, str) else given
            except ValueError as exc:
                raise _err(f"--{name} {given}", str(exc), "write an integer or '8k' (k = 1024)") from None
    point = ""
    from genreport.model.techniques import AT_CHAPTER_POINT, STEADY_STATE

    verify = qid in VERIFY and spec.serving is not None and spec.serving.speculative is not None
    if spec.serving is not None and (qid in AT_CHAPTER_POINT or verify) and args.batch is None and args.context is None:
        # the serving chapter states it at its last row's batch and a request's last context: so does derive
        from genreport.model.serving_report import chapter_point

        params["batch"], params["context"] = chapter_point(spec)
        point = "the serving chapter's point, its last row's batch per replica at a request's last context"
        if qid in STEADY_STATE:  # the steady state reads each cache at a request's mean decode context
            mean = spec.serving.prompt + spec.serving.output / 2
            params["context"] = int(mean) if mean == int(mean) else mean
            point = ("the serving chapter's steady state: its last row's batch per replica, each cache read at a "
                     "request's mean decode context, T_in + T_out / 2")
    elif spec.serving is not None and qid in REQUEST and args.batch is None:
        from genreport.model.serving_report import chapter_point

        params["batch"] = chapter_point(spec)[0]
        point = ("the serving chapter's request at its last row's batch per replica: its end to end less its TTFT, "
                 "the rounds at a request's mean context")
    extra = {symbol_of[k]: float(v) for k, v in params.items() if k in ("tokens", "n", "m")}
    if "recipe" in params:
        extra["k"] = float(recipe_bytes_per_param(params["recipe"]))
    from genreport.model.layout import point_values

    # a layout quantity (chapter 6's ledgers, capacities, the per-GPU weights) takes the whole model and divides it
    # itself, as the report evaluates it: one GPU's sliced inputs would divide twice (w_g of DeepSeek-V3 on tp 1 x
    # ep 8 x dp 8 came out -474 GB, of Llama 3.1 70B on tp 8 2.2 GB for 17.65)
    whole = point_values(spec, acc, qid, params.get("batch"), params.get("context"), params.get("tokens"),
                         params.get("recipe"))
    if whole is None and qid in VERIFY + REQUEST:  # a round the serving chapter states at the layout
        from genreport.model.serving import round_point_values

        whole = round_point_values(spec, acc, qid, params.get("batch"), params.get("context"), params.get("tokens"))
    if whole is None and qid in WHOLE_MODEL and not env_obj.cut.trivial:
        # the model's count, chapter 5's state (its recipe table, figure 7: k N, not one GPU's k N_g), as the report
        # states them
        whole = env_obj.one_card().at()
        if qid == "training_state_bytes":
            point = "the whole model's training state, as chapter 5 states it"
    if whole is not None:
        env = dict(whole, **{k: v for k, v in extra.items() if k != "T"})
    elif qid == "crossover_batch" and env_obj.cut.pp > 1:
        # as the report states it (Env.crossover_at): a full pipeline streams each GPU's slice once per micro-batch,
        # n_PP times, and computes with it once (N_a): one stream gave 236 for the report's 473 (Llama 2 70B at
        # tp 8 x pp 2, 1k)
        env = env_obj.crossover_at(params["context"])
        point = (f"a full pipeline, as the report states it: each GPU streams its slice once per micro-batch "
                 f"(N_r,g = {env_obj.cut.pp} N_g) and computes with it once (N_a,g)")
    elif qid in ("weight_stream_time", "weight_flops_time") and params.get("batch") is None:
        # the report states them at batch 1: a mixture of experts streams the experts one token touches
        env = env_obj.at(batch=1.0, **extra)
        if spec.model.moe is not None:
            point = "batch 1, the experts one token touches, as the report states it"
    else:
        # a quantity without a batch (the capacities, the weight bytes) holds every weight a GPU keeps: a --batch
        # given beside it must not make a mixture of experts' N the experts that batch reads (DeepSeek-V3 at tp 8 x
        # ep 32 x dp 4: kv_capacity_tokens --batch 1 gave 6,754,640 for the report's 6,241,989)
        # (the serving chapter's quantities keep the point's batch: their steps read at it); likewise a --context
        # beside a quantity without one (kv_capacity_tokens, critical_context) must not shrink a windowed model's c
        keep = qid in AT_CHAPTER_POINT or qid in POOLS
        read = params.get("batch") if "batch" in needed or keep else None
        at = params.get("context") if "context" in needed or keep else None
        from genreport.model.env import READ_AT_CONTEXT
        from genreport.model.shown import HELD_BLOCKS

        if qid in HELD_BLOCKS and read is None:  # the memory held: with stages the one that holds the fewest tokens
            env = dict(env_obj.held(context=at), **extra)
        else:
            env = env_obj.at(batch=read, context=at, reads=qid in READ_AT_CONTEXT, **extra)
        ignored = [name for name, used in (("batch", read), ("context", at))
                   if used is None and params.get(name) is not None
                   and (name == "context" or spec.model.moe is not None)]
        if ignored:
            point = (f"the {' and the '.join(ignored)} given do{'es' if len(ignored) == 1 else ''} not enter this "
                     "quantity" + ("; N is the weights a GPU holds, every expert" if "batch" in ignored else ""))
        for name, used in (("batch", read), ("context", at)):  # the header names no point a quantity does not take
            if used is None:
                params.pop(name, None)
    moe = spec.model.moe
    from genreport.formulas.compiled import load as load_compiled

    if (moe is not None and params.get("tokens") is not None and params.get("batch") is None
            and {"N", "T"} <= set(load_compiled()[qid].args)):  # a pass over T tokens: the experts they touch
        cut = env_obj.cut
        touched = float(env_obj.touched(float(params["tokens"])))
        point = (point + "; " if point else "") + (
            f"N the weights the {int(params['tokens']):,} tokens read: {touched:.3g} of {moe.experts} experts a "
            "layer, as a decode step of that many tokens" + (f" (the ep group gathers {cut.ep // cut.tp} replicas' "
                                                            "tokens)" if cut.ep > cut.tp else ""))
    if qid == "training_weight_reuse_intensity":  # a training step streams the recipes' bf16 weights, as chapter 5
        from genreport.formulas.recipes import TRAINING_WEIGHT_BYTES

        env = dict(env, b=np.float64(TRAINING_WEIGHT_BYTES))
        if spec.precision.weight_bytes != TRAINING_WEIGHT_BYTES:
            point = (point + "; " if point else "") + "b: the recipes' bf16 weights, which training streams"
    values = {k: (float(v) if np.ndim(v) == 0 else v) for k, v in env.items()}
    from genreport.model.plan import spec_values  # tp, pp, links...: the spec's layout, one GPU by default

    values.update({k: v for k, v in spec_values(spec, acc, params.get("batch")).items() if k not in values})
    from genreport.model.techniques import MIXED_STEP

    values.update({k: v for k, v in serving_values(spec, values, mixed=qid in MIXED_STEP, env=env_obj).items()
                   if k not in values})
    pool_note = None
    # the serving chapter's disaggregation row: its pools, or the one pool it compares them with
    row_point = (_pool_point if qid in POOLS else _one_pool_point if qid == "aggregated_tpot" else None)
    at_row = row_point(spec) if row_point is not None and spec.serving is not None and args.batch is None else None
    if at_row is not None:
        values.update(at_row)
        if "batch" in params:
            params["batch"] = int(at_row["B"])
        uncached = (" of the prompt's uncached part at the layout (the rows' prefill)"
                    if spec.serving.prefix_hit else "")
        if qid in POOLS:
            point = ("the serving chapter's disaggregation row: its batch per replica, t_pr what a prompt occupies its "
                     "replica for (its pass through the stages" + (", every replica of the expert group prefilling at once"
                                                                    if _wider_group(spec) else "") + ")" + uncached
                     + ", t_s a decode replica's mean round (the steady state's, (T_o - 1) / tok/s per user), one "
                       "replica a pool")
            pool_note = _groups_note(spec)
        else:
            point = ("the serving chapter's disaggregation row's one pool (its before): the largest batch whose TPOT "
                     "meets the target, t_pr what a prompt occupies its replica for (its TTFT" + (
                         ", or every replica of the expert group prefilling at once" if _wider_group(spec) else "")
                     + ")" + uncached + ", t_s the round at the request's last context")
    if qid == "stall_free_rate" and spec.serving is not None:
        # the serving chapter's unchunked rounds (genreport.model.techniques.rate_curves): at a request's mean
        # context, N the weights the sequences running at this rate read (a mixture of experts' touched experts, not
        # every expert: Llama 4 Scout on 8 H100 came out 1.22/s for the chapter's 3.21)
        from genreport.commands.derive_values import report_of

        tech = (report_of(spec).serving or {}).get("techniques") or {}
        free = tech.get("rates", {}).get("unchunked", {}).get("stall_free")
        if free is not None:
            values.update(free["inputs"])
            pp = spec.parallelism.pp if spec.parallelism is not None else 1
            point = ("the serving chapter's unchunked rounds at a request's mean context, one GPU's: N the weights "
                     "the sequences running at this rate read" + (" (the experts they touch)" if spec.model.moe
                                                                  is not None else "")
                     + (", each slice once per micro-batch in flight" if pp > 1 else ""))
    if qid in AT_SPEC_RATE and spec.serving is not None:  # (--at sets its own inputs after these)
        # the serving chapter's unchunked rounds at the spec's rate (techniques.rate_curves): N, N_e and b the
        # sequences running there read (an MoE's touched experts, a pipeline's slices a round) and t_p, a prompt's
        # prefill through every stage; one GPU's whole slice read 9.52 ms for the rate figure's 1.2 ms (review)
        from genreport.commands.derive_values import report_of

        tech = (report_of(spec).serving or {}).get("techniques") or {}
        here = tech.get("rates", {}).get("unchunked", {}).get("at_rate")
        if here is not None:
            values.update(here["inputs"])  # t_r among them: the round alone at that rate (unchunked_ttft's)
            point = ("the serving chapter's unchunked rounds at the spec's rate, one GPU's: N the weights the "
                     "sequences running there read" + (" (the experts they touch)" if spec.model.moe is not None
                                                       else "")
                     + (", each slice a round's step" if spec.parallelism is not None and spec.parallelism.pp > 1
                        else "") + ", t_p a prompt's prefill alone")
    if qid == "chunked_life_cost" and spec.serving is not None:
        # the serving chapter's chunked prefill row: its cost kappa_c (the mixed step's time over a plain round's,
        # its links included at a layout) and the mixed steps n_c of a batch's life, the row's numbers
        from genreport.commands.derive_values import report_of

        n = ((report_of(spec).serving or {}).get("techniques") or {}).get("numbers") or {}
        if n.get("chunked_steps"):
            values.update({"kappa_c": float(n["chunked_cost"]), "n_c": float(n["chunked_steps"])})
            point += ("; the chunked prefill row's kappa_c (its mixed step's time over a plain round's) and n_c (the "
                      "mixed steps of a batch's life)")
    if qid in CEILING_WEIGHTS and spec.serving is not None and args.batch is None and args.context is None:
        # a serving chapter's ceiling at N the weights its own steady state streams at that rate (techniques.
        # steady_tpot_rate, capacity_weights), not those of the chapter's batch (DeepSeek-V3 on 32 H100, tp 8 x pp 4:
        # the TPOT ceiling 4.82/s at batch 222's weights for the chapter's 1.24)
        from genreport.commands.derive_values import report_of

        key, whose = CEILING_WEIGHTS[qid]
        tech = (report_of(spec).serving or {}).get("techniques") or {}
        if tech.get(key):
            values.update(tech[key])
            staged = spec.parallelism is not None and spec.parallelism.pp > 1
            if spec.model.moe is not None and not staged:  # techniques.steady_weights: the two-point law's mean
                point += (f"; N the weights a step streams on average at this rate, {whose} decode tokens' in every "
                          "step and the prompt tokens' in whole budgets on a share of the steps")
            elif spec.model.moe is not None or staged:
                point += f"; N the weights a step streams at this rate, {whose} decode and prompt tokens'"
    unsliced: frozenset = frozenset()
    note_at: dict = {}  # where the point's d_h is read when no S among the inputs says it (the bounded-layers note)
    speculating = qid == "compute_batch_speculative"
    if qid in ("compute_batch", "compute_batch_speculative") and spec.serving is not None \
            and spec.serving.tpot is not None and args.batch is None and args.context is None:
        # the whole model's request FLOPs over the replica's n_TP n_st GPUs (serving.compute_batch_values), as the
        # chapter counts them: one GPU's slice would be divided by them twice (QA, stop 75: 6,168 for the chapter's 385);
        # speculating, with serving.speculative's p_a, k_d, n_v and the draft's f_d (the speculative lever row's)
        from genreport.formulas.compiled import load as compiled
        from genreport.model.serving_report import spec_compute_batch_values

        # (without serving.speculative its p_a, k_d, n_v and f_d are --at's to give)
        whole = spec_compute_batch_values(spec, acc, speculative=speculating and spec.serving.speculative is not None)

        args_of = set(compiled()[qid].fn_args)  # the formula's own inputs
        values.update({k: v for k, v in whole.items() if k in args_of})
        unsliced = frozenset(k for k in whole if k in args_of and k not in ("n_TP", "n_St"))
        # d_h is the decode's at the mean context S = T_in + T_out / 2 (d_hp the prompt's): the note says it there, not
        # "a prompt of T = nan tokens" (the formula takes no S, nor a T)
        note_at = {"S": whole["S"]}
        point = ("the serving chapter's request at its TPOT target: the whole model's request FLOPs over the "
                 "replica's n_TP n_st GPUs" + ("; speculating with serving.speculative, f_d one draft pass of one "
                                              "sequence at the mean context (0 with a draft_cost)"
                                              if speculating and spec.serving.speculative is not None else ""))
    if qid == "kv_transfer_time" and spec.serving is not None:
        # the serving chapter's disaggregation row: the prompt's cache over the link between replicas, every GPU of
        # the replica sending its slice at once (W_kv), c the whole model's held at T_in (techniques.py)
        from genreport.load.spec import Parallelism
        from genreport.model.plan import kv_link
        from genreport.model.serving import prompt_cache_c
        from genreport.model.serving_report import pool_unit_gpus

        par_kv = spec.parallelism or Parallelism()
        link, name = kv_link(spec.hardware, par_kv, pool_unit_gpus(par_kv))  # as the chapter's row: its pools' copies
        if link:
            unsliced = frozenset({"c"})  # the whole model's c, as the report prints it, not c_g
            values["W_kv"] = float(link)
            values["c"] = prompt_cache_c(env_obj, spec.serving.prompt)
            point = (f"the serving chapter's disaggregation row: one prompt's cache over the {name} link, W_kv the "
                     "replica's GPUs sending at once, c the whole model's cache the prompt leaves")
    if spec.efficiency is not None:  # achievable fractions, where the spec gives them
        values.setdefault("eta_W", float(spec.efficiency.bandwidth))
        values.setdefault("eta_P", float(spec.efficiency.compute))
    held = None
    if qid == "prefix_capacity_batch" and spec.serving is not None and "S" in values and "c" in values:
        # the prefix row's count at its context: what a GPU holds there (the weights of every expert, each stage's
        # own: a step's N read 1,202 where the row's 1,201 fit, stop 89's review) and, of the cache, what the shared
        # prefix still holds there
        from genreport.formulas.compiled import load as _load
        from genreport.model.techniques import prefix_stages

        s_ = float(np.ravel(values["S"])[0])
        # the cache a sequence holds and the memory on the stage that binds (an uneven pipeline's stages differ: the
        # review of stop 89 read 389.8 where the row's 373 fit; an EAGLE/MTP head binds the last stage beside it, the
        # stage without it has none of its bytes: stop 91's review read 1,965 where the row's 1,968 fit), as the row
        # takes them
        read = float(np.ravel(values["N"])[0]) * float(np.ravel(values["b"])[0])
        options = prefix_stages(spec, env_obj, dict(values), s_)
        fn = _load()["prefix_capacity_batch"]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            kept = min(options, key=lambda o: float(np.ravel(fn(o))[0]))
        if kept["N"] * kept["b"] != read:
            held = kept["N"] * kept["b"]
        values.update({k: kept[k] for k in ("N", "b", "c", "C", "c_s", "M_d", "c_d") if k in kept})
    if qid == "capacity_batch_draft" and spec.serving is not None and "S" in values:
        # beside an EAGLE/MTP head at a layout of stages: the stage that binds beside it (the last, where the head
        # takes it below the stage that binds without it), as the report's capacity (draft.Draft.capacity)
        from genreport.model.draft import replica_binding
        from genreport.model.serving import last_context

        s_ = float(np.ravel(values["S"])[0])
        if s_ == float(last_context(spec.serving.prompt, spec.serving.output)) and not point:
            point = "the serving chapter's capacity beside the draft, at a request's last context"
        at = replica_binding(spec, s_)
        if at is not None and "C" in at:
            values.update({k: at[k] for k in ("n_PW", "n_PK", "C")})
            point += "; n_PW, n_PK and C the last stage's, which holds the EAGLE/MTP head and binds beside it"
    if qid == "goodput_rate_capacity" and "B" in env and "S" in env:  # the room beside what a GPU holds
        from genreport.model.serving import last_context
        from genreport.model.techniques import draft_stage, held_room

        # the room a GPU holds at a request's last context, as the chapter takes it (its steady state reads each cache
        # at the mean context, S below)
        last = (float(last_context(spec.serving.prompt, spec.serving.output)) if spec.serving is not None
                else float(np.ravel(env["S"])[0]))
        stage = draft_stage(spec, last) if spec.serving is not None else None  # the head's, where it binds there
        if spec.serving is not None and "M_d" in values:  # (--at's inputs still replace them)
            from genreport.model.techniques import draft_memory

            values["M_d"], values["c_d"] = draft_memory(spec, last)  # the draft's bytes at the last context, as there
        if stage is not None:
            values["C"] = float(np.ravel(env_obj.held(context=last, stage=stage)["C"])[0])
        roomy = held_room(env_obj, values, last, stage)
        if "c_h" in values and roomy.get("c_h") != values["c_h"]:
            values["c_h"] = roomy["c_h"]  # the cache a sequence holds on that stage (its n_PK share)
        if "c_s" in values and "c_s" in roomy and roomy["c_s"] != values["c_s"]:
            values["c_s"] = roomy["c_s"]  # and of it its cached prefix's, likewise
        if roomy["C"] != values["C"]:
            held = values["C"] - roomy["C"] + values["N"] * values["b"]  # the weight bytes a GPU holds
    nums = Numbers(spec, env_obj, values, params, point=point, held=held, whole=whole is not None,
                   unsliced=unsliced)
    if pool_note:
        nums.note = pool_note
    nums.bounded = _bounded_note(spec.model, env_obj, dict(values, **note_at) if note_at else values)
    nums.schedule = _schedule_note(qid, env_obj, values)
    a = spec.model.attention
    if qid == "kv_bytes_per_token" and a.kind == "mla":
        # the layers whose cache one GPU holds: with stages the binding stage's, L / n_PK (DeepSeek-V3's 61 layers at
        # pp 2: the last stage's 30, where the time slice L_g is the busiest stage's 31)
        staged = spec.parallelism is not None and spec.parallelism.pp > 1 and "n_PK" in values
        layers = (spec.model.layers / float(np.ravel(values["n_PK"])[0]) if staged
                  else float(np.ravel(values["L"])[0]))
        nums.note = (f"multi-head latent attention caches one latent of r = {a.kv_lora_rank} and a RoPE key of rho = "
                     f"{a.qk_rope_head_dim} per layer, not 2 H_kv d_h: "
                     + ("c = L (r + rho) b_kv" if env_obj.cut.trivial else
                        "c_g = L_b (r + rho) b_kv" if staged else "c_g = L_g (r + rho) b_kv") + f" = {layers:,.0f} x "
                     f"{a.kv_lora_rank + a.qk_rope_head_dim} x {float(np.ravel(values['b_kv'])[0]):g} B"
                     + ("" if env_obj.cut.trivial else " on one GPU")
                     + (", L_b the layers of the stage that holds the fewest tokens" if staged else ""))
    if qid == "kv_capacity_tokens" and not nums.note:
        nums.note = _window_reach_note(spec, env_obj, values)
    return nums


def _prefix_past_context(values: dict) -> str:
    """Why the prefix capacity has no value where the context is shorter than the cached prefix (no sequence of S
    tokens holds h_p T_in of them: the count's balance does not describe it); '' otherwise."""
    try:
        s, t_in, h = (float(np.ravel(values[k])[0]) for k in ("S", "T_in", "h_p"))
    except (KeyError, TypeError, ValueError):
        return ""
    if not s < h * t_in:
        return ""
    return (f"the context, {s:,.0f} tokens, is shorter than the {h * t_in:,.0f} tokens a prefix cache holds of each "
            f"prompt (h_p T_in), so no sequence of that context shares them: take --context at a request's last "
            "context, as the serving chapter does")


def _window_reach_note(spec, env_obj, values: dict) -> str:
    """For a model whose windowed or chunked layers keep only their window: what ``kv_capacity_tokens`` counts (every
    layer caching every token) and the tokens one sequence can reach, as chapter 4 says (prose.bounded_fact; a review
    found derive giving the count alone); "" for any other model, or where no cache fits."""
    from genreport.formulas import architecture as arch
    from genreport.model.catalog import kv_facts

    model = spec.model
    if not arch.bounded_layers(model) or not {"C", "N", "b"} <= set(values):
        return ""
    one = lambda k: float(np.ravel(values[k])[0])  # noqa: E731
    room = (one("C") - one("N") * one("b")) * env_obj.cut.pp * env_obj.cut.s_kv  # the whole cache's share, as chapter 4
    if room <= 0:
        return ""
    kv = kv_facts(model, spec.precision.kv_bytes, room, ())
    if not kv["bounded"]:
        return ""
    from genreport.model import stages

    # with stages each stage's own layers and memory, the weights as the spec's accounting counts them
    own = stages.kv_room(spec.hardware, model, spec.precision, spec.parallelism, (), one("N") * one("b"))
    if own is not None:
        kv["tokens_one_sequence"] = own["tokens_one_sequence"]
    local = " and ".join(f"{n} {what}" for n, what in ((kv["windowed_layers"], "windowed"),
                                                        (kv["chunked_layers"], "chunked")) if n)
    reach = kv["tokens_one_sequence"]
    most = model.max_context
    holds = ("one sequence of any context fits" if reach is None else
             f"one sequence can reach {reach:,.0f} tokens" + (f", past the model's {most:,}" if most and reach > most
                                                             else ""))
    return f"c counts every layer caching every token; the {local} layers keep only their window, so {holds}"


def _round_inputs(qid: str, nums, given: set) -> None:
    """A layout round whose own inputs --at set (a request's T or T_o, a verify round's n_v): the cache its rounds
    read and the experts its tokens touch at those inputs (serving.round_inputs_at), as the report takes them at its
    own; a review (stop 83) found a request's cache read at its prompt alone, 41% above its rounds' for Gemma 3 1B."""
    from genreport.model.serving import REQUEST, VERIFY, round_inputs_at

    own = {"T", "T_o"} if qid in REQUEST else {"n_v"} if qid in VERIFY else set()
    if not nums.whole or not own & given:
        return
    moved = round_inputs_at(nums.spec, nums.env_obj.accounting, qid, nums.values, nums.overridden)
    nums.values.update(moved)
    if {"c", "d_h"} & set(moved):  # the window's line described the cache at the point before --at moved it
        nums.bounded = ""


def _fastest_schedule(qid: str, nums) -> None:
    """m_b of ``qid`` at the point's inputs, --at's included (layout.fastest_schedule): a round of the strict bound on
    pipeline stages takes the least of its splits into micro-batches, which the inputs decide (a verify round's n_v,
    a request's T_o); --at m_b=... keeps what it sets."""
    from genreport.formulas.compiled import load
    from genreport.model.layout import fastest_schedule

    c, pp = load().get(qid), nums.env_obj.cut.pp
    if pp <= 1 or c is None or "m_b" not in c.fn_args or "m_b" in nums.overridden:
        return
    if all(a in nums.values for a in c.fn_args):
        nums.values["m_b"] = float(np.ravel(fastest_schedule(nums.values, pp, qid))[0])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            defined = np.all(np.isfinite(np.asarray(c(nums.values), dtype=float)))
        nums.schedule = _schedule_note(qid, nums.env_obj, nums.values) if defined else ""  # no round: no split


def _schedule_note(qid: str, env_obj, values: dict) -> str:
    """Which micro-batches the point's m_b is, where ``qid``'s formula takes them (a round of the strict bound on
    pipeline stages: formulas.parallel.fastest_schedule); "" elsewhere."""
    from genreport.formulas.compiled import load

    pp = env_obj.cut.pp
    c = load().get(qid)
    if pp <= 1 or c is None or "m_b" not in c.fn_args or "B" not in values:
        return ""
    m, b = float(np.ravel(values["m_b"])[0]), float(np.ravel(values["B"])[0])
    if not np.isfinite(m):
        return ""
    top = min(pp, b)
    return (f"m_b = {m:g}: of the splits of the B = {b:g} sequences into 1 to {top:g} micro-batches, the one whose round "
            f"is the least (each micro-batch streams every GPU's weights once and walks the {pp} stages); vLLM and "
            f"TensorRT-LLM run min(pp, B) = {top:g}, the serial estimate's (parallel.fastest_schedule)")


def _bounded_note(model, env_obj, values: dict) -> str:
    """Why d_h (and c) at a point are not the model's own where some layers attend a window or a chunk: both count
    only the positions attended (formulas.architecture.attended_fraction at a context S; a prompt of T tokens, its
    causal share: env.prefill_head_dim); "" for other models, or where the point's d_h is the model's."""
    from genreport.formulas import architecture as arch
    from genreport.model import stages

    if not arch.bounded_layers(model) or "d_h" not in values or "d_h" not in env_obj.values:
        return ""
    own, here = float(np.ravel(env_obj.values["d_h"])[0]), np.ravel(values["d_h"])
    if here.size != 1 or own <= 0 or abs(float(here[0]) / own - 1.0) < 1e-12:
        return ""
    f = float(here[0]) / own
    a, n_local, n_chunk = model.attention, arch.local_layers(model), arch.chunked_layers(model)
    at_context = "S" in values and np.size(values["S"]) == 1
    n = float(np.ravel(values["S"] if at_context else values.get("T", np.nan))[0])
    kinds = [f"{model.layers - n_local - n_chunk} global"]
    if n_local:
        kinds.append(f"{n_local} windowed ({a.sliding_window:,} tokens)")
    if n_chunk:
        kinds.append(f"{n_chunk} chunked ({a.chunk_size:,}-token chunks"
                     + (f"; S mod {a.chunk_size:,} = {n % a.chunk_size:,.0f} tokens of the current one)"
                        if at_context else ")"))
    where = (f"at S = {n:,.0f} a token attends {f:.4g} of the positions it would in full layers, so d_h = {own:g} x "
             f"{f:.4g}{_c_words(model, env_obj, values, n)}" if at_context else
             f"a prompt of T = {n:,.0f} tokens attends {f:.4g} of the causal attention of full layers, so d_h = "
             f"{own:g} x {f:.4g}")
    shares = stages.stage_shares(model, env_obj.cut.pp)
    if shares is not None and "kappa_B" in values:  # a layout formula: each stage's own attention
        g = model.layers - n_local - n_chunk
        where += (f"; on the layout's {env_obj.cut.pp} stages kappa_B and kappa_L take the busiest stage's global "
                  f"layers, {stages.share_words(shares[0])}, and the last stage's, {stages.share_words(shares[1])}, "
                  f"and kappa_F the stages' before the last together, {g - shares[1][0]} in "
                  f"{model.layers - shares[1][1]}, where the mean layers' d_h and c are the model's {g} in "
                  f"{model.layers} (stages.stage_shares)")
    elif shares is not None and env_obj.share is not None:  # one GPU of the busiest stage: its own global layers
        where += (f"; one GPU of the busiest of the layout's {env_obj.cut.pp} stages, its layers global "
                  f"{stages.share_words(shares[0])}, not the model's {model.layers - n_local - n_chunk} in "
                  f"{model.layers} (stages.stage_shares)")
    return f"{model.layers} layers: {', '.join(kinds)}; {where}"


def _c_words(model, env_obj, values: dict, context: float) -> str:
    """What c at a context counts, for :func:`_bounded_note`: the cache a step reads there (a chunked layer: the S mod
    chunk tokens of its current chunk) or the one a sequence holds (its whole chunk), whichever the point's c is; ""
    where c is not an input or is neither."""
    from genreport.formulas import architecture as arch
    from genreport.model import stages

    if "c" not in values or "b_kv" not in values or np.size(values["c"]) != 1:
        return ""
    b_kv, cut = float(np.ravel(values["b_kv"])[0]), env_obj.cut
    c = float(np.ravel(values["c"])[0])
    # one GPU's slice, or the whole model's where a layout formula divides it itself
    scales = (1.0,) if cut.trivial else (1.0 / (cut.split * cut.s_kv), 1.0)
    read = float(np.ravel(arch.kv_bytes_per_token_at(model, b_kv, context))[0])
    # one GPU of the busiest stage reads its own global layers' (stages.time_share; a layout formula's c: the mean's)
    read_b = float(stages.at_share(model, stages.time_share(model, cut.pp), read, arch.kv_bytes_per_token(model, b_kv)))
    held = float(np.ravel(arch.kv_cache_bytes_per_token_at(model, b_kv, context))[0])
    if any(abs(c - x * k) <= 1e-9 * x * k for k in scales for x in (read, read_b)):
        return ", and c is the cache of the positions read"
    if any(abs(c - held * k) <= 1e-9 * held * k for k in scales):
        return ", and c is the cache a sequence holds (a chunked layer's whole chunk, min(S, chunk))"
    return ""


POOLS = ("balanced_prefill_gpus", "decode_pool_rate", "prefill_pool_rate")
# the sequences a replica holds beside a draft: the serving chapter's, at a request's last context (its formula takes
# the whole model and divides it over the layout, genreport.model.layout.point_values)
DRAFT_ROOM = ("capacity_batch_draft",)
# what the serving chapter states at a request's last context: the room beside a draft, and beside a shared prefix
AT_LAST_CONTEXT = DRAFT_ROOM + ("prefix_capacity_batch",)
# the serving chapter's unchunked rounds at the spec's rate: derive takes the inputs the rate figure takes there
AT_SPEC_RATE = ("unchunked_step_time", "unchunked_round_time", "unchunked_stall_time", "unchunked_ttft")


def _pool_point(spec) -> dict | None:
    """The inputs the serving chapter's disaggregation row evaluates its pools at (genreport.model.techniques: one
    replica a pool, n_S = n_P = n_D = 1), None where the chapter has no such row."""
    from genreport.commands.derive_values import report_of

    tech = (report_of(spec).serving or {}).get("techniques")
    if not tech or "pool_prefill_time" not in tech["numbers"]:  # one generated token: no decode pool, no row
        return None
    n = tech["numbers"]
    # a prefill replica prefills the prompt's uncached part for its steady-state occupancy: the chapter's t_pr
    return {"B": float(tech["batch"]), "t_pr": float(n["pool_prefill_time"]), "t_s": float(n["pool_round"]),
            "k_pp": float(n["prefill_stages"]), "n_S": 1.0, "n_P": 1.0, "n_D": 1.0}


def _wider_group(spec) -> bool:
    """Whether an MoE's expert-parallel group is wider than its replica (ep > tp): a prompt then occupies its replica
    longer than its TTFT alone (Request.prefill_bound)."""
    from genreport.model.layout import prompt_group_of

    return spec.model.moe is not None and spec.parallelism is not None and prompt_group_of(spec.parallelism) > 1


def _one_pool_point(spec) -> dict | None:
    """The inputs of the one pool the serving chapter's disaggregation row compares with (genreport.model.techniques
    .one_pool: prompts prefilled between its rounds, at the largest batch whose TPOT meets the target, batch 1's
    where none does), None where the chapter has no such pool (no row, or one generated token)."""
    from genreport.commands.derive_values import report_of

    tech = (report_of(spec).serving or {}).get("techniques")
    if not tech or "one_pool_round" not in tech["numbers"]:
        return None
    n = tech["numbers"]
    return {"B": float(max(n["one_pool_batch"], 1)), "T_out": float(spec.serving.output),
            "t_pr": float(n["pool_prefill_time"]), "t_s": float(n["one_pool_round"])}


def _groups_note(spec) -> str | None:
    """Where the chapter's disaggregation row takes whole expert-parallel groups (ep > tp: no replica serves alone;
    genreport.model.techniques.whole_group_pools), the groups it splits and the pools' rate, the lesser of the two;
    None elsewhere (the balanced share is the row's split)."""
    from genreport.commands.derive_values import report_of
    from genreport.present import fmt

    n = ((report_of(spec).serving or {}).get("techniques") or {}).get("numbers") or {}
    if "pool_group_gpus" not in n:
        return None
    pre, dec, g = n["pool_prefill_groups"], n["pool_decode_groups"], n["pool_group_gpus"]
    return (f"an expert-parallel group spans {g} GPUs (ep > tp), so the chapter's row splits {n['pool_gpus']} GPUs "
            f"in whole groups, p = round(n_P* x {pre + dec}) within 1 .. {pre + dec - 1}: {pre} prefill, {dec} decode; "
            f"the pools serve min({fmt.num(n['pool_prefill_rate'])}, {fmt.num(n['pool_decode_rate'])}) requests/s, "
            f"{n['pool_gain']:.0%} of its GPUs' decode rate")


def _hold(nums: Numbers) -> None:
    """Where the point's step reads other weights than a GPU holds (``Numbers.held``), C lowered by the difference
    (genreport.model.techniques.held_room, after any --at), with a line saying so."""
    if nums.held is None:
        return
    from genreport.present import fmt

    v = nums.values
    read = v["N"] * v["b"]
    nums.note = (f"C is the {fmt.gb(v['C'])} a GPU can use less the {fmt.gb(nums.held)} of weights it holds, plus the "
                 f"{fmt.gb(read)} a step at the point reads (N b): so C - N b is the room beside the weights it holds, "
                 "and the step streams what it reads")
    v["C"] = v["C"] - nums.held + read


def serving_values(spec, values: dict, mixed: bool = False, env=None) -> dict[str, float]:
    """The technique symbols the spec's ``serving`` block gives (formulas/techniques.py): T_in, T_out, h_p, s_c and
    C_p (the prompt tokens of a mixed step, min(max(s_c - B, 0), T_in (1 - h_p)): with ``mixed``, a mixed step's
    quantity, at the point's batch B, else at B = 0, the budget's whole width the steady state takes), theta (the TPOT target), lam (the rate), p_a,
    k_d and n_v (speculative), and t_d, the drafts' share of one plain decode step at the point (max of its two
    ledgers), where the point has a batch and context; t_p, the uncached prompt prefilled alone on one GPU
    (``prefill_alone_time``; the mean over the prompts' lengths where ``serving.prompt_spread`` names a spread, c_v
    the prefills' coefficient of variation, 0 for one length, and k_pp = 1, one prefill stage), t_r the decode round
    alone at the rate without chunked prefill (``unchunked_round_time``), q_p = 0.99, the tail of the time
    between tokens (``stall_free_rate``), M_d, c_d, a draft model's weights and KV bytes per token on one GPU
    (0 without a draft model), and with ``env`` (the spec's Env at its layout) c_h, the KV bytes per token a sequence
    of the request holds at its mean context (serving.held_mean_c, as the serving chapter's KV cache room takes it;
    c for a model without windowed or chunked layers)."""
    sv = spec.serving
    if sv is None:
        return {}
    from genreport.model.techniques import request_inputs

    batch = float(np.ravel(values["B"])[0]) if mixed and "B" in values else 0.0
    stages = spec.parallelism.pp if mixed and spec.parallelism is not None else 1
    out = request_inputs(sv, batch, stages)
    from genreport.model.techniques import TAIL

    out["q_p"] = TAIL  # the P99 of the time between tokens (Sarathi-Serve's capacity)
    if env is not None:  # d_hp: the prompt tokens' head dim over the uncached prompt (techniques.prompt_head_dim):
        # MLA's prefill form; else the unwindowed d_h (the Env's, not the point's window share) times the attended
        # fraction of the uncached tokens, the cached prefix before them
        from genreport.model.env import prefill_head_dim

        d_h = float(np.ravel(env.values["d_h"])[0])
        out["d_hp"] = float(prefill_head_dim(spec.model, d_h, float(sv.prompt) * (1 - sv.prefix_hit),
                                             cached=float(sv.prompt) * sv.prefix_hit))
    from genreport.model.serving import last_context
    from genreport.model.techniques import draft_memory

    # M_d, c_d: a draft model's weights and KV bytes per token on one GPU of the layout (0 without one), the memory
    # the capacities take (capacity_batch_draft, goodput_rate_capacity, prefix_capacity_batch)
    context = float(np.ravel(values["S"])[0]) if "S" in values else float(last_context(sv.prompt, sv.output))
    out["M_d"], out["c_d"] = draft_memory(spec, context)
    out["M_s"] = float(getattr(spec.hardware, "max_sequences", 0) or 0)  # the engine's limit (goodput_rate_engine)
    if env is not None:
        from genreport.model.serving import held_mean_c, prefix_held_mean_c

        out["c_h"] = held_mean_c(env, sv.prompt, sv.output)
        # of it, what the cached prefix still holds (the goodput's KV cache room; prefix_capacity_batch takes its
        # context's, below)
        out["c_s"] = prefix_held_mean_c(env, sv.prompt, sv.output, float(sv.prompt) * sv.prefix_hit)
    if all(k in values for k in ("N_p", "P", "W", "c")):  # t_p: the uncached prompt prefilled alone on one GPU
        from genreport.formulas.compiled import load

        pre = load()["prefill_alone_time"]
        given = {**values, **out, "S": 0.0}
        if all(a in given for a in pre.fn_args):
            # over the prompts' lengths (serving.prompt_spread): t_p their prefills' mean, c_v its coefficient of
            # variation, as the serving chapter's tails take them (genreport.model.techniques.rate_curves)
            from genreport.model.techniques import prompt_classes

            each = [float(np.ravel(pre.fn(*({**given, "T_in": x}[a] for a in pre.fn_args)))[0])
                    for x in prompt_classes(sv)]
            out["t_p"] = sum(each) / len(each)
            out["c_v"] = float(np.std(each)) / out["t_p"] if out["t_p"] > 0 else 0.0
            out["k_pp"] = 1.0  # one stage: the queue as the serving chapter counts it (--at k_pp=2 for a pipeline)
        rnd = load()["unchunked_round_time"]  # t_r: the decode round alone at the spec's rate, without chunks
        given = {**values, **out, "S": float(sv.prompt) + float(sv.output) / 2,
                 **({"lam": float(sv.rate)} if sv.rate is not None else {})}
        if sv.rate is not None and all(a in given for a in rnd.fn_args):
            out["t_r"] = float(np.ravel(rnd.fn(*(given[a] for a in rnd.fn_args)))[0])
    out["T_o"] = float(sv.output)  # a request's output tokens (request_decode_time_*), the serving block's
    if sv.tpot is not None:
        out["theta"] = float(sv.tpot)
    if sv.rate is not None:
        out["lam"] = float(sv.rate)
    if sv.speculative is not None:
        out.update({"p_a": float(sv.speculative.acceptance), "k_d": float(sv.speculative.draft_tokens),
                    "n_v": float(sv.speculative.verified)})
        if "B" in values and "S" in values:
            from genreport.formulas.compiled import load

            q = load()
            step = max(float(np.ravel(q[k](values))[0]) for k in ("decode_time_memory", "decode_time_compute"))
            out["t_d"] = sv.speculative.draft_cost * step
            from genreport.model.draft import of_spec

            draft = of_spec(spec)
            if draft is not None:  # t_d from the draft model's k_d passes (draft_time_bound), not a fraction
                b_, s_ = (float(np.ravel(values[k])[0]) for k in ("B", "S"))
                n_tp = float(np.ravel(values.get("n_TP", 1.0))[0])
                n_pp = float(np.ravel(values.get("n_PP", 1.0))[0])
                stages = float(np.ravel(values.get("n_St", 1.0))[0])
                f_d, q_d = draft.ledgers(q, np.asarray([b_]), s_)
                out.update({"F_d": float(f_d[0]), "Q_d": float(q_d[0])})
                out["t_d"] = float(draft.time(q, sv.speculative.draft_tokens, np.asarray([b_]), s_, n_tp, stages)[0])
                # an EAGLE/MTP head is the last stage's whole (techniques.draft_memory), a draft model's layers split
                # evenly over the stages
                out["M_d"], out["c_d"] = (draft_memory(spec, s_) if draft.head and stages > 1
                                          else draft.memory(q, s_, int(n_tp), n_pp))
    return out


def _touched_name(nums: Numbers, streamed: float, has_active: bool = False) -> str | None:
    """N_a (the active parameters) or N_s (the experts a batch touches, with the dense layers) for the N a mixture of
    experts' formula reads at the point, where that is not the N the model holds (the card's, or the whole model's
    where the formula divides it itself); None where it is.  N_s where the formula has its own N_a beside it."""
    env = nums.env_obj
    whole = env.card if nums.whole and env.card else env.values
    held, active = (float(np.ravel(whole[k])[0]) for k in ("N", "N_a"))
    if abs(streamed - held) <= 1e-9 * held:
        return None
    return "N_a" if abs(streamed - active) <= 1e-9 * active and not has_active else "N_s"


def _streamed_name(nums: Numbers, streamed: float) -> str | None:
    """The report's symbol for the weights one GPU streams where they are not the slice it holds (N_g): a pipeline
    round's micro-batches (N_r,g), the experts a batch touches (N_s,g, N_a,g) -- genreport.model.shown.streamed_symbol,
    as the report's formula blocks name them; None where they are the held slice."""
    from types import SimpleNamespace

    from genreport.model.shown import streamed_symbol

    env = nums.env_obj
    held = float(np.ravel(env.values["N"])[0])
    if abs(streamed - held) <= 1e-9 * held:
        return None
    shim = SimpleNamespace(envs={"_": env}, lead="_", spec=nums.spec, frame=SimpleNamespace(many=True))
    return streamed_symbol(shim, streamed)[0] or None


def _numbers_header(nums: Numbers, expr, qid: str) -> list[str]:
    from genreport.formulas.glossary import BY_NAME

    spec = nums.spec
    where = ", ".join(f"{k} = {v}" for k, v in nums.params.items())
    lines = [f"{spec.name} ({spec.file}): {spec.model.name} on {spec.hardware.name}, {spec.precision.label()}, "
             f"{nums.env_obj.accounting} accounting" + (f"; {where}" if where else "")
             + (f": {nums.point}" if nums.point else "")]
    from genreport.model.frame import PLAIN

    cut = nums.env_obj.cut
    sliced = {k for k in PLAIN if nums.env_obj.values.get(k) != (nums.env_obj.card or {}).get(k)}
    if not cut.trivial:
        par = spec.parallelism
        lines.append(f"  at the layout: one GPU of tp {par.tp} x pp {par.pp} x ep {par.ep} x dp {par.dp} "
                     f"({par.gpus} GPUs); " + (
                         "the formula takes the whole model" if qid in WHOLE_MODEL
                         else "the formula takes the whole model and divides it itself" if nums.whole
                         else "a symbol marked _g holds that GPU's slice of the model"))
    shown, streamed_note = [], ""
    from genreport.model.shown import HELD_BLOCKS

    # the memory held, with stages: the stage that holds the fewest tokens (Env.held; the report's N_b,g and c_b,g)
    staged = qid in HELD_BLOCKS and cut.pp > 1 and not nums.whole
    for s in sorted(expr.free_symbols, key=lambda s: s.name):
        if s.name in nums.values:
            name = (PLAIN[s.name] if s.name in sliced and not cut.trivial and not nums.whole
                    and s.name not in nums.unsliced else s.name)
            if staged and s.name in ("N", "c"):
                name = {"N": "N_b,g", "c": "c_b,g"}[s.name]
                streamed_note = ("  N_b,g and c_b,g: the weights and the KV bytes per token one GPU of the stage that "
                                 "holds the fewest tokens holds (its layers, the first stage's embedding, the last's "
                                 "head), not the even split N_g, c_g")
            elif s.name == "N" and name != s.name:
                name = _streamed_name(nums, float(np.ravel(nums.values["N"])[0])) or name
            elif s.name == "N" and spec.model.moe is not None:
                # a mixture of experts streams the experts its batch touches, not the N parameters it holds: named
                # as the report's formula blocks name it (N_a, N_s; the whole model's where the formula divides it)
                name = _touched_name(nums, float(np.ravel(nums.values["N"])[0]),
                                     "N_a" in {x.name for x in expr.free_symbols}) or name
            shown.append(f"{name} = {_fmt(nums.values[s.name], BY_NAME[s.name].unit)}")
            if s.name == "N" and name not in ("N", PLAIN["N"]) and not staged:
                env = nums.env_obj
                held = env.card if (nums.whole or cut.trivial) and env.card else env.values
                what = ("the weights a pipeline round streams (the slice once per micro-batch)" if name.startswith("N_r")
                        else "the weights the step streams (the dense layers and the experts its tokens touch)")
                streamed_note = (f"  {name} stands for N in the formula, {what}, of the "
                                 f"{_fmt(held['N'], BY_NAME['N'].unit)} {'one GPU holds' if held is env.values and not cut.trivial else 'the model holds'}")
    if shown:
        lines.append("  inputs: " + ", ".join(shown))
        if streamed_note:
            lines.append(streamed_note)
    # the windows' line describes the point's d_h and c: not one that --at set
    notes = [nums.note, "" if {"d_h", "c"} & nums.overridden else nums.bounded,
             "" if "m_b" in nums.overridden else nums.schedule]
    if note := "; ".join(n for n in notes if n):
        lines.append(f"  ({note})")
    return lines






def _elasticity_lines(qid: str, nums: Numbers | None, variant: str, forms: list | None = None) -> list[str]:
    if nums is None:
        raise _err("--elasticities", "elasticities are numbers at a spec's inputs", "add --spec SPEC")
    from genreport.formulas.compiled import generated_module
    from genreport.formulas.sensitivity import at

    gen = generated_module()
    if forms is not None and (gen is None or (qid, variant) not in gen.ELASTICITIES):
        el = _term_elasticities(qid, forms, nums.values)
        head = "  elasticities d ln q / d ln x (a 1 % rise of x changes q by this many %; central differences):"
    else:
        el = at(nums.values, qid, variant)
        head = "  elasticities d ln q / d ln x (a 1 % rise of x changes q by this many %):"
    lines = ["", head]
    if nums.spec.model.moe is not None and "B" in el:
        # a mixture of experts reads the experts its tokens touch: N grows with the batch, which the symbolic
        # derivative holds fixed (the report's sensitivity table leaves B out for the same reason)
        el = {k: v for k, v in el.items() if k != "B"}
        lines.append("    (B left out: a mixture of experts reads more experts as the batch grows, which d/dB holds "
                     "fixed)")
    for name, v in sorted(el.items(), key=lambda kv: (-abs(float(kv[1])), kv[0])):
        lines.append(f"    {name:<6} {float(v):+.4f}")
    return lines


# ----------------------------------------------------------------------------------------------- solutions


# ----------------------------------------------------------------------------------------------- named terms
# ``derive``'s named terms: a layout's serial decode round (and a request's serial decode rounds) printed as the
# sum of its named parts, each part's closed form on its own line, then each part's value and the whole's.
#
# Printed whole, ``decode_time_serial`` at tp 8 x ep 8 is a 10 KB line (the library's all-reduce on two tiers, each
# branch of its min and max written out at every place it occurs) and ``request_decode_time_serial`` at tp 8 x pp 2
# took seconds to build and print; the parts are what the serial estimate adds (formulas/parallel.py:
# :func:`decode_time_serial`), each as short as its own formula.

NAMED = ("decode_time_serial", "request_decode_time_serial", "compute_batch", "compute_batch_speculative")
# each named part's unit where it is not a time (the serial rounds' parts are seconds)
_PART_UNITS = {"C_r": "FLOP", "F_1": "FLOP", "F_p": "FLOP", "E": "token"}
_SHORT = {"LL": "LL", "LL128": "LL128", "Simple": "S"}  # the protocols' names in the parts' symbols (p_S, c_S)


def _terms(qid: str, staged: bool = True):
    """(the whole in the parts' symbols, [(symbol, what it is, closed form)]) of ``qid`` (one of NAMED), before any
    variant's substitutions; the whole equals :func:`genreport.formulas.parallel.decode_time_serial` (or the request's)
    with each part's closed form put back."""
    import sympy as sp
    from genreport.formulas import parallel as p

    if qid in ("compute_batch", "compute_batch_speculative"):
        return _compute_batch_terms(qid == "compute_batch_speculative")
    over = p._over_request if qid == "request_decode_time_serial" else (lambda e: e)
    each = "summed over the request's T_o - 1 rounds, " if qid == "request_decode_time_serial" else ""
    parts = [
        ("t_comp", f"compute as the engine runs it, {each}one GPU (decode_time_compute_serial)",
         p.decode_time_compute_serial()),
        ("t_mem", f"HBM of the busiest expert GPU, {each}weights at e_w (decode_time_memory_busiest)",
         p.decode_time_memory_busiest()),
        ("t_o", f"the kernels' fixed costs, {each}one GPU (decode_time_overhead)", p.decode_time_overhead()),
        ("x_TP", f"tensor-parallel all-reduces as the library runs them, {each}one GPU", p.decode_time_tp(True)),
        ("x_EP", f"expert all-to-alls as the library runs them, {each}one GPU", p.decode_time_ep(True)),
        ("x_PP", f"activations sent on to the next stage, {each}one GPU", p.decode_time_pp(True)),
        ("x_back", f"the last stage's token ids back to the first, {each}one GPU",
         p._some(p.n_St) * p.microbatches() * (p.a_PP + p.tau_c)),
        ("h_comp", f"the output head's FLOPs at e_m of the peak on a last-stage GPU, {each}with stages",
         2 * p.head_parameters() * p.B / (p.n_TP * p.P * p.e_m)),
        ("h_mem", f"the output head's weights streamed by a last-stage GPU, {each}with stages",
         p.microbatches() * p.head_parameters() * p.b / (p.n_TP * p.W * p.e_w * p.e_g)),
    ]
    # each stage's own attention (formulas.parallel.at_stage: 1 where the stages hold the model's mix of layers)
    for tag, kappa, whose in (("B", p.kappa_B, "the busiest stage's own layers"),
                              ("L", p.kappa_L, "the last stage's own layers"),
                              ("F", p.kappa_F, "the stages before the last, their layers together")):
        parts += [(f"t_comp_{tag}", f"t_comp on {whose} (c and d_h times kappa_{tag}), {each}one GPU",
                   p.at_stage(p.decode_time_compute_serial(), kappa)),
                  (f"t_mem_{tag}", f"t_mem on {whose}, {each}one GPU", p.at_stage(p.decode_time_memory_busiest(), kappa))]
    named = [(sp.Symbol(name, positive=True), what, over(expr)) for name, what, expr in parts]
    (t_comp, t_mem, t_o, x_tp, x_ep, x_pp, x_back, h_comp, h_mem, t_comp_b, t_mem_b, t_comp_l, t_mem_l, t_comp_f,
     t_mem_f) = (s for s, _, _ in named)

    def last(comp, mem):  # the last stage (formulas.parallel.at_last_stage): r of the busiest's layers, the head
        return (sp.Max(p.at_last_stage(comp, h_comp), p.at_last_stage(mem, h_mem)) + p.at_last_stage(t_o, 0)
                + p.at_last_stage(x_tp + x_ep, 0) + x_back)

    # formulas.parallel.pipelined: X and X_L at their stages' own attention, the walk's stages before the last at
    # theirs together (kappa_F), its last stage at its own
    sends = x_tp + x_ep + x_pp
    whole = sp.Max(sp.Max(t_comp_b, t_mem_b) + t_o + sends, last(t_comp_l, t_mem_l),
                   ((p.n_PP - p.last_stage_share()) * (sp.Max(t_comp_f, t_mem_f) + t_o + sends)
                    + last(t_comp_l, t_mem_l)) / p.microbatches())
    if not staged:  # every stage holds the model's mix of layers (kappa = 1): the stages' parts are the mean's
        whole = whole.xreplace({t_comp_b: t_comp, t_mem_b: t_mem, t_comp_l: t_comp, t_mem_l: t_mem, t_comp_f: t_comp,
                                t_mem_f: t_mem})
        named = named[:-6]
    return whole, named[:3] + _ring_parts(named[3]) + named[4:]


def _compute_batch_terms(speculating: bool):
    """B_P (and B_P speculating) as the report prints it, the replica's compute over a request's FLOPs, with the
    request's parts named: written over one denominator B_P speculating was a sum of 30 terms with "p_a p_a^k_d" in it
    (review, stop 77).  formulas/techniques.py ``compute_batch`` / ``compute_batch_speculative``."""
    import sympy as sp
    from genreport.formulas import techniques as t
    from genreport.formulas.glossary import sym

    c, f1, fp = (sp.Symbol(n, positive=True) for n in ("C_r", "F_1", "F_p"))
    named = [(c, "what the replica's n_TP n_st GPUs compute over a request's T_out - 1 decode steps at the TPOT "
                 "target theta [FLOP]", sym("n_TP") * sym("n_St") * t.P * (t.T_out - 1) * t.theta),
             (f1, "one decode token's FLOPs at the request's mean context T_in + T_out / 2 [FLOP]",
              t._decode_flops_per_seq(t.mean_decode_context())),
             (fp, "the prefill of one request's uncached prompt, in the prompt's attention form [FLOP]",
              t._prompt_flops())]
    if not speculating:
        return c / ((t.T_out - 1) * f1 + fp), named
    e = sp.Symbol("E", positive=True)
    named.append((e, "tokens a verify round keeps on average, (1 - p_a^(k_d+1)) / (1 - p_a) (Leviathan et al., eq. 1), "
                     "at most the T_out - 1 the request makes after its first [token]", t.request_expected_tokens()))
    return c / ((t.T_out - 1) * (t.n_v * f1 + t.k_d * sym("f_d")) / e + fp), named


def _ring_parts(x_tp: tuple) -> list:
    """x_TP with its ring all-reduce named (r_TP: the protocol NCCL's tuner runs, as the estimate charges it), and
    r_TP's pieces: each protocol's price (p_LL, p_LL128, p_S) and charge (c_LL, c_LL128, c_S) for one call.  Written
    out, the tuner's choice repeats every protocol's two forms in each condition: x_TP was a 15 KB line."""
    import sympy as sp
    from genreport.formulas import parallel as p

    z = p.tp_all_reduce_bytes() / p.microbatches()
    priced = {k: sp.Symbol(f"p_{_SHORT[k]}", positive=True) for k in p.TUNER_PROTOCOLS}
    charged = {k: sp.Symbol(f"c_{_SHORT[k]}", positive=True) for k in p.PAID_PROTOCOLS}
    r = sp.Symbol("r_TP", positive=True)
    ring = p.all_reduce_time_ring_protocols(p.n_TP, z)
    s, what, expr = x_tp
    shown = expr.xreplace({ring: r})
    if shown == expr:
        raise ValueError("x_TP does not contain the ring all-reduce it is built from")
    runs = p.picked_protocol(priced)
    out = [(s, what.replace(", one GPU", ", one GPU, r_TP each"), shown),
           (r, "one ring all-reduce of B d b_a / m bytes with the protocol NCCL's tuner runs (the cheapest as it "
               "prices them), as the estimate charges it",
            sp.Piecewise((charged["LL"], runs["LL"]), (charged["LL128"], runs["LL128"]), (charged["Simple"], True)))]
    for k, f in p.TUNER_PROTOCOLS.items():
        out.append((priced[k], f"{k} as NCCL's tuner prices one call (the link's line rate W_TP)",
                    p._ring_forms(p.n_TP, z, *f)))
    for k, f in p.PAID_PROTOCOLS.items():
        measured = ", Simple's call and step as nccl-tests measure them" if k == "Simple" else ""
        out.append((charged[k], f"{k} as the estimate charges one call (the bus bandwidth the library reaches"
                                f"{measured})", p._ring_forms(p.n_TP, z, *f)))
    return out


def _term_lines(qid: str, qsym, variant: str, staged: bool = False) -> tuple[list[str], list]:
    """The printed lines (the whole in named parts, then each part's closed form) and the parts [(symbol, what,
    closed form)] under ``variant`` (their free symbols are the inputs the header lists; :func:`_term_values` prints them
    at a spec's inputs)."""
    from genreport.formulas import solve as so

    whole, named = _terms(qid, staged)
    built = qid in ("compute_batch", "compute_batch_speculative")  # printed as written, as the report prints them
    forms = [(s, what, so.apply_variant(e, variant, not built)) for s, what, e in named]
    out = [f"  {so.expr_text(qsym)} = {so.expr_text(whole, built)}", "  where"]
    for s, what, e in forms:
        out.append(f"    {s.name}: {what}")
        out.append(f"      {s.name} = {so.expr_text(e, built)}")
    if built:  # inputs the whole holds beside its parts (T_out, n_v, k_d, f_d): the header lists them too; a part's
        # symbol, no glossary input, is not listed
        import sympy as sp

        forms = [*forms, (sp.Symbol("B_P", positive=True), "", whole)]
    return out, forms


# ``comm_hbm_crossover_batch`` written out repeats the protocols' lines inside every candidate's condition (55 KB);
# derive names the lines, each candidate and its condition instead, and states which candidates hold at a spec.

CROSSOVER = "comm_hbm_crossover_batch"


def _crossover_lines(qsym, variant: str) -> tuple[list[str], list, object]:
    """The printed lines of comm_hbm_crossover_batch in named parts, the candidates [(name, value, holds)] under
    ``variant``, and a Tuple of every part (its free symbols: the inputs the header lists)."""
    import sympy as sp
    from genreport.formulas import parallel as p
    from genreport.formulas import solve as so

    gaps, priced = p.crossover_lines()
    fp = {k: sp.Function(f"p_{_SHORT[k]}") for k in priced}
    fg = {k: sp.Function(f"g_{_SHORT[k]}") for k in gaps}
    lines, every, crossings, names = [], [], [], []
    for k, e in priced.items():
        e = so.apply_variant(e, variant)
        every.append(e)
        lines += [f"    p_{_SHORT[k]}(B): {k}'s all-reduces of a decode round as NCCL's tuner prices them (the link's "
                  "line rate), one GPU", f"      p_{_SHORT[k]}(B) = {so.expr_text(e)}"]
    for k, e in gaps.items():
        e = so.apply_variant(e, variant)
        every.append(e)
        lines += [f"    g_{_SHORT[k]}(B): {k}'s all-reduces as the estimate charges them, less the HBM ledger, one GPU",
                  f"      g_{_SHORT[k]}(B) = {so.expr_text(e)}"]
    for c in p.crossover_parts():
        value, holds = so.apply_variant(c.value, variant), so.apply_variant(c.holds, variant)
        every.append(value)
        if c.kind == "root":
            (k,) = c.protocols
            x, name = sp.Symbol(f"b_{_SHORT[k]}", positive=True), f"k_{_SHORT[k]}"
            shown = p.picked_protocol({o: fp[o](x) for o in fp})[k]
            lines += [f"    {x}: where g_{_SHORT[k]}(B) = 0", f"      {x} = {so.expr_text(value)}",
                      f"    {name}: {x} where the tuner runs {k} there, else none",
                      f"      {name} = {x} if {_condition_text(shown)}"]
        else:
            a, z = c.protocols
            (third,) = set(fp) - {a, z}
            x = sp.Symbol(f"s_{_SHORT[a]}_{_SHORT[z]}", positive=True)
            name = f"k_{_SHORT[a]}_{_SHORT[z]}"
            shown = sp.And(fp[third](x) >= fp[a](x), fg[a](x) < 0, fg[z](x) >= 0)
            lines += [f"    {x}: the tuner's change from {a} to {z}, p_{_SHORT[a]}(B) = p_{_SHORT[z]}(B)",
                      f"      {x} = {so.expr_text(value)}",
                      f"    {name}: {x} where the gap steps from below the ledger to at or above it, else none",
                      f"      {name} = {x} if p_{_SHORT[a]} rises faster than p_{_SHORT[z]} and "
                      f"{_condition_text(shown)}"]
        crossings.append((name, value, holds))
        names.append(name)
    head = [f"  {so.expr_text(qsym)} = Max({', '.join(names)}) where g_LL, g_LL128 and g_S all rise with B, "
            "else none: the last batch where the all-reduces of the protocol NCCL's tuner runs rise or step above the "
            "HBM ledger", "  where"]
    return head + lines, crossings, sp.Tuple(*every)


def _condition_text(cond) -> str:
    """A candidate's condition in words: its clauses joined by "and"."""
    from genreport.formulas import solve as so

    clauses = cond.args if cond.func.__name__ == "And" else (cond,)
    return " and ".join(f"{so.expr_text(c.lhs)} {c.rel_op} {so.expr_text(c.rhs)}" for c in clauses)


def _crossing_values(crossings: list, inputs: dict) -> str:
    """Each candidate's batch at a spec's ``inputs`` and whether it holds there, one line."""
    import math

    import sympy as sp

    shown = []
    for name, value, holds in crossings:
        at = {x: float(np.ravel(inputs[x.name])[0]) for x in (value.free_symbols | holds.free_symbols)
              if x.name in inputs}
        missing = sorted(x.name for x, v in at.items() if not math.isfinite(v))
        if missing:  # a layout without that link (one GPU, no tensor parallelism): no comparison to make
            shown.append(f"{name} = (no value: {', '.join(missing)} has none at this spec)")
            continue
        try:
            v, ok = value.xreplace(at), holds.xreplace(at)
        except TypeError:  # a comparison of NaN: a 0/0 where the spec's layout has no such collective (tp 1)
            shown.append(f"{name} = (no value: its condition has none at this spec)")
            continue
        if not v.is_number or ok not in (sp.true, sp.false):
            shown.append(f"{name} = (no value)")
            continue
        if ok == sp.true and float(v) <= 0:  # a root below zero is no batch (never a negative count)
            shown.append(f"{name} = none ({float(v):.6g} is not a batch)")
            continue
        shown.append(f"{name} = {float(v):.6g}" if ok == sp.true else f"{name} = none (at {float(v):.6g} its condition fails)")
    return "  candidates: " + ", ".join(shown)


def _term_values(forms: list, inputs: dict) -> str:
    """Each part's value at a spec's ``inputs`` (glossary name -> number), one line; a part made of later parts (x_TP
    of r_TP, r_TP of the protocols' prices and charges) takes their values."""
    values = {s: e.xreplace({x: float(inputs[x.name]) for x in e.free_symbols if x.name in inputs})
              for s, _, e in forms}
    for _ in range(len(forms)):  # each pass puts in the parts' values found so far
        values = {s: v.xreplace({t: w for t, w in values.items() if w.is_number}) for s, v in values.items()}
    shown = [f"{s.name} = {float(v):.6g} {_PART_UNITS.get(s.name, 's')}" if v.is_number
             else f"{s.name} = (no value: {v.free_symbols})" for s, v in values.items() if s.name != "B_P"]
    return "  parts: " + ", ".join(shown)


def _term_elasticities(qid: str, forms: list, inputs: dict) -> dict[str, float]:
    """d ln q / d ln x of ``qid`` at a spec's ``inputs`` for each input x of its parts, by central differences of the
    compiled formula (a relative step of 1e-6 each way): differentiating the whole symbolically, as the shipped
    elasticities are, took more than derive's 15 s at tp 8 x pp 2.  An input at 0 has elasticity 0 (x dq/dx = 0)."""
    from genreport.formulas.compiled import load

    f = load()[qid]
    values = {k: float(v) for k, v in inputs.items() if k in f.fn_args}
    base = float(f(values))
    names = sorted({x.name for _, _, e in forms for x in e.free_symbols} & set(values))
    out = {}
    for name in names:
        v = values[name]
        if v == 0 or base == 0:
            out[name] = 0.0
            continue
        h = 1e-6
        up, down = float(f({**values, name: v * (1 + h)})), float(f({**values, name: v * (1 - h)}))
        out[name] = (up - down) / (2 * h * base)
    return out
