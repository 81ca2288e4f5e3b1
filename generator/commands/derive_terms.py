"""``derive``'s named terms: a layout's serial decode round (and a request's serial decode rounds) printed as the
sum of its named parts, each part's closed form on its own line, then each part's value and the whole's.

Printed whole, ``decode_time_serial`` at tp 8 x ep 8 is a 10 KB line (the library's all-reduce on two tiers, each
branch of its min and max written out at every place it occurs) and ``request_decode_time_serial`` at tp 8 x pp 2
took seconds to build and print; the parts are what the serial estimate adds (formulas/parallel.py:
:func:`decode_time_serial`), each as short as its own formula.
"""

from __future__ import annotations

NAMED = ("decode_time_serial", "request_decode_time_serial")


def terms(qid: str):
    """(the whole in the parts' symbols, [(symbol, what it is, closed form)]) of ``qid`` (one of NAMED), before any
    variant's substitutions; the whole equals :func:`genreport.formulas.parallel.decode_time_serial` (or the request's)
    with each part's closed form put back."""
    import sympy as sp

    from genreport.formulas import parallel as p

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
    ]
    named = [(sp.Symbol(name, positive=True), what, over(expr)) for name, what, expr in parts]
    t_comp, t_mem, t_o, x_tp, x_ep, x_pp, x_back = (s for s, _, _ in named)
    w = sp.Max(t_comp, t_mem) + t_o
    whole = p.pipelined(w + x_tp + x_ep + x_pp, w + x_tp + x_ep + x_back)
    return whole, named


def lines(qid: str, qsym, variant: str) -> tuple[list[str], list]:
    """The printed lines (the whole in named parts, then each part's closed form) and the parts [(symbol, what,
    closed form)] under ``variant`` (their free symbols are the inputs the header lists; :func:`values` prints them
    at a spec's inputs)."""
    from genreport.formulas import solve as so

    whole, named = terms(qid)
    forms = [(s, what, so.apply_variant(e, variant)) for s, what, e in named]
    out = [f"  {so.expr_text(qsym)} = {so.expr_text(whole)}", "  where"]
    for s, what, e in forms:
        out.append(f"    {s.name}: {what}")
        out.append(f"      {s.name} = {so.expr_text(e)}")
    return out, forms


def values(forms: list, inputs: dict) -> str:
    """Each part's value at a spec's ``inputs`` (glossary name -> number), one line."""
    shown = []
    for s, _, e in forms:
        v = e.xreplace({x: float(inputs[x.name]) for x in e.free_symbols if x.name in inputs})
        shown.append(f"{s.name} = {float(v):.6g} s" if v.is_number else f"{s.name} = (no value: {v.free_symbols})")
    return "  parts: " + ", ".join(shown)


def elasticities(qid: str, forms: list, inputs: dict) -> dict[str, float]:
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
