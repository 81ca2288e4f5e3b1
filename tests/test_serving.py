"""One request at a layout (generator/model/serving.py): TTFT, TPOT, the end-to-end latency's closed form.

Hand counts use the numbers copied here with their sources; the closed form is checked against SymPy's own sum
and against the decode rounds summed one by one.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from genreport.formulas import parallel
from genreport.formulas.compiled import load
from genreport.load.loader import _precision, load_hardware, load_model
from genreport.load.spec import Parallelism
from genreport.model.env import make_env
from genreport.model.layout import at_batch, choose_links, layout_values
from genreport.model.serving import joules_per_token, request, usd_per_mtok
from shared import ROOT
from shared import page as shared_page


@cache
def _model(name):
    return load_model(ROOT / "specs" / "models" / f"{name}.yaml")


@cache
def _hw(name):
    return load_hardware(ROOT / "specs" / "hardware" / f"{name}.yaml")


@pytest.mark.parametrize("ledger", [parallel.decode_time_compute_gpu, parallel.decode_time_memory_gpu,
                                    parallel.decode_time_comm, parallel.decode_time_memory_busiest])
def test_closed_form_is_sympys_sum(ledger):
    e = ledger()
    # over one denominator and expanded, the difference is 0: a proof as simplify's (which took 8 s on the collectives)
    assert sp.expand(sp.together(parallel.request_round_sum(e) - parallel._over_request(e))) == 0


def _rounds_one_by_one(model, hw, prec, par, batch, prompt, output):
    """The decode rounds k = 1 .. output - 1 at context prompt + k, each evaluated and summed (the loop the closed
    form replaces)."""
    q = load()
    env = make_env(hw, model, prec, "seed")
    links, _ = choose_links(hw, par)
    base = layout_values(env.values, model, par, links, prec, "seed", env.pc)
    total = 0.0
    for s in range(prompt + 1, prompt + output):
        g = env.at(context=float(s))
        v = at_batch(dict(base, S=np.float64(s), c=np.float64(np.ravel(g["c"])[0]),
                          d_h=np.float64(np.ravel(g["d_h"])[0])), env.with_layout(par), float(batch))
        total += float(q["decode_time_bound"](v))
    return total


def test_llama70b_tp4_h100_by_hand():
    """Llama 3.1 70B (70.6e9 parameters, 80 layers, 8 KV heads of 128: Meta's config.json) on 4 x H100 SXM (3.35 TB/s,
    989.4 TFLOP/s bf16: NVIDIA's datasheet), bf16, batch 1, 1024-token prompt, 128 generated."""
    r = request(_model("llama-3.1-70b"), _hw("h100-sxm"), _precision("bf16"), Parallelism(4), 1, 1024, 128)
    w, p = 3.35e12, 989.4e12
    c_gpu = 80 * 2 * 8 * 128 * 2 / 4  # KV bytes per token on one GPU: the 8 KV heads split 4 ways
    weights_gpu = 70.6e9 * 2 / 4
    # TPOT at the last context 1024 + 127 = 1151: HBM binds (batch 1)
    assert r.tpot_bound == pytest.approx((weights_gpu + 1151 * c_gpu) / w, rel=2e-3)
    # 127 rounds after the first token, at the mean context 1024 + 64
    assert r.decode_bound == pytest.approx(127 * (weights_gpu + 1088 * c_gpu) / w, rel=2e-3)
    # TTFT: 2 N_p T FLOPs over the 4 GPUs' peak, compute-bound at 1024 tokens (N_p about 68.5e9 without the
    # embedding and the head: 70.6e9 - 2 x 128,256 x 8192)
    assert r.ttft_bound == pytest.approx(2 * (70.6e9 - 2 * 128256 * 8192) * 1024 / (4 * p), rel=0.03)
    assert r.e2e_bound == pytest.approx(r.ttft_bound + r.decode_bound)
    assert r.per_user() == pytest.approx(127 / r.decode_bound)
    assert r.per_gpu() == pytest.approx(r.per_user() / 4)
    # the closed form is the loop's sum: one ledger (HBM) binds every round
    loop = _rounds_one_by_one(_model("llama-3.1-70b"), _hw("h100-sxm"), _precision("bf16"), Parallelism(4), 1,
                              1024, 128)
    assert r.decode_bound == pytest.approx(loop, rel=1e-9)


@pytest.mark.parametrize("model,hw,prec,par,batch,prompt,output", [
    ("gpt-oss-120b", "h100-sxm", "int4", Parallelism(1), 16, 2000, 300),  # sliding window 128 on half the layers
    ("gemma-2-27b", "h100-sxm", "bf16", Parallelism(2), 8, 3900, 400),  # window 4096 crossed inside the request
    ("mixtral-8x22b", "h100-sxm", "bf16", Parallelism(8, 1, 8), 32, 4096, 256),
    ("deepseek-v3", "h200", "fp8", Parallelism(8, 2), 64, 4096, 512),  # two nodes, MLA, MoE
    ("llama-3.1-70b", "h100-sxm", "bf16", Parallelism(8), 256, 512, 2048),  # compute and HBM cross inside it
])
def test_closed_form_never_exceeds_the_rounds(model, hw, prec, par, batch, prompt, output):
    """The max of the ledgers' sums is at most the sum of the rounds (a lower bound still), and within a few per
    cent of it on these cases."""
    r = request(_model(model), _hw(hw), _precision(prec), par, batch, prompt, output)
    loop = _rounds_one_by_one(_model(model), _hw(hw), _precision(prec), par, batch, prompt, output)
    assert r.decode_bound <= loop * (1 + 1e-9)
    assert r.decode_bound >= 0.9 * loop
    assert r.ttft_bound <= r.ttft_serial and r.decode_bound <= r.decode_serial and r.tpot_bound <= r.tpot_serial
    assert r.decode_bound <= (output - 1) * r.tpot_bound * (1 + 1e-9)  # every round at most the last one


def test_one_token_has_no_decode_round():
    r = request(_model("llama-3.1-8b"), _hw("h100-sxm"), _precision("bf16"), Parallelism(1), 1, 512, 1)
    assert r.decode_bound == 0.0 and r.e2e_bound == r.ttft_bound


def test_cost_and_energy_by_hand():
    # $2.99/h at 1,000 tok/s per GPU: 2.99 / 3.6e6 x 1e6 = $0.8306 per million tokens; 700 W at 1,000 tok/s: 0.7 J
    assert usd_per_mtok(2.99, 1000.0) == pytest.approx(0.830555, rel=1e-5)
    assert joules_per_token(700.0, 1000.0) == pytest.approx(0.7)
    assert usd_per_mtok(None, 1000.0) is None and joules_per_token(700.0, 0.0) is None


PUBLISHED = [r for r in csv.DictReader((ROOT / "tests" / "data" / "published.csv").open(encoding="utf-8"))
             if r["metric"] == "ttft_ms" and r["expect"] == "ok"]
FORMATS = {"bf16": "bf16", "fp16": "fp16", "fp8": "fp8", "int8-weights": "int8", "int4-weights": "int4"}


@pytest.mark.parametrize("row", PUBLISHED, ids=[r["id"] for r in PUBLISHED])
def test_published_ttft_never_beats_the_bound(row):
    """Published times to first token (tests/data/published.csv, each row's source there) are at or above TTFT."""
    par = Parallelism(int(row["tp"] or 1), int(row["pp"] or 1))
    r = request(_model(row["model"]), _hw(row["hardware"]), _precision(FORMATS[row["precision"]]), par,
                int(row["batch"] or 1), int(row["input_tokens"]), 1)
    assert r.ttft_bound * 1e3 <= float(row["value"])


def test_price_and_power_are_overridable(tmp_path):
    from genreport.errors import SpecError
    from genreport.load.loader import load_report

    spec = ROOT / "specs" / "llama70b-h100-tp8.yaml"
    s = load_report(spec, overrides=["hardware.price=5.5", "hardware.power=650"])
    assert (s.hardware.price_per_hour, s.hardware.power_watts) == (5.5, 650)
    assert load_report(spec).hardware.price_per_hour == 2.99  # the catalog's, sourced in h100-sxm.yaml
    with pytest.raises(SpecError, match="usd_per_hour"):
        load_report(spec, overrides=["hardware.price=-1"])
    # a GPU file without a price (Gaudi 3: no published rental price found) takes one from --set, its source the option
    text = spec.read_text().replace("hardware: h100-sxm", f"hardware: {ROOT / 'specs' / 'hardware' / 'gaudi3.yaml'}")
    (tmp_path / "g.yaml").write_text(text)
    g = load_report(tmp_path / "g.yaml", overrides=["hardware.price=2.1"])
    assert g.hardware.price_per_hour == 2.1 and g.hardware.sources["price"].title == "--set hardware.price=2.1"


def _serving_spec(tmp_path, block: str) -> Path:
    text = (ROOT / "specs" / "llama70b-h100-tp8.yaml").read_text(encoding="utf-8")
    text = text.split("\nserving:")[0]  # the committed spec's own block is replaced by the test's
    text = text.replace("hardware: h100-sxm", f"hardware: {ROOT / 'specs' / 'hardware' / 'h100-sxm.yaml'}")
    text = text.replace("model: llama-3.1-70b", f"model: {ROOT / 'specs' / 'models' / 'llama-3.1-70b.yaml'}")
    p = tmp_path / "s.yaml"
    p.write_text(text + "\n" + block + "\n", encoding="utf-8")
    return p


def test_serving_block_is_read_with_units_and_reachable_by_set(tmp_path):
    from genreport.load.loader import load_report

    p = _serving_spec(tmp_path, "serving: {prompt: 4k, output: 512, ttft: 2s, tpot: 50ms, users: 128}")
    s = load_report(p)
    assert (s.serving.prompt, s.serving.output, s.serving.ttft, s.serving.tpot, s.serving.users) == (
        4096, 512, 2.0, 0.05, 128)
    s = load_report(p, overrides=["serving.tpot=20ms", "serving.price=5.5"])
    assert s.serving.tpot == pytest.approx(0.02) and s.hardware.price_per_hour == 5.5


@pytest.mark.parametrize("block,where,words", [
    ("serving: {prompt: 4k, output: 512, tpot: 50}", "serving.tpot", "not a string"),
    ("serving: {prompt: 4q, output: 512}", "serving.prompt", "expected form"),
    ("serving: {prompt: 4k}", "serving", "output"),
    ("serving: {prompt: 4k, output: 1, users: 0}", "serving.users", "minimum"),
    ("serving: {prompt: 4k, output: 1, tpot: 5 furlongs}", "serving.tpot", "furlongs"),
])
def test_serving_block_errors_name_the_place(tmp_path, block, where, words):
    from genreport.errors import SpecError
    from genreport.load.loader import load_report

    p = _serving_spec(tmp_path, block)
    with pytest.raises(SpecError) as err:
        load_report(p)
    text = str(err.value)
    assert f"{p.name}:" in text and where in text and words in text


def test_report_serving_chapter(tmp_path):
    """A spec with a serving block: the evaluation answers it at the spec's layout (one number, one place) and the
    report prints it; results.json carries it.  Llama 3.1 70B bf16 on 8 x H100 (tp 8), 128 users of 4k + 512."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from genreport.present.render import context

    p = _serving_spec(tmp_path, "serving: {prompt: 4k, output: 512, ttft: 2s, tpot: 50ms, users: 128}")
    r = evaluate(load_report(p))
    sv = r.serving
    users = next(x for x in sv["rows"] if x["batch"] == 128)["bound"]
    # hand count: weights 70.6e9 x 2 B / 8, KV 327,680 B per token / 8 GPUs, 128 sequences at the last context
    # 4,096 + 511 = 4,607 (TPOT) and at the mean context 4,096 + 256 (the mean round), at 3.35 TB/s
    assert users["tpot"] == pytest.approx((70.6e9 * 2 / 8 + 40960 * 128 * 4607) / 3.35e12, rel=2e-3)
    assert users["tokens_per_s_user"] == pytest.approx(3.35e12 / (70.6e9 * 2 / 8 + 40960 * 128 * 4352), rel=2e-3)
    assert users["e2e"] == pytest.approx(users["ttft"] + 511 / users["tokens_per_s_user"], rel=1e-9)
    # 313 sequences fit and all meet 50 ms, but the engine runs at most 256 (engine.max_sequences, vLLM's max_num_seqs)
    assert sv["ttft_met"] and sv["tpot_batch"] == sv["max_sequences"] == 256 and sv["capacity_batch"] == 313
    assert sv["gpus_for_users"] == 8 and sv["cheapest"]["usd_per_mtok_out"] <= users["usd_per_mtok_out"]
    assert users["tokens_per_s_node"] == pytest.approx(8 * users["tokens_per_s_gpu"])  # DGX H100: 8 GPUs a node
    for row in sv["rows"]:
        for k in ("ttft", "tpot", "e2e"):
            assert row["bound"][k] <= row["serial"][k]
    ctx = context(r, None, {})
    assert ctx.serving is sv and "s9" in ctx.ch


def test_page_one_names_the_cheapest_layout_meeting_the_targets(tmp_path):
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    p = _serving_spec(tmp_path, "serving: {prompt: 4k, output: 512, ttft: 2s, tpot: 50ms, users: 128}")
    page = shared_page(evaluate(load_report(p)))  # the page's words (no figures drawn: none is read)
    head = page[page.index('<section id="s0"'):page.index('<section id="s1"')]
    assert "Serving 4,096 + 512-token requests under TTFT 2 s, TPOT 50 ms" in head
    # 8 x (80 GiB x 0.9 - 0.576 GB workspace - 17.65 GB weights) / (327,680 B x 4,608 tokens) = 313.0 (316 before
    # the engine's activation workspace was set aside) fit, and the TPOT target allows them all, but the engine runs
    # at most 256 at once (engine.max_sequences: vLLM's max_num_seqs default, docs.vllm.ai engine arguments)
    # that is a plain decode round's TPOT: with each 4,096-token prompt prefilled between the rounds (the chapter's
    # disaggregation row's one pool) fewer meet it, said beside it (review, stop 92)
    assert ("this layout meets them up to 256 sequences per replica in plain decode rounds, the engine's max_sequences, "
            "and 223 with each prompt's prefill between them (the 128 users take") in head
    assert "4 GPUs, tp 4, fp8 weights, fp8 KV" in head  # plan's cheapest: half the GPUs in fp8
    assert 'id="s9"' in page and "Serving: one request, its targets, its cost" in page


RATES = [r for r in csv.DictReader((ROOT / "tests" / "data" / "published.csv").open(encoding="utf-8"))
         if r["metric"] == "tokens_per_s" and r["expect"] == "ok" and r["batch"] and r["input_tokens"]
         and r["output_tokens"] and int(r["gpus"] or 1) == int(r["tp"] or 1) * int(r["pp"] or 1)]


@pytest.mark.parametrize("row", RATES, ids=[r["id"] for r in RATES])
def test_published_request_rates_never_beat_the_bound(row):
    """Published generation rates (tests/data/published.csv, sources there) at their stated layout, batch, prompt and
    output: at most the batch times the request's mean rate over its decode rounds (the closed form's), which is
    stricter than the round at the prompt's context (tests/test_parallel_published.py)."""
    par = Parallelism(int(row["tp"] or 1), int(row["pp"] or 1))
    r = request(_model(row["model"]), _hw(row["hardware"]), _precision(FORMATS[row["precision"]]), par,
                int(row["batch"]), int(row["input_tokens"]), int(row["output_tokens"]))
    assert float(row["value"]) <= int(row["batch"]) * r.per_user()
    assert len(RATES) >= 20


def test_a_layout_that_holds_no_request_serves_none(tmp_path):
    """Llama 3.1 70B in bf16 on one H100 (tp 1): 141.2 GB of weights against 80 GB, so the replica holds no
    sequence.  The serving chapter states no TTFT, TPOT or cost for it and page 1 says it cannot serve the
    targets, never "meets them" (it did: ttft_met was True from the prefill bound of a model that does not fit);
    the techniques, applied to nothing, are absent; plan's cheapest layout is still named."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    p = _serving_spec(tmp_path, "serving: {prompt: 2k, output: 512, ttft: 2s, tpot: 50ms, users: 16}")
    p.write_text(p.read_text(encoding="utf-8").replace("parallelism: {tp: 8}", "parallelism: {tp: 1}"),
                 encoding="utf-8")
    r = evaluate(load_report(p))
    sv = r.serving
    assert sv["capacity_batch"] == 0 and sv["holds"] is False
    assert sv["ttft_met"] is None and sv["techniques"] is None and sv["cheapest"] is not None
    page = shared_page(r)  # the page's words (no figures drawn: none is read)
    head = page[page.index('<section id="s0"'):page.index('<section id="s1"')]
    assert "this layout cannot serve them: its weights alone exceed the card's memory" in head
    assert "meets them up to" not in head and "this layout meets them" not in head
    s9 = page[page.index('<section id="s9"'):]
    assert "This layout cannot serve the request: its weights alone" in s9
    assert "The TTFT target is met" not in s9 and "What serving engines do to it" not in s9
    assert "A node of 8 GPUs full of such replicas" not in s9


def test_the_drafts_share_and_speculation_that_pays_throughout_read_plainly():
    """DeepSeek-V3's one-layer MTP draft on 8 H200 (the committed spec): its pass is 0.625 ms of a 26.06 ms mean
    round, 2.4%, printed "2%" (and a Qwen3 235B one-layer head at tp 8 x pp 2 "0% of a step"); speculation that
    pays up to every sequence the replica holds read "does not end up to the 165 sequences"."""
    from shared import evaluated

    tech = evaluated("deepseek-v3-h200-ep8.yaml").serving["techniques"]
    n, row = tech["numbers"], tech["rows"][0]
    assert row["technique"] == "speculative decoding"
    share = n["draft_time_mean"] / n["plain_round_mean"]
    assert 0.02 < share < 0.03 and f"(1 pass, at least 0.625 ms: {100 * share:.2g}% of a step)" in row["setting"]
    assert "2.4% of a step" in row["setting"]
    assert row["ends"].startswith("pays at every batch up to the 165 sequences a replica holds")
    # past the verify step's crossover the speed-up falls to its value at the last batch scanned, not "towards" it
    # as if it were a limit (rev14)
    assert re.search(r": past batch 164 the speed-up at the last token falls, to 1\.\d\d× at batch 165;", row["ends"])


def test_the_pools_decode_replica_retires_at_its_plain_round():
    """Disaggregated pools (DistServe, section 3): a decode replica runs plain rounds, no prompt chunk rides along,
    so it retires B / ((T_out - 1) t_s) requests/s, the rate balanced_prefill_gpus balances against the prefill
    replica's, t_s the steady state's mean round (T_o - 1) / tok/s per user, as the row's tok/s per GPU takes it.
    DeepSeek-V3 on 8 H200 (the committed spec), 165 sequences a replica: 6.19 requests/s (6.05 at the TPOT round,
    the last context's); the bullet printed 0.70, the chunked row's batch, whose every step carries a chunk (6.75x
    the round with the chunk at MLA's prefill head dim, 8.66x when it took the decode tokens' absorbed one)."""
    import re

    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    tech, sv = r.serving["techniques"], r.spec.serving
    n, row = tech["numbers"], tech["rows"][-1]
    assert row["technique"] == "prefill/decode disaggregation" and n["chunked_cost"] == pytest.approx(6.75, abs=0.005)
    t_s = 1 / r.serving["rows"][-1]["bound"]["tokens_per_s_user"]
    retires = tech["batch"] / ((sv.output - 1) * t_s)
    prompts, said = (float(x) for x in re.search(
        r"a prefill replica serves ([\d.]+) prompts/s \(a prompt occupying its replica [\d.]+ ms while the group's 8 "
        r"replicas all prefill\), a decode replica retires ([\d.]+) requests/s", row["ends"]).groups())
    assert said == pytest.approx(retires, abs=0.005) and said > 6
    assert n["prefill_share"] == pytest.approx(retires / (retires + prompts), rel=2e-3)  # the pools balance


def test_speculation_past_its_break_even_is_slower_not_faster():
    """DeepSeek-V3 with int4 weights (group 128) on 8 MI300X, ep 8 x dp 8 (the committed spec's layout and MTP
    draft), its engine running up to 1,024 sequences: at the chapter's 697 sequences a replica, past the break-even
    batch, the verify round and the draft outlast the plain round's 1.85 expected tokens, so the TPOT grows.  The
    note said "TPOT 0.91x faster"; it says how much slower."""
    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml", ("hardware=mi300x", "precision.weights=int4", "precision.group_size=128",
                                                "engine.max_sequences=1024"))
    tech = r.serving["techniques"]
    speedup, row = tech["numbers"]["speedup_last"], tech["rows"][0]
    assert row["technique"] == "speculative decoding" and 0.85 < speedup < 0.95
    assert row["tpot"][1] == pytest.approx(row["tpot"][0] / speedup) and row["tpot"][1] > row["tpot"][0]
    assert f"TPOT {1 / speedup:.2f}× slower at the last token" in row["note"] and "× faster" not in row["note"]


def test_the_kv_transfer_formula_names_the_whole_models_cache():
    """Llama 3.1 70B on 8 H100 (tp 8, the committed spec): the KV transfer substitutes the whole model's 327,680 B
    a token (80 layers x 8 KV heads x 128 x 2 x 2 B; every GPU sends its eighth at once over the replica's links),
    and printed it as c_g, which the slice table defines as one GPU's 40,960 B.  It prints c."""
    from genreport.present.render import Formulas
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml")
    b = r.blocks["tech_kv"]
    assert b.inputs["c"] == 80 * 8 * 128 * 2 * 2 and r.frame.names["c"] == "c_{g}"
    tex = Formulas(r).block(b)["symbolic_tex"]
    assert "c_{g}" not in tex and r"T_{\mathrm{in}} \, c}" in tex


def test_chapter_six_of_a_model_that_does_not_fit_reads_as_sentences(tmp_path):
    """Llama 3.1 70B in bf16 on one H100: chapter 6 read "... one replica holds 33 sequences of that context.With
    fp8 weights 1 GPU suffice.The chart ..." (no space after either sentence; "1 GPU suffice")."""
    import re

    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from shared import rendered

    p = _serving_spec(tmp_path, "serving: {prompt: 2k, output: 512, tpot: 50ms}")
    p.write_text(p.read_text(encoding="utf-8").replace("parallelism: {tp: 8}\n", ""),
                 encoding="utf-8")
    r = evaluate(load_report(p))
    html = rendered(r, "sections/s7_gpus.html.j2")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    assert "that context. With fp8 weights 1 GPU suffices. The chart and the fit map" in text
    assert not re.search(r"[a-z]\.[A-Z]", text)


def test_users_that_one_gpu_serves_take_one_gpu_not_one_gpus(tmp_path):
    """gpt-oss-20b on one H20 served 8 users "(8 users: 1 GPUs)" on page 1 and "8 users take 1 GPUs" in chapter 8.
    Llama 3.1 8B bf16 on one H100 holds 8 sequences of 2k + 256 tokens beside its 16 GB of weights (80 GiB)."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    p = tmp_path / "one.yaml"
    p.write_text("kind: report\nname: one\ntitle: one\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
                 "workloads: {decode: {batch: [1, 8], context: [2k]}}\n"
                 "serving: {prompt: 2k, output: 256, ttft: 2s, tpot: 50ms, users: 8}\n")
    page = shared_page(evaluate(load_report(p)))  # the page's words (no figures drawn: none is read)
    assert "(the 8 users take 1 GPU)" in page and "8 users take 1 GPU of this layout." in page
    assert "1 GPUs" not in page


def test_rates_below_one_a_second_keep_their_digits(tmp_path):
    """gpt-oss-20b at its checkpoint's formats on one RTX 4090, requests of 60k + 4k tokens: 5 sequences fit, and a
    step with an 8,192-token chunk beside them takes 0.6 s, so the batch retires 5 / (4,095 x 0.6 s) = 0.002 requests
    a second. The chunked row read "the batch retires 0.00", the pools' row "a decode replica retires 0.07"."""
    import re

    from shared import evaluated

    p = tmp_path / "g.yaml"
    p.write_text("kind: report\nname: g\ntitle: g\nhardware: rtx-4090\nmodel: gpt-oss-20b\n"
                 "precision: {weights: checkpoint}\nworkloads: {decode: {batch: [1], context: [1k]}}\n"
                 "serving: {prompt: 60k, output: 4k, ttft: 10 s, tpot: 50 ms, users: 8}\n")
    tech = evaluated(p).serving["techniques"]
    n = tech["numbers"]
    assert n["batch_retires_rate"] == pytest.approx(tech["batch"] / (4095 * n["chunked_step_time"]), rel=1e-12)
    assert n["batch_retires_rate"] < 0.01
    chunked, pools = (next(x["ends"] for x in tech["rows"] if x["technique"] == t)
                      for t in ("chunked prefill", "prefill/decode disaggregation"))
    assert f"the batch retires {n['batch_retires_rate']:.3g}" in chunked
    assert not re.search(r"retires 0\.0\d?(?!\d)", chunked + pools)
    for number in re.findall(r"(\d[\d,]*\.\d+) (?:requests|prompts)/s", chunked + pools):
        assert float(number.replace(",", "")) > 0 and len(number.lstrip("0.")) >= 2, number


def test_the_formats_plan_tries_are_the_ones_the_gpu_computes(tmp_path):
    """Gemma 2 27B bf16 on 4 TPU v5p: plan tries bf16 and, for a 16-bit model from 8B up, fp8, but a v5p has no fp8
    peak (Google Cloud TPU v5p: bf16 459 TFLOP/s, int8 918 TOP/s; specs/hardware/tpu-v5p.yaml), so plan skips it.
    The serving chapter said it tried "weights bf16, fp8"."""
    from shared import evaluated

    p = tmp_path / "v5p.yaml"
    p.write_text("kind: report\nname: v5p\ntitle: v5p\nhardware: tpu-v5p\nmodel: gemma-2-27b\nprecision: bf16\n"
                 "parallelism: {tp: 4}\nworkloads: {decode: {batch: [1], context: [1k]}}\n"
                 "serving: {prompt: 2k, output: 512, ttft: 1 s, tpot: 30 ms, users: 64}\n")
    r = evaluated(p)
    assert "fp8" not in r.spec.hardware.dense
    assert r.serving["formats"] == ["bf16"]
    assert r.serving["cheapest"] is not None


@pytest.mark.parametrize("batch", [1.0, 64.0])
def test_serial_request_rounds_pay_the_kernels_fixed_costs_as_the_tpot_does(batch):
    """A request of two output tokens decodes one round, at its last context (prompt + 1), which is also its mean
    context: the serial estimate's summed rounds must equal its TPOT round.  They were short by the kernels' fixed
    costs (Llama 3.1 70B on 8 H100, 80 layers x 10 kernels x 0.5 us = 0.4 ms), so the serial tok/s per user,
    end-to-end latency and $/M out of every serving table counted rounds without them."""
    from genreport.load.loader import load_report
    from genreport.model.serving import _request_values
    from shared import SPECS

    s = load_report(SPECS / "llama70b-h100-tp8.yaml")
    x = _request_values(s.model, s.hardware, s.precision, s.parallelism, batch, 4096, 2, s.accounting, None, True)
    assert x["decode_serial"] == pytest.approx(x["tpot_serial"], rel=1e-12)
    assert x["decode_bound"] == pytest.approx(x["tpot_bound"], rel=1e-12)


def test_a_node_is_not_full_of_replicas_whose_experts_span_nodes():
    """DeepSeek-V3 at tp 1 x ep 16 x dp 16 on H200 (8 GPUs a node): a replica is one GPU, but its MoE layers run
    over the 16 GPUs of the ep group, two nodes; the chapter said "A node of 8 GPUs full of such replicas gives ...",
    as if a node served them alone.  It now says the ep group spans two nodes and gives each node's share."""
    from genreport.present.render import _env
    from shared import ROOT, evaluated

    sv = evaluated("deepseek-v3-h200-ep8.yaml", ("parallelism.dp=16", "parallelism.ep=16")).serving
    assert (sv["replica_nodes"], sv["ep_nodes"]) == (1, 2)
    src = (ROOT / "templates" / "sections" / "s9_serving.html.j2").read_text(encoding="utf-8")
    start = src.index("{% if serving.gpus_per_node %}")
    end = src.index("{% endif %}", src.index("tokens_per_s_node", start)) + len("{% endif %}")
    text = _env().from_string(src[start:end]).render(serving=sv)
    assert "full of such replicas" not in text
    assert "The expert-parallel group spans 2 nodes of 8 GPUs" in text and "each node's share gives" in text


def test_a_nodes_rate_names_its_accounting():
    """Llama 3.1 405B served at tp 8 x pp 4 on H100: the sentence under the request table read "each node's share
    gives 3,724 tok/s at the last row's batch, at most", the bound's rate per GPU x 8 beside the table's last row,
    the serial estimate's.  The bound's node rate now says it is the bound, and the serial row's is its own
    sentence."""
    from genreport.present import fmt
    from genreport.present.render import _env
    from shared import ROOT, evaluated

    sv = evaluated("llama405b-h200-fp8-tp8.yaml", PP4_H100).serving
    last = sv["rows"][-1]
    bound, serial = last["bound"]["tokens_per_s_node"], last["serial"]["tokens_per_s_node"]
    assert sv["replica_nodes"] == 4 and bound == pytest.approx(8 * last["bound"]["tokens_per_s_gpu"])
    assert fmt.num(serial) != fmt.num(bound)
    src = (ROOT / "templates" / "sections" / "s9_serving.html.j2").read_text(encoding="utf-8")
    start = src.index("{% if serving.gpus_per_node %}")
    end = src.index(". {% endif %}", src.index("tokens_per_s_node", start)) + len(". {% endif %}")
    text = _env().from_string(src[start:end]).render(serving=sv)
    assert (f"gives at most {fmt.num(bound)} output tok/s at the last row's batch by the strict bound" in text
            and f"The serial estimate's row gives {fmt.num(serial)}." in text)


# Llama 3.1 405B fp8 at tp 8 x pp 4 on H100 (four nodes of 8), served: a replica over nodes
PP4_H100 = ("hardware=h100-sxm", "parallelism.pp=4", "serving.prompt=2k", "serving.output=256")


def test_the_serial_estimates_decode_sum_counts_each_rounds_kernel_costs():
    """Mistral 7B in bf16 on one A100 SXM 40GB, 2,048 + 512-token requests: the serial estimate's TPOT adds each round's
    kernels' fixed costs, 32 layers x 10 kernels x 0.5 us = 0.16 ms (the engine defaults: vLLM's decoder layer, a CUDA
    graph replay's share, NVIDIA "Getting Started with CUDA Graphs"), to the bound's 9.53 ms, but its end-to-end
    latency summed the 511 rounds without them (4.97 s, 82 ms short). On one GPU, bandwidth-bound, the two sums now
    differ by 511 x 0.16 ms."""
    from shared import evaluated

    r = evaluated("llama8b-a100.yaml", ["model=mistral-7b", "hardware=a100-sxm-40gb", "serving.prompt=2k",
                                        "serving.output=512", "serving.tpot=50 ms"])
    for row in r.serving["rows"]:
        b, s = row["bound"], row["serial"]
        assert s["tpot"] - b["tpot"] == pytest.approx(32 * 10 * 0.5e-6, rel=1e-9)
        assert (s["e2e"] - s["ttft"]) - (b["e2e"] - b["ttft"]) == pytest.approx(511 * 32 * 10 * 0.5e-6, rel=1e-9)


def test_only_the_tensor_parallel_group_reduces_in_the_switch(tmp_path):
    """Llama 3.1 70B in fp8 on 72 GB200 (tp 8 x pp 9, one NVL72 domain): chapter 6 said of the pipeline group "its
    switch reduces in the network" as of the tensor-parallel one, but stages send activations point to point and
    reduce nothing; NVLink SHARP (NVLS) reduces the all-reduces in the NVSwitch (NVIDIA NCCL 2.17 release notes:
    NVLink SHARP for all-reduce). The words stay with the tp group."""
    import re

    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from shared import rendered

    p = tmp_path / "gbpp.yaml"
    p.write_text("""\
kind: report
name: gbpp
title: Llama 3.1 70B in fp8 on 72 GB200 (tp 8 x pp 9)
hardware: gb200
model: llama-3.1-70b
precision: fp8
parallelism: {tp: 8, pp: 9}
workloads:
  decode: {batch: [1, 64], context: [1k]}
""", encoding="utf-8")
    r = evaluate(load_report(p))
    html = rendered(r, "sections/s7_gpus.html.j2")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    assert re.search(r"The pp group \(9 GPUs, spread over 72\) crosses scale-up: [^;]*?µs per step\. The tp group",
                     text), text[:600]
    assert text.count("its switch reduces in the network") == 1
    assert re.search(r"The tp group \(8 GPUs\) crosses [^;]*; its switch reduces in the network\.", text)


def test_the_serving_batch_stops_at_the_engines_max_sequences():
    """Llama 3.1 70B bf16 on 8 H100 (the committed spec, 128 users, TPOT 50 ms): 313 sequences of 4,607 tokens fit a
    replica and the TPOT target allows them all, so the chapter's last row ran 313, while the engine the workspace is
    sized for samples at most 256 a step (vLLM's max_num_seqs default, docs.vllm.ai engine arguments; the logits'
    rows the activation workspace holds).  The batch stops at 256 and the chapter says so; an engine of 0 (no
    limit, as the seeds assume, and no workspace: 316 fit) gives 305, the most whose prompts' prefills the
    replica's compute keeps at the target (compute_batch, stop 75): 8 x 989.4 TFLOP/s x 511 x 0.05 s / F_r, F_r =
    511 (2 x 70.6e9 + 4 x 80 x 64 x 128 x 4,352) + 2 x 68,498,653,696 x 4,096 + 2 x 80 x 64 x 128 x 4,096^2
    + 2 x 128,256 x 8,192 = 6.6112e14 FLOP a request: 305.9."""
    from shared import evaluated, html

    sv = evaluated("llama70b-h100-tp8.yaml").serving
    assert (sv["capacity_batch"], sv["max_sequences"], sv["tpot_batch"]) == (313, 256, 256)
    assert [row["batch"] for row in sv["rows"]] == [1, 128, 256]
    page = html("llama70b-h100-tp8.yaml")
    s9 = page[page.index('<section id="s9"'):]
    assert "but its engine runs at most 256 at once (engine.max_sequences" in s9
    assert "The TPOT target allows 256 sequences per replica (the engine's max_sequences stops the batch first)" in s9
    free = evaluated("llama70b-h100-tp8.yaml", ("engine.max_sequences=0", "engine.max_batched_tokens=0")).serving
    f_r = 511 * (2 * 70.6e9 + 4 * 80 * 64 * 128 * 4352) + 2 * 68_498_653_696 * 4096 + 2 * 80 * 64 * 128 * 4096**2 \
        + 2 * 128_256 * 8192
    assert f_r == pytest.approx(6.6112e14, rel=1e-4) and sv["compute_batch"] == int(8 * 989.4e12 * 511 * 0.05 / f_r)
    assert free["max_sequences"] is None and free["capacity_batch"] == 316
    assert free["tpot_batch"] == free["compute_batch"] == 305
    assert free["rows"][-1]["label"] == "the most the TPOT target allows with the prompts' prefills (the compute roof)"


def test_one_engine_limit_stops_plan_the_frontier_and_the_speculative_lever():
    """The engine's max_sequences (256, vLLM's max_num_seqs default, docs.vllm.ai engine arguments) stops every batch a
    replica runs, not only the chapter's rows: figure 9's curves (its caption named "tp4 pp4 at batch 719" beside the
    chapter's 256), the speculative lever's scan ("up to the 313 sequences a replica holds") and ``plan``'s batch
    (limit "engine" where it stops it first).  Llama 3.1 70B bf16 on 8 H100, the committed spec."""
    from genreport.model.plan import Shape, plan
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml")
    f = r.serving["frontier"]
    assert max(max(x["batch"]) for x in f["layouts"]) == 256 == f["max_sequences"]
    assert all(x["batch_limit"] == min(x["capacity_batch"], 256) for x in f["layouts"])
    assert "tp8" in f["engine_binds"]  # 313 fit at tp 8: the engine binds there
    for est in ("bound", "serial"):
        assert f["best_at_target"][est]["batch"] <= 256 and f["best_at_target_plain"][est]["batch"] <= 256
    ends = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")["ends"]
    assert "up to the 256 sequences the engine runs at once (its max_sequences)" in ends, ends
    hw, model = r.spec.hardware, r.spec.model
    shape = Shape(4096, 512, None, None)
    rows = plan(model, hw, 400, None, 0.05, ("bf16",), 8, "seed", "bound", ("auto",), shape).rows
    tp8 = next(x for x in rows if (x.tp, x.pp) == (8, 1))
    assert (tp8.capacity_batch, tp8.batch, tp8.limit) == (313, 256, "engine")
    assert max(x.batch for x in rows) <= 256


def test_users_over_replicas_take_the_replicas_they_fill_and_the_tpot_row_says_the_estimate_misses():
    """512 users over 9 GB200 replicas of tp 8 (Llama 3.1 70B fp8): a replica holds 1,805 sequences of the request and
    its engine runs 256 at once (max_sequences), but at 8 ms its compute keeps only 247 with their 4k prompts
    (compute_batch: 8 x 5 PFLOP/s x 511 x 0.008 s / 6.6112e14 FLOP = 247.3; stop 75, where the decode round alone
    took 256 and the users 2 replicas), so the users take 3 replicas, 24 GPUs, not the layout's 72 (and as many
    without the engine's limit); ceil(512 / 9) = 57 a replica seats 513, so 8 replicas hold 57 and one 56.  The
    TPOT target's row is the strict bound's batch: at 8 ms the serial estimate's round is slower than the target
    there, and the row says so."""
    from shared import evaluated

    over = ["hardware=gb200", "precision=fp8", "parallelism.dp=9", "serving.users=512", "serving.tpot=8 ms"]
    sv = evaluated("llama70b-h100-tp8.yaml", over).serving
    assert (sv["capacity_batch"], sv["max_sequences"], sv["tpot_batch"], sv["compute_batch"]) == (1805, 256, 247, 247)
    assert sv["replicas_for_users"] == 3 and sv["gpus_for_users"] == 24
    users, tpot = sv["rows"][1], sv["rows"][-1]
    assert users["batch"] == 57 and users["label"] == "512 users over 9 replicas (8 of 57, 1 of 56; the row: 57)"
    assert tpot["bound"]["tpot"] <= 0.008 < tpot["serial"]["tpot"]
    # the compute with the prompts stops the batch before the 256 the engine runs: the row says what binds
    assert tpot["label"] == ("the most the TPOT target allows with the prompts' prefills (the compute roof) (the "
                             "bound's batch: the serial estimate misses the target there)")
    # the chapter's sentence counts the replicas the users fill, the users' row the layout's 9 they are spread over:
    # it says both, not "512 users take 16 GPUs (2 replicas of 8)" beside "512 users over 9 replicas"
    import re

    from shared import rendered

    r = evaluated("llama70b-h100-tp8.yaml", over)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, "sections/s9_serving.html.j2")))
    assert ("512 users take 24 GPUs (3 replicas of 8 GPUs) of this layout; the users' row spreads them over its 9 "
            "replicas, 57 on the busiest.") in text
    free = evaluated("llama70b-h100-tp8.yaml", over + ["engine.max_sequences=0"]).serving
    assert free["replicas_for_users"] == 3 and free["gpus_for_users"] == 24 and free["tpot_batch"] == 247
    met = evaluated("llama70b-h100-tp8.yaml")  # 256 a replica at 50 ms: the estimate meets the target there too
    assert met.serving["rows"][-1]["serial"]["tpot"] <= 0.050
    assert met.serving["rows"][-1]["label"] == "the most the engine runs at once, within the TPOT target"
    tight = evaluated("llama70b-h100-tp8.yaml", ["serving.tpot=15 ms"]).serving  # the target stops the batch first
    assert 1 < tight["tpot_batch"] < 256 and tight["rows"][-1]["label"].startswith("the most the TPOT target allows")


def test_one_is_singular():
    """One sequence, one decode token: Gemma 3 27B's weights (54 GB) leave room for one 128k sequence in 66 GiB
    (the page 1 prose and the terminal summary), and one user at the chapter's batch 1 rides one decode token beside
    the chunk (the chunked-prefill lever row)."""
    from genreport.present import prose, summary
    from shared import evaluated

    r = evaluated("llama8b-h100.yaml", ["model=gemma-3-27b", "workloads.decode.context=[128k]",
                                        "hardware.memory.capacity=66 GiB"])
    assert r.value("capacity_batch", "seed", context=131072) == 1
    text = " ".join(prose.context_lines(r) + summary.terminal_lines(r))
    assert "Memory holds 1 sequence here" in text and "1 sequence at 131,072" in text and "1 sequences" not in text
    one = evaluated("llama70b-h100-tp8.yaml", ["serving.users=1", "serving.tpot=1 ms", "serving.chunk=512"])
    (row,) = [x for x in one.serving["techniques"]["rows"] if x["technique"] == "chunked prefill"]
    assert ": 1 decode token and a prompt chunk of 511" in row["setting"], row["setting"]


@pytest.mark.parametrize(("par", "busy", "words"), [
    (("parallelism.tp=2", "parallelism.pp=3"), 6, "A node of 8 GPUs full of such replicas (1 replica of 6 GPUs, 2 GPUs idle) gives"),
    (("parallelism.tp=4", "parallelism.pp=3"), 6,
     "A replica spans 2 nodes of 8 GPUs; each node's share (its 12 GPUs over 2 nodes: 6 a node) gives"),
    (("parallelism.tp=8",), 8, "A node of 8 GPUs, one replica, gives"),
])
def test_a_nodes_rate_counts_only_the_gpus_its_replicas_run_on(par, busy, words):
    """Llama 3.1 70B at tp 2 x pp 3 on H100 (8 GPUs a node, specs/hardware/h100-sxm.yaml): "A node of 8 GPUs full of
    such replicas gives" the rate per GPU x 8, but a node holds one 6-GPU replica and 2 idle GPUs: per GPU x 6.  A
    12-GPU replica over two nodes gives each node 6 of its GPUs' rate on average, not 8; an 8-GPU replica is one
    node, not a node "full of such replicas"."""
    from genreport.present.render import _env
    from shared import ROOT, evaluated

    sv = evaluated("llama70b-h100-tp8.yaml", par).serving
    last = sv["rows"][-1]
    for est in ("bound", "serial"):
        assert last[est]["tokens_per_s_node"] == pytest.approx(busy * last[est]["tokens_per_s_gpu"], rel=1e-12)
    src = (ROOT / "templates" / "sections" / "s9_serving.html.j2").read_text(encoding="utf-8")
    start = src.index("{% if serving.gpus_per_node %}")
    end = src.index(". {% endif %}", src.index("tokens_per_s_node", start)) + len(". {% endif %}")
    text = _env().from_string(src[start:end]).render(serving=sv)
    assert words in text


def _int4_on_a_4090(tmp_path, kv_cache: str):
    """Llama 3.1 8B in int4 (group 128) with a ``kv_cache`` cache on one RTX 4090, 16 users of 2k + 256 tokens."""
    from genreport import evaluate, load_spec

    spec = tmp_path / f"i4-{kv_cache}.yaml"
    spec.write_text("kind: report\nname: i4\ntitle: t\nhardware: rtx-4090\nmodel: llama-3.1-8b\n"
                    f"precision: {{weights: int4, group_size: 128, kv_cache: {kv_cache}, compute: bf16}}\n"
                    "workloads:\n  decode: {batch: [1], context: [2k]}\n"
                    "serving: {prompt: 2k, output: 256, ttft: 1 s, tpot: 30 ms, users: 16}\n")
    return evaluate(load_spec(spec))


def _own_row(r) -> dict:
    """The row of the report's own format and layout among the serving chapter's plan (serving_report.either_plan:
    its first row is the cheapest layout the chapter names)."""
    from genreport.model.serving_report import either_plan, plan_inputs

    rows = either_plan(r.spec.model, r.spec.hardware, plan_inputs(r.spec)).rows
    return next(x.as_json() for x in rows if x.precision == "int4" and (x.tp, x.pp) == (1, 1))


def test_the_cheapest_layout_times_the_reports_own_weights(tmp_path):
    """Llama 3.1 8B in int4 with group 128 (0.516 B a weight: 2 B of scale per 128) on one RTX 4090, 16 users: the
    cheapest layout plan found was this very layout at batch 16, but timed with int4's 0.5 B a weight, so the
    chapter stated TPOT 8.77 ms and 1,880 tok/s per GPU beside its own row's 8.90 ms and 1,853 for the same layout
    and batch.  Plan's rows at the report's own format now take its group size.  (Since the chapter's plan lists its
    rows by a request's cost without speculation too, stop 86, the cheapest is fp8's row.)"""
    r = _int4_on_a_4090(tmp_path, "bf16")
    best = _own_row(r)
    assert (best["precision"], best["tp"], best["pp"], best["batch"]) == ("int4", 1, 1, 16)
    row = next(x for x in r.serving["rows"] if x["batch"] == 16)
    assert best["tpot"] == pytest.approx(row["bound"]["tpot"], rel=1e-12)
    assert best["tokens_per_s_gpu"] == pytest.approx(row["bound"]["tokens_per_s_gpu"], rel=1e-12)
    # the cheapest a request is fp8, whose prompts compute at the 4090's fp8 peak where int4's run in bf16
    cheapest = r.serving["cheapest"]
    assert cheapest["precision"] == "fp8" and cheapest["usd_per_request"] < best["usd_per_request"]
    assert cheapest["tokens_per_s_gpu"] < best["tokens_per_s_gpu"]  # int4 decodes faster


def test_the_cheapest_layout_keeps_the_reports_own_kv_cache(tmp_path):
    """The same report with an fp8 cache beside its int4 weights: plan's own pick for int4 is a bf16 cache, and the
    cheapest layout was stated "int4 weights, bf16 KV" with that cache's TPOT beside the chapter's fp8-cache row for the
    same layout and batch (DeepSeek-V3 on 512 H100 read so). The report's own format keeps its cache."""
    r = _int4_on_a_4090(tmp_path, "fp8")
    best = _own_row(r)
    assert (best["precision"], best["kv_cache"], best["tp"], best["pp"], best["batch"]) == ("int4", "fp8", 1, 1, 16)
    row = next(x for x in r.serving["rows"] if x["batch"] == 16)
    assert best["tpot"] == pytest.approx(row["bound"]["tpot"], rel=1e-12)


def test_users_take_whole_expert_parallel_groups():
    """DeepSeek-V3 at tp 1 x ep 8 x dp 8 (SGLang's data-parallel attention): each replica is one GPU holding 32 of the
    256 routed experts, so no replica serves a token alone; the 128 users (165 sequences fit a replica) take the
    whole ep group of 8 replicas, 8 GPUs, not "1 GPU (1 replica of 1)". ep / tp replicas run together (the ep group
    is within the tp x dp group: specs/schema/report.schema.json, parallelism.ep)."""
    from shared import evaluated, rendered

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    sv = r.serving
    assert (sv["users"], sv["tpot_batch"], sv["ep_group_replicas"]) == (128, 165, 8)
    assert sv["replicas_for_users"] == 8 and sv["gpus_for_users"] == 8
    html = rendered(r)
    assert ("128 users take 8 GPUs (8 replicas of 1 GPU: whole expert-parallel groups of 8 replicas, each replica holding 1/8 of "
            "the routed experts) of this layout.") in html
    assert "(the 128 users take 8 GPUs)" in html  # page 1 (it read "(128 users: 8 GPUs)")


def test_an_expert_group_crossing_replicas_binds_the_replicas_it_crosses():
    """ep groups of 6 over replicas of tp 4 (dp 3): a group crosses a replica's edge, so the three replicas serve
    together, lcm(4, 6) / 4; within a replica (ep <= tp) each GPU holds its tp share of every expert: 1."""
    from genreport.load.spec import Parallelism
    from genreport.model.serving_report import ep_group_replicas

    assert ep_group_replicas(Parallelism(tp=4, ep=6, dp=3)) == 3
    assert ep_group_replicas(Parallelism(tp=8, ep=16, dp=2)) == 2
    assert ep_group_replicas(Parallelism(tp=1, ep=8, dp=8)) == 8
    assert ep_group_replicas(Parallelism(tp=8, ep=8)) == 1


def test_page_ones_batching_sentence_says_where_the_engine_stops_the_spec_batch():
    """Llama 3.1 8B on one A100 (the committed spec): the spec's batch 2,048 fits the memory at context 128, but vLLM's
    max_num_seqs (engine.max_sequences, 256) runs 256 at once; page 1's batching lever already stopped at 256 while
    its summary sentence read "Batching 2,048 sequences … (the most of the spec's batches that fit)" with no word of
    the engine (fix18's note). Without an engine limit the sentence is as before."""
    from genreport.present import summary
    from shared import evaluated

    capped = " ".join(summary.sentences(evaluated("llama8b-a100.yaml")))
    assert ("Batching 2,048 sequences at context 128 (the most of the spec's batches that fit; past the engine's "
            "max_sequences, which runs 256 at once) gives") in capped
    free = " ".join(summary.sentences(evaluated("llama8b-a100.yaml", ("engine.max_sequences=0",))))
    assert "(the most of the spec's batches that fit) gives" in free and "max_sequences" not in free


def test_page_ones_table_marks_a_decode_row_past_the_engines_max_sequences():
    """The same A100 spec: page 1's row "decode B = 2,048" said "fits yes, ≤ 2,5xx" beside a summary sentence that says
    the engine runs 256 at once; the row now carries the engine's 256 (decision.rows' engine_runs) and the table
    says "past max_sequences (256)"; a row within the limit (batch 1) and a spec without a limit carry none."""
    import re

    from shared import evaluated, html

    rows = [x for x in evaluated("llama8b-a100.yaml").decision if x["workload"] == "decode"]
    by_batch = {x["batch"]: x for x in rows}
    assert by_batch[2048]["fits"] and by_batch[2048]["engine_runs"] == 256 and by_batch[1]["engine_runs"] is None
    page = html("llama8b-a100.yaml")
    table = page[page.index('data-live="decision"'):page.index("</tbody>", page.index('data-live="decision"'))]
    row = re.search(r"<tr><td>decode B = 2,048, S = [^<]*</td>.*?</tr>", table, re.S).group(0)
    assert "past max_sequences (256)" in row
    free = evaluated("llama8b-a100.yaml", ("engine.max_sequences=0",)).decision
    assert all(x["engine_runs"] is None for x in free)


def test_a_long_outputs_round_means_are_read_in_chunks(monkeypatch):
    """A request's mean cache and head dimension over its rounds (serving._mean_context_values, held_mean_c) are read
    a million rounds at a time: an output of 10^8 tokens held 4 GB of arrays at once (19 s; now 0.1 GB, 3.7 s).
    gpt-oss-120b, whose windowed layers make c depend on the context: read 700 rounds at a time, the means of a
    5,000-token output agree with the whole array's to 1e-12, and one chunk gives the same floats as before."""
    from genreport.load.loader import _precision, load_hardware, load_model
    from genreport.model import serving
    from genreport.model.env import make_env

    env = make_env(load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml"),
                   load_model(ROOT / "specs" / "models" / "gpt-oss-120b.yaml"), _precision("bf16"), "seed")
    whole = serving._mean_context_values(env, 100, 5000), serving.held_mean_c(env, 100, 5000)
    s = np.arange(101, 5100, dtype=float)
    assert whole[0][1] == float(np.mean(s * serving._read_c(env, s)) / (100 + 2500))  # one chunk: as before
    monkeypatch.setattr(serving, "ROUNDS_AT_ONCE", 700)
    chunked = serving._mean_context_values(env, 100, 5000), serving.held_mean_c(env, 100, 5000)
    assert chunked[0][0] == whole[0][0]
    assert chunked[0][1:] == pytest.approx(whole[0][1:], rel=1e-12) and chunked[1] == pytest.approx(whole[1], rel=1e-12)
    c = serving._read_c(env, np.array([101.0, 5099.0])) * np.ones(2)
    assert c[0] > c[1]  # the windows: the cache per token a round reads falls with the context, so the means weigh it


@pytest.mark.parametrize("spec", ["deepseek-v3-h200-ep8", "llama70b-h100-tp8"])
def test_the_serving_tables_costs_read_as_page_ones(spec):
    """Chapter 8's $/M tokens and J/token cells carry three significant digits, as page 1's $/M does (fmt.sig3):
    '0.0428', '7.69', '17.3', not '%.3f''s '0.043', '7.690', '17.311' (a point's $/M read 0.006 there and 0.00638
    on page 1)."""
    import html as htmllib

    from genreport.present import fmt
    from shared import evaluated, html

    r = evaluated(f"{spec}.yaml")
    body = re.search(r'<tbody data-live="sv_rows">(.*?)</tbody>', html(f"{spec}.yaml"), re.S).group(1)
    rows = [re.findall(r'<td class="n">(.*?)</td>', tr) for tr in body.split("</tr>") if "<td" in tr]
    want = [[fmt.sig3(x[k]) if x[k] is not None else "—" for k in ("usd_per_mtok_in", "usd_per_mtok_out",
                                                                      "joules_per_token")]
            for row in r.serving["rows"] for x in (row["bound"], row["serial"])]
    assert [[htmllib.unescape(c) for c in cells[-3:]] for cells in rows] == want
    assert any(w[0] != "—" for w in want)  # a priced spec: the check reads numbers


def test_the_cheapest_layout_keeps_the_cache_of_a_reports_checkpoint_formats(tmp_path):
    """gpt-oss-120b in its checkpoint's formats (mxfp4 experts, bf16 attention and embeddings: precision.weights
    checkpoint) with an fp8 cache and fp8 compute: plan's 'checkpoint' takes a bf16 cache and bf16 compute, and the
    serving chapter's cheapest layout read "checkpoint weights, bf16 KV" beside the chapter's fp8-cache rows
    (2 MI355X-class GPUs).  A report whose weights are the checkpoint's keeps its own cache and compute there."""
    from genreport import evaluate, load_spec

    spec = tmp_path / "oss.yaml"
    spec.write_text("kind: report\nname: oss\ntitle: t\nhardware: h200\nmodel: gpt-oss-120b\n"
                    "precision: {weights: checkpoint, kv_cache: fp8, compute: fp8}\n"
                    "workloads:\n  decode: {batch: [1], context: [2k]}\n"
                    "serving: {prompt: 1k, output: 1k, ttft: 1 s, tpot: 30 ms, users: 16}\n")
    r = evaluate(load_spec(spec))
    best = r.serving["cheapest"]
    assert (best["precision"], best["kv_cache"], best["tp"], best["pp"], best["batch"]) == ("checkpoint", "fp8", 1, 1, 16)
    row = next(x for x in r.serving["rows"] if x["batch"] == 16)  # this very layout and batch: the chapter's row
    assert best["tpot"] == pytest.approx(row["bound"]["tpot"], rel=1e-12)


def test_a_two_token_output_whose_prompts_take_the_compute_is_not_missed_by_one_request_alone():
    """Llama 3.1 70B on 8 H100 with 4,096 + 2-token requests (QA review): one request alone decodes its one round in
    5.32 ms, far inside the 50 ms target, but a replica's compute cannot prefill a 4,096-token prompt in the one round
    of 50 ms a request decodes for (B_P = 0).  The chapter said "missed even by one request alone" beside that row's
    5.32 ms; it says what misses it.  Page 1's cheapest layout, 72 GPUs at 12 sequences a replica, named 72 GPUs for
    128 users that take 792: it says what the users take."""
    import re

    from shared import evaluated, rendered

    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=2"])
    sv = r.serving
    assert sv["compute_batch"] == 0 and sv["decode_tpot_batch"] >= 1 and sv["tpot_batch"] == 0
    assert sv["rows"][0]["bound"]["tpot"] < sv["tpot_target"]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, "sections/s9_serving.html.j2")))
    assert "even by one request alone" not in text
    assert ("The TPOT target is missed once the prompts are counted: a decode round alone meets it up to "
            f"{sv['decode_tpot_batch']:,} sequences per replica (one request alone: TPOT 5.32 ms)") in text
    assert "4,096-token prompt takes more of the replica's compute than its 1 decode round of θ gives it" in text
    cheap = sv["cheapest"]
    assert cheap["gpus_for_users"] > cheap["gpus"]
    assert f"(the 128 users take {cheap['gpus_for_users']:,} GPUs, more than one copy of this layout)" in text
    from genreport.present.summary import serving_text

    line = serving_text(r, 7)
    assert "this layout misses them (with their prompts' prefills its compute keeps no sequence at the TPOT target)" \
        in line
    assert f"{cheap['gpus']} GPUs, tp {cheap['tp']} × pp {cheap['pp']}" in line
    assert f"(the 128 users take {cheap['gpus_for_users']:,} GPUs)" in line


def test_page_one_says_each_gpu_for_data_parallel_replicas_of_one_gpu():
    """DeepSeek-V3 at tp 1 x ep 4 x dp 4 on H200 (QA review): 180 GB of weights a GPU do not fit; the layout has 4
    GPUs, each a replica of one, and page 1 said "its weights alone exceed the card's memory" beside "Each GPU's
    share of the weights ... exceeds"."""
    from genreport.present.summary import serving_text
    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml", ["parallelism.dp=4", "parallelism.ep=4"])
    line = serving_text(r, 7)
    assert "this layout cannot serve them: its weights alone exceed each GPU's memory" in line
    assert "the card's" not in line


def test_the_users_row_past_the_tpot_targets_batch_says_so():
    """Llama 3.1 70B on 8 H100 at 25 ms with 200 users (QA review: Gemma 3 27B int4 read "64 users" at batch 64 beside
    a compute batch of 32 and "64 users take 2 GPUs"): the replica's compute keeps 152 sequences with their prompts
    (8 x 989.4 TFLOP/s x 511 x 0.025 s over a request's FLOPs, tests/test_speculative_compute_batch.py's count at
    25 ms), so the 200 users' row is one replica at a load the deployment spreads over 2 (16 GPUs); its label says
    so.  At or under the target's batch (128 users, the committed spec) the label is the users' alone."""
    from genreport.model.serving_report import USERS_PAST_TPOT
    from shared import evaluated

    sv = evaluated("llama70b-h100-tp8.yaml", ["serving.tpot=25 ms", "serving.users=200"]).serving
    assert (sv["users_batch"], sv["tpot_batch"], sv["compute_batch"], sv["gpus_for_users"]) == (200, 152, 152, 16)
    assert sv["rows"][1]["label"] == "200 users" + USERS_PAST_TPOT
    assert USERS_PAST_TPOT not in " ".join(r["label"] for r in evaluated("llama70b-h100-tp8.yaml").serving["rows"])


def test_a_one_token_request_says_its_end_to_end_is_its_ttft():
    """``serving.output=1`` (review, stop 78): the chapter read "TTFT plus the 0 decode rounds after the first token,
    summed in closed form ... at the mean context 4,096 + 1/2"; it says the request has no decode round and what the
    table's TPOT is (one decode step at its last context, plan --context's convention), and its end to end is its TTFT."""
    import re

    from shared import evaluated, rendered

    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=1"])
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, "sections/s9_serving.html.j2")))
    assert "0 decode rounds" not in text and "4,096 + 1/2" not in text
    assert "a one-token request has no decode round after its first token, so its end-to-end latency is its TTFT" in text
    assert all(row["bound"]["e2e"] == row["bound"]["ttft"] for row in r.serving["rows"])


def test_a_pipelines_ttft_says_its_chunks_run_on_every_stage():
    """Llama 3.1 70B at tp 8 x pp 3 (review, stop 78): the TTFT, 27.5 ms, is one 4k prompt's FLOPs over the 24 GPUs
    (its chunks in flight on every stage at once: a lower bound), while its pass through the stages in turn, what plan
    charges a replica for it, takes 73.7 ms; "the prefill of one prompt alone on the replica" read as the stages in
    turn.  The chapter states both."""
    import re

    from genreport.present import fmt
    from shared import evaluated, rendered

    r = evaluated("llama70b-h100-tp8.yaml", ["parallelism.pp=3"])
    one = r.serving["rows"][0]["bound"]
    assert r.serving["stages"] == 3 and one["ttft"] < one["prefill"] / 2
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, "sections/s9_serving.html.j2")))
    assert (f"(over 3 pipeline stages, at least the prompt's chunks in flight on every stage at once: the "
            f"{r.spec.serving.prompt:,}-token prompt's pass through the stages in turn, which keeps the replica busy and "
            "is its time to first token where an engine passes a prompt whole, as vLLM and TensorRT-LLM do, takes "
            f"{fmt.time(one['prefill'])})") in text
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(evaluated("llama70b-h100-tp8.yaml"),
                                                                "sections/s9_serving.html.j2")))
    assert "pipeline stages, at least" not in text


def test_one_user_and_one_round_in_the_singular_across_the_chapter():
    """One user and a 2-token output (a scan of what-if pages, stop 78): the inputs table read "1 users", the
    techniques' lead-in "at 1 sequences per replica" and figure 11's caption "the rate times the 1 rounds"."""
    import re

    from genreport.present.figures.fig11_rates import caption11
    from shared import evaluated, page

    over = ["serving.users=1", "serving.output=2"]
    html = re.sub(r"<script.*?</script>", "", page("llama70b-h100-tp8.yaml", over), flags=re.S)  # the page's words
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    # (a table cell "-1" beside the next row's "sequences that fit" is not a count)
    assert not re.search(r"(?<![\d.,−-])1 (users|sequences|rounds)\b", text), text
    assert "TPOT 50 ms, 1 user" in text and "at a batch of 1 per replica" in text
    r = evaluated("llama70b-h100-tp8.yaml", over)
    assert "the rate times the 1 round times the step" in caption11(r)
