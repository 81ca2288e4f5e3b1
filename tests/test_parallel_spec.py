"""The report spec's `parallelism` block and the hardware's interconnect, as the loader reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from genreport.errors import SpecError
from genreport.load.loader import load_hardware, load_report
from shared import ROOT

SPEC = """\
kind: report
name: par
title: Parallel test
hardware: h100-sxm
model: {model}
precision: bf16
workloads:
  decode: {{batch: [1, 8], context: [1k]}}
{extra}"""


def _write(tmp_path: Path, model: str = "llama-3.1-70b", extra: str = "") -> Path:
    path = tmp_path / "par.yaml"
    path.write_text(SPEC.format(model=model, extra=extra), encoding="utf-8")
    return path


def test_absent_block_is_none(tmp_path):
    assert load_report(_write(tmp_path)).parallelism is None


def test_degrees_default_to_one(tmp_path):
    par = load_report(_write(tmp_path, extra="parallelism: {tp: 4}\n")).parallelism
    assert (par.tp, par.pp, par.ep, par.dp) == (4, 1, 1, 1)
    assert par.gpus == 4


def test_gpus_is_tp_pp_dp(tmp_path):
    par = load_report(_write(tmp_path, extra="parallelism: {tp: 4, pp: 2, dp: 3}\n")).parallelism
    assert par.gpus == 24 and par.replica_gpus == 8


def test_set_overrides_like_any_other_value(tmp_path):
    path = _write(tmp_path, extra="parallelism: {tp: 2}\n")
    assert load_report(path, overrides=["parallelism.tp=4"]).parallelism.tp == 4
    # and creates the block when the spec has none
    par = load_report(_write(tmp_path), overrides=["parallelism.pp=2"]).parallelism
    assert (par.tp, par.pp) == (1, 2)


def test_moe_ep_inside_tp_dp(tmp_path):
    par = load_report(_write(tmp_path, "mixtral-8x7b", "parallelism: {tp: 2, dp: 4, ep: 8}\n")).parallelism
    assert par.ep == 8 and par.gpus == 8


def test_kv_replication_is_explained(tmp_path):
    spec = load_report(_write(tmp_path, extra="parallelism: {tp: 16}\n"))
    assert any("above the 8 KV heads" in w and "replicated on 2 GPUs" in w for w in spec.warnings)
    with pytest.raises(SpecError):
        load_report(_write(tmp_path, extra="parallelism: {tp: 16}\n"), strict=True)


def test_tp_that_splits_kv_heads_unevenly(tmp_path):
    # Qwen2.5-72B has 64 query heads and 8 KV heads: tp 16 replicates evenly; make a model with 40 and 8
    model = tmp_path / "m.yaml"
    model.write_text((ROOT / "tests" / "bad_specs" / "models" / "ok.yaml").read_text()
                     .replace("heads: 32", "heads: 40").replace("hidden_size: 4096", "hidden_size: 5120"))
    with pytest.raises(SpecError) as exc:
        load_report(_write(tmp_path, "m.yaml", "parallelism: {tp: 5}\n"))
    assert "tp 5 does not divide the 8 KV heads" in str(exc.value)


def test_interconnect_read_from_the_catalog():
    # H100 SXM: NVLink 4, 900 GB/s both directions = 450 GB/s each way, 0.6 us per ring step (NCCL's LL model),
    # 8 GPUs per NVSwitch domain; DGX H100: one 400 Gb/s ConnectX-7 per GPU = 50 GB/s per direction
    hw = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
    assert hw.link.bandwidth == 900e9 and hw.link.bandwidth_per_direction == 450e9
    assert hw.link.per_direction_from == "spec"
    assert hw.link.latency == pytest.approx(0.6e-6) and hw.link.domain == 8
    assert hw.node.gpus_per_node == 8
    assert hw.node.scale_out.bandwidth_per_direction == 50e9 and hw.node.scale_out.latency == pytest.approx(2.7e-6)
    assert hw.interconnect == (hw.link.name, 900e9)  # the old field is unchanged


def test_interconnect_per_direction_defaults_to_half(tmp_path):
    text = (ROOT / "tests" / "bad_specs" / "hardware" / "ok.yaml").read_text()
    path = tmp_path / "hw.yaml"
    path.write_text(text + 'interconnect: {name: PCIe Gen5 x16, bandwidth: "128 GB/s"}\n', encoding="utf-8")
    hw = load_hardware(path)
    assert hw.link.bandwidth_per_direction == 64e9 and hw.link.per_direction_from == "bandwidth/2"
    assert hw.link.latency is None and hw.link.domain is None and hw.node is None


def test_every_catalog_gpu_has_a_link():
    for path in sorted((ROOT / "specs" / "hardware").glob("*.yaml")):
        hw = load_hardware(path)
        assert hw.link is not None and hw.link.bandwidth_per_direction > 0, path.name


def test_set_parallelism_builds_a_what_if(tmp_path):
    import json

    from genreport.commands.cli import main

    spec = _write(tmp_path)
    out = tmp_path / "out"
    assert main([str(spec), "--set", "parallelism.tp=4", "-o", str(out), "--format", "json", "-q"]) == 0
    doc = json.loads((out / "par-whatif" / "results.json").read_text())
    assert doc["parallel"]["tp"] == 4 and doc["parallel"]["gpus"] == 4
    assert any(e["id"] == "decode_time_bound" for e in doc["quantities"])
    assert not any(k.startswith("decode_time_bound") for k in doc["baseline"])  # the baseline is one card
