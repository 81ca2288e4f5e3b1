"""``genreport calibrate``: measure this CPU, write a hardware spec, build a report from it."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import textwrap

import pytest
from genreport.commands.calibrate import spec_text, write_spec
from genreport.commands.cli import main
from genreport.load.loader import load_hardware
from genreport.write.build import build


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """One short CPU calibration into a throwaway project; (project root, spec path, stdout)."""
    root = tmp_path_factory.mktemp("project")
    out = root / "specs" / "hardware" / "this-cpu.yaml"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["calibrate", "--device", "cpu", "--seconds", "2", "-o", str(out), "--name", "this-cpu"])
    assert code == 0
    return root, out, buf.getvalue()


def test_spec_loads_with_plausible_values(calibrated):
    _, out, printed = calibrated
    hw = load_hardware(out)
    assert hw.name == "this-cpu"
    assert 0.5e9 <= hw.bandwidth <= 1e12  # B/s
    assert 1e9 <= hw.dense["fp32"] <= 1e13  # FLOP/s
    assert set(hw.dense) == {"fp32"}
    assert hw.measured_bandwidth == hw.bandwidth
    assert hw.measured_peaks == hw.dense
    assert hw.capacity > 2**28
    assert hw.source.title == "genreport calibrate"
    assert "not datasheet peaks" in hw.source.note
    assert "STREAM-style copy" in hw.measured_method
    assert "fp64 matmul" in hw.notes and "bf16 skipped" in hw.notes.lower()
    assert "bandwidth" in printed and "fp32" in printed and "wrote" in printed


def test_modeline_points_at_the_schema_only_inside_a_project(calibrated):
    _, out, _ = calibrated
    first = out.read_text().splitlines()[0]
    assert first.startswith("# Written by 'genreport calibrate --device cpu' on ")  # no specs/schema/ here


def test_a_report_builds_from_the_calibrated_spec(calibrated):
    root, out, _ = calibrated
    spec = root / "specs" / "cpu-report.yaml"
    spec.write_text(textwrap.dedent("""\
        kind: report
        name: cpu-report
        title: Llama 3.1 8B on this CPU
        hardware: hardware/this-cpu.yaml
        model: llama-3.1-8b
        precision: fp32
        workloads:
          decode:
            batch: [1, 8]
            context: [128]
        """))
    built = build(spec, formats=("json",))
    assert set(built.files) == {"results.json"}
    doc = json.loads(built.files["results.json"])
    hw = load_hardware(out)
    assert doc["inputs"]["hardware"]["peak_flops"] == pytest.approx(hw.dense["fp32"])
    assert doc["inputs"]["hardware"]["bandwidth"] == pytest.approx(hw.bandwidth)


def test_refuses_to_overwrite_without_force(calibrated, capsys):
    _, out, _ = calibrated
    before = out.read_bytes()
    assert main(["calibrate", "--seconds", "1", "-o", str(out)]) == 1
    assert "exists; pass --force" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_quiet_prints_nothing_and_writes_the_spec(tmp_path, capsys):
    """-q prints only errors: the summary of what was measured is the normal level's (it printed under -q)."""
    out = tmp_path / "quiet-cpu.yaml"
    assert main(["calibrate", "--seconds", "0.5", "-o", str(out), "-q"]) == 0
    assert capsys.readouterr() == ("", "") and load_hardware(out).name == "quiet-cpu"


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_cuda_without_torch_is_skipped_with_status_1(tmp_path, capsys):
    out = tmp_path / "gpu.yaml"
    assert main(["calibrate", "--device", "cuda", "-o", str(out)]) == 1
    assert "no CUDA device/torch: skipped" in capsys.readouterr().err
    assert not out.exists()


def test_spec_text_round_trips(tmp_path):
    """The writer alone, with made-up numbers: what it writes is what the loader reads."""
    m = {
        "device": "cpu", "model": 'Test CPU "X" 9000', "vendor": "Example", "threads": 4, "capacity": 16 * 2**30,
        "memory_type": "system RAM", "bandwidth": 25.6e9,
        "bandwidth_detail": {"copy": 25.6e9, "add": 24.1e9, "array_bytes": 256 * 2**20, "threads": 4},
        "peaks": {"fp32": 412.5e9}, "extra_peaks": {"fp64": 206.25e9},
        "matmul_detail": {"fp32": {"n": 2048}, "fp64": {"n": 2048}},
        "skipped": {"bf16": "numpy has no bf16 type"}, "software": "numpy X, some BLAS", "wall_s": 1.0,
    }
    out = tmp_path / "specs" / "hardware" / "t.yaml"
    (tmp_path / "specs" / "schema").mkdir(parents=True)
    (tmp_path / "specs" / "schema" / "hardware.schema.json").write_text("{}")
    write_spec(spec_text(m, "t", "2026-01-02", "../schema/hardware.schema.json"), out)
    hw = load_hardware(out)
    assert (hw.title, hw.vendor, hw.variant) == ('Test CPU "X" 9000 (calibrated)', "Example", "4 threads")
    assert hw.capacity == 16 * 2**30
    assert hw.bandwidth == 25.6e9
    assert hw.dense == {"fp32": 412.5e9}
    assert hw.source.date == "2026-01-02"
    assert out.read_text().startswith("# yaml-language-server: $schema=../schema/hardware.schema.json\n")
    assert not list(out.parent.glob(".t.*"))  # no temporary file left behind
