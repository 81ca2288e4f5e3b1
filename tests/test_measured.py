"""Measured points: MFU, MBU, the three-state diagnosis, bound violations, derated estimates.

Reference point: Llama 3.1 8B bf16 decoding at batch 1 on one H100 SXM at 126.90 token/s
(pytorch/ao, torchao/quantization/README.md, "CUDA backend | NVIDIA-H100 GPU", Base (bfloat16);
docs/measurements.md).  Context 105 = a 5-token prompt plus half of the 200 generated tokens.

By hand, seed 003's accounting (N = 8.03e9 streamed every step, b = 2 B, c = 131,072 B/token,
4 L H_q d_h = 4 x 32 x 4096 attention FLOPs per cached token):

* F = 2 x 8.03e9 + 4 x 32 x 4096 x 105 = 16,115,050,240 FLOP
* Q = 8.03e9 x 2 + 105 x 131,072 = 16,073,762,560 B
* t = 1 / 126.9 s;  MBU = Q / t / 3.35e12 = 0.608884;  MFU = F / t / 989.4e12 = 0.00206691
* the bound is Q / W = 4.7981 ms (208.41 token/s), so measured / bound = MBU here.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from genreport.errors import SpecError
from genreport.formulas.measured import ratio_identity_holds
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.model.measured import NEAR_PEAK, analyse, derated, diagnose, utilisation_caveat

F_REF = 2 * 8.03e9 + 4 * 32 * 4096 * 105
Q_REF = 8.03e9 * 2 + 105 * 131072
TOK_S = 126.9


def report(tmp_path: Path, measured: str = "", extra: str = "", prefill: str = "") -> Path:
    """A report spec for Llama 3.1 8B bf16 on one H100 SXM inside a throwaway project at tmp_path."""
    (tmp_path / "specs").mkdir(exist_ok=True)
    text = textwrap.dedent("""\
        kind: report
        name: measured-test
        title: measured test
        hardware: h100-sxm
        model: llama-3.1-8b
        precision: bf16
        workloads:
          decode:
            batch: [1, 2, 64, 256]
            context: [128, 1k]
        """)
    if measured:
        text += "    measured:\n" + textwrap.indent(textwrap.dedent(measured), "      ")
    if prefill:
        text += "  prefill:\n" + textwrap.indent(textwrap.dedent(prefill), "    ")
    text += textwrap.dedent(extra)
    path = tmp_path / "specs" / "r.yaml"
    path.write_text(text)
    return path


TORCHAO = """\
- tokens_per_s: 126.9
  batch: 1
  context: 105
  utilization: 0.99
  source: {title: "pytorch/ao torchao/quantization/README.md, NVIDIA-H100, Llama-3.1-8B Base (bfloat16)"}
"""


def rows(path: Path):
    return analyse(evaluate(load_report(path)))


def test_mfu_mbu_of_the_torchao_point(tmp_path):
    (row,) = rows(report(tmp_path, TORCHAO))
    assert row["flops"] == pytest.approx(F_REF, rel=1e-12)
    assert row["bytes"] == pytest.approx(Q_REF, rel=1e-12)
    assert row["step_time"] == pytest.approx(1 / TOK_S, rel=1e-12)
    assert row["mbu"] == pytest.approx(Q_REF * TOK_S / 3.35e12, rel=1e-12)
    assert row["mbu"] == pytest.approx(0.608884, abs=5e-7)
    assert row["mfu"] == pytest.approx(F_REF * TOK_S / 989.4e12, rel=1e-12)
    assert row["mfu"] == pytest.approx(0.00206691, abs=5e-9)
    assert row["same_interval"]
    assert row["mfu"] / row["mbu"] == pytest.approx(row["intensity"] / row["ridge"], rel=1e-9)
    assert row["intensity"] / row["ridge"] == pytest.approx((F_REF / Q_REF) / (989.4e12 / 3.35e12), rel=1e-12)
    assert row["bound_tokens_per_s"] == pytest.approx(3.35e12 / Q_REF, rel=1e-12)
    assert row["ratio"] == pytest.approx(row["mbu"], rel=1e-12)  # bandwidth-bound: measured/bound = MBU
    assert row["roofline_binds"] == "bandwidth"
    assert (row["path"], row["line"], row["accounting"]) == ("workloads.decode.measured[0]", 12, "seed")


def test_the_identity_is_derived_symbolically():
    assert ratio_identity_holds()


def test_memory_bound_diagnosis_and_remedies(tmp_path):
    (row,) = rows(report(tmp_path, TORCHAO))
    assert row["state"] == "memory-bound"
    assert row["remedies"] == [  # seed 000, "how to tell where you are stuck"
        "batching (more tokens served per weight load)",
        "quantization (fewer bytes per weight)",
        "operator fusion",
        "FlashAttention",
        "a better KV-cache layout",
    ]
    assert row["state_note"] == "a GPU with more compute barely helps"
    assert row["near_peak"] == NEAR_PEAK == 0.5


def test_utilisation_caveat(tmp_path):
    (row,) = rows(report(tmp_path, TORCHAO))
    assert row["utilization_caveat"] == (
        "nvidia-smi reported 99 % GPU utilization. That is the share of the sampling window in which at least one "
        "kernel was running on the GPU; it says nothing about how busy the compute units or the memory bus were, "
        "so it is not MFU and not MBU. Over the same step, MFU was 0.21 % and MBU 61 %.")
    assert utilisation_caveat(0.5).endswith("so it is not MFU and not MBU.")


@pytest.mark.parametrize("mfu, mbu, state", [
    (0.02, 0.75, "memory-bound"),      # seed 003: decode MFU a few %, MBU 70-80 %
    (0.70, 0.10, "compute-bound"),
    (0.05, 0.20, "overhead-bound"),
    (0.60, 0.55, "balanced"),
    (0.49, 0.50, "memory-bound"),      # the threshold is inclusive
])
def test_three_state_table(mfu, mbu, state):
    assert diagnose(mfu, mbu) == state


def test_other_ways_to_give_the_speed_agree(tmp_path):
    t = 1 / TOK_S
    spec = report(tmp_path, f"""\
        - step_time: "{t * 1e3!r} ms"
          batch: 1
          context: 105
          source: {{title: same point as a step time}}
        - achieved_bandwidth: "{Q_REF * TOK_S / 1e9!r} GB/s"
          batch: 1
          context: 105
          source: {{title: same point as a bandwidth}}
        - achieved_flops: "{F_REF * TOK_S / 1e12!r} TFLOP/s"
          batch: 1
          context: 105
          source: {{title: same point as a FLOP rate}}
        """)
    got = rows(spec)
    assert [r["given"] for r in got] == ["step_time", "achieved_bandwidth", "achieved_flops"]
    for r in got:
        assert r["mbu"] == pytest.approx(0.608884, abs=5e-7)
        assert r["mfu"] == pytest.approx(0.00206691, abs=5e-9)
        assert r["tokens_per_s"] == pytest.approx(TOK_S, rel=1e-9)


def test_prefill_measurement_is_compute_bound(tmp_path):
    # 2k prompt at 40,000 token/s: F = 2 x 8.03e9 x 2048 + 2 x 32 x 4096 x 2048^2 = 34.0e12 FLOP in 51.2 ms,
    # MFU 0.67 against a compute bound of 34.4 ms (59,600 token/s)
    spec = report(tmp_path, prefill="""\
        prompt: [2k]
        measured:
          - tokens_per_s: 40000
            prompt: 2k
            source: {title: made-up prefill for the test}
        """)
    (row,) = rows(spec)
    r = evaluate(load_report(spec))
    p = r.prefill["seed"]
    assert row["workload"] == "prefill"
    assert row["flops"] == pytest.approx(float(p["prefill_flops"][0]), rel=1e-12)
    assert row["step_time"] == pytest.approx(2048 / 40000, rel=1e-12)
    assert row["mfu"] == pytest.approx(row["flops"] * 40000 / 2048 / 989.4e12, rel=1e-12)
    assert row["roofline_binds"] == "compute"
    assert row["ratio"] == pytest.approx(row["mfu"], rel=1e-12)  # compute-bound: measured/bound = MFU
    assert row["state"] == "compute-bound"


def test_faster_than_the_bound_is_rejected(tmp_path):
    spec = report(tmp_path, """\
        - tokens_per_s: 250
          batch: 1
          context: 105
          source: {title: too fast}
        """)
    with pytest.raises(SpecError) as exc:
        rows(spec)
    (f,) = exc.value.findings
    assert (f.line, f.col, f.path) == (12, 9, "workloads.decode.measured[0]")
    assert f.file.endswith("r.yaml")
    assert f.message == ("250 token/s is faster than the bound of 208.4 token/s at batch 1, context 105 "
                         "(seed accounting, NVIDIA H100 SXM5 80GB at 3.35 TB/s): MBU would be 1.2")
    assert "speculative decoding" in f.hint
    assert "accounting: exact" not in f.hint  # 250 beats the exact bound (223.0 token/s) too


def test_between_the_two_accountings_the_hint_does_not_suggest_switching(tmp_path):
    # exact bound at batch 1, context 105: 3.35e12 / ((8,030,261,248 - 525,336,576) x 2 + 105 x 131,072) = 223.0
    measured = """\
        - tokens_per_s: 215
          batch: 1
          context: 105
          source: {title: between the bounds}
        """
    with pytest.raises(SpecError) as exc:
        rows(report(tmp_path, measured))
    hint = exc.value.findings[0].hint
    assert "set 'accounting: exact'" not in hint and "no reason to switch" in hint
    assert "speculative decoding" in hint and "per GPU" in hint
    (row,) = rows(report(tmp_path, measured, extra="accounting: exact\n"))  # a spec that chose exact still builds
    q_exact = (8_030_261_248 - 525_336_576) * 2 + 105 * 131072
    assert row["mbu"] == pytest.approx(q_exact * 215 / 3.35e12, rel=1e-12)


def test_a_wrong_gpu_variant_is_named_not_the_accounting(tmp_path):
    """Issue 16 item 7: the torchao H100 (SXM) point put on an H100 PCIe (2.0 TB/s, NVIDIA H100 PCIe datasheet).

    Seed bound on the PCIe: 2.0e12 / 16,073,762,560 B = 124.4 token/s < 126.9; the old hint said to switch to
    the exact accounting, where it passes at MBU (15.02e9 x 126.9 / 2.0e12) = 0.953.
    """
    path = report(tmp_path, TORCHAO)
    path.write_text(path.read_text().replace("hardware: h100-sxm", "hardware: h100-pcie"))
    with pytest.raises(SpecError) as exc:
        rows(path)
    (f,) = exc.value.findings
    assert "faster than the bound of 124.4 token/s" in f.message
    assert "wrong GPU variant" in f.hint and "(h100-sxm)" in f.hint
    assert "wrong GPU count: within the bound on 2 GPUs" in f.hint
    assert "set 'accounting: exact'" not in f.hint
    assert "MBU 0.953" in f.hint and "no reason to switch" in f.hint


def test_every_bad_measurement_is_reported_at_once(tmp_path):
    spec = report(tmp_path, """\
        - tokens_per_s: 100
          context: 105
          source: {title: no batch}
        - batch: 1
          context: 105
          source: {title: no speed}
        - achieved_flops: "2 PFLOP/s"
          batch: 512
          context: 128
          source: {title: above the dense peak}
        - tokens_per_s: 100
          step_time: "20 ms"
          batch: 1
          context: 105
          source: {title: disagreeing}
        """)
    with pytest.raises(SpecError) as exc:
        rows(spec)
    messages = [f.message for f in exc.value.findings]
    assert [f.path for f in exc.value.findings] == [f"workloads.decode.measured[{i}]" for i in range(4)]
    assert messages[0] == "a decode measurement needs batch"
    assert messages[1] == "the measurement gives no speed"
    assert "MFU would be 2.02" in messages[2]
    assert messages[3].startswith("tokens_per_s 100 and step_time 20 ms disagree")


def test_derated_is_ideal_times_efficiency_where_bandwidth_binds(tmp_path):
    spec = report(tmp_path, prefill="prompt: [2k]\n", extra="""\
        efficiency:
          bandwidth: 0.7
          compute: 0.5
          source: {title: assumed for the test}
        """)
    r = evaluate(load_report(spec))
    d = derated(r)
    dec = d["decode"]
    ideal = r.decode["seed"]["decode_tokens_per_s"]
    band = dec["binds"] == "bandwidth"
    assert band[0, 0] and band.sum() >= 4
    np.testing.assert_allclose(dec["tokens_per_s"][band], 0.7 * ideal[band], rtol=1e-12)
    assert dec["tokens_per_s"][0, 0] == pytest.approx(0.7 * 3.35e12 / (8.03e9 * 2 + 128 * 131072), rel=1e-12)
    # prefill of 2k is compute-bound: the derated time is the ideal one over eta_P
    assert d["prefill"]["time"][0] == pytest.approx(d["prefill"]["ideal_time"][0] / 0.5, rel=1e-12)
    assert d["source"]["title"] == "assumed for the test"
    assert d["training"] is None


def test_no_efficiency_no_derated(tmp_path):
    assert derated(evaluate(load_report(report(tmp_path)))) is None


def test_a_long_prefill_faster_than_the_bound_is_stated_in_seconds(tmp_path):
    """A 128k-token prefill of Llama 3.1 8B on one H100 takes at least F / P = (2 N_p T + 2 L H_q d_h T^2 + 2 V d) / P
    seconds; a claimed 5 s is refused with both times in seconds ('a 5 s prefill is faster than the bound of 6.6xx s'),
    not in milliseconds ('5000 ms'; from 10 s up with an exponent, '1.234e+04 ms')."""
    spec = report(tmp_path, prefill="""\
        prompt: [128k]
        measured:
          - step_time: 5 s
            prompt: 128k
            source: {title: made-up prefill for the test}
        """)
    with pytest.raises(SpecError) as exc:
        rows(spec)
    (f,) = exc.value.findings
    (tmp_path / "plain").mkdir()
    r = evaluate(load_report(report(tmp_path / "plain", prefill="prompt: [128k]")))
    bound = float(r.prefill["seed"]["prefill_time_compute"][0])
    assert bound > 5  # compute-bound, seconds
    assert f.message.startswith(f"a 5 s prefill is faster than the bound of {bound:.4g} s at ")
    assert "e+" not in f.message
