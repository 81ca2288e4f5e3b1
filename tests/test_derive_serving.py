"""``derive`` and ``--set`` reach the serving block's technique inputs (issue 30): the rate at which TPOT reaches the
target, solved by SymPy, printed and evaluated with a spec; every serving input overridable.

Hand counts: Llama 3.1 70B in fp8 at tp 8 on H100 (Meta's 70.6e9 parameters, 80 layers x 2 x 8 KV heads x 128 x 1 B
of fp8 KV per token, NVIDIA's 3.35 TB/s), per GPU: N b = 70.6e9 / 8 = 8.825e9 B, c = 163,840 / 8 = 20,480 B/token.
The steady state of continuous batching (Orca; Little's law) t_s = N b / (W - lam Q_r), Q_r a request's bytes
(formulas/techniques.py request_bytes, seed accounting: a = 0)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from genreport import load_spec
from genreport.commands.cli import main
from genreport.errors import SpecError
from shared import MAVERICK_TWO_NODES, ROOT, SPECS, derive_reads, evaluated_text, spec_file
from shared import evaluated_to_read as evaluated  # the tests and derive only read the results: no copy each

SPEC = """\
kind: report
name: sv
title: Llama 3.1 70B in fp8 on 8 H100, served
hardware: h100-sxm
model: llama-3.1-70b
precision: fp8
parallelism: {tp: 8}
serving:
  prompt: 4k
  output: 512
  tpot: 50 ms
  rate: 2
  prefix_hit: 0.5
  chunk: 512
  speculative: {draft_tokens: 3, acceptance: 0.8, draft_cost: 0.1}
workloads:
  decode: {batch: [1], context: [4k]}
"""
# one GPU's weight bytes in fp8: its eighth of Meta's 70.6e9 and the norms it holds whole (7 more copies of 1,318,912:
# tests/test_tp_copies.py)
NB, C, W = (70.6e9 + 7 * 1_318_912) / 8, 20480.0, 3.35e12


def _value_line(out: str) -> str:
    """derive's value line: its last but the scope line a layout's value ends with."""
    return [line for line in out.strip().splitlines() if not line.startswith("  scope: ")][-1]


def _request_bytes(t_in=4096, t_out=512, h=0.5, s_c=512):
    prompt = t_in * (1 - h)
    return (t_out - 1) * (t_in + t_out / 2) * C + prompt * C * (1 + (t_in * (1 + h) - s_c) / (2 * s_c))


def _goodput(theta=0.05, **kw):
    return (W - NB / theta) / _request_bytes(**kw)


@pytest.fixture
def spec():
    """SPEC's file, written once a run; derive handed its evaluation, made once a run (tests/shared.py): a call
    with --set evaluates its own spec (test_set_reaches_the_goodput_inputs, the Scout test below)."""
    path = spec_file(SPEC, "sv")
    derive_reads(path, evaluated_text(SPEC, "sv"))
    return str(path)


def _value(capsys, *args) -> float:
    assert main(["derive", *args]) == 0
    out = capsys.readouterr().out
    line = [x for x in out.splitlines() if x.strip().startswith(("lambda_theta =", "lambda_C =", "lambda_s_{c} =",
                                                                 "t_s =", "E =", "lam =", "sigma =", "lambda_q,u =",
                                                                 "t_agg ="))][-1]
    return float(line.split("=")[-1].split()[0])


def test_goodput_rate_solved_and_evaluated(capsys, spec):
    assert main(["derive", "goodput_rate_tpot", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "lambda_theta = (2 C_p N b - 2 C_p W theta)/" in out  # the symbolic solution, printed (C_p the chunk)
    assert "theta = 0.05 s" in out and "T_in = 4096 token" in out and "h_p = 0.5" in out  # from serving
    assert _value(capsys, "goodput_rate_tpot", "--spec", spec) == pytest.approx(_goodput(), rel=1e-5)
    assert _goodput() == pytest.approx(69.2639, rel=1e-5)
    # the same rate solved from the steady state by derive itself: t_s = theta for lam
    assert main(["derive", "steady_step_time", "--for", "lam", "--at", "steady_step_time=theta", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "solved for lam, at t_s = theta" in out
    # min(s_c, T_in (1 - h_p)) splits the solution in two branches; the valid one is the rate (512 < 2048: the chunk)
    at_theta = out.split("t_s = theta = ")[-1].splitlines()
    valid = [x for x in at_theta if "lam = " in x and "1/s" in x and "not valid" not in x]
    assert len(valid) == 1 and float(valid[0].split("=")[1].split()[0]) == pytest.approx(_goodput(), rel=1e-5)


@pytest.mark.parametrize(("override", "kw"), [
    ("serving.tpot=40 ms", {"theta": 0.04}),
    ("serving.prompt=2k", {"t_in": 2048}),
    ("serving.output=1k", {"t_out": 1024}),
    ("serving.prefix_hit=0.2", {"h": 0.2}),
    ("serving.chunk=1024", {"s_c": 1024}),
])
def test_set_reaches_the_goodput_inputs(capsys, spec, override, kw):
    got = _value(capsys, "goodput_rate_tpot", "--spec", spec, "--set", override)
    assert got == pytest.approx(_goodput(**kw), rel=1e-5)
    assert got != pytest.approx(_goodput(), rel=1e-3)


def test_set_reaches_rate_and_speculative(capsys, spec):
    # serving.rate: the steady step time N b / (W - lam Q_r)
    for rate in (2, 5):
        got = _value(capsys, "steady_step_time", "--spec", spec, "--set", f"serving.rate={rate}")
        assert got == pytest.approx(NB / (W - rate * _request_bytes()), rel=1e-5)
    # serving.speculative.*: expected tokens 1 + p + ... + p^k, the drafts' share of a step
    assert _value(capsys, "speculative_expected_tokens", "--spec", spec) == pytest.approx(1 + .8 + .64 + .512)
    assert _value(capsys, "speculative_expected_tokens", "--spec", spec, "--set",
                  "serving.speculative.acceptance=0.9") == pytest.approx(1 + .9 + .81 + .729)
    assert _value(capsys, "speculative_expected_tokens", "--spec", spec, "--set",
                  "serving.speculative.draft_tokens=1") == pytest.approx(1.8)
    # batch 1, memory-bound: sigma = E / (1 + draft_cost)
    for cost in (0.1, 0.2):
        got = _value(capsys, "speculative_speedup", "--spec", spec, "--set", f"serving.speculative.draft_cost={cost}")
        assert got == pytest.approx((1 + .8 + .64 + .512) / (1 + cost), rel=1e-4)


def test_set_adds_a_serving_block_and_checks_it(tmp_path):
    base = ROOT / "specs" / "llama70b-h100-tp8.yaml"
    spec = load_spec(base, ["serving.prompt=4k", "serving.output=512", "serving.rate=3",
                            "serving.speculative.draft_tokens=1", "serving.speculative.acceptance=0.85",
                            "serving.prefix_hit=0.25", "serving.chunk=2k"])
    sv = spec.serving
    assert (sv.prompt, sv.output, sv.rate, sv.prefix_hit, sv.chunk) == (4096, 512, 3, 0.25, 2048)
    assert (sv.speculative.draft_tokens, sv.speculative.acceptance) == (1, 0.85)
    for bad in ("serving.speculative.acceptance=1.5", "serving.rate=-1", "serving.prefix_hit=2"):
        with pytest.raises(SpecError, match=bad.split("=")[0].split(".")[-1]):
            load_spec(base, ["serving.prompt=4k", "serving.output=512", "serving.speculative.draft_tokens=1",
                             "serving.speculative.acceptance=0.8", bad])


def test_the_caches_and_chunk_ceilings_solved_and_evaluated(capsys, spec):
    """``derive`` gives the goodput's other two memory ceilings (issue 30) per GPU of tp 8, as the chapter does.
    The KV cache room: the caches fill where lam 511 t_s(lam) (4,352 - 2,048) c = C - N b - 2,048 c (the shared half
    of the prompt held once), t_s(lam) = N b / (W - lam Q_r), so lam = R W / (511 x 2,304 c N b + R Q_r), R = C - N b
    - 2,048 c; C = 80 GiB less vLLM's 10% and one engine step's activations at the 512-token chunk, vLLM's one
    max_num_batched_tokens (512 x 2 B x (2 x 8,192 + 3 x 28,672 / 8) + 256 x 128,256 x 4 B = 159,121,408 B,
    formulas.memory.activation_workspace).  The chunk budget: lam (2,048 + 511) t_s(lam) = 512
    (the step's budget holds its 511 decode tokens per request too), so lam = 512 W / (2,559 N b + 512 Q_r)."""
    room = 0.9 * 80 * 2**30 - 159121408 - NB - 2048 * C
    q_r = _request_bytes()
    assert _value(capsys, "goodput_rate_capacity", "--spec", spec) == pytest.approx(
        room * W / (511 * 2304 * C * NB + room * q_r), rel=1e-5)
    assert _value(capsys, "chunk_budget_rate", "--spec", spec) == pytest.approx(
        512 * W / (2559 * NB + 512 * q_r), rel=1e-5)
    assert _value(capsys, "chunk_budget_rate", "--spec", spec, "--set", "serving.chunk=1024") == pytest.approx(
        1024 * W / (2559 * NB + 1024 * _request_bytes(s_c=1024)), rel=1e-5)


def test_the_stall_free_rate_solved_and_evaluated(capsys, spec):
    """``derive stall_free_rate`` (issue 30, the tail): without chunked prefill, where no whole prefill fits a gap
    between tokens, the P99 time between tokens meets the target only while no prompt arrives during a round,
    e^(-lam t_r(lam)) >= 0.99 (Poisson arrivals; vLLM v0 prefills every waiting prompt first).  The spec gives t_p,
    the 2,048 uncached prompt tokens prefilled alone on one GPU, and q_p = 0.99; by hand the round alone is
    t_r = N b (1 - lam t_p) / (W (1 - lam t_p) - lam 511 x 4,352 c) (the rounds run in the time the prefills leave),
    and the rate solves lam t_r = -ln 0.99."""
    assert main(["derive", "stall_free_rate", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "q_p = 0.99" in out and "log(q_p)" in out
    t_p = float(out.split("t_p = ")[-1].split()[0])
    lam = _value(capsys, "stall_free_rate", "--spec", spec)
    t_r = NB * (1 - lam * t_p) / (W * (1 - lam * t_p) - lam * 511 * 4352 * C)
    assert lam * t_r == pytest.approx(-math.log(0.99), rel=1e-5)
    assert lam == pytest.approx(3.6136, abs=1e-4)  # 3.61405 before the norms each GPU holds whole
    # t_p by hand, compute-bound at fp8 (1,979 TFLOP/s dense): 2 N_p 2,048 + the causal attention of the 2,048
    # uncached tokens against every position before them, the cached 2,048 included: 4,096^2 (1 - 0.5^2) / 2 pairs a
    # layer at 4 H_q d_h FLOPs each (2 L H_q d_h 2,048 x 4,096 x 1.5; stop 88's review: it was 2,048 x 4,096, the
    # uncached tokens attending to half the prompt on average) + the head 2 V d once, per GPU of tp 8
    n_p = (70.6e9 - 2 * 128256 * 8192 + 7 * 1_318_912) / 8  # with the norms' copies (tests/test_tp_copies.py)
    pairs = 4096**2 * (1 - 0.5**2) / 2
    flops = 2 * n_p * 2048 + 80 * 4 * 8 * 128 * pairs + 2 * 128256 * 8192 / 8
    assert t_p == pytest.approx(flops / 1979e12, rel=1e-3)
    # the mean TTFT without chunks at the spec's 2 requests/s: t_r at that rate by hand, then (t_r + t_p) / 2 +
    # t_p / (2 (1 - lam t_p))
    t_r = NB * (1 - 2 * t_p) / (W * (1 - 2 * t_p) - 2 * 511 * 4352 * C)
    assert main(["derive", "unchunked_ttft", "--spec", spec]) == 0
    out = capsys.readouterr().out
    got = float(_value_line(out).split("=")[-1].split()[0])
    assert got == pytest.approx((t_r + t_p) / 2 + t_p / (2 * (1 - 2 * t_p)), rel=1e-5)


def test_the_stall_free_rate_of_a_mixture_of_experts_reads_the_experts_its_rounds_touch(capsys, spec):
    """Llama 4 Scout (16 experts, 1 active, and a shared one: its config.json) on the spec's 8 H100: the serving
    chapter's unchunked rounds read the experts the sequences running at the rate touch, so ``derive
    stall_free_rate`` takes that N (one GPU's), not every expert a GPU holds: it gave 1.22/s where the rounds'
    weights give 3.21/s."""
    from genreport.commands.derive_values import report_of

    args = ("stall_free_rate", "--spec", spec, "--set", "model=llama-4-scout", "--no-latex")
    lam = _value(capsys, *args)
    r = report_of(load_spec(Path(spec), ["model=llama-4-scout"]))
    free = r.serving["techniques"]["rates"]["unchunked"]["stall_free"]
    assert lam == pytest.approx(free["rate"], rel=1e-5)
    held = r.envs[r.lead].at()["N"]  # every expert a GPU holds
    assert free["inputs"]["N"] < 0.5 * float(held)
    every = r.q["stall_free_rate"]({**free["inputs"], "N": float(held)})
    assert lam > 2 * float(every)  # the old derive's number, at every expert


def test_the_stall_free_rate_says_its_scope(capsys, spec):
    """``derive stall_free_rate`` printed no scope line (stops 80-84): it is one replica's, the number results.json
    states at serving.techniques.rates.unchunked.stall_free.rate; with --at another input it is the formula's."""
    assert main(["derive", "stall_free_rate", "--spec", spec, "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == ("  scope: one replica's (8 GPUs of tp 8 x pp 1 x ep 1 x dp 1), as "
                                             "results.json states it (serving.techniques.rates.unchunked.stall_free."
                                             "rate)"), out
    assert main(["derive", "stall_free_rate", "--spec", spec, "--no-latex", "--at", "q_p=0.9"]) == 0
    assert "as results.json states it" not in capsys.readouterr().out


def test_the_prompt_spread_through_derive_is_the_chapters(capsys):
    """``derive queued_ttft_mean_spread`` (formulas/techniques.py: the M/G/1 mean TTFT, Pollaczek-Khinchine) takes
    t_p and c_v over ``serving.prompt_spread``'s lengths, the same t_p the serving chapter's rate figure states
    (``prefill_alone_time``: one number, one place); with no spread c_v = 0 and it is ``unchunked_ttft`` (M/D/1)."""
    def derived(spread: str) -> dict:
        text = SPEC.replace("  chunk: 512\n", f"  chunk: 512\n  prompt_spread: {spread}\n")
        path = spec_file(text, f"sv-{spread}")
        derive_reads(path, evaluated_text(text, f"sv-{spread}"))
        assert main(["derive", "queued_ttft_mean_spread", "--spec", str(path)]) == 0
        out = capsys.readouterr().out
        inputs = out.split("inputs: ")[1].splitlines()[0]
        got = {k: float(v.split()[0]) for k, v in (x.split(" = ") for x in inputs.split(", "))}
        got["value"] = float(_value_line(out).split("=")[-1].split()[0])
        got["path"], got["text"] = path, text
        return got

    one, spread = derived("none"), derived("sharegpt")
    assert one["c_v"] == 0 and spread["c_v"] == pytest.approx(0.8935, abs=1e-3)  # 0.879 before the prefix's attention
    rates = evaluated_text(spread["text"], "sv-sharegpt").serving["techniques"]["rates"]
    assert spread["t_p"] == pytest.approx(rates["prefill_alone_time"], rel=1e-5)
    for got in (one, spread):  # by hand: t_p + lam t_p^2 (1 + c_v^2) / (2 (1 - lam t_p)) + t_r / 2
        lam, t_p, t_r, c_v = got["lam"], got["t_p"], got["t_r"], got["c_v"]
        hand = t_p + lam * t_p**2 * (1 + c_v**2) / (2 * (1 - lam * t_p)) + t_r / 2
        assert got["value"] == pytest.approx(hand, rel=1e-5)
    derive_reads(one["path"], evaluated_text(one["text"], "sv-none"))
    assert main(["derive", "unchunked_ttft", "--spec", str(one["path"])]) == 0
    mdl = float(_value_line(capsys.readouterr().out).split("=")[-1].split()[0])
    assert one["value"] == pytest.approx(mdl, rel=1e-5)




def test_derive_gives_the_chapters_ceilings_at_a_two_node_moe(capsys):
    """One number in one place: at a layout where a round reads other weights than a GPU holds (Llama 4 Maverick at
    tp 8 x pp 2 x ep 8: a round streams each GPU's slice once per micro-batch, an MoE step the experts its batch
    touches), ``derive`` states the serving chapter's goodput ceilings, at the chapter's steady state (its last row's
    batch, each cache read at a request's mean decode context), to the digits it prints; the KV capacity's room beside the weights a GPU holds, which
    derive says.  Before, derive took the weights a GPU holds for the step (85.3 against the chapter's 62.3
    requests/s for the TPOT ceiling) and, given the chapter's batch, a negative KV capacity ceiling (-11.6 1/s)."""
    path = spec_file(MAVERICK_TWO_NODES, "svmav")  # evaluated once a run (tests/test_serving_figures.py too)
    derive_reads(path, results := evaluated_text(MAVERICK_TWO_NODES, "svmav"))
    numbers = results.serving["techniques"]["numbers"]
    for qid in ("goodput_rate_tpot", "goodput_rate_capacity", "chunk_budget_rate", "goodput_rate_compute"):
        assert main(["derive", qid, "--spec", str(path), "--no-latex"]) == 0
        out = capsys.readouterr().out
        # the steady state's point: the chapter's last row's batch, each cache read at a request's mean context
        assert "the serving chapter's steady state" in out
        assert float(_value_line(out).split("=")[-1].split()[0]) == pytest.approx(numbers[qid], rel=1e-5)
        if qid == "goodput_rate_capacity":
            assert "C - N b is the room beside the weights it holds" in out
    # a batch where the weights leave no room: no rate, with the reason, never a negative one
    assert main(["derive", "goodput_rate_capacity", "--spec", str(path), "--no-latex", "--batch", "422",
                 "--context", "4607", "--at", "C=1e9"]) == 0
    out = capsys.readouterr().out
    assert "no arrival rate fits" in out and "= -" not in out


@pytest.mark.parametrize("name,c", [("deepseek-v3-h200-ep8.yaml", 35_136), ("llama70b-h100-tp8.yaml", 327_680)])
def test_kv_transfer_time_is_the_disaggregation_rows(capsys, name, c):
    """The serving chapter states one prompt's KV transfer (every GPU of the replica sending its slice at once);
    derive asked for --at W_kv and, given c, printed the whole model's cache as c_g, one GPU's.  It now takes the
    row's link and the whole model's cache the prompt leaves, and states the row's value.  c: DeepSeek-V3 61 x 576 x
    1 B (MLA, fp8 KV); Llama 3.1 70B 2 x 80 x 8 x 128 x 2 B (config.json shapes in specs/models)."""
    import re

    derive_reads(name, r := evaluated(name))  # derive's evaluation of the spec: the session's (tests/shared.py)
    want = r.serving["techniques"]["numbers"]["kv_transfer_time"]
    assert main(["derive", "kv_transfer_time", "--spec", str(SPECS / name), "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert float(re.search(r"^  t_kv = ([0-9.e+-]+) s", out, re.M).group(1)) == pytest.approx(want, rel=1e-5)
    assert re.search(rf"inputs: .*\bc = {c} B/token", out) and "c_g" not in out


def test_capacity_beside_the_draft_is_the_chapters(capsys):
    """derive capacity_batch_draft at a layout gave one GPU's slice (N_g, c_g) to a formula that divides the whole
    model over the layout itself: DeepSeek-V3 on 8 H200 (tp 1 x ep 8 x dp 8, an MTP head of one layer) held 16,486
    sequences of 1,024 tokens beside the draft, the weights term negative, where the serving chapter holds 165 of
    5,119 tokens (177 without the draft).  It now takes the whole model's values, as the chapter does, at the
    chapter's context (a request's last, 4k + 1k - 1, specs/deepseek-v3-h200-ep8.yaml), and states its value."""
    import re

    derive_reads("deepseek-v3-h200-ep8.yaml", r := evaluated("deepseek-v3-h200-ep8.yaml"))
    numbers = r.serving["techniques"]["numbers"]
    assert main(["derive", "capacity_batch_draft", "--spec", str(SPECS / "deepseek-v3-h200-ep8.yaml"),
                 "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "context = 5119" in out and "takes the whole model" in out and "N_g" not in out
    assert int(re.search(r"^  B_cap,d = (\d+)$", out, re.M).group(1)) == numbers["capacity_with_draft"] == 165


@pytest.mark.parametrize("name", ["deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml"])
def test_verify_round_is_the_chapters(capsys, name):
    """derive verify_time_bound at a layout gave one GPU's slice to a formula that divides the whole model over the
    layout itself (and at the spec's first batch and context): on DeepSeek-V3 fp8 at tp 8 x pp 2 over 16 B200 a
    verify round of 2 tokens a sequence at batch 1 came out 0.0446 ms, against the plain round's 0.605 ms.  It now
    takes the whole model at the layout, the experts n_v B tokens touch, at the serving chapter's point (its last
    row's batch, a request's last context), and states the chapter's verify round."""
    import re

    derive_reads(name, r := evaluated(name))
    numbers = r.serving["techniques"]["numbers"]
    assert main(["derive", "verify_time_bound", "--spec", str(SPECS / name), "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "the serving chapter's point" in out and "takes the whole model" in out
    got = float(re.search(r"^  t_v,bound = ([0-9.e+-]+) s", out, re.M).group(1))
    assert got == pytest.approx(numbers["verify_round_last"], rel=1e-5)
    assert got >= numbers["plain_round_last"] * (1 - 1e-9)  # n_v tokens a sequence cost at least one


@pytest.mark.parametrize("qid,estimate", [("request_decode_time_bound", "bound"),
                                          ("request_decode_time_serial", "serial")])
def test_a_requests_rounds_are_the_chapters(capsys, qid, estimate):
    """derive request_decode_time_bound asked for T_o although the spec's serving block gives the output, and given
    it with --at put one GPU's slice into a formula that divides the whole model over the layout (DeepSeek-V3 fp8 at
    tp 8 x pp 2 over 16 B200, batch 1,392: 9.17 s against the chapter's 26.5 s).  It now takes the serving block's
    request (4k prompt, 512 output in specs/llama70b-h100-tp8.yaml) and the whole model at the layout, at the
    chapter's last row's batch, and states that row's end to end less its TTFT, for the serial estimate too."""
    import re

    derive_reads("llama70b-h100-tp8.yaml", r := evaluated("llama70b-h100-tp8.yaml"))
    row = r.serving["rows"][-1][estimate]
    assert main(["derive", qid, "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "the serving chapter's request" in out and "takes the whole model" in out and "T_o = 512 token" in out
    got = float(re.search(r"^  (?:tilde\{t\}_dec|t_dec) = ([0-9.e+-]+) s", out, re.M).group(1))
    assert got == pytest.approx(row["e2e"] - row["ttft"], rel=1e-5)


SCOUT = """\
kind: report
name: scout1
title: Llama 4 Scout in int4 on one H100, an EAGLE head
hardware: h100-sxm
model: llama-4-scout
precision: int4
workloads:
  decode: {batch: [1], context: [1k]}
serving:
  prompt: 2k
  output: 512
  tpot: 30 ms
  users: 32
  speculative: {draft_tokens: 3, acceptance: 0.7, draft_layers: 1}
"""


def test_one_gpu_moes_verify_round_reads_the_experts_its_tokens_touch(capsys):
    """On one GPU (no parallelism block) derive verify_time_bound took the experts the batch's B tokens touch, the
    plain round's (Llama 4 Scout, 16 experts, one a token, specs/models/llama-4-scout.yaml: 21.2 ms at batch 41), where
    the verify round runs n_v B = 4 x 41 tokens through the experts (the chapter's 22.2 ms); it now states the
    chapter's verify round, and request_decode_time_bound its rounds summed; each with its scope, as at a layout (it
    had none on one GPU), and away from the chapter's point (--at, --batch, --context) not the chapter's."""
    import re

    path = spec_file(SCOUT, "scout1")
    derive_reads(path, results := evaluated_text(SCOUT, "scout1"))
    sv = results.serving
    numbers, row = sv["techniques"]["numbers"], sv["rows"][-1]["bound"]
    assert numbers["verify_round_last"] > numbers["plain_round_last"] * 1.02
    for qid, symbol, want in (("verify_time_bound", "t_v,bound", numbers["verify_round_last"]),
                              ("request_decode_time_bound", "t_dec", row["e2e"] - row["ttft"])):
        assert main(["derive", qid, "--spec", str(path), "--no-latex"]) == 0
        out = capsys.readouterr().out
        got = float(re.search(rf"^  {re.escape(symbol)} = ([0-9.e+-]+) s", out, re.M).group(1))
        assert got == pytest.approx(want, rel=1e-5), qid
        assert out.rstrip().splitlines()[-1] == \
            f"  scope: the whole model on one GPU ({results.spec.hardware.title}), as the serving chapter states it"
    for away in (["--at", "n_v=2"], ["--batch", "7"], ["--context", "3000"]):  # not the chapter's number (a review)
        assert main(["derive", "verify_time_bound", "--spec", str(path), "--no-latex", *away]) == 0
        last = capsys.readouterr().out.rstrip().splitlines()[-1]
        assert last.endswith(", at the inputs above, not the serving chapter's point"), (away, last)


def test_the_stall_free_rate_of_a_pipeline_streams_each_slice_per_micro_batch(capsys, spec):
    """The spec's Llama 3.1 70B at tp 4 x pp 2: the unchunked rounds at the stall-free rate run more than 2 sequences,
    so each GPU streams its slice once per micro-batch in flight, min(n_PP, B) N_g = 2 N_g (the report's N_r,g, as the
    TPOT ceiling (22) prints it); derive printed N_g and the rate of one stream.  The rate and its N are one fixed
    point: lam t_r(lam) = -ln q_p with t_r's N the running sequences' (techniques.rate_curves' stall_free)."""
    from genreport.commands.derive_values import report_of

    over = ("parallelism.tp=4", "parallelism.pp=2")
    args = ("stall_free_rate", "--spec", spec, *[x for o in over for x in ("--set", o)], "--no-latex")
    assert main(["derive", *args]) == 0
    out = capsys.readouterr().out
    r = report_of(load_spec(Path(spec), list(over)))
    free = r.serving["techniques"]["rates"]["unchunked"]["stall_free"]
    slice_ = float(r.envs[r.lead].values["N"])
    assert free["inputs"]["N"] == pytest.approx(2 * slice_, rel=1e-12)
    assert f"N_r,g = {2 * slice_:g}" in out and "N_g =" not in out
    assert _value(capsys, *args) == pytest.approx(free["rate"], rel=1e-5)


def test_the_kv_cache_rooms_ceiling_streams_its_own_steady_states_weights(capsys):
    """Llama 4 Maverick over two nodes (tp 8 x pp 2 x ep 8, tests/shared.py): at the KV cache room's ceiling the
    running sequences fill the room, B_h at the mean context (402 here, beside the MTP head the last stage holds whole;
    447 with the head split over the stages, stop 86), and beside their decode tokens a step carries B_h T_in /
    (T_out - 1) prompt tokens (Little's law): about 3,620 tokens, whose micro-batches touch every expert.  The ceiling
    took the weights of the chapter's batch (256, fewer experts touched): 33.0 requests/s where its own steady state
    gave 23.6 (21.7 now).  Its rate and weights are one fixed point (as (22)'s, steady_tpot_rate): at that rate the
    steady step holds exactly B_h sequences; derive states the chapter's number."""
    from genreport.model.techniques import _eval, _inputs

    path = spec_file(MAVERICK_TWO_NODES, "svmav")  # the run's one evaluation of it, derive's too (as above)
    derive_reads(path, r := evaluated_text(MAVERICK_TWO_NODES, "svmav"))
    t, sv = r.serving["techniques"], r.spec.serving
    lam, held = t["numbers"]["goodput_rate_capacity"], t["rates"]["held_sequences_mean"]
    tokens = held * (1 + sv.prompt / (sv.output - 1))
    want = r.envs[r.lead].at(batch=tokens)
    assert t["capacity_weights"]["N"] == pytest.approx(float(want["N"]), rel=1e-12)
    env = _inputs(r, t["batch"], t["context"])
    step = _eval(r, "steady_step_time", {**env, **t["capacity_weights"], "lam": lam})
    assert lam * (sv.output - 1) * step == pytest.approx(held, rel=1e-9)  # the room full at its own rate
    assert float(want["N"]) > 1.1 * env["N"] and 21 < lam < 22.5
    assert _value(capsys, "goodput_rate_capacity", "--spec", str(path)) == pytest.approx(lam, rel=1e-5)


@pytest.mark.parametrize("name", ["deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml"])
def test_the_pools_whole_expert_parallel_groups_are_the_chapters(capsys, name):
    """derive balanced_prefill_gpus states the balanced share at the chapter's point, and where an expert-parallel
    group is wider than a replica (DeepSeek-V3 at tp 1, ep 8: one group of 8 GPUs) the whole groups the chapter's row
    splits instead and the pools' rate, the lesser of the two; a dense model (Llama 3.1 70B, tp 8) has no such line."""
    import re

    derive_reads(name, r := evaluated(name))
    n = r.serving["techniques"]["numbers"]
    assert main(["derive", "balanced_prefill_gpus", "--spec", str(SPECS / name), "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert float(re.search(r"^  n_P\* = ([0-9.e+-]+)", out, re.M).group(1)) == pytest.approx(n["prefill_share"],
                                                                                               rel=1e-5)
    if name.startswith("deepseek"):
        assert "splits 16 GPUs in whole groups" in out and "1 prefill, 1 decode" in out
        # the prefill group the lesser pool: 8 prompts per 166.68 ms occupancy against 49.52 requests/s retired
        assert n["pool_gain"] == pytest.approx(0.4846, abs=1e-4) and "48% of its GPUs' decode rate" in out
        assert "t_pr what a prompt occupies its replica for (its pass through the stages, every replica of the expert group" in out
    else:
        assert "whole groups" not in out and "pool_group_gpus" not in n


@pytest.mark.parametrize("name", ["deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml"])
def test_the_one_pool_the_disaggregation_row_compares_with_is_the_chapters(capsys, name):
    """derive aggregated_tpot takes the serving chapter's one pool, the disaggregation row's before (prompts prefilled
    between its rounds, at the largest batch whose TPOT meets the target): its batch, the row's TTFT and the round at
    that batch, and gives the row's TPOT before (70B: batch 223 at the 50 ms target, of the chapter's 256; DeepSeek-V3:
    147 of the chapter's 165, each prompt between its rounds occupying its one-GPU replica 166.68 ms)."""
    derive_reads(name, r := evaluated(name))
    n = r.serving["techniques"]["numbers"]
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert 0 < n["one_pool_batch"] <= r.serving["techniques"]["batch"] and row["tpot"][0] == n["one_pool_tpot"]
    assert _value(capsys, "aggregated_tpot", "--spec", str(SPECS / name)) == pytest.approx(n["one_pool_tpot"],
                                                                                            rel=1e-5)
    if name.startswith("llama70b"):
        assert n["one_pool_batch"] == 223


def test_a_rate_past_the_memory_has_no_steady_step(capsys):
    """At 1,000 requests/s the 70B over 8 H100 has no steady state (the running sequences' reads would take more than
    the bandwidth): the chapter says "no steady time: the rate is past what the memory allows", but `derive
    steady_step_time` printed the formula's value, t_s = -0.0203 s for Qwen3 30B-A3B on 8 L4 at 3 requests/s: a
    negative step.  It states none, with the reason (values.physical)."""
    assert main(["derive", "steady_step_time", "--spec", "specs/llama70b-h100-tp8.yaml", "--set", "serving.rate=1000",
                 "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "t_s = none: no steady state at this rate: it is past what the memory allows" in out
    assert "t_s = -" not in out


@pytest.mark.parametrize("spec, layout", [("llama70b-h100-tp8.yaml", ()),
                                          ("llama70b-h100-tp8.yaml", ("parallelism.tp=4", "parallelism.pp=2")),
                                          ("deepseek-v3-h200-ep8.yaml", ())])
def test_derive_states_the_chapters_compute_batch(capsys, spec, layout):
    """``derive compute_batch --spec`` evaluated the formula at one GPU's slice, which its n_TP n_st then counted
    twice (QA, stop 75: 6,168 against the chapter's 385 at tp 8 x pp 2); it takes the whole model's request FLOPs
    over the replica's GPUs, as the chapter does: the same number, the chapter's rounded down."""
    r = evaluated(spec, layout)
    sets = [x for o in layout for x in ("--set", o)]
    assert main(["derive", "compute_batch", "--spec", str(SPECS / spec), *sets]) == 0
    out = capsys.readouterr().out
    value = float(out.strip().splitlines()[-1].split("=")[-1])
    assert int(value) == r.serving["compute_batch"], (value, r.serving["compute_batch"])
    assert "the whole model's request FLOPs over the replica's n_TP n_st GPUs" in out


def test_a_layouts_serving_round_away_from_the_chapters_point_is_not_called_the_chapters(capsys):
    """At a layout the scope line said "as the serving chapter states it" under --batch and --at too (a review):
    Llama 3.1 70B at tp 8, the request's rounds at the chapter's batch, then at 7 sequences and at a slower memory."""
    spec = str(SPECS / "llama70b-h100-tp8.yaml")
    derive_reads(SPECS / "llama70b-h100-tp8.yaml", evaluated("llama70b-h100-tp8.yaml"))
    for away, tail in (([], ", as the serving chapter states it"),
                       (["--batch", "7"], ", at the inputs above, not the serving chapter's point"),
                       (["--at", "W=1e12"], ", at the inputs above, not the serving chapter's point")):
        assert main(["derive", "request_decode_time_bound", "--spec", spec, "--no-latex", *away]) == 0
        last = capsys.readouterr().out.rstrip().splitlines()[-1]
        assert last == "  scope: one replica's (8 GPUs of tp 8 x pp 1 x ep 1 x dp 1)" + tail, (away, last)


def test_a_root_at_the_specs_own_zero_is_zero_not_a_negative_number(capsys):
    """``derive goodput_rate_tpot --for h_p`` of the 70B spec (no prefix cache: h_p = 0): the closed form's root at the
    spec's own rate is 0 up to rounding (-1.14e-13), which derive called "not positive: no h_p reaches this value"
    and then "a numeric root search finds no positive h_p either" (the hostile review of stop 88). It is h_p = 0; a
    spec with half of each prompt cached still finds its 0.5, and a symbol that has no value at 0 keeps its refusal."""
    spec = str(SPECS / "llama70b-h100-tp8.yaml")
    assert main(["derive", "goodput_rate_tpot", "--for", "h_p", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "\n    h_p = 0\n" in out and "-1.13964e-13" not in out and "finds no positive h_p" not in out
    assert main(["derive", "goodput_rate_tpot", "--for", "h_p", "--spec", spec, "--set", "serving.prefix_hit=0.5"]) == 0
    out = capsys.readouterr().out
    assert "\n    h_p = 0.5\n" in out
    from genreport.commands.derive_values import _at_zero

    assert _at_zero("h_p", -1e-13, {"h_p": 0.0}) and not _at_zero("h_p", -1e-3, {"h_p": 0.0})
    assert not _at_zero("W", -1e-13, {"W": 3.35e12})  # a bandwidth has no value at 0


def test_a_one_token_requests_decode_ceilings_are_not_the_chapters(capsys, spec):
    """A one-token request has no decode round, so the chapter states no TPOT, KV-room or max_sequences ceiling
    (tests/test_techniques_report.py): derive still evaluates the formulas, W / Q_r for the last two, and says the
    chapter does not state them, where it once said "as the serving chapter states it" beside a rate the chapter
    left out; the compute roof, which the chapter states, keeps its scope."""
    for qid in ("goodput_rate_capacity", "goodput_rate_tpot"):
        assert main(["derive", qid, "--spec", spec, "--set", "serving.output=1", "--no-latex"]) == 0
        out = capsys.readouterr().out
        assert "a rate the serving chapter does not state: a one-token request has no decode round" in out, qid
        assert "as the serving chapter states it" not in out, qid
    assert main(["derive", "goodput_rate_compute", "--spec", spec, "--set", "serving.output=1", "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "as the serving chapter states it" in out and "does not state" not in out


def test_a_prefix_hit_solved_for_recounts_what_the_windows_hold(capsys):
    """Llama 4 Scout's 36 chunked layers (8,192-token chunks) hold none of a cached prefix once a sequence is past its
    first chunk, so c_s, the prefix bytes a sequence still holds, grows with the hit: 6,144 B a token at h_p = 0.5,
    9,216 at 0.8 (12k prompts, one GPU of tp 8, at the last context 12,799). Solving the prefix capacity at 0.8 for
    h_p from the spec at 0.5 held c_s at 0.5's and found h_p = 1.2 (past 1, "no h_p reaches this value"; stop 89's
    review: Scout 0.597 where about 0.758 gives the value); c_s recounted at each hit finds the 0.8 that gives it."""
    sets = ["--spec", "specs/llama70b-h100-tp8.yaml", "--set", "model=llama-4-scout", "--set", "serving.prompt=12k",
            "--set", "serving.users=16", "--context", "12799", "--no-latex"]
    assert main(["derive", "prefix_capacity_batch", *sets, "--set", "serving.prefix_hit=0.8"]) == 0
    out = capsys.readouterr().out
    assert "c_s = 9216 B/token, h_p = 0.8" in out
    value = [x for x in out.splitlines() if x.strip().startswith("B_cap,h =")][-1].split("=")[1].split()[0]
    assert main(["derive", "prefix_capacity_batch", *sets, "--set", "serving.prefix_hit=0.5", "--for", "h_p",
                 "--at", f"prefix_capacity_batch={value}"]) == 0
    out = capsys.readouterr().out
    assert "c_s = 6144 B/token, h_p = 0.5" in out
    at_value = out.split(f"at B_cap,h = {value}")[1]  # (the spec's own value's solution comes first: 0.5)
    roots = [float(x.split("=")[1].split()[0]) for x in at_value.splitlines()
             if x.strip().startswith("h_p =") and "numeric root" in x]
    assert roots == [pytest.approx(0.8, abs=1e-5)], out
    # the closed form, c_s held at 0.5's, past 1, and no word that no hit reaches it (the numeric root does)
    assert "h_p = 1.2  (closed form, holding c_s at the spec's hit) is past 1: h_p is a share\n" in at_value
    assert "no h_p reaches" not in at_value
    # Gemma 3 27B at its decode context (shorter than the 4k prompt): the quantity's denominator is 0 at one hit,
    # S c = h_p T_in c_s, which the recount met as a ZeroDivisionError (stop 90's second review); that pole is no root
    gemma = ["--spec", "specs/llama70b-h100-tp8.yaml", "--set", "model=gemma-3-27b", "--set", "serving.prefix_hit=0.5",
             "--no-latex", "--context", "1k"]  # (derive's own default is the chapter's, a request's last context)
    assert main(["derive", "prefix_capacity_batch", "--for", "h_p", "--at", "prefix_capacity_batch=1200", *gemma]) == 0
    out = capsys.readouterr().out
    assert "h_p = 0.0257734  (numeric root" in out
    assert "c_s, the bytes per token of the prefix a sequence still holds, grows with the cached prefix" in out


def test_the_goodputs_room_solved_for_a_hit_answers_within_derives_limit(capsys, monkeypatch):
    """``derive goodput_rate_capacity --for h_p``: the rate is a cubic in h_p (a prompt attends to its cached prefix),
    and SymPy spent its 10 s on each of two solves, so derive's 15 s limit stopped the command before the numeric root
    (stop 90's second review, on every model tried). The solves now share what the limit leaves (here cut to 0.5 s
    each, so the test stays short), and the recount moves c_s and the steady chunk C_p = min(s_c, T_in (1 - h_p)) with
    the hit: Gemma 3 27B's KV-room ceiling at a 90% hit, solved from the spec at 50%, gives 0.9 back."""
    import genreport.formulas.solve as so

    gemma = ["--spec", "specs/llama70b-h100-tp8.yaml", "--set", "model=gemma-3-27b", "--no-latex"]
    assert main(["derive", "goodput_rate_capacity", *gemma, "--set", "serving.prefix_hit=0.9"]) == 0
    value = [x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("lambda_C =")][-1]
    value = value.split("=")[1].split()[0]
    monkeypatch.setattr(so, "SOLVE_SECONDS", 0.5)
    assert main(["derive", "goodput_rate_capacity", *gemma, "--set", "serving.prefix_hit=0.5", "--for", "h_p",
                 "--at", f"goodput_rate_capacity={value}"]) == 0
    out = capsys.readouterr().out.split(f"at lambda_C = {value}")[1]
    roots = [float(x.split("=")[1].split()[0]) for x in out.splitlines()
             if x.strip().startswith("h_p =") and "numeric root" in x]
    assert roots == [pytest.approx(0.9, abs=1e-4)], out


def test_the_prefix_capacity_is_derived_where_the_chapter_states_it(capsys):
    """``derive prefix_capacity_batch --spec`` at a request's last context, where the prefix caching row states it:
    at the spec's first decode context (1,024, shorter than the 2,048 tokens cached of each 4k prompt) it read "the
    weights ... exceed the memory capacity, so no sequence fits" beside the chapter's count (a review, stop 91)."""
    path = SPECS / "llama70b-h100-tp8.yaml"
    sets = ["--set", "serving.prefix_hit=0.5"]
    r = evaluated(path, ("serving.prefix_hit=0.5",))
    after = r.serving["techniques"]["numbers"]["prefix_capacity_after"]
    assert main(["derive", "prefix_capacity_batch", "--spec", str(path), *sets]) == 0
    out = capsys.readouterr().out
    assert f"(floor: {after})" in _value_line(out) and "no sequence fits" not in out, out[-600:]
    assert main(["derive", "prefix_capacity_batch", "--spec", str(path), *sets, "--context", "1k"]) == 0
    assert ("none: the context, 1,024 tokens, is shorter than the 2,048 tokens a prefix cache holds of each prompt"
            in _value_line(capsys.readouterr().out))


def test_derive_s_unchunked_rounds_read_what_the_rate_figure_reads(capsys):
    """Llama 4 Maverick at tp 8 x pp 2 x ep 8 at 2 requests/s: ``derive unchunked_step_time --spec`` evaluated one
    GPU's whole slice of the experts and one stage's prefill (a review, stop 91, on DeepSeek-V3 at tp 8 x pp 2: 9.52 ms
    beside the rate figure's 1.2 ms); it takes the chapter's inputs at the spec's rate (rates.unchunked.at_rate: the
    experts the running sequences touch, a round's slices, a prompt's pass through both stages), and its TTFT the
    round alone at those."""
    text = MAVERICK_TWO_NODES.replace("serving: {prompt: 4k,", "serving: {rate: 2, prompt: 4k,")
    assert text != MAVERICK_TWO_NODES
    path = spec_file(text, "svmavrate")
    r = evaluated_text(text, "svmavrate")
    here = r.serving["techniques"]["rates"]["unchunked"]["at_rate"]
    assert here["rate"] == 2.0
    lead = r.envs[r.lead]
    assert here["inputs"]["N"] < 0.5 * float(lead.values["N"])  # the touched experts, not the GPU's whole slice
    want = float(r.q["unchunked_step_time"]({**lead.values, **here["inputs"], "lam": 2.0, "T_in": 4096.0,
                                             "T_out": 512.0, "h_p": 0.0, "c": float(lead.values["c"])}))
    assert main(["derive", "unchunked_step_time", "--spec", str(path), "--no-latex"]) == 0
    out = capsys.readouterr().out
    got = float(_value_line(out).split("=")[1].split()[0])
    assert got == pytest.approx(want, rel=1e-5), out[-800:]
    assert "the serving chapter's unchunked rounds at the spec's rate" in out
