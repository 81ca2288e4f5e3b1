"""Hardware specs against independent datasheet figures, read with nothing but yaml.safe_load.

The project's own loader is deliberately not imported: these tests check the YAML files as written, with a
small local unit parser, against numbers copied from the vendors' datasheets (each row cites its source).
Dense peaks are computed here from the published figures (half the sparsity figure where a datasheet gives
only that, per-GPU share of a system total where it gives only that), so a wrong division in a spec shows.

Rules checked:
- memory capacity is the marketed label read in GiB (2^30 B) and written in GiB;
- bandwidth, dense bf16 and dense fp8 peaks and capacity agree with the datasheet within 0.5%;
- every file records the interconnect's per-direction bandwidth and per-step latency, and where the total
  bidirectional figure is also given, per-direction is exactly half of it.
"""

from __future__ import annotations

import re

import pytest
import yaml
from shared import ROOT

HW_DIR = ROOT / "specs" / "hardware"
HW_FILES = sorted(HW_DIR.glob("*.yaml"))

GiB = 2**30
T, P = 1e12, 1e15
REL = 0.005  # 0.5%

_UNITS = {
    "TB/s": 1e12, "GB/s": 1e9, "MB/s": 1e6,
    "PFLOP/s": 1e15, "TFLOP/s": 1e12, "GFLOP/s": 1e9,
    "TiB": 2**40, "GiB": 2**30, "MiB": 2**20, "TB": 1e12, "GB": 1e9, "MB": 1e6,
    "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9,
}
_QTY = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*(\S+)\s*$")


def q(text: str, *allowed: str) -> float:
    """'3.35 TB/s' -> 3.35e12; the unit must be one of `allowed` (a size, a rate or a time, as asked)."""
    m = _QTY.match(str(text))
    assert m, f"cannot read quantity {text!r}"
    number, unit = m.groups()
    assert unit in _UNITS, f"unknown unit in {text!r}"
    assert unit in allowed, f"{text!r}: expected one of {allowed}"
    return float(number) * _UNITS[unit]


SIZE = ("GiB", "GB", "TiB", "TB", "MiB", "MB")
RATE = ("TB/s", "GB/s", "MB/s")
FLOPS = ("PFLOP/s", "TFLOP/s", "GFLOP/s")
TIME = ("s", "ms", "us", "µs", "ns")


def load(name: str) -> dict:
    return yaml.safe_load((HW_DIR / f"{name}.yaml").read_text())


# name: (capacity [B], memory bandwidth [B/s], dense bf16 [FLOP/s], dense fp8 [FLOP/s] or None where the
#        datasheet gives no FP8 rate)
DATASHEET = {
    # NVIDIA H100 datasheet, SXM5 column: 80GB, 3.35 TB/s, BF16 1,979 and FP8 3,958 TFLOPS with sparsity.
    "h100-sxm": (80 * GiB, 3.35 * T, 1979 * T / 2, 3958 * T / 2),
    # NVIDIA H100 datasheet, H100 PCIe column: 80GB, 2 TB/s, BF16 1,513* and FP8 3,026* TFLOPS (* sparsity).
    "h100-pcie": (80 * GiB, 2.0 * T, 1513 * T / 2, 3026 * T / 2),
    # NVIDIA H100 datasheet, H100 NVL column: 94GB, 3.9 TB/s, BF16 1,671* and FP8 3,341* TFLOPS.
    "h100-nvl": (94 * GiB, 3.9 * T, 1671 * T / 2, 3341 * T / 2),
    # NVIDIA H200 datasheet, SXM column: 141GB, 4.8 TB/s, BF16 1,979* and FP8 3,958* TFLOPS.
    "h200": (141 * GiB, 4.8 * T, 1979 * T / 2, 3958 * T / 2),
    # No NVIDIA datasheet; Alibaba InferSim hardware/gpu.py and press reports: 96GB, 4.0 TB/s, FP16 148, FP8 296.
    "h20": (96 * GiB, 4.0 * T, 148 * T, 296 * T),
    # NVIDIA HGX B200 table, 8-GPU totals with sparsity: FP16/BF16 36 PF, FP8 72 PF; NVIDIA Blackwell
    # datasheet, HGX B200 column: 180GB HBM3e at 7.7 TB/s per GPU.
    "b200": (180 * GiB, 7.7 * T, 36 * P / 8 / 2, 72 * P / 8 / 2),
    # NVIDIA GB200 NVL72 datasheet, rack of 72 GPUs with sparsity: FP16/BF16 360 PF, FP8 720 PF, 576 TB/s;
    # 186GB per GPU (Blackwell datasheet GB200 column; MLPerf system descriptions "GB200 186 GB").
    "gb200": (186 * GiB, 576 * T / 72, 360 * P / 72 / 2, 720 * P / 72 / 2),
    # NVIDIA A100 datasheet, 40GB SXM column: 1,555 GB/s, BF16 312 (624 with sparsity); no FP8.
    "a100-sxm-40gb": (40 * GiB, 1555e9, 624 * T / 2, None),
    # NVIDIA A100 datasheet, 80GB SXM column: 2,039 GB/s, BF16 312 (624 with sparsity); no FP8.
    "a100-sxm-80gb": (80 * GiB, 2039e9, 624 * T / 2, None),
    # NVIDIA L40S datasheet: 48GB GDDR6, 864 GB/s, BF16 362.05 and FP8 733 TFLOPS dense (733*/1,466* sparse).
    "l40s": (48 * GiB, 864e9, 362.05 * T, 733 * T),
    # NVIDIA L4 datasheet: 24GB, 300 GB/s, BF16 242* and FP8 485* TFLOPS, sparsity only.
    "l4": (24 * GiB, 300e9, 242 * T / 2, 485 * T / 2),
    # NVIDIA Ada GPU architecture whitepaper, RTX 4090: 24GB GDDR6X, 1,008 GB/s, FP16/BF16 165.2 and FP8
    # 330.3 TFLOPS dense with FP32 accumulate.
    "rtx-4090": (24 * GiB, 1008e9, 165.2 * T, 330.3 * T),
    # AMD Instinct MI300X datasheet: 192GB HBM3, 5.3 TB/s, FP16/BF16 1,307.4 and FP8 2,614.9 TFLOPS dense.
    "mi300x": (192 * GiB, 5.3 * T, 1307.4 * T, 2614.9 * T),
    # AMD Instinct MI325X product page: 256GB HBM3E, 6 TB/s, FP16/BF16 1,307.4 and FP8 2,614.9 TFLOPS dense.
    "mi325x": (256 * GiB, 6.0 * T, 1307.4 * T, 2614.9 * T),
    # Intel Gaudi 3 white paper / product brief: 128GB HBM2e, 3.7 TB/s, BF16 and FP8 matrix 1,835 TFLOPS.
    "gaudi3": (128 * GiB, 3.7 * T, 1835 * T, 1835 * T),
    # Google Cloud TPU v5e page: 16 GB at 819 GBps, 197 TFLOPs bf16 per chip; no FP8 rate.
    "tpu-v5e": (16 * GiB, 819e9, 197 * T, None),
    # Google Cloud TPU v5p page: 95 GiB at 2,765 GBps, 459 TFLOPs bf16 per chip (the newest table also lists
    # FP8 459, which the spec does not record).
    "tpu-v5p": (95 * GiB, 2765e9, 459 * T, None),
}

# Scale-up link, total bidirectional per GPU as the datasheets print it [B/s].
LINK = {
    "h100-sxm": 900e9,  # NVIDIA H100 datasheet: NVLink 900 GB/s
    "h200": 900e9,  # NVIDIA H200 datasheet: NVLink 900 GB/s
    "h20": 900e9,  # InferSim hardware/gpu.py: NVLink 900 GB/s
    "h100-nvl": 600e9,  # H100 datasheet, NVL column: NVLink 600 GB/s (bridged pair)
    "h100-pcie": 128e9,  # H100 datasheet, PCIe column: PCIe Gen5 128 GB/s
    "b200": 1.8e12,  # HGX B200: NVLink 1.8 TB/s per GPU
    "gb200": 130e12 / 72,  # GB200 NVL72: 130 TB/s NVLink for 72 GPUs
    "a100-sxm-40gb": 600e9,  # A100 datasheet: NVLink 600 GB/s
    "a100-sxm-80gb": 600e9,
    "l40s": 64e9,  # L40S datasheet: PCIe Gen4 x16 64 GB/s bidirectional, no NVLink
    "l4": 64e9,  # L4 datasheet: PCIe Gen4 x16 64 GB/s
    "rtx-4090": 64e9,  # PCIe Gen4 x16: 16 GT/s x 16 lanes, both directions
    "mi300x": 7 * 128e9,  # AMD: 7 Infinity Fabric links to peers, 128 GB/s peak each
    "mi325x": 7 * 128e9,
    "gaudi3": 21 * 2 * 25e9,  # Intel Gaudi docs: 21 scale-up ports x 200 Gb/s, 1050 GB/s bidirectional
    "tpu-v5e": 400e9,  # Google: bidirectional ICI 400 GBps per chip
    "tpu-v5p": 1200e9,  # Google: bidirectional ICI 1200 GBps per chip
}


def test_tables_cover_every_hardware_file():
    names = {p.stem for p in HW_FILES}
    assert set(DATASHEET) == names
    assert set(LINK) == names


@pytest.mark.parametrize("name", sorted(DATASHEET))
def test_memory_and_dense_peaks_match_datasheet(name):
    cap, bw, bf16, fp8 = DATASHEET[name]
    d = load(name)
    mem, dense = d["memory"], d["peak"]["dense"]
    assert q(mem["capacity"], *SIZE) == pytest.approx(cap, rel=REL), "capacity"
    assert q(mem["bandwidth"], *RATE) == pytest.approx(bw, rel=REL), "memory bandwidth"
    assert q(dense["bf16"], *FLOPS) == pytest.approx(bf16, rel=REL), "dense bf16"
    if fp8 is None:
        assert "fp8" not in dense, "the spec has an fp8 peak this table does not check; add the datasheet figure"
    else:
        assert q(dense["fp8"], *FLOPS) == pytest.approx(fp8, rel=REL), "dense fp8"


@pytest.mark.parametrize("path", HW_FILES, ids=lambda p: p.stem)
def test_capacity_is_written_in_gib(path):
    """One capacity rule: the marketed label read in GiB, so no decimal-GB capacities remain."""
    cap = yaml.safe_load(path.read_text())["memory"]["capacity"]
    assert str(cap).endswith(" GiB"), cap


@pytest.mark.parametrize("path", HW_FILES, ids=lambda p: p.stem)
def test_interconnect_ledger_fields(path):
    ic = yaml.safe_load(path.read_text())["interconnect"]
    assert "bandwidth_per_direction" in ic and "latency" in ic
    per_dir = q(ic["bandwidth_per_direction"], *RATE)
    assert q(ic["bandwidth"], *RATE) == pytest.approx(2 * per_dir, rel=1e-9), "per direction = bidirectional / 2"
    assert q(ic["bandwidth"], *RATE) == pytest.approx(LINK[path.stem], rel=REL), "link bandwidth vs datasheet"
    lat = q(ic["latency"], *TIME)
    assert 1e-8 < lat < 1e-4, "a per-step latency is between 10 ns and 100 us"
    if "domain" in ic:
        assert isinstance(ic["domain"], int) and ic["domain"] >= 1
    assert ic.get("source", {}).get("title"), "cite where the link figures come from"


@pytest.mark.parametrize("path", HW_FILES, ids=lambda p: p.stem)
def test_scale_out_fields(path):
    node = yaml.safe_load(path.read_text()).get("node")
    if not node:
        pytest.skip("no reference node recorded")
    if "gpus_per_node" in node:
        assert isinstance(node["gpus_per_node"], int) and node["gpus_per_node"] >= 1
    so = node.get("scale_out")
    if so:
        assert q(so["bandwidth_per_direction"], *RATE) > 0
        if "latency" in so:
            assert 1e-8 < q(so["latency"], *TIME) < 1e-3
        assert so.get("source", {}).get("title")


def test_b200_figures():
    """NVIDIA's current B200 bandwidth and the TF32 rate that is exactly half of BF16."""
    d = load("b200")
    assert q(d["memory"]["bandwidth"], *RATE) == pytest.approx(7.7e12, rel=1e-9)
    dense = d["peak"]["dense"]
    assert q(dense["tf32"], *FLOPS) == pytest.approx(1.125e15, rel=1e-9)
    assert q(dense["tf32"], *FLOPS) == pytest.approx(q(dense["bf16"], *FLOPS) / 2, rel=1e-9)
