"""Page 1's best lever at a layout: each decode lever priced on the row's own round (the strict bound the row states,
decode_time_bound at the layout), with the lever's change: int4/int8 weights, HBM bandwidth x1.5, the batch a
replica holds.  The hard regimes: DeepSeek-V3 (MoE, MLA, ep 8), Llama 3 70B over tp 8, Llama 4 Maverick over
tp 8 x pp 2 x ep 8 on two nodes (tests/shared.py MAVERICK_TWO_NODES)."""

from __future__ import annotations

import pytest
from genreport.load.spec import format_bytes
from genreport.model import decision
from genreport.model.decision import _lever_change
from genreport.model.layout import decode_bound_at, decode_ledgers_at
from shared import MAVERICK_TWO_NODES

LEVERS = {"weights-int4": "weights int4", "weights-int8": "weights int8", "bandwidth-1.5": "bandwidth"}


def _results(evaluated, spec, tmp_path):
    if spec == "maverick-tp8-pp2-ep8":
        path = tmp_path / "svmav.yaml"
        path.write_text(MAVERICK_TWO_NODES)
        return evaluated(path)
    return evaluated(spec)


def _decode_rows(r):
    return [row for row in decision.rows(r) if row["workload"] == "decode"]


@pytest.mark.parametrize("spec", ["deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml", "maverick-tp8-pp2-ep8"])
def test_a_layout_rows_lever_is_priced_on_its_round(evaluated, spec, tmp_path):
    """Every bandwidth-bound decode row that fits gets a lever, whose gain is the row's bound over the bound after
    the change (a batch lever: tok/s at the replica's capacity over the row's), and the bound before is the row's."""
    r = _results(evaluated, spec, tmp_path)
    assert r.parallel is not None
    levers = {lv["lever"]: lv for lv in r.levers}
    seen = 0
    for row in _decode_rows(r):
        b, s = row["batch"], row["context"]
        assert decode_bound_at(r.spec, r.lead, b, s) == pytest.approx(row["time"], rel=1e-12)
        if row["binds"] != "bandwidth":
            continue
        seen += 1
        gains = {}
        for key in ("weights-int4", "weights-int8", "bandwidth-1.5"):
            if key in levers and not (key == "weights-int8" and "weights-int4" in levers):
                gains[levers[key]["change"]] = row["time"] / decode_bound_at(r.spec, r.lead, b, s,
                                                                             *_lever_change(r, key))
        j = list(r.spec.workloads.decode_context).index(s)
        cap = int(r.parallel.per_context[r.lead]["capacity_batch_replica"][j])
        # no more than the engine runs at once (vLLM's max_num_seqs, 256 by default where the spec's engine block is
        # silent: https://docs.vllm.ai/en/latest/api/vllm/config/scheduler.html): DeepSeek-V3 on 8 H200 named 886
        runs = min(cap, r.spec.hardware.max_sequences) if r.spec.hardware.max_sequences else cap
        if runs > b:
            name = f"batch {runs:,}" + (f" (the engine's max_sequences; {cap:,} fit)" if runs < cap else "")
            top = runs
            led = decode_ledgers_at(r.spec, r.lead, runs, s)
            if led["compute"] >= max(led["bandwidth"], led["interconnect"]):  # the tok/s stops growing: the first
                # batch at which the compute binds, found by walking up (decision.compute_bound_batch bisects)
                top = next(n for n in range(b + 1, runs + 1) if (lambda x: x["compute"] >= max(
                    x["bandwidth"], x["interconnect"]))(decode_ledgers_at(r.spec, r.lead, n, s)))
                if top < runs:
                    name = f"batch {top:,} (compute-bound from there; the {runs:,} that could run give no more tok/s)"
            gains[name] = (top / decode_bound_at(r.spec, r.lead, top, s)) / (b / row["time"])
        lever = row["lever"]
        assert lever is not None, row["label"]
        assert lever["gain"] == pytest.approx(gains[lever["change"]], rel=1e-12)
        assert lever["gain"] == pytest.approx(max(gains.values()), rel=1e-12)
        assert lever["gain"] > 1
    assert seen


# Llama 3.1 70B's last pipeline stage of two holds 40 of its 80 layers (855,654,400 parameters each), the output head
# (128,256 x 8192) and the final norm, of the 70,553,706,496 its shapes count (tests/test_parallel.py): the memory
# formulas take that stage (genreport.model.stages), the time formulas the even split; each of its GPUs holds the
# stage's norms whole (7 more copies over 8 GPUs, N_R: tests/test_tp_copies.py)
COPIES = 7 * (80 * 2 * 8192 + 8192)
LAST_OF_TWO = ((40 * 855_654_400 + 128256 * 8192 + 8192 + 7 * (40 * 2 * 8192 + 8192))
               / (70_553_706_496 + COPIES))


@pytest.mark.parametrize("sets, pp", [((), 1), (("parallelism.pp=2",), 2)])
def test_llama70b_levers_by_hand(evaluated, sets, pp):
    """Llama 3.1 70B over tp 8, and over tp 8 x pp 2 on two nodes of 8 H100 (the stages cross the scale-out network).
    Where the HBM ledger binds, before and after the change, the round is that ledger through the pipeline:
    max(t, t_L, (t + t_L) / m), m = min(n_PP, B) micro-batches, t the first stage's, t_L = t + m h the last's, which
    also streams the output head (128,256 x 8,192 weights over its 8 GPUs, h a pass; at batch 1 the token passes both
    stages, 2 t + h).  int4 weights (0.5 + 2/128 B: a bf16 scale per group of 128) take (1 - b_int4 / b) of the
    weights a GPU streams off that ledger, once per micro-batch; x1.5 bandwidth divides it by 1.5."""
    r = evaluated("llama70b-h100-tp8.yaml", sets)
    g, w = r.parallel.decode[r.lead], r.spec.workloads
    per_gpu = (70.6e9 + COPIES) * 2 / 8 / pp  # N = 70.6B declared (specs/models/llama-3.1-70b.yaml, seed
    # accounting), bf16, and the norms each GPU holds whole (COPIES): a dense model streams every weight of its even
    # slice; it holds its stage's (the last of two: LAST_OF_TWO)
    held = r.parallel.scalars[r.lead]["weight_bytes_per_gpu"]
    assert held == pytest.approx(per_gpu if pp == 1 else (70.6e9 + COPIES) * 2 / 8 * LAST_OF_TWO, rel=1e-12)
    bw, b = r.spec.hardware.bandwidth, r.spec.precision.weight_bytes
    b4 = format_bytes("int4", 128)
    head = 128256 * 8192 * b / 8 / bw if pp > 1 else 0.0  # the last stage's output head, a pass
    streamed = per_gpu - (128256 * 8192 * 2 / 8 / pp if pp > 1 else 0.0)  # the first stage's: no head
    for row in _decode_rows(r):
        i, j = list(w.decode_batch).index(row["batch"]), list(w.decode_context).index(row["context"])
        tc, tm, tx = (float(g[k][i, j]) for k in ("decode_time_compute_gpu", "decode_time_memory_gpu",
                                                   "decode_time_comm"))
        m = min(pp, row["batch"])
        tm4 = tm - m * streamed * (1 - b4 / b) / bw
        assert min(tm4, tm / 1.5) > max(tc, tx)  # HBM binds before and after either change

        def through(t, h, m=m):  # the pipeline's round of a ledger t, the last stage's t + m h
            return max(t, t + m * h, (t + t + m * h) / m) if pp > 1 else t

        assert row["time"] == pytest.approx(through(tm, head), rel=1e-12)
        int4 = through(tm4, head * b4 / b)
        assert decode_bound_at(r.spec, r.lead, row["batch"], row["context"], *_lever_change(r, "weights-int4")) \
            == pytest.approx(int4, rel=1e-12)
        faster = through(tm / 1.5, head / 1.5)
        assert decode_bound_at(r.spec, r.lead, row["batch"], row["context"], None, 1.5) == pytest.approx(faster, rel=1e-12)
        lever = row["lever"]
        if lever["effect"] == "latency":
            assert lever["gain"] == pytest.approx(row["time"] / min(int4, faster), rel=1e-12)


def test_a_layout_prefill_rows_fp8_compute_lever_is_priced_on_its_bound(evaluated):
    """Llama 3.1 8B in bf16 at tp 8 on H100: a prefill's stage is compute-bound, its all-reduces 1/1.44 of its FLOP
    time at 512 tokens, so FP8 compute (twice the dense peak, 1,979 against 989 TFLOP/s, NVIDIA H100 datasheet)
    shortens the row's bound 1.44x, not the one-card roof's 2x page 1 stated.  The lever is priced on the row's own
    bound through the layout, as the decode levers are."""
    from genreport.model.layout import prefill_bound_at

    r = evaluated("llama70b-h100-tp8.yaml", ("model=llama-3.1-8b",))
    card = next(lv for lv in r.levers if lv["lever"] == "compute-fp8")["gain"]
    assert card == pytest.approx(2.0, rel=1e-3)
    fp8 = decision._fp8_compute(r.spec.precision)
    assert (fp8.weights, fp8.compute) == ("fp8", "fp8")
    gains = []
    for row in (x for x in r.decision if x["workload"] == "prefill"):
        assert row["roof"] == "compute" and row["lever"]["change"] == "FP8 compute"
        assert prefill_bound_at(r.spec, r.lead, row["tokens"]) == pytest.approx(row["time"], rel=1e-12)
        after = prefill_bound_at(r.spec, r.lead, row["tokens"], fp8)
        assert row["lever"] == {"change": "FP8 compute", "gain": pytest.approx(row["time"] / after, rel=1e-12),
                                "effect": "latency"}
        gains.append(row["lever"]["gain"])
    assert all(1 < g < card - 0.2 for g in gains) and gains[0] == pytest.approx(1.436, abs=0.01)


def test_a_row_that_does_not_fit_says_what_its_bound_means():
    """Page 1 of seed 000's 70B on one H100 lists every row "no" in its fits column (140 GB of weights in 80 GB) and
    still a bound and tokens/s per row, as seed 000 computes them: the footnote says that such a row states the bound
    its step would have if it fitted, and that its lever makes it fit. A report whose rows all fit (70B over tp 8)
    does not say it."""
    import re

    from shared import html

    def footnote(spec):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html(spec)))
        return text[text.index("Bounds are lower bounds on a step"):][:900]

    said = "A row that does not fit (capacity binds) states the bound its step would have if it fitted; its lever is"
    assert said in footnote("seed000-70b-h100.yaml")
    assert "does not fit" not in footnote("llama70b-h100-tp8.yaml")
