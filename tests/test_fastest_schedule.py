"""The strict bound's split of a pipeline round into micro-batches (formulas.parallel.fastest_schedule): m_b is the
least round's of m = 1 .. min(pp, B) at the point's own inputs, wherever a round is evaluated.  A review (stop 83)
found three places that changed the inputs after m_b was found: page 1's faster-memory lever, the measured chapter's
achievable rates and audit's fewest-experts MoE round, each then stating a round up to 28% above the least."""

from __future__ import annotations

from pathlib import Path
from tempfile import mkdtemp

import numpy as np
import pytest
from genreport.formulas.compiled import load
from genreport.load.loader import load_hardware, load_model
from genreport.load.spec import Parallelism, Precision
from genreport.model.env import make_env
from genreport.model.layout import decode_bound_at, decode_ledgers_at, fastest_schedule, point_values
from genreport.model.plan import _at_layout, _read_c, layout_bound
from shared import ROOT
from test_stage_memory import _spec


def _least(v: dict, pp: int, qid: str = "decode_time_bound") -> float:
    """The least round over every whole m of 1 .. min(pp, B), each evaluated alone."""
    q = load()
    top = int(min(pp, float(np.ravel(v["B"])[0])))
    return min(float(np.ravel(q[qid](dict(v, m_b=np.float64(m))))[0]) for m in range(1, top + 1))


def test_a_faster_memory_takes_its_own_fastest_schedule():
    """Llama 3.1 70B bf16 at tp 8 x pp 2, batch 256, no cache to read: the spec's HBM streams two micro-batches'
    weights slower than one walks, so m_b = 1; with page 1's 1.5x faster HBM lever two micro-batches are faster
    (3.57 ms), where the spec's m_b = 1 gave 4.57 ms."""
    spec = _spec(Path(mkdtemp()), "llama-3.1-70b", 2, tp=8, contexts="1k")
    v = point_values(spec, spec.accounting, "decode_time_bound", 256.0, 1.0)
    fast = dict(v, W=v["W"] * 1.5, S=np.float64(0.0))
    led = decode_ledgers_at(spec, spec.accounting, 256.0, 0.0, bandwidth_scale=1.5)
    assert led["bound"] == pytest.approx(_least(fast, 2), rel=1e-12)
    assert decode_bound_at(spec, spec.accounting, 256.0, 0.0, None, 1.5) == led["bound"]
    assert fastest_schedule(fast, 2) == 2.0 and led["bound"] == pytest.approx(3.566e-3, rel=1e-3)
    # and at every lever a round is at most vLLM's schedule's and at least the least over m
    for scale in (0.5, 1.0, 2.0, 4.0, 10.0):
        for batch, context in ((8.0, 512.0), (64.0, 8192.0), (256.0, 32768.0)):
            w = point_values(spec, spec.accounting, "decode_time_bound", batch, context)
            w = dict(w, W=w["W"] * scale)
            got = decode_ledgers_at(spec, spec.accounting, batch, context, bandwidth_scale=scale)["bound"]
            assert got == pytest.approx(_least(w, 2), rel=1e-12), (scale, batch, context)


def test_audits_fewest_experts_round_takes_its_own_fastest_schedule():
    """audit prices a claim's MoE round at the experts one token picks (plan.layout_bounds): DeepSeek-V3 fp8 on H200 at
    tp 4 x pp 4, batch 256, 8k tokens, 6.15 ms at its own m_b = 4 (5.98 before tests/test_tp_copies.py's copies), where the batch's m_b = 3 gave 7.03 ms and would
    have called a claim between the two faster than any implementation."""
    m, hw = load_model(ROOT / "specs/models/deepseek-v3.yaml"), load_hardware(ROOT / "specs/hardware/h200.yaml")
    prec, par = Precision("fp8", "fp8", "fp8"), Parallelism(tp=4, pp=4)
    env = make_env(hw, m, prec, "exact")
    got = layout_bound(m, hw, prec, par, 256.0, 8192.0, None, "exact", env).decode
    _, _, cv = _at_layout(env, m, hw, prec, par, 8192.0, "exact")
    from genreport.model.layout import at_batch

    lay = env.with_layout(par)
    read = dict(cv, c=_read_c(env, cv["S"]))
    v, one = at_batch(read, lay, 256.0, busiest=False), at_batch(read, lay, 1.0, busiest=False)
    v.update({k: one[k] for k in ("N", "N_x", "b") if k in one})
    assert got == pytest.approx(_least(v, 4), rel=1e-12)
    assert got == pytest.approx(6.146e-3, rel=1e-3)  # 5.977 ms before each GPU read its whole MLA down-projections


def test_derive_finds_the_schedule_of_its_own_inputs(capsys):
    """derive of a verify round or a request given by --at on a pipeline without a serving block: the whole model at
    the layout, as the layout formula takes it, at the schedule of the inputs --at sets.  It printed "none: undefined"
    with the layout's default m_b, and before that evaluated one GPU's slice in the layout formula, which divided it
    again (0.23 ms for this verify round)."""
    from genreport.commands.cli import main

    folder = Path(mkdtemp())
    spec = _spec(folder, "gemma-3-1b", 4, contexts="512")
    path = folder / "gemma-3-1b-1x4.yaml"
    v = point_values(spec, spec.accounting, "decode_time_bound", 8.0, 512.0)
    verify = dict(v, n_v=np.float64(4.0), k_d=np.float64(3.0))
    want = _least(verify, 4, "verify_time_bound")
    assert want == pytest.approx(0.6132e-3, rel=1e-3)
    for args, value in ((["verify_time_bound", "--batch", "8", "--context", "512", "--at", "n_v=4"], want),
                        (["request_decode_time_bound", "--batch", "8", "--at", "T_o=100", "--at", "T=512"], None)):
        assert main(["derive", *args, "--spec", str(path), "--no-latex"]) == 0
        out = capsys.readouterr().out
        assert "none:" not in out and "m_b = 2: of the splits of the B = 8 sequences into 1 to 4" in out, out[-600:]
        assert "N = 9.999e+08" in out  # the whole model's, which the layout formula divides
        if value is not None:
            assert f"t_v,bound = {value:.6g} s" in out
    # without the input a serving block would give, derive names it (it printed "none: undefined at these inputs")
    assert main(["derive", "verify_time_bound", "--batch", "8", "--context", "512", "--spec", str(path)]) == 1
    assert "verify_time_bound needs n_v, which the spec does not give (hint: set --at n_v=NUMBER)" in (
        capsys.readouterr().err)


def test_python_and_the_page_take_whole_micro_batches():
    """A point of fewer than two sequences runs one micro-batch; a non-integer batch its whole part, alone or among
    other points (the live page's fastestSchedule takes the same candidates)."""
    spec = _spec(Path(mkdtemp()), "gemma-3-1b", 4, contexts="512")
    v = point_values(spec, spec.accounting, "decode_time_bound", 8.0, 512.0)
    alone = [float(fastest_schedule(dict(v, B=np.float64(b)), 4)) for b in (0.5, 1.0, 2.5, 8.0)]
    together = list(fastest_schedule(dict(v, B=np.array([0.5, 1.0, 2.5, 8.0])), 4))
    assert alone == together and alone[:2] == [1.0, 1.0] and alone[2] in (1.0, 2.0)


BLOCKS = {
    "plain": "",
    "request": "serving: {prompt: 2k, output: 32k, ttft: 2 s, tpot: 50 ms}\n",
    "speculating": ("serving: {prompt: 512, output: 100, ttft: 2 s, tpot: 50 ms, speculative: {draft_tokens: 3, "
                    "acceptance: 0.7, draft_layers: 1}}\n"),
}


def _derived(capsys, model: str, tp: int, block: str, args: list[str]) -> str:
    from genreport.commands.cli import main

    folder = Path(mkdtemp())
    path = folder / f"{model}-{block}.yaml"
    path.write_text(f"kind: report\nname: d\ntitle: t\nhardware: h100-sxm\nmodel: {model}\nprecision: bf16\n"
                    f"parallelism: {{tp: {tp}, pp: {4 // tp}}}\nworkloads: {{decode: {{batch: [1, 8], context: [512]}}}}\n"
                    + BLOCKS[block], encoding="utf-8")
    assert main(["derive", *args, "--spec", str(path), "--no-latex"]) == 0
    out = capsys.readouterr().out
    return out.splitlines()[-2] if "scope:" in out.splitlines()[-1] else out.splitlines()[-1]


def test_derive_takes_a_rounds_inputs_as_the_serving_chapter_does(capsys):
    """A request given by --at on a spec without a serving block reads the cache over its rounds, as the serving
    chapter's request does (it read the prompt's: 56.98 s for Gemma 3 1B at pp 4, batch 64, a 2k prompt and 32k
    tokens out, where the rounds give 40.63); --at T_o on a serving spec moves it too; an MoE verify round given n_v
    by --at reads the experts its n_v B tokens touch, as a speculating spec's (it read one token's a sequence: 9.76 ms
    for Mixtral 8x7B at tp 2 x pp 2 where they give 13.89)."""
    served = _derived(capsys, "gemma-3-1b", 1, "request", ["request_decode_time_bound", "--batch", "64"])
    given = _derived(capsys, "gemma-3-1b", 1, "plain", ["request_decode_time_bound", "--batch", "64", "--tokens",
                                                         "2048", "--at", "T_o=32768"])
    assert served == given and served.strip().startswith("t_dec = 40.63"), (served, given)
    short = _derived(capsys, "gemma-3-1b", 1, "request", ["request_decode_time_bound", "--batch", "64", "--at",
                                                           "T_o=100"])
    alone = _derived(capsys, "gemma-3-1b", 1, "plain", ["request_decode_time_bound", "--batch", "64", "--tokens",
                                                         "2048", "--at", "T_o=100"])
    assert short == alone, (short, alone)
    spec = _derived(capsys, "mixtral-8x7b", 2, "speculating", ["verify_time_bound", "--batch", "8", "--context", "512"])
    plain = _derived(capsys, "mixtral-8x7b", 2, "plain", ["verify_time_bound", "--batch", "8", "--context", "512",
                                                          "--at", "n_v=4"])
    assert spec == plain and spec.strip().startswith("t_v,bound = 0.01388"), (spec, plain)
