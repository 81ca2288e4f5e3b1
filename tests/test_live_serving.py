"""The serving chapter in the live page (issue 30): techniques.js recomputes the request's strict bound at the layout
(the chapter's batches, TTFT, TPOT, tok/s per GPU, $/M out) and every technique number (generator/model/techniques.py:
the lever rows with their texts, the goodput ceilings and which binds, per replica and per GPU) as Python does, for
the committed serving specs and for what-ifs of the serving block, the GPU, the model, the precision and the layout."""

from __future__ import annotations

import math
import random

from genreport import evaluate, load_spec
from genreport.present import live
from livejs import needs_node, run
from shared import SPECS, evaluated

pytestmark = needs_node
SERVING = ("llama70b-h100-tp8.yaml", "deepseek-v3-h200-ep8.yaml")  # dense over 8 GPUs; MoE + MLA, ep 8
SCRIPTS = ("formulas.js", "fmt.js", "model.js", "parallel.js", "techniques.js")
DRIVER = "output(INPUT.cases.map(inp => GR_SERVING.compute(GR_MODEL.evaluate(inp, INPUT.tables), inp, INPUT.tables)));"


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
    if got["batch"] != tech["batch"] or got["context"] != tech["context"]:
        bad.append(f"point: python {tech['batch']}, {tech['context']}; js {got['batch']}, {got['context']}")
    for k in ("capacity_batch", "tpot_batch", "users_batch", "gpus_for_users", "ttft_met"):
        if not same(r.serving[k], got[k]):
            bad.append(f"{k}: python {r.serving[k]!r}, js {got[k]!r}")
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
    # hand count, llama70b-h100-tp8.yaml: 128 users over dp 1, the TPOT target allows 313 per replica (all that fit),
    # 3 drafts accepted at 0.8: E = (1 - 0.8^4) / (1 - 0.8) = 2.952 tokens a verify step (Leviathan et al., eq. 1)
    got = js([rs[0].spec])[0]
    assert [x["batch"] for x in got["rows"]] == [1, 128, 313] and got["tpot_batch"] == got["capacity_batch"] == 313
    assert math.isclose(got["numbers"]["expected_tokens"], (1 - 0.8 ** 4) / 0.2)


WHATIFS = [
    (SERVING[0], ["serving.tpot=15 ms"]),  # the TPOT target binds below capacity
    (SERVING[0], ["serving.prefix_hit=0.5", "serving.rate=3", "serving.price=2.5"]),  # prefix row, steady state, $
    (SERVING[0], ["serving.tpot=1 ms"]),  # below the weights' stream time: no batch, no goodput
    (SERVING[0], ["parallelism.tp=4", "parallelism.pp=2", "precision=fp8"]),  # a pipeline; fp8
    (SERVING[0], ["parallelism.dp=2", "serving.output=1", "serving.chunk=8k"]),  # one token out; replicas
    (SERVING[0], ["parallelism.tp=16", "precision.weights=int4"]),  # two nodes of 8: the KV cache goes scale-out
    (SERVING[1], ["serving.speculative.draft_tokens=4", "serving.speculative.acceptance=0.5", "serving.users=1000"]),
    (SERVING[1], ["hardware.memory.bandwidth=2 TB/s", "serving.prompt=32k", "serving.prefix_hit=0.9"]),
    # a draft tree: 64 tokens a sequence verified (Medusa's tree), the verify round compute-bound sooner
    (SERVING[0], ["serving.speculative.verify_tokens=64", "serving.users=256"]),
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
    for (name, overrides), spec, got in zip(cases, specs, js(specs), strict=True):
        assert differences(evaluate(spec), got) == [], (name, overrides)


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
    from test_live_page import CHROMIUM, chromium

    if CHROMIUM is None:
        import pytest

        pytest.skip("chromium is not installed (scripts/setup --test)")
    page = tmp_path / "report.html"
    page.write_text(html(SERVING[0]), encoding="utf-8")
    dom = chromium(page.as_uri() + "#set=serving.tpot=15%20ms")
    chapter = dom[dom.index('<section id="s9"'):]
    chapter = chapter[:chapter.index("</section>")]
    r = evaluate(load_spec(SPECS / SERVING[0], ["serving.tpot=15 ms"]))
    tech = r.serving["techniques"]
    show = {"integer": fmt.integer, "num": fmt.num, "time": fmt.time, "f2": lambda x: f"{x:.2f}",
            "rps": lambda x: fmt.num(x) + " requests/s"}
    spans = re.findall(r'<span data-sv="([^"]+)" data-f="(\w+)"[^>]*>([^<]*)</span>', chapter)
    assert len(spans) >= 8
    for path, f, text in spans:
        value = tech
        for k in path.split("."):
            value = value[k]
        assert text == show[f](value), (path, text)
    assert tech["batch"] < 313 and f">{tech['batch']}</span> sequences per replica" in chapter  # the target binds
    levers = chapter[chapter.index('data-live="sv_levers"'):]
    levers = levers[:levers.index("</tbody>")]
    for row in tech["rows"]:
        assert f"{fmt.time(row['tpot'][0])} → {fmt.time(row['tpot'][1])}" in levers, row["technique"]
    assert re.search(r'<p data-static="" class="stale"[^>]*>The spec asks', chapter)  # its words: the spec's
    rows = chapter[chapter.index('data-live="sv_rows"'):]
    rows = rows[:rows.index("</tbody>")]
    for row in r.serving["rows"]:
        assert f">{row['label']}, bound</td>" in rows and f">{fmt.time(row['serial']['tpot'])}</td>" in rows


def test_the_page_takes_the_drafts_memory_as_built():
    """A draft model (Llama 3.2 1B for the 70B at tp 8, half of each prompt cached): the page carries its weights and
    cache per GPU as built (live.inputs: serving.speculative.draft_memory) and its capacities are Python's, the batch
    limit, the KV ceiling of the goodput and the prefix cache's (tests/test_speculative_draft.py counts them by hand)."""
    sets = ["serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_tokens=4",
            "serving.prefix_hit=0.5", "serving.chunk=512"]
    r = evaluated(SERVING[0], sets)
    share = live._draft_share(r)
    got = run(SCRIPTS, DRIVER, {"cases": [live.inputs(r.spec, share)], "tables": live.tables()})[0]
    n = r.serving["techniques"]["numbers"]
    for k in ("capacity_batch", "tpot_batch", "users_batch"):
        assert got[k] == r.serving[k], k
    for k in ("goodput_rate_capacity", "goodput_rate", "prefix_capacity_before", "prefix_capacity_after",
              "speedup", "breakeven_batch"):
        assert same(n[k], got["numbers"][k]), k
    assert got["capacity_batch"] == 283 and n["prefix_capacity_after"] == 508
    # the lever row says the drafts' share is the built one; a what-if of draft_tokens scales it by the passes
    setting = next(x for x in got["levers"] if x["technique"] == "speculative decoding")["setting"]
    assert "drafted by Llama 3.2 1B (4 passes, each its share as built: 31% of a step)" in setting
    assert same(n["draft_time"], got["numbers"]["draft_time"])
    inp = live.inputs(r.spec, share)
    inp["serving"]["speculative"]["draft_tokens"] = 2  # as the page's what-if writes it
    two = run(SCRIPTS, DRIVER, {"cases": [inp], "tables": live.tables()})[0]["numbers"]
    assert math.isclose(two["draft_time"], share / 2 * two["plain_round"], rel_tol=1e-12)
