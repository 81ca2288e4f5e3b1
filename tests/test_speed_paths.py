"""The fast paths of the serving chapter's evaluation give the numbers of the slow ones, bit for bit (issue 31).

Each fast path counts the same numbers with fewer calls: the rate curves' bisections ask a tree of midpoints at once
(techniques._bisect), the fixed points' tolerance test is isclose's formula (techniques._close), Env.weights_at is
Env.at's N, N_e and b, the frontier's probe of a layout reads what serving.curve gives at batch 1, and plan's memo
(the serving chapter's plain and speculative plans) leaves every row as a plan without it.  Here each is compared
with its reference on random or real inputs; tests/test_golden.py holds the committed reports to the byte.
"""

from __future__ import annotations

import json
import random

import numpy as np
from genreport.load.loader import load_report
from genreport.load.spec import Parallelism
from genreport.model import serving
from genreport.model.draft import speculative_inputs
from genreport.model.env import make_env
from genreport.model.plan import Shape, plan
from genreport.model.techniques import _bisect, _close
from shared import SPECS


def _loop(ok, lo: float, hi: float, steps: int) -> tuple[float, float]:
    """The bisection as the loop writes it: the reference of _bisect."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo, hi


def test_bisect_tree_is_the_loop():
    """_bisect's bounds are the loop's, to the bit, wherever the predicate turns (inside, at either end, never,
    always) and for step counts that are and are not a multiple of its levels."""
    rng = random.Random(31)
    cuts = [rng.uniform(0.0, 7.0) for _ in range(40)] + [0.0, 7.0, -1.0, 8.0, 3.5]
    for steps in (1, 5, 7, 24, 48, 60):
        for cut in cuts:
            lo, hi = rng.choice([(0.0, 7.0), (1.25, 3.0 + rng.random())])
            calls = []

            def many(xs, cut=cut, calls=calls):
                calls.append(len(xs))
                return np.asarray(xs) <= cut

            assert _bisect(many, lo, hi, steps) == _loop(lambda x, cut=cut: x <= cut, lo, hi, steps)
            assert len(calls) == -(-steps // 5)  # five levels a call
            asked = []

            def lazy(xs, cut=cut, asked=asked):  # a function of the midpoint's index: asked on the path alone
                return lambda i: asked.append(i) is None and xs[i] <= cut

            assert _bisect(lazy, lo, hi, steps) == _loop(lambda x, cut=cut: x <= cut, lo, hi, steps)
            assert len(asked) == steps


def test_close_is_isclose():
    """_close is np.isclose with the same tolerances, infinities, NaNs and zeros included."""
    rng = np.random.default_rng(31)
    x = rng.uniform(-2.0, 2.0, 400) * 10.0 ** rng.integers(-20, 20, 400)
    y = x * (1 + rng.choice([0.0, 1e-14, 1e-13, 2e-13, 1e-9], 400))
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, 1e-9, np.inf, np.nan])
    x = np.concatenate([x, specials, specials[::-1]])
    y = np.concatenate([y, specials[::-1], specials])
    for rtol, atol in ((1e-13, 0.0), (1e-13, 1e-8)):
        assert np.array_equal(_close(x, y, rtol, atol), np.isclose(x, y, rtol=rtol, atol=atol))
    assert _close(np.float64(1.0), np.float64(1.0 + 1e-14), 1e-13, 0.0)


def test_weights_at_is_at():
    """Env.weights_at's N, N_e and b are Env.at's at the same batch, for an MoE with per-class bytes (DeepSeek-V3's
    fp8_block checkpoint) at a pipelined expert-parallel layout, and a dense model."""
    for spec_file, par in (("deepseek-v3-h200-ep8.yaml", Parallelism(8, 2, 8, 1)),
                           ("llama70b-h100-tp8.yaml", Parallelism(4, 2, 1, 1))):
        spec = load_report(SPECS / spec_file)
        env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting).with_layout(par)
        batch = np.array([1.0, 2.0, 3.0, 17.5, 256.0, 4096.0])
        full, fast = env.at(batch=batch, context=4096.0), env.weights_at(batch)
        for k in ("N", "N_e", "b"):
            assert np.array_equal(np.broadcast_to(full[k], batch.shape), np.broadcast_to(fast[k], batch.shape)), k


def test_probe_is_curve_at_one():
    """serving.probe gives what serving.curve gives at batch 1: capacity, whether the weights fit, TTFT and the
    capacity beside the draft (DeepSeek-V3's MTP head), at layouts that fit and do not."""
    spec = load_report(SPECS / "deepseek-v3-h200-ep8.yaml")
    sv, hw, model, prec, acc = spec.serving, spec.hardware, spec.model, spec.precision, spec.accounting
    env = make_env(hw, model, prec, acc)
    memo: dict = {}
    for par in (Parallelism(1, 1, 8, 8), Parallelism(8, 1, 8, 1), Parallelism(4, 1, 1, 1), Parallelism(8, 2, 4, 1)):
        spec_in = speculative_inputs(spec, par)
        c = serving.curve(model, hw, prec, par, [1.0], sv.prompt, sv.output, acc, env, serial=False,
                          speculative=spec_in)
        p = serving.probe(model, hw, prec, par, sv.prompt, sv.output, acc, env, spec_in, memo)
        for k in ("capacity_batch", "weights_fit", "ttft_bound", "capacity_batch_speculative"):
            assert p[k] == c[k], (par, k)


def test_plan_memo_is_plan():
    """The serving chapter's two plans sharing a memo give the rows (and rejections) each gives alone: Llama 3.1
    70B on H100 with a Llama 3.2 1B draft model, both formats plan tries."""
    spec = load_report(SPECS / "llama70b-h100-tp8.yaml")
    model, hw = spec.model, spec.hardware
    draft = load_report(SPECS / "llama70b-h100-tp8.yaml",
                        ["serving.speculative.draft_model=llama-3.2-1b"]).serving.speculative.draft
    shape = Shape(4096, 512, 2.0, 64)
    memo: dict = {}
    for ask in (None, (3, 0.7, draft, 4)):
        args = (model, hw, 64, shape.last_context, 0.05, ("bf16", "fp8"), 16, "seed", "bound", ("auto",), shape)
        alone, shared = plan(*args, speculative=ask), plan(*args, speculative=ask, memo=memo)
        assert shared.rejected == alone.rejected
        assert [json.dumps(r.as_json()) for r in shared.rows] == [json.dumps(r.as_json()) for r in alone.rows]
        assert alone.rows


def _same(want, got) -> bool:
    w, g = np.asarray(want, dtype=float), np.asarray(got, dtype=float)
    return w.shape == g.shape and np.array_equal(w, g, equal_nan=True) and (np.ndim(want) == 0) == (np.ndim(got) == 0)


def test_stacked_is_each_layouts_call():
    """stacked.over gives every compiled formula's numbers of each layout's own call, to the bit: random layouts whose
    values are the same, differ by layout, or are a batch's arrays of its own length."""
    from genreport.formulas.compiled import load
    from genreport.model.stacked import over

    q, rng = load(), random.Random(31)
    with np.errstate(all="ignore"):
        for f in q.values():
            for batches in (False, True):
                n = rng.randint(2, 9)
                vary = {a for a in f.fn_args if rng.random() < 0.5}
                lens = [rng.randint(1, 7) for _ in range(n)]
                common = {a: np.float64(rng.uniform(0.05, 5e3)) for a in f.fn_args}
                values = [{a: (np.array([rng.uniform(0.5, 300.0) for _ in range(lens[i])])
                               if batches and a in ("B", "N", "N_x", "u_x") else
                               np.float64(rng.uniform(0.05, 5e4)) if a in vary else common[a]) for a in f.fn_args}
                          for i in range(n)]
                assert all(_same(w, g) for w, g in zip([f(v) for v in values], over(f, values), strict=True)), f.id


def test_stacked_powers_of_long_runs_are_each_layouts_call():
    """With many batches a layout (plan's serving search: up to the users' count), a number per layout repeats over
    long runs and _power takes each run's power once (one pass, no sort): still each layout's own numbers, to the bit,
    whether the powers' pairs come in long runs or not (the sorted path)."""
    from genreport.formulas.compiled import load
    from genreport.model.stacked import _Each, _power, over

    q, rng = load(), random.Random(7)
    with np.errstate(all="ignore"):
        for qid in ("decode_time_memory_gpu", "request_decode_time_serial", "verify_time_bound", "decode_time_serial"):
            f = q[qid]
            n = 5
            lens = [rng.randint(64, 300) for _ in range(n)]
            common = {a: np.float64(rng.uniform(0.05, 5e3)) for a in f.fn_args}
            vary = {"n_PP", "n_TP", "W", "k_e", "n_EP"} & set(f.fn_args)
            values = [{a: (np.linspace(1.0, 400.0, lens[i]) if a in ("B", "N", "N_x", "u_x") else
                           np.float64(rng.uniform(1.0, 9.0)) if a in vary else common[a]) for a in f.fn_args}
                      for i in range(n)]
            assert all(_same(w, g) for w, g in zip([f(v) for v in values], over(f, values), strict=True)), qid
    runs = np.repeat(np.array([2.5, 3.0, 0.5, -0.0, 7.25]), 40).view(_Each)
    scattered = np.array([rng.uniform(0.5, 9.0) for _ in range(200)]).view(_Each)
    for base, exp in ((runs, -1.0), (runs, runs), (3.0, runs), (scattered, -1.0), (scattered, runs)):
        with np.errstate(all="ignore"):  # -0.0 ** -1: -inf, as C's pow gives it
            got = np.asarray(_power(base, exp))
            want = np.array([np.float64(b) ** np.float64(e) for b, e in
                             zip(*(np.broadcast_to(np.asarray(x, dtype=float), (200,)) for x in (base, exp)),
                                 strict=True)])
        assert np.array_equal(got.view(np.int64), want.view(np.int64))


def test_stacked_keeps_a_scalars_power():
    """A number per layout raised to -1 is C's pow of a float64 scalar in the layout's own call, where NumPy's array
    power takes 1/x (a last bit apart for about one value in a thousand): over keeps pow (decode_time_memory_gpu's
    n_PP^-1), where plain stacked arrays would not."""
    from genreport.formulas.compiled import load
    from genreport.model.stacked import over

    f = load()["decode_time_memory_gpu"]
    xs = np.random.default_rng(31).uniform(1.0, 9.0, 20000)
    odd = [x for x in xs if np.float64(x) ** -1.0 != 1.0 / x][:8]
    assert odd  # such values exist
    rng = random.Random(31)
    common = {a: np.float64(rng.uniform(1.0, 1e3)) for a in f.fn_args}
    values = [dict(common, n_PP=np.float64(x)) for x in odd]
    assert all(_same(w, g) for w, g in zip([f(v) for v in values], over(f, values), strict=True))
    naive = f.fn(*(np.array([v[a] for v in values]) for a in f.fn_args))
    assert not np.array_equal(naive, np.array([f(v) for v in values]))  # what over keeps apart
