"""The serving chapter in the live page (issue 30): techniques.js recomputes the request's strict bound at the layout
(the chapter's batches, TTFT, TPOT, tok/s per GPU, $/M out) and every technique number (generator/model/techniques.py:
the lever rows with their texts, the goodput ceilings and which binds, per replica and per GPU) as Python does, for
the committed serving specs and for what-ifs of the serving block, the GPU, the model, the precision and the layout."""

from __future__ import annotations

import functools
import math
import pickle
import random

from genreport import load_spec
from genreport.present import live
from livejs import needs_node, run
from shared import SPECS
from shared import evaluated_to_read as evaluated  # the tests only read the results: no copy each (tests/shared.py)

pytestmark = needs_node
SERVING = ("llama70b-h100-tp8.yaml", "deepseek-v3-h200-ep8.yaml")  # dense over 8 GPUs; MoE + MLA, ep 8
SCRIPTS = ("formulas.js", "fmt.js", "model.js", "parallel.js", "techniques.js")
DRIVER = "output(INPUT.cases.map(inp => GR_SERVING.compute(GR_MODEL.evaluate(inp, INPUT.tables), inp, INPUT.tables)));"


@functools.cache
def _serving(name: str, overrides: tuple[str, ...]):
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    return evaluate(load_report(SPECS / name, overrides=overrides), plans=False)


def serving_evaluated(name: str, overrides=()):
    """The evaluation of ``name`` with ``overrides`` without the serving chapter's cheapest layout and frontier figure
    (``evaluate(plans=False)``, as derive's), once per what-if: the page recomputes neither (they are dimmed under a
    what-if) and nothing :func:`differences` compares reads them; the tests only read it."""
    return _serving(name, tuple(overrides))


def _without_plans(serving: dict) -> bytes:
    return pickle.dumps({k: v for k, v in serving.items() if k not in ("cheapest", "frontier")})


def js(specs) -> list[dict]:
    return run(SCRIPTS, DRIVER, {"cases": [live.inputs(s) for s in specs], "tables": live.tables()})


def same(a, b) -> bool:
    """Equal to 1e-9 relative; an infinity is JSON's null (a one-token output retires its batch at no time)."""
    if isinstance(a, float) and math.isinf(a):
        return b is None
    if a is None or b is None or isinstance(a, (str, bool)):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


def differences(r, got: dict) -> list[str]:
    tech, bad = r.serving["techniques"], []
    if tech is None:  # no sequence fits: Python states no technique, the page no lever and no number but the GPUs
        if got["holds"] or got["levers"] or set(got["numbers"]) != {"replica_gpus"}:
            bad.append(f"nothing fits in Python; the page holds {got['holds']}, levers {len(got['levers'])}, "
                       f"numbers {sorted(got['numbers'])}")
        return bad
    if got["batch"] != tech["batch"] or got["context"] != tech["context"]:
        bad.append(f"point: python {tech['batch']}, {tech['context']}; js {got['batch']}, {got['context']}")
    for k in ("capacity_batch", "max_sequences", "tpot_batch", "users_batch", "gpus_for_users", "replicas_for_users",
              "holds", "ttft_met", "compute_batch", "compute_batch_speculative"):
        if not same(r.serving[k], got[k]):
            bad.append(f"{k}: python {r.serving[k]!r}, js {got[k]!r}")
    for k in ("kv_held_per_token", "kv_read_per_token", "kv_held_apart"):  # the KV cache room's c_h and c, one GPU's
        if not same(tech[k], got.get(k)):
            bad.append(f"{k}: python {tech[k]!r}, js {got.get(k)!r}")
    for k, v in tech["numbers"].items():
        if k not in got["numbers"] or not same(v, got["numbers"][k]):
            bad.append(f"numbers.{k}: python {v!r}, js {got['numbers'].get(k, 'missing')!r}")
    if set(got["numbers"]) != set(tech["numbers"]):
        bad.append(f"numbers: {sorted(set(got['numbers']) ^ set(tech['numbers']))}")
    if [x["technique"] for x in tech["rows"]] != [x["technique"] for x in got["levers"]]:
        bad.append(f"levers: {[x['technique'] for x in got['levers']]}")
    for want, have in zip(tech["rows"], got["levers"], strict=False):  # a missing row is said above
        for k in ("setting", "ends", "note"):
            if want[k] != have[k]:
                bad.append(f"{want['technique']} {k}: python {want[k]!r}, js {have[k]!r}")
        for k in ("ttft", "tpot", "per_gpu", "usd"):
            if not all(same(a, b) for a, b in zip(want[k], have[k], strict=True)):
                bad.append(f"{want['technique']} {k}: python {want[k]}, js {have[k]}")
    if [x["batch"] for x in r.serving["rows"]] != [x["batch"] for x in got["rows"]]:
        bad.append(f"rows: {[x['batch'] for x in got['rows']]}")
    for want, have in zip(r.serving["rows"], got["rows"], strict=False):
        if want["label"] != have["label"]:
            bad.append(f"row {want['batch']}: python {want['label']!r}, js {have['label']!r}")
        for est in ("bound", "serial"):
            for k, v in want[est].items():
                if not same(v, have[est][k]):
                    bad.append(f"row {want['batch']} {est} {k}: python {v}, js {have[est][k]}")
    return bad


def test_the_committed_serving_specs_as_python_computes_them():
    rs = [evaluated(name) for name in SERVING]
    for r, got in zip(rs, js([r.spec for r in rs]), strict=True):
        assert differences(r, got) == [], r.spec.file
    # hand count, llama70b-h100-tp8.yaml: 128 users over dp 1; 313 sequences fit a replica and the TPOT target allows
    # them all, but the engine runs at most 256 (vLLM's max_num_seqs default, docs.vllm.ai engine args), so the
    # last row's batch is 256; 3 drafts accepted at 0.8: E = (1 - 0.8^4) / (1 - 0.8) = 2.952 tokens a verify step
    # (Leviathan et al., eq. 1)
    got = js([rs[0].spec])[0]
    assert [x["batch"] for x in got["rows"]] == [1, 128, 256] and got["capacity_batch"] == 313
    assert got["tpot_batch"] == got["max_sequences"] == 256
    assert math.isclose(got["numbers"]["expected_tokens"], (1 - 0.8 ** 4) / 0.2)


WHATIFS = [
    (SERVING[0], ["serving.tpot=15 ms"]),  # the TPOT target binds below capacity
    # the engine's max_sequences on the page (stop 74): its goodput ceiling binds at 64, none at 0
    (SERVING[0], ["engine.max_sequences=64"]),
    (SERVING[1], ["engine.max_sequences=0", "serving.users=1000"]),
    # stop 71: a 99% hit's TTFT the uncached part alone at the layout (its weights read once), the chunked row's at
    # least its steps; over a pipeline, the prompt's pass apart from its TTFT's bound
    (SERVING[0], ["serving.prefix_hit=0.99", "parallelism.tp=4", "parallelism.pp=2"]),
    # an MTP head on the last of two stages, which binds beside it: the prefix row's counts the tighter stage's, the
    # head's bytes on the last only (1,093 -> 1,968; it read 1,092, the head charged to the first: stop 91's review)
    (SERVING[1], ["parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1", "serving.prefix_hit=0.5",
                  "serving.output=512"]),
    (SERVING[0], ["serving.prefix_hit=0.5", "serving.rate=3", "serving.price=2.5"]),  # prefix row, steady state, $
    # the prefix row's before at the batch whole prompts' prefills keep (91 against the rows' 161: stop 94's review)
    (SERVING[0], ["serving.prefix_hit=0.5", "serving.tpot=15 ms"]),
    # ... and at the users' batch, where the chapter without the cache ends on its users' row (its TPOT batch 1)
    (SERVING[0], ["serving.output=4", "serving.prompt=16k", "serving.tpot=15 ms", "serving.prefix_hit=0.9"]),
    (SERVING[0], ["serving.tpot=1 ms"]),  # below the weights' stream time: no batch, no goodput
    # a mixture of experts' steady state on the two-point law (techniques.steady_weights): 64 tokens out at 20 ms, the
    # TPOT ceiling 9.10 requests/s where the prompt tokens spread over every step gave 0.167
    (SERVING[1], ["serving.output=64", "serving.tpot=20 ms"]),
    # ... and where the decode tokens fill a 16-token budget: no room, the decode tokens' weights (no jump in N)
    (SERVING[1], ["serving.output=512", "serving.tpot=20 ms", "serving.chunk=16"]),
    # ... under one decode token a step (the envelope's left point one token), and a prompt nearly all cached
    (SERVING[1], ["serving.output=2", "serving.chunk=64"]),
    (SERVING[1], ["serving.prefix_hit=0.999", "serving.tpot=20 ms"]),
    (SERVING[0], ["parallelism.tp=4", "parallelism.pp=2", "precision=fp8"]),  # a pipeline; fp8
    (SERVING[0], ["parallelism.dp=2", "serving.output=1", "serving.chunk=8k"]),  # one token out; replicas
    # one token out with a rate and a prefix cache: no chunked row, the goodput the least of the compute roof and the
    # chunk budget (no decode round for the TPOT target, the caches or max_sequences to limit)
    (SERVING[0], ["serving.output=1", "serving.rate=5", "serving.prefix_hit=0.5"]),
    (SERVING[0], ["parallelism.tp=16", "precision.weights=int4"]),  # two nodes of 8: the KV cache goes scale-out
    (SERVING[0], ["hardware=l40s"]),  # no link between replicas in the spec: the KV transfer left out, said so
    (SERVING[0], ["serving.chunk=512"]),  # the budget's decode tokens first: a chunk of 512 - B prompt tokens
    (SERVING[0], ["serving.chunk=128"]),  # the decode tokens fill the budget: no prompt chunk rides along
    (SERVING[0], ["parallelism.tp=4", "parallelism.pp=2", "serving.chunk=512"]),  # a budget per micro-batch
    (SERVING[1], ["serving.speculative.draft_tokens=4", "serving.speculative.acceptance=0.5", "serving.users=1000"]),
    (SERVING[1], ["hardware.memory.bandwidth=2 TB/s", "serving.prompt=32k", "serving.prefix_hit=0.9"]),
    # a draft tree: 64 tokens a sequence verified (Medusa's tree), the verify round compute-bound sooner
    (SERVING[0], ["serving.speculative.verify_tokens=64", "serving.users=256"]),
    # Llama 4 Scout's chunked layers past the first 8,192-token chunk: a round reads S mod chunk, a sequence holds
    # the chunk (TPOT, the request's rounds, the prefix row's capacity); an EAGLE head of 4 of its layers drafts
    (SERVING[0], ["model=llama-4-scout", "serving.prompt=12k", "serving.users=16", "serving.prefix_hit=0.5"]),
    (SERVING[0], ["model=llama-4-scout", "serving.prompt=12k", "serving.speculative.draft_layers=4"]),
    # Gemma 3 27B's sliding-window layers (5 local of 1,024 tokens to each global): a sequence holds c_h, averaged over
    # the request's contexts, below the c a step at the last context reads; the KV cache room counts c_h, one GPU's,
    # at tp 8, over a pipeline of 2, and on two nodes
    (SERVING[0], ["model=gemma-3-27b"]),
    (SERVING[0], ["model=gemma-3-27b", "parallelism.tp=4", "parallelism.pp=2", "serving.prefix_hit=0.5"]),
    (SERVING[0], ["model=gemma-3-27b", "parallelism.tp=16", "serving.prompt=16k"]),
    # five stages of 12, 12, 13, 13 and 12 layers with 2 global layers each: the rounds and the prompt's d_hp at the
    # stages' share of global layers, 2/13 (stages.time_share), not the model's 10/62
    (SERVING[0], ["model=gemma-3-27b", "parallelism.tp=1", "parallelism.pp=5", "serving.prompt=32k",
                  "serving.chunk=2k"]),
    # 512 users over 9 GB200 replicas of tp 8, unevenly (8 of 57, 1 of 56), two replicas enough (256 each, the
    # engine's max_sequences); the TPOT target's batch is the bound's, the serial estimate slower than the target there
    (SERVING[0], ["hardware=gb200", "precision=fp8", "parallelism.dp=9", "serving.users=512", "serving.tpot=8 ms"]),
    # one user at a TPOT no batch meets: the chapter's batch is 1, "1 decode token" beside the prompt chunk
    (SERVING[0], ["serving.users=1", "serving.tpot=1 ms", "serving.chunk=512"]),
    # no TPOT target: the disaggregation row's one pool at the chapter's batch, which serves what the pools serve
    (SERVING[0], ["serving={prompt: 4k, output: 512, ttft: 2 s, users: 128}"]),
    # long requests: the chunked row's and the pools' rates below one a second, to three significant digits
    (SERVING[0], ["serving.prompt=60k", "serving.output=4k", "serving.users=8"]),
    # replicas that leave GPUs of a node idle (tp 2 x pp 3: one of 6 on a node of 8) or span nodes unevenly (tp 4 x
    # pp 3: 12 GPUs over 2 nodes): a node's rate counts only the GPUs that run replicas (serving.node_busy_gpus)
    (SERVING[0], ["parallelism.tp=2", "parallelism.pp=3"]),
    (SERVING[0], ["parallelism.tp=4", "parallelism.pp=3"]),
    # the H100 NVL's link is "NVLink 4 bridge between the two GPUs of a pair; PCIe Gen5 x16 otherwise": the KV
    # transfer's sentence names it up to the ";" (spec.short_link)
    (SERVING[0], ["hardware=h100-nvl", "parallelism.tp=1", "precision=fp8"]),
    # DeepSeek-V3 bf16 on 32 H100 (tp 8 x pp 4): the TPOT ceiling's rate and the experts its own steady state
    # streams, one fixed point (techniques.steady_tpot_rate), in the page too
    # DeepSeek-V3's expert-parallel group of 8 GPUs (ep 8 > tp 1): 5,000 users fill 4 groups, the pools whole groups
    # of them, their rate the lesser of the two (techniques.whole_group_pools); the spec's 128 users take one group
    (SERVING[1], ["serving.users=5000"]),
    # tp 4 x dp 2 under ep 8: a group of lcm(4, 8) / 4 = 2 replicas; 2,000 users fill 8 replicas, 4 groups (dp 3 once
    # stood here: 12 GPUs in groups of 8, which the loader now refuses)
    (SERVING[1], ["parallelism.tp=4", "parallelism.dp=2", "serving.users=2000"]),
    (SERVING[1], ["hardware=h100-sxm", "precision=bf16", "parallelism.tp=8", "parallelism.pp=4", "parallelism.dp=1",
                  "parallelism.ep=1", "engine.max_batched_tokens=2048"]),
    # Llama 4 Maverick, 7k + 2k tokens: its chunked layers read a whole chunk at 8,191, more than at its last context
    # 9,215, so the TPOT round is there (serving.round_context), in the page too
    (SERVING[0], ["model=llama-4-maverick", "precision=fp8", "serving.prompt=7k", "serving.output=2k",
                  "serving.chunk=512", "serving.prefix_hit=0.2"]),
    # the 70B in bf16 on one H100: no sequence fits, the chapter states no technique, and the page computes none (it
    # showed lever rows of a batch that does not fit; page.js now dims the built ones)
    (SERVING[0], ["parallelism.tp=1"]),
    # a 2-token output (QA review): the prompts take the compute (B_P = 0: "no sequence", "nor decoding plainly",
    # never "at most 0 sequences"), and the pools' prefill share past 99% ("99.xx%", never "100% ... 0% decode")
    (SERVING[0], ["serving.output=2"]),
    # a windowed model with half of each prompt cached (stop 88's review): the uncached tokens attend to the cached
    # prefix, each windowed layer's positions to its window (architecture.prefill_attended_fraction_after), in the
    # page's prefix TTFT and its prompts' compute batch too
    (SERVING[0], ["model=gemma-3-27b", "parallelism.tp=2", "serving.prompt=16k", "serving.prefix_hit=0.5"]),
    # shares at their ends (the hostile review of stop 88: "accepted 100%" for 0.9999999999999999): the rows say "over
    # 99.99%" and "under 0.01%", in the page too (fmt.share, techniques.js poolShare)
    (SERVING[0], ["serving.speculative.acceptance=0.9999999999999999", "serving.prefix_hit=0.00001"]),
    # a step budget of one token (the hostile review of stop 88 read "1 tokens")
    (SERVING[0], ["serving.chunk=1", "engine.max_batched_tokens=1"]),
    # every layer windowed (Mistral-7B): no layer holds the prefix at the last context, the prefix row says so (stop 89)
    (SERVING[0], ["model=mistral-7b", "parallelism.tp=1", "serving.prompt=8k", "serving.prefix_hit=0.5"]),
    # a one-token request (the hostile review of stop 88): no decode pool has work, so no disaggregation row (it read
    # "min(48, ∞) requests/s" for DeepSeek-V3's expert-parallel groups), in the page too
    (SERVING[1], ["serving.output=1"]),
    # the users' batch past the TPOT target's (152 with the prompts): their row says the users take more replicas
    (SERVING[0], ["serving.tpot=25 ms", "serving.users=200"]),
    # the serial estimate's speed-up and where it stops paying (techniques._serial_pays_words): Llama 4 Scout on 8
    # B200 with a free 5-token drafter, where the bound's ratio does not pay from batch 1 to 12 and the estimate's
    # pays at every batch; an 8B in fp8, whose estimate stops paying at batch 157, before the bound's 205
    (SERVING[0], ["model=llama-4-scout", "hardware=b200", "precision=fp8", "serving.users=1", "serving.prompt=1k",
                  "serving.output=1k", "serving.speculative={draft_tokens: 5, accepted_length: 1.66, draft_cost: 0}"]),
    (SERVING[0], ["model=llama-3.1-8b", "parallelism.tp=1", "precision=fp8", "engine.max_sequences=4096",
                  "serving.prompt=512", "serving.output=128", "serving.speculative.acceptance=0.3", "serving.users=64"]),
]


def test_serving_what_ifs_as_python_computes_them():
    rng = random.Random(30)  # and a few drawn at random: the serving inputs within the loader's limits
    cases = list(WHATIFS) + [(SERVING[i % 2], [f"serving.tpot={rng.choice([5, 20, 40, 80])} ms",
                                               f"serving.prompt={rng.choice([128, 1000, 4096, 20000])}",
                                               f"serving.output={rng.choice([2, 64, 700])}",
                                               f"serving.chunk={rng.choice([64, 512, 4096])}",
                                               f"serving.prefix_hit={rng.choice([0, 0.25, 0.7])}",
                                               f"serving.users={rng.choice([1, 17, 5000])}"]) for i in range(3)]
    specs = [load_spec(SPECS / name, overrides) for name, overrides in cases]
    for (name, overrides), got in zip(cases, js(specs), strict=True):
        assert differences(serving_evaluated(name, overrides), got) == [], (name, overrides)
    # the chapter evaluated without the cheapest layout and the frontier is the whole evaluation's, techniques included
    # (a speculating what-if, of the MoE; the committed specs' whole evaluations are compared in the test above)
    speculating = ["serving.speculative.draft_tokens=4", "serving.speculative.acceptance=0.5", "serving.users=1000"]
    assert (SERVING[1], speculating) in WHATIFS
    whole, alone = evaluated(SERVING[1], speculating), serving_evaluated(SERVING[1], speculating)
    assert whole.serving["techniques"] is not None and whole.serving["cheapest"] is not None
    assert alone.serving["cheapest"] is None and alone.serving["frontier"] is None
    assert _without_plans(alone.serving) == _without_plans(whole.serving)
    assert pickle.dumps(alone.entries) == pickle.dumps(whole.entries)  # every number derive reads
    assert alone.what_if("serving.users=999").serving["cheapest"] is None  # its what-ifs evaluated as it was


def test_a_page_without_a_layout_or_a_serving_block_recomputes_no_chapter():
    spec = load_spec(SPECS / "llama8b-h100.yaml")
    assert js([spec]) == [None]
    assert "let GR_SERVING=" in live.scripts(True) and "GR_SERVING=" not in live.scripts(False)  # one card


def test_the_chapter_in_chromium_follows_a_serving_what_if(tmp_path):
    """The 70B report at 1280 px with serving.tpot=15 ms: every data-sv number of the chapter, the request rows and the
    lever rows are Python's for that spec, formatted as the template formats them; the words around the request
    table (the spec's request, the cheapest layout) stay as built, dimmed."""
    import re

    from genreport.present import fmt
    from shared import html
    from test_live_page import CHROMIUM, chromium_pages

    if CHROMIUM is None:
        import pytest

        pytest.skip("chromium is not installed (scripts/setup --test)")
    page = tmp_path / "report.html"
    page.write_text(html(SERVING[0]), encoding="utf-8")
    # both what-ifs (the second below) as frames of one Chromium
    dom, none = chromium_pages([page.as_uri() + "#set=serving.tpot=15%20ms", page.as_uri() + "#set=parallelism.tp=1"],
                               tmp_path)
    chapter = dom[dom.index('<section id="s9"'):]
    chapter = chapter[:chapter.index("</section>")]
    r = serving_evaluated(SERVING[0], ["serving.tpot=15 ms"])  # the what-if test_serving_what_ifs_... evaluated
    tech = r.serving["techniques"]
    show = {"integer": fmt.integer, "nearest": fmt.nearest, "num": fmt.num, "time": fmt.time, "f2": lambda x: f"{x:.2f}",
            "rps": lambda x: fmt.num(x) + " requests/s", "kib": fmt.kib,
            "tokens": lambda x: fmt.integer(x) + (" token" if x == 1 else " tokens")}
    spans = re.findall(r'<span data-sv="([^"]+)" data-f="(\w+)"[^>]*>([^<]*)</span>', chapter)
    assert len(spans) >= 8
    for path, f, text in spans:
        value = tech
        for k in path.split("."):
            value = value[k]
        assert text == show[f](value), (path, text)
    assert tech["batch"] < 313 and f">{tech['batch']}</span> per replica" in chapter  # the target binds
    levers = chapter[chapter.index('data-live="sv_levers"'):]
    levers = levers[:levers.index("</tbody>")]
    for row in tech["rows"]:
        assert f"{fmt.time(row['tpot'][0])} → {fmt.time(row['tpot'][1])}" in levers, row["technique"]
    assert re.search(r'<p data-static="" class="stale"[^>]*>The spec asks', chapter)  # its words: the spec's
    rows = chapter[chapter.index('data-live="sv_rows"'):]
    rows = rows[:rows.index("</tbody>")]
    for row in r.serving["rows"]:
        assert f">{row['label']}, bound</td>" in rows and f">{fmt.time(row['serial']['tpot'])}</td>" in rows
    # a what-if where no sequence fits (one H100 for the 70B in bf16): Python states no technique, so the page keeps
    # the built lever rows, dimmed, and computes none (it showed rows of a batch that does not fit)
    none = none[none.index('<section id="s9"'):]
    built_levers = html(SERVING[0])
    built_levers = built_levers[built_levers.index('data-live="sv_levers"'):]
    built_levers = built_levers[built_levers.index(">") + 1:built_levers.index("</tbody>")]
    assert re.search(r'<tbody data-live="sv_levers" class="stale">', none)
    shown = none[none.index('data-live="sv_levers"'):]
    import html as entities  # the built page's text as Jinja escapes it, the page's as the browser writes it back

    assert (entities.unescape(shown[shown.index(">") + 1:shown.index("</tbody>")]).split()
            == entities.unescape(built_levers).split())


# what-ifs of a draft model (Llama 3.2 1B for the 70B at tp 8, tests/test_speculative_draft.py) and of an EAGLE/MTP head
# (the committed DeepSeek-V3 spec's one MTP layer): the page runs the draft's passes and holds its memory at each point
DRAFTS = [
    (SERVING[0], ["serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_tokens=4",
                  "serving.prefix_hit=0.5", "serving.chunk=512"]),
    # the batch falls to 8: a 1B draft is memory-bound longer than the 70B, its share of the round grows
    (SERVING[0], ["serving.speculative.draft_model=llama-3.2-1b", "serving.users=8", "serving.tpot=1 ms"]),
    # fp8 and a longer request: the draft follows the target's precision, its cache the context
    (SERVING[0], ["serving.speculative.draft_model=llama-3.2-1b", "precision=fp8", "serving.prompt=32k"]),
    # a draft precision of its own stays when the target's moves; a pipeline splits the draft as the target
    (SERVING[0], ["serving.speculative.draft_model=llama-3.2-3b", "serving.speculative.draft_precision=fp8",
                  "parallelism.tp=4", "parallelism.pp=2", "precision.weights=int4"]),
    (SERVING[0], ["serving.speculative.draft_layers=2", "model.hidden_size=4096", "serving.users=16"]),
    (SERVING[1], ["serving.speculative.draft_layers=2", "serving.speculative.draft_tokens=2", "serving.users=1000"]),
    (SERVING[1], ["parallelism.ep=4", "parallelism.dp=4", "precision.weights.experts=nvfp4"]),
    # tp 8 x ep 8 in one replica: its GPUs read every expert the MTP layer's batch touches, not the 1/ep share of
    # the data-parallel layout above (Draft.ledgers: tp / ep where ep > tp)
    (SERVING[1], ["parallelism.tp=8", "parallelism.dp=1", "serving.users=64"]),
    (SERVING[1], ["serving.tpot=1 ms", "serving.users=8", "workloads.decode.context=[128k]", "serving.prompt=64k"]),
    # an MTP head at tp 8 x pp 2 is the last stage's (Draft.capacity): the tighter of that stage with it and the stage
    # that binds without; a Gemma 3 head over two stages, whose windowed layers move the binding stage with the context
    (SERVING[1], ["parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1", "serving.users=64"]),
    (SERVING[0], ["model=gemma-3-27b", "parallelism.tp=1", "parallelism.pp=2", "serving.speculative.draft_layers=1",
                  "serving.prompt=32k", "serving.users=8"]),
    # Mixtral 8x7B drafted by Mistral 7B on 2 H100 PCIe: no gain at batch 1-3, a gain from 4, none again from 37 on
    (SERVING[0], ["model=mixtral-8x7b", "hardware=h100-pcie", "parallelism.tp=2", "parallelism.ep=2",
                  "precision.weights=int4", "serving.speculative.draft_model=mistral-7b",
                  "serving.speculative.draft_precision=int4", "serving.speculative.draft_tokens=4",
                  "serving.speculative.acceptance=0.7", "serving.prompt=2k", "serving.users=64", "serving.tpot=40 ms"]),
    # the chapter's batch, the plain B_P of 244 at 40 ms, past the 222 its compute keeps speculating with the 1B draft
    # (tests/test_speculative_compute_batch.py): the lever row says so, in the page too
    (SERVING[0], ["serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_tokens=4",
                  "serving.speculative.acceptance=0.7", "serving.tpot=40 ms", "serving.users=256"]),
]


def test_the_page_runs_the_drafts_passes_at_each_what_if():
    specs = [load_spec(SPECS / name, overrides) for name, overrides in DRAFTS]
    got = js(specs)
    for (name, overrides), have in zip(DRAFTS, got, strict=True):
        assert differences(serving_evaluated(name, overrides), have) == [], (name, overrides)
    # hand counts (tests/test_speculative_draft.py): 283 sequences per replica beside the 1B draft at the engine's
    # 8,192-token step; serving.chunk=512 is that step (vLLM's one max_num_batched_tokens), so the workspace is
    # 512 x 2 x 8,192 x 2 + 512 x 3 x 28,672 / 8 x 2 + 256 x 128,256 x 4 = 159,121,408 B a GPU, not 575,930,368:
    # 416.8 MB more room, two more sequences of 4,607 tokens at 45,056 B a token: 285, and 512 with half of each
    # prompt cached; the lever row names the draft and its passes' time
    n = got[0]["numbers"]
    assert 512 * 2 * 8192 * 2 + 512 * 3 * 28672 // 8 * 2 + 256 * 128256 * 4 == 159_121_408
    assert got[0]["capacity_batch"] == 285 and n["prefix_capacity_after"] == 512
    setting = next(x for x in got[0]["levers"] if x["technique"] == "speculative decoding")["setting"]
    assert setting.startswith("4 draft tokens, accepted 80% each, drafted by Llama 3.2 1B (4 passes, at least ")
    # the drafts' time is the draft's own passes at the what-if's batch, not the built share of the plain round: at batch
    # 8 and the mean context 4,096 + 512 / 2 = 4,352 the 1B draft's three passes each stream its bf16 weights
    # (specs/models/llama-3.2-1b.yaml: 1.2358e9 parameters) and 8 caches of 16 layers x 8 KV heads x 64 x 2 x 2 B =
    # 32,768 B a token over the 8 GPUs' 3.35 TB/s (H100 SXM), memory-bound: 0.404 ms, 7% of the 70B's round, where at
    # batch 283 the draft's cache reads make it 31%
    low = got[1]["numbers"]
    assert got[1]["batch"] == 8 and math.isclose(
        low["draft_time_mean"], 3 * (2 * 1.2358e9 + 8 * 4352 * 32768) / (8 * 3.35e12), rel_tol=1e-12)
    assert low["draft_time_mean"] / low["plain_round_mean"] < 0.08 < 0.3 < n["draft_time_mean"] / n["plain_round_mean"]
    assert got[1]["numbers"]["draft_weights_gpu"] == n["draft_weights_gpu"]  # the same draft, the same layout
    assert got[2]["numbers"]["draft_weights_gpu"] == n["draft_weights_gpu"] / 2  # fp8: one byte a weight
    # DeepSeek-V3's MTP layer, shaped by the target: a head of 2 of the 4,096-wide layers reads less than of 8,192
    assert got[4]["numbers"]["draft_model"] == "an EAGLE/MTP head of 2 Llama 3.1 70B layers"


def test_a_draft_follows_the_pages_what_ifs():
    """Through the page's own what-if (whatif.js applies the overrides to the built inputs): the head follows the
    target's shapes and precision, draft_cost replaces it with a fraction, and the chapter is Python's for each."""
    cases = [(SERVING[1], ["precision=fp8_block", "serving.users=32"]),
             (SERVING[1], ["model.moe.active_experts=4", "serving.speculative.draft_tokens=3"]),
             (SERVING[1], ["serving.speculative.draft_cost=0.1"]),
             (SERVING[0], ["serving.speculative.draft_layers=1", "hardware.memory.bandwidth=2 TB/s"])]
    driver = """
output(INPUT.cases.map(function (c) {
  const inp = GR_WHATIF.applyAll(c.live, c.overrides).inputs;
  return GR_SERVING.compute(GR_MODEL.evaluate(inp, INPUT.tables), inp, INPUT.tables);
}));"""
    got = run(SCRIPTS + ("whatif.js",), driver, {"cases": [{"live": live.page_data(load_spec(SPECS / name)),
                                                            "overrides": ov} for name, ov in cases],
                                                 "tables": live.tables()})
    for (name, ov), have in zip(cases, got, strict=True):
        assert differences(serving_evaluated(name, ov), have) == [], (name, ov)
    assert "draft_model" not in got[2]["numbers"] and "drafts 10% of a step" in got[2]["levers"][0]["setting"]
