"""``genreport plan SPEC``: a report spec as plan's MODEL gives its model, device, formats, engine and serving block
as the defaults, so that the table's first row is the layout the report's serving chapter names (one search, one
answer: generator/model/serving_report.plan_inputs and either_plan), and each option given replaces its part."""

from __future__ import annotations

import json

import pytest
from genreport.commands import plan as plan_cmd
from shared import MAVERICK_TWO_NODES, ROOT, evaluated, spec_file

# Llama 3.1 70B in bf16 on 8 H100 with a poor catalog draft (a 1B model accepted 30% of the time): a layout where
# the draft's weights and passes cost more than its tokens win keeps its plain row; its engine keeps 20%.
POOR_DRAFT = """\
kind: report
name: poordraft
title: Llama 3.1 70B with a poor draft on 8 H100
hardware: h100-sxm
model: llama-3.1-70b
precision: bf16
parallelism: {tp: 8}
engine: {memory_reserve: 0.2}
serving: {prompt: 2k, output: 256, ttft: 2 s, tpot: 40 ms, users: 64,
          speculative: {draft_tokens: 4, acceptance: 0.3, draft_model: llama-3.2-1b}}
workloads:
  decode: {batch: [1, 64], context: [4k]}
"""


def _plan(capsys, *argv) -> dict:
    assert plan_cmd.main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _same_row(row: dict, cheapest: dict) -> None:
    differ = {k: (row.get(k), v) for k, v in cheapest.items() if row.get(k) != v}
    assert not differ, differ


@pytest.mark.parametrize("spec", ["llama70b-h100-tp8.yaml", "deepseek-v3-h200-ep8.yaml", "maverick", "one-token"])
def test_the_first_row_is_the_serving_chapters_cheapest_layout(capsys, spec):
    """The committed serving specs (a dense model with a draft, DeepSeek-V3 with MTP at tp 2 ep 8 dp 4), Llama 4
    Maverick over two nodes with an MTP-style head, and the 70B's request of one output token, whose cost is its
    prompt's prefill in both (a review found the chapter's tp 4 by $/M output tokens beside plan's tp 1 by $ per
    request): the row and the chapter's layout are the same numbers."""
    one = (ROOT / "specs" / "llama70b-h100-tp8.yaml").read_text().replace("output: 512", "output: 1")
    path = (spec_file(MAVERICK_TWO_NODES, "svmav") if spec == "maverick" else spec_file(one, "onetoken")
            if spec == "one-token" else ROOT / "specs" / spec)
    cheapest = evaluated(path).serving["cheapest"]
    assert cheapest is not None
    doc = _plan(capsys, str(path))
    _same_row(doc["rows"][0], cheapest)
    if spec == "one-token":
        assert cheapest["usd_per_request"] is not None and cheapest["gpus"] == 1
    assert doc["spec"] == str(path) or doc["spec"].endswith(path.name)
    keys = [(r["hardware"], r["precision"], r["kv_cache"], r["tp"], r["pp"], r["ep"], r["dp"]) for r in doc["rows"]]
    assert len(keys) == len(set(keys)), "a layout listed twice (with and without speculation)"
    assert all(n >= 0 for n in doc["rejected"].values())


def test_each_layout_keeps_its_better_row_and_the_rejections_add_up(capsys):
    """With a poor draft some layouts rank better plain ('' in the row), the others speculate; every layout tried is
    a row or a rejection, as in the plan without speculation (which tries the same layouts)."""
    path = spec_file(POOR_DRAFT, "poordraft")
    doc = _plan(capsys, str(path))
    _same_row(doc["rows"][0], evaluated(path).serving["cheapest"])
    modes = {r["speculative"] for r in doc["rows"]}
    assert "" in modes and "on" in modes, modes
    plain = _plan(capsys, str(path), "--speculative", "1,0")  # acceptance 0: every row as plain decode
    assert len(doc["rows"]) + sum(doc["rejected"].values()) == len(plain["rows"]) + sum(plain["rejected"].values())
    assert doc["memory_reserve"] == 0.2  # the spec's engine
    table = (plan_cmd.main([str(path), "--limit", "0"]), capsys.readouterr().out)[1]
    assert "plain: the layout without speculation ranks first" in table
    assert f"from the report spec {doc['spec']}: its model, GPU, formats, engine and serving block" in table


def test_options_replace_their_part_of_the_spec(capsys):
    """--prompt alone keeps the spec's output; --tpot, --users and --weights replace theirs; another GPU takes the
    spec's engine (its memory reserve and step)."""
    path = ROOT / "specs" / "llama70b-h100-tp8.yaml"
    doc = _plan(capsys, str(path), "--prompt", "1k", "--tpot", "20ms", "--users", "16", "--weights", "bf16",
                "--hardware", "h200")
    assert (doc["prompt"], doc["output"], doc["tpot"], doc["users"]) == (1024, 512, 0.02, 16)
    assert doc["weights"] == ["bf16"] and doc["hardware"] == "h200"
    assert {r["precision"] for r in doc["rows"]} == {"bf16"} and all(r["tpot"] <= 0.02 for r in doc["rows"])
    assert doc["speculative"]["draft_tokens"] == 3  # the spec's draft still asked
    doc = _plan(capsys, str(path), "--output", "2k")
    assert (doc["prompt"], doc["output"]) == (4096, 2048)


def test_a_spec_without_a_serving_block_gives_its_device_and_formats(capsys):
    path = ROOT / "specs" / "llama8b-h100.yaml"
    doc = _plan(capsys, str(path))
    assert doc["hardware"] == "h100-sxm" and doc["model"] == "llama-3.1-8b"
    assert (doc["prompt"], doc["output"], doc["tpot"], doc["speculative"]) == (8192, 1, None, None)


@pytest.mark.parametrize("text, where, says", [
    ("kind: report\nname: x\ntitle: x\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
     "serving: {prompt: 1k, output: 10, tpot: -5 ms}\nworkloads:\n  decode: {batch: [1], context: [1k]}\n",
     ":7:", "serving.tpot"),
    ("kind: report\n  bad: [\n", ":2:", "YAML syntax error"),
])
def test_a_bad_report_spec_is_named_with_its_line(tmp_path, capsys, text, where, says):
    """The spec's own problem, at its line (not 'no GPU given'), exit 1, no traceback."""
    from genreport.commands import cli

    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert cli.main(["plan", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"bad.yaml{where}" in err and says in err and "Traceback" not in err, err


def test_the_chapters_cheapest_layout_is_remembered_only_for_the_same_inputs():
    """serving_report._cheapest remembers the plan's first row for the (model, GPU, plan inputs) it was asked, so a
    warm serve rebuilding an unchanged serving block does not search again: the same inputs give an equal row (a copy:
    changing it changes nothing remembered), another serving block or another GPU the row a fresh search gives."""
    from genreport.load.loader import load_report
    from genreport.model import serving_report as sr

    spec = ROOT / "specs" / "deepseek-v3-h200-ep8.yaml"
    base = load_report(spec)
    others = [load_report(spec, overrides=["serving.users=64"]),
              load_report(spec, overrides=["hardware.memory.bandwidth=6 TB/s"])]
    sr._CHEAPEST.clear()
    fresh = [sr._cheapest(o) for o in others]
    sr._CHEAPEST.clear()
    row = sr._cheapest(base)
    assert fresh[0] != row  # 64 users take another layout
    row["tp"] = -1
    again = sr._cheapest(load_report(spec, overrides=["workloads.decode.batch=[1, 8]"]))  # the chapter's inputs alike
    assert again["tp"] != -1 and len(sr._CHEAPEST) == 1
    assert [sr._cheapest(o) for o in others] == fresh and len(sr._CHEAPEST) == 3


@pytest.mark.parametrize("engine", ["max_sequences 256", "no engine limit"])
def test_a_service_of_millions_of_users_sizes_no_layouts_arrays_by_them(monkeypatch, capsys, engine):
    """DeepSeek-V3's serving chapter with 10^5 users asked plan for batches up to the users, so every layout's
    arrays were 10^5 batches long (10^6 users: 24 GB and 77 s; 10^7 were killed). A replica never runs more than
    the engine's max_sequences (256), nor, without that limit, more than fit (284-41,992 sequences here): the
    batches a layout's rounds are counted at end one past that, and the rows are those of a small request."""
    import genreport.model.plan as plan_mod

    sizes = []
    real = plan_mod.at_batch

    def counting(values, lay, batches, **kw):
        sizes.append(int(getattr(batches, "size", 1)))
        return real(values, lay, batches, **kw)

    monkeypatch.setattr(plan_mod, "at_batch", counting)
    sets = ["serving.users=100000"] + (["engine.max_sequences=0"] if engine == "no engine limit" else [])
    many = evaluated("deepseek-v3-h200-ep8.yaml", sets).serving["cheapest"]
    if engine == "max_sequences 256":
        assert sizes and max(sizes) == 257  # one past the engine's 256
    else:  # each layout's own capacity + 1: 284 to 41,992 sequences here, about 1,400 on average
        assert sizes and max(sizes) <= 65_537 and sum(sizes) < 0.02 * 100_000 * len(sizes), (max(sizes), sum(sizes))
    few = evaluated("deepseek-v3-h200-ep8.yaml", [s.replace("100000", "20000") for s in sets]).serving["cheapest"]
    # each at the busiest replica's share of its users (plan's limit "users"); the cheapest layout may differ (since
    # stop 75 each replica's batch also stops where its prompts' prefills fill the compute: dp 32 for 10^5 users,
    # dp 64 for 2 x 10^4; since the cost per request, prompts included, ranks them, tp 1 and tp 2), the formats not
    layout = ("hardware", "precision", "kv_cache")
    assert {k: many[k] for k in layout} == {k: few[k] for k in layout}
    top = 256 if engine == "max_sequences 256" else 65_536
    assert many["batch"] <= top and few["batch"] <= top
    # the command line: 10^7 users are as many replicas as they need, each at most the chapter's 65,536
    assert plan_cmd.main(["deepseek-v3", "--hardware", "h200", "--users", "10000000", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows and all(r["batch"] <= 256 and r["gpus_for_users"] // r["gpus"] * r["dp"] * r["batch"] >= 10**7
                        for r in rows[:5])  # replicas x their dp ranks x the batch of each


def test_a_missing_spec_file_is_named_before_the_gpus(tmp_path, capsys):
    """`plan specs/missing.yaml` without --hardware: the path is the problem, not the GPUs (QA, stop 81)."""
    from genreport.commands import cli

    assert cli.main(["plan", str(tmp_path / "missing.yaml")]) == 1
    err = capsys.readouterr().err
    assert "missing.yaml" in err and "no such spec file" in err and "no GPU given" not in err, err


def test_a_prompt_alone_is_priced_and_ranked_by_its_prefill(capsys):
    """--prompt 32k --output 1: the request is its prompt (a classification, a scoring), so a request costs its
    prompt at $/M in, which 'cost' ranks (by $/M out a 32k-token Qwen3 235B prompt ranked 72 B200s, at $4.32 per 1k
    requests, first where 16 cost $1.13, QA); --context alone stays decode at that context, $/M out and no $/request."""
    rows = _plan(capsys, "qwen3-235b-a22b", "--hardware", "h100-sxm,b200", "--prompt", "32k", "--output", "1",
                 "--ttft", "3s")["rows"]
    assert rows and all(r["usd_per_request"] == pytest.approx(32768 * r["usd_per_mtok_in"] / 1e6, rel=1e-12)
                        for r in rows)
    costs = [float(f"{r['usd_per_request']:.12g}") for r in rows]  # equal but for the floats' last bits: a tie
    assert costs == sorted(costs)
    decode = _plan(capsys, "qwen3-235b-a22b", "--hardware", "h100-sxm", "--context", "32k")["rows"]
    assert decode and all(r["usd_per_request"] is None for r in decode)


def test_the_header_says_why_the_cost_does_not_rank_and_keeps_the_products_names(capsys):
    """A GPU without a price among priced ones: the rows rank by tok/s per GPU, and the header says why (a review's
    "cheapest" came out unsorted by cost); a TPU beside a GPU says "device" in the words, not in the GPU's name
    ("NVIDIA Blackwell device 186GB", QA stop 81)."""
    assert plan_cmd.main(["llama-3.1-70b", "--hardware", "h100-sxm,h20", "--prompt", "2k", "--output", "256"]) == 0
    out = capsys.readouterr().out
    assert "sorted by tok/s per GPU (h20 has no price: the cost ranks only GPUs that all have one" in out
    assert plan_cmd.main(["llama-3.1-70b", "--hardware", "gb200,tpu-v5p", "--prompt", "2k", "--output", "256"]) == 0
    assert capsys.readouterr().out.startswith("Llama 3.1 70B on NVIDIA Blackwell GPU 186GB (GB200 NVL72), Google")
