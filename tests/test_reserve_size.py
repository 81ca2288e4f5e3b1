"""The engine's memory reserve written as a size (issue 27, "Headroom: an engine memory reserve (fraction or
bytes)"): ``engine.memory_reserve: 6 GiB`` in a report spec, ``memory_reserve: 6 GiB`` in a config file and
``--memory-reserve 6GiB`` for ``plan`` and ``sweep`` keep that many bytes of each GPU, as a fraction keeps its share,
in every fit decision.

Facts copied here, with their sources:
* H100 SXM5 80 GB: 80 GiB of HBM3 as the hardware file gives it (specs/hardware/h100-sxm.yaml); H200: 141 GiB
  (specs/hardware/h200.yaml).
* vLLM sizes its KV cache from a fraction (gpu_memory_utilization, default 0.9) and, since v0.10, from a size
  (kv_cache_memory_bytes); SGLang's mem_fraction_static and TensorRT-LLM's free_gpu_memory_fraction are fractions:
  a size is what a start-up log measured once (CUDA graphs, NCCL buffers) carried to another card.

A share of 0.25 is exact in binary, so 20 GiB of an 80 GiB card and 35.25 GiB of a 141 GiB card are the same bytes
as 0.25 of each: every number a report, ``plan`` or ``sweep`` gives must then be the same.
"""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import main
from genreport.load.loader import load_report
from genreport.load.objects import activation_workspace
from genreport.model.env import usable_at
from genreport.model.evaluate import evaluate
from genreport.write.results import results_json
from shared import ROOT

GiB = 2**30

DEEPSEEK_H100 = """\
kind: report
name: ds
title: DeepSeek-V3 in fp8 on 8 H100
hardware: {root}/specs/hardware/h100-sxm.yaml
model: deepseek-v3
precision: fp8
parallelism: {{tp: 8, ep: 8}}
engine: {{memory_reserve: {reserve}}}
workloads:
  decode: {{batch: [1, 64], context: [4k]}}
"""


def _spec(tmp_path, reserve: str, text: str = DEEPSEEK_H100, overrides=()):
    path = tmp_path / "ds.yaml"
    path.write_text(text.format(root=ROOT, reserve=reserve), encoding="utf-8")
    return load_report(path, overrides=list(overrides))


def _without_the_reserve(doc):
    """results.json with the reserve's own echo left out (a share and a size are written differently, and the
    inputs' digest with them)."""
    if isinstance(doc, dict):
        return {k: _without_the_reserve(v) for k, v in doc.items()
                if k not in ("memory_reserve", "memory_reserve_bytes", "overrides", "sha256")}
    if isinstance(doc, list):
        return [_without_the_reserve(v) for v in doc]
    return doc


def test_a_size_is_kept_whole_before_the_activation_workspace(tmp_path):
    """DeepSeek-V3 in fp8 on 8 H100 (tp 8, ep 8) with 6 GiB kept: each GPU keeps 80 - 6 = 74 GiB, and the model may use
    that less one engine step's activations, at the spec's layout and at any other (env.usable_at)."""
    spec = _spec(tmp_path, "6 GiB")
    hw, model = spec.hardware, spec.model
    assert (hw.memory_reserve, hw.memory_reserve_bytes) == (0.0, 6 * GiB)
    assert hw.capacity == 80 * GiB and hw.kept == 74 * GiB
    ws = activation_workspace(model, 8, hw.max_batched_tokens, hw.max_sequences, 8, 1)
    assert ws > 0 and hw.workspace == ws and hw.usable == 74 * GiB - ws
    assert usable_at(hw, model, 8, 8) == hw.usable
    assert usable_at(hw, model, 4, 8) == 74 * GiB - activation_workspace(model, 4, hw.max_batched_tokens,
                                                                           hw.max_sequences, 8, 1)


@pytest.mark.parametrize(("spec", "more", "size"), [
    ("deepseek-v3-h200-ep8.yaml", [], "35.25 GiB"),  # MoE, MLA, fp8, dp attention, serving with speculation
    ("llama70b-h100-tp8.yaml", [], "20 GiB"),  # dense, tp 8, serving
    # two nodes of 8 H200 (tp 8 x pp 2): each stage's own room (the stage ledger), the scale-out link
    ("llama405b-h200-fp8-tp8.yaml", ["parallelism.pp=2"], "35.25 GiB"),
    # sliding-window layers (Gemma 3: five local layers to one global) on uneven pipeline stages, int4 weights
    ("llama8b-h100.yaml", ["model=gemma-3-27b", "parallelism.pp=3", "precision.weights=int4",
                           "hardware.memory.capacity=24 GiB"], "6 GiB"),
], ids=["deepseek-ep8", "llama70b-tp8", "llama405b-tp8-pp2-two-nodes", "gemma3-27b-pp3-int4"])
def test_a_size_gives_every_number_its_equal_share_gives(spec, more, size):
    """Specs with the reserve written as 0.25 and as the same bytes: results.json (every entry, the serving chapter
    with its cheapest layout, page 1) is the same but for the reserve's own echo."""
    path = ROOT / "specs" / spec
    share, sized = (evaluate(load_report(path, overrides=[*more, f"engine.memory_reserve={v}"]))
                    for v in ("0.25", size))
    assert sized.spec.hardware.memory_reserve_bytes == 0.25 * sized.spec.hardware.capacity
    assert sized.spec.hardware.usable == share.spec.hardware.usable
    docs = [json.loads(results_json(r)) for r in (share, sized)]
    assert [(d["inputs"]["hardware"]["memory_reserve"], d["inputs"]["hardware"]["memory_reserve_bytes"]) for d in docs] \
        == [(0.25, 0.0), (0.0, 0.25 * sized.spec.hardware.capacity)]  # results.json states it as written
    a, b = (_without_the_reserve(d) for d in docs)
    assert a == b
    if share.spec.serving is not None:
        assert share.serving["cheapest"] is not None  # the search ran, and agreed


def test_the_report_says_the_size(tmp_path, capsys):
    """The inputs table gives the size as written, and the summary what the model may use: 80 GiB less the 6 GiB
    and one step's activations."""
    spec = _spec(tmp_path, "6 GiB")
    assert main([str(tmp_path / "ds.yaml"), "--format", "html", "-o", str(tmp_path / "out")]) == 0
    html = (tmp_path / "out" / "ds" / "report.html").read_text(encoding="utf-8")
    assert "engine memory reserve</td><td></td><td>6 GiB</td><td>the spec (engine.memory_reserve)</td>" in html
    usable = f"{spec.hardware.usable / GiB:.4g} GiB usable (80 GiB less the engine's 6 GiB and a " \
             f"{spec.hardware.workspace / GiB:.4g} GiB activation workspace)"
    assert usable in capsys.readouterr().out


def test_a_decimal_size_reads_as_written(tmp_path, capsys):
    """6 GB is 6e9 bytes, which 1024 divides too: the inputs table says "6 GB", not "5.588 GiB"."""
    spec = _spec(tmp_path, "6 GB")
    assert spec.hardware.memory_reserve_bytes == 6e9 and spec.hardware.kept == 80 * GiB - 6e9
    assert main([str(tmp_path / "ds.yaml"), "--format", "html", "-o", str(tmp_path / "out")]) == 0
    assert "less the engine's 6 GB and a " in capsys.readouterr().out


def test_a_larger_card_to_fit_on_keeps_the_reserve(tmp_path):
    """Page 1's ways to fit name a compared card where the weights fit in what it keeps, not in its whole memory:
    Llama 3.1 8B's 16.06 GB of weights with 66 GiB kept of each GPU fit on an H200 (75 GiB left), not on an A100
    80 GB (14 GiB left), which its 80 GiB alone would have offered."""
    r = evaluate(load_report(ROOT / "specs" / "llama8b-h100.yaml", overrides=[
        "engine.memory_reserve=66 GiB", "hardware.memory.capacity=70 GiB"]), plans=False)
    cards = {o["label"]: o["capacity"] for o in r.fit_options if o["kind"] == "card"}
    assert cards == {"NVIDIA H200 SXM 141GB": 75 * GiB}
    assert {h.title for h in r.spec.compare_hardware} == {"NVIDIA H200 SXM 141GB", "NVIDIA A100 SXM4 80GB"}


def test_at_a_layout_a_larger_card_holds_the_whole_model():
    """Llama 3.1 70B at tp 2 on 60 GiB cards: "one H200" must hold the whole model (141.2 GB of bf16 weights) in what
    it keeps (141 GiB less the 10% reserve and a step: 126 GiB), as the compare table judges it; it was offered
    against one GPU's half (70.6 GB), a review of stop 85.  A B200 keeps 160 GiB and is offered, with those numbers."""
    r = evaluate(load_report(ROOT / "specs" / "llama70b-h100-tp2.yaml", overrides=[
        "compare.hardware=[h200, b200]", "hardware.memory.capacity=60 GiB"]), plans=False)
    cards = {o["label"]: o for o in r.fit_options if o["kind"] == "card"}
    assert list(cards) == ["NVIDIA B200 180GB (HGX B200)"]
    b200 = next(h for h in r.spec.compare_hardware if h.name == "b200")
    assert cards["NVIDIA B200 180GB (HGX B200)"]["capacity"] == usable_at(b200, r.spec.model, 1)
    assert cards["NVIDIA B200 180GB (HGX B200)"]["weight_bytes"] == r.one_card[r.lead]["weight_bytes"] > 141e9
    table = {c["title"]: c["fits"] for c in r.compare}
    assert table["NVIDIA H200 SXM 141GB"] is False and table["NVIDIA B200 180GB (HGX B200)"] is True


@pytest.mark.parametrize(("reserve", "message", "hint"), [
    ("100 GiB", "engine.memory_reserve: the engine's reserve of 100.0 GiB is at least the NVIDIA H100 SXM5 80GB's 80.0 "
                "GiB of memory: nothing is left for the model",
     "lower it, write a fraction such as 0.1, or take a card with more memory"),
    ("'10%'", "engine.memory_reserve: '10%' is neither a fraction nor a size",
     "write the fraction, e.g. 0.1, without quotes, or a size such as '6 GiB'"),
    ("6 GB/s", "engine.memory_reserve: '6 GB/s' is a bandwidth (B/s), but this field needs a size in B",
     "give the value in the unit this field measures"),
    ("0.95", "engine.memory_reserve: 0.95 is too large (at most 0.9)",
     "a share is at most 0.9; write a size with its unit, e.g. '6 GiB'"),
    ("'0.1'", "engine.memory_reserve: '0.1' is neither a fraction nor a size",
     "write the fraction, e.g. 0.1, without quotes, or a size such as '6 GiB'"),
    ("0 GiB", "engine.memory_reserve: '0 GiB' must be positive", "write 0, without a unit, for no reserve"),
    ("'6'", "engine.memory_reserve: '6' is neither a fraction nor a size",
     "a share is from 0 to 0.9; write a size with its unit, e.g. '6 GiB'"),
    ("79.9 GiB", "engine.memory_reserve: the engine's reserve keeps 79.9 GiB of the NVIDIA H100 SXM5 80GB's 80.0 GiB "
                 "and one engine step of 8,192 tokens and 256 sequences needs", "lower it, or take a card with more "
                                                                                "memory"),
])
def test_a_reserve_that_is_no_reserve_names_file_line_and_fix(tmp_path, capsys, reserve, message, hint):
    path = tmp_path / "ds.yaml"
    path.write_text(DEEPSEEK_H100.format(root=ROOT, reserve=reserve), encoding="utf-8")
    out = tmp_path / "out"
    assert main([str(path), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert "ds.yaml:8:" in err and message in err and f"(hint: {hint})" in err, err
    assert "Traceback" not in err and not out.exists()


def _plan(capsys, *args) -> dict:
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_takes_a_size_on_the_command_line_and_from_the_config(tmp_path, capsys, monkeypatch):
    """``plan --memory-reserve 20GiB`` on an 80 GiB card lists the rows 0.25 lists (each GPU's free memory too), and
    says the size; a config file's size is the same; a size no GPU holds is an error naming the option."""
    share = _plan(capsys, "--memory-reserve", "0.25")
    sized = _plan(capsys, "--memory-reserve", "20GiB")
    assert (share["memory_reserve"], share["memory_reserve_bytes"]) == (0.25, 0.0)
    assert (sized["memory_reserve"], sized["memory_reserve_bytes"]) == (0.0, 20 * GiB)
    assert sized["rows"] == share["rows"] and sized["rows"]
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--memory-reserve", "20 GiB"]) == 0
    assert "; 20 GiB of each GPU kept by the engine" in capsys.readouterr().out
    # a GPU the size leaves nothing on, among one it does not: its layouts are not listed, and why is said
    both = _plan(capsys, "--hardware", "h100-sxm,l40s", "--memory-reserve", "60GiB")
    assert both["rows"] and all(r["hardware"] == "h100-sxm" for r in both["rows"])
    assert both["rejected"]["the engine's reserve and step leave no memory"] > 0
    config = tmp_path / "config.yaml"
    config.write_text("memory_reserve: 20 GiB\n", encoding="utf-8")
    monkeypatch.setenv("GENREPORT_CONFIG", str(config))
    monkeypatch.delenv("GENREPORT_NO_CONFIG")
    assert _plan(capsys)["rows"] == share["rows"]
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm,h200", "--memory-reserve", "150GiB"]) == 1
    assert ("--memory-reserve 150GiB: a reserve of 150.0 GiB keeps all the memory of every GPU asked (the largest, "
            "NVIDIA H200 SXM 141GB, has 141.0 GiB) (hint: lower it, or write a fraction such as 0.1)") in \
        capsys.readouterr().err
    # where the reserve was written: the config file's line, and a report spec's
    config.write_text("prices: {h100-sxm: 2.5}\nmemory_reserve: 100 GiB\n", encoding="utf-8")
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm"]) == 1
    assert f"{config}:2:17: memory_reserve: a reserve of 100.0 GiB keeps all the memory" in capsys.readouterr().err
    spec = tmp_path / "s60.yaml"
    spec.write_text((ROOT / "specs" / "llama8b-h100.yaml").read_text(encoding="utf-8").replace(
        "memory_reserve: 0 ", "memory_reserve: 60 GiB "), encoding="utf-8")
    assert main(["plan", str(spec), "--hardware", "l40s"]) == 1
    assert f"{spec}:10:19: engine.memory_reserve: a reserve of 60.0 GiB keeps all the memory" in capsys.readouterr().err
    for bad, says in (("6GB/s", "'6GB/s' is a bandwidth (B/s), but this field needs a size in B"),
                      ("lots", "is neither a fraction nor a size"), ("0GiB", "must be positive"),
                      ("95%", "must be a fraction from 0 to 0.9 (or 0% to 90%), or a size")):
        assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--memory-reserve", bad]) == 1
        assert f"--memory-reserve {bad}: {says}" in capsys.readouterr().err


def test_sweep_takes_a_size(tmp_path, capsys):
    """``sweep --memory-reserve 20GiB`` over an 80 GiB card gives the table 0.25 gives, and its capacity line says the
    size; on a card the size leaves nothing (an L40S's 48 GB) nothing fits, with no negative count."""
    tables = {}
    for reserve in ("0.25", "20GiB"):
        out = tmp_path / reserve
        assert main(["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--memory-reserve", reserve,
                     "--batch", "1,64", "--context", "1k,32k", "-o", str(out), "--format", "csv"]) == 0
        tables[reserve] = (out / "sweep.csv").read_text(encoding="utf-8")
    assert tables["0.25"] == tables["20GiB"] and "capacity: 20 GiB of each GPU kept by the engine" in \
        capsys.readouterr().out
    out = tmp_path / "l40s"
    assert main(["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm,l40s", "--memory-reserve", "60GiB",
                 "--batch", "1", "--context", "1k", "-o", str(out), "--format", "csv"]) == 0
    rows = (out / "sweep.csv").read_text(encoding="utf-8").splitlines()
    head = rows[0].split(",")
    l40s = [dict(zip(head, r.split(","), strict=True)) for r in rows[1:] if ",l40s," in r]
    assert l40s and all(r["capacity_batch"] == "0" and r["fits"] == "false" for r in l40s)
    assert main(["sweep", "--models", "llama-3.1-8b", "--hardware", "l40s", "--memory-reserve", "60GiB",
                 "-o", str(out)]) == 1
    assert "--memory-reserve 60GiB: a reserve of 60.0 GiB keeps all the memory" in capsys.readouterr().err


def test_sweep_takes_a_size_from_the_config(tmp_path, capsys, monkeypatch):
    config = tmp_path / "config.yaml"
    config.write_text("memory_reserve: 20 GiB\n", encoding="utf-8")
    monkeypatch.setenv("GENREPORT_CONFIG", str(config))
    monkeypatch.delenv("GENREPORT_NO_CONFIG")
    out = tmp_path / "sweep"
    assert main(["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--batch", "1,64", "--context", "1k",
                 "-o", str(out), "--format", "json"]) == 0
    doc = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    assert (doc["meta"]["memory_reserve"], doc["meta"]["memory_reserve_bytes"]) == (0.0, 20 * GiB)
    assert "capacity: 20 GiB of each GPU kept by the engine" in capsys.readouterr().out


@pytest.mark.parametrize("capacity", ["0.5 GiB", "1 B"])
def test_a_card_too_small_for_the_default_step_is_named_not_the_step(tmp_path, capsys, capacity):
    """A card whose memory the engine's default step alone fills (8,192 tokens and 256 sequences, the default reserve
    of 10%): the error named "serving.chunk" at line 19 of a spec, or "engine.max_batched_tokens" at line 1 of one
    without an engine block, and said "lower it" of vLLM's default (the hostile review of stop 88). It names the
    spec's hardware line and the card's memory, exit 1, nothing written."""
    from shared import ROOT

    spec = ROOT / "specs" / "llama70b-h100-tp8.yaml"
    line = next(i for i, text in enumerate(spec.read_text().splitlines(), 1) if text.startswith("hardware:"))
    code = main([str(spec), "--set", f"hardware.memory.capacity={capacity}", "-o", str(tmp_path), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 1 and not any(tmp_path.iterdir())
    assert f"llama70b-h100-tp8.yaml:{line}:" in err and ": hardware: one engine step of 8,192 tokens" in err, err
    assert "too small for the engine's default step: take a card with more memory" in err
    assert "serving.chunk" not in err.split("(hint")[0] and "lower it (vLLM's default" not in err
