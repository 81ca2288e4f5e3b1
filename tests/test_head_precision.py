"""An EAGLE/MTP head in a format of its own: ``serving.speculative.draft_precision`` beside ``draft_layers``, and
``plan --speculative K,P,layers:N@FORMAT``.

TensorRT-LLM runs DeepSeek-R1's MTP layer in bf16 beside nvfp4 experts (its checkpoints ship the MTP module
unquantized; blog 1, "Pushing Latency Boundaries: Optimizing DeepSeek-R1 Performance on NVIDIA B200 GPUs", at
commit 01c4ece): a head in the target's formats reads a quarter of the bytes that head does.  Before, the loader
refused the spec ("draft_precision without draft_model") and plan the command line.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest
from genreport.commands import cli
from genreport.errors import SpecError
from genreport.formulas.compiled import load
from genreport.load.loader import load_report
from genreport.model.draft import declared_precision, of_spec
from genreport.present import live
from shared import SPECS, spec_file
from test_speculative_serial import DSR1_B200

# DeepSeek-R1 on 8 B200 as TensorRT-LLM's blog ran it (tests/test_speculative_serial.py), one MTP layer
DSR1 = DSR1_B200.format(k=1, tau=1.92).replace("name: dsr1-b200-mtp1", "name: dsr1-b200-head<TAG>").replace(
    "draft_layers: 1}", "draft_layers: 1<EXTRA>}")


def _text(extra: str = "", tag: str = "") -> str:
    return DSR1.replace("<TAG>", tag).replace("<EXTRA>", extra)


def _spec(extra: str = "", tag: str = ""):
    return spec_file(_text(extra, tag), f"dsr1-b200-head{tag}")


def test_a_head_in_bf16_reads_its_layer_in_bf16():
    """By hand: DeepSeek-V3's MTP head (one MoE layer with the shared embedding: 12,433,972,224 parameters) less the
    output head the target holds (129,280 x 7,168), over the 8 GPUs of tp 8 (its routed experts over max(tp, ep) =
    8), at 2 bytes, with what each GPU holds whole: 2,906,568,704 B a GPU, where the target's formats (nvfp4 experts) give a third of it; one pass at
    batch 1 reads more too."""
    own = load_report(_spec(", draft_precision: bf16", "-bf16"))
    same = load_report(_spec())
    assert own.serving.speculative.draft_precision.weights == "bf16"
    assert declared_precision(own).weights == "bf16" and declared_precision(same) is None
    q = load()
    d_own, d_same = of_spec(own), of_spec(same)
    assert d_own.env.values["N"] == 12_433_972_224
    m_own, c_own = d_own.memory(q, 3071.0, 8, 1.0)
    m_same, c_same = d_same.memory(q, 3071.0, 8, 1.0)
    # and what each of the 8 GPUs holds whole, 7 more copies (tests/test_tp_copies.py): the layer's MLA
    # down-projections with their norms (15,140,864), its two norms and the final one (3 x 7,168), its router
    copies = 7 * (15_140_864 + 3 * 7_168 + 7_168 * 256)
    assert m_own == (12_433_972_224 - 129_280 * 7_168) / 8 * 2 + copies * 2 / 8 == 2_906_568_704
    assert m_same < m_own / 2.5 and c_own == c_same == 1152.0  # one bf16 latent: 576 x 2 bytes
    t_own, t_same = (float(d.time(q, 1, np.asarray([1.0]), 2048.0, 8.0, 1.0)[0]) for d in (d_own, d_same))
    assert t_own > 1.2 * t_same


def test_the_page_gets_the_heads_own_format():
    """The live page shapes the head from the target's model and runs it at the declared format (draftOf)."""
    data = live.page_data(load_report(_spec(", draft_precision: bf16", "-bf16")))
    sp = data["inputs"]["serving"]["speculative"]
    assert sp["draft_layers"] == 1 and sp["draft_precision"]["weights"] == "bf16"
    assert "draft_precision" not in live.page_data(load_report(_spec()))["inputs"]["serving"]["speculative"]


def _plan(*speculative: str) -> list[dict]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli.main(["plan", "deepseek-v3", "--hardware", "b200", "--weights", "fp8", "--gpus", "8", "--prompt",
                         "1k", "--output", "2k", "--batch", "1", "--format", "json", "-q", *speculative])
    assert code == 0
    return json.loads(out.getvalue())["rows"]


def test_plan_takes_a_head_in_its_own_format():
    """``layers:1@bf16`` times each row's head in bf16: its verify rounds no faster than the fp8 head's."""
    fp8, bf16 = _plan("--speculative", "1,0.92,layers:1"), _plan("--speculative", "1,0.92,layers:1@bf16")
    by = {(r["tp"], r["pp"], r["ep"], r["dp"]): r for r in fp8}
    both = [(by[k], r) for r in bf16 if (k := (r["tp"], r["pp"], r["ep"], r["dp"])) in by]
    assert both and all(b["tpot"] >= a["tpot"] for a, b in both)
    assert any(b["tpot"] > a["tpot"] for a, b in both)


def test_a_draft_precision_needs_a_draft():
    text = _text(tag="-none").replace("draft_layers: 1", "draft_cost: 0.1, draft_precision: bf16")
    with pytest.raises(SpecError) as e:
        load_report(spec_file(text, "dsr1-b200-head-none"))
    assert "draft_precision without draft_model or draft_layers" in str(e.value)


def test_a_what_if_of_the_heads_layers_keeps_its_format():
    """``--set serving.speculative.draft_layers=2`` keeps a head's written format; over a draft model it drops the
    model's format with the model (overrides.REPLACES)."""
    two = load_report(_spec(", draft_precision: bf16", "-bf16"), overrides=("serving.speculative.draft_layers=2",))
    assert two.serving.speculative.draft_layers == 2
    assert two.serving.speculative.draft_precision.weights == "bf16"
    model = _text(tag="-model").replace("draft_layers: 1", "draft_model: llama-3.2-1b, "
                                                                            "draft_precision: bf16")
    path = spec_file(model, "dsr1-b200-head-model")
    with pytest.raises(SpecError):  # Llama 3.2 1B cannot draft for DeepSeek-V3 (another tokenizer)
        load_report(path)
    head = load_report(path, overrides=("serving.speculative.draft_layers=1",))
    assert head.serving.speculative.draft_precision is head.precision


def test_a_head_in_its_own_format_caches_in_the_targets():
    """An engine keeps one KV-cache format for every attention layer, the drafter's included (vLLM's kv_cache_dtype,
    TensorRT-LLM's kv_cache_config): DeepSeek-V3 in fp8 with a bf16 MTP layer caches its latent at 576 B a token, not
    1,152 (the review of this stop: 395 sequences where 407 fit on 16 H100 at tp 8 x pp 2)."""
    from test_head_last_stage import DSV3_PP2

    text = DSV3_PP2.replace("draft_layers: 1}", "draft_layers: 1, draft_precision: bf16}")
    spec = load_report(spec_file(text, "dsv3-h100-pp2-mtp-bf16"))
    own = spec.serving.speculative.draft_precision
    assert (own.weights, own.kv_cache) == ("bf16", "fp8")
    m_d, c_d = of_spec(spec).memory(load(), 4095.0, 8, 1.0)
    assert c_d == 576.0 and m_d == 2_906_568_704
    # and the lever row says the head's format
    from genreport.model.techniques import _draft_format

    assert _draft_format(spec) == " in bf16" and _draft_format(load_report(_spec())) == ""


@pytest.mark.parametrize("where", ["head", "draft model"])
def test_a_draft_format_the_gpu_cannot_compute_is_a_finding(where):
    """A draft in fp6 on an H100 (no fp6 peak in its file) stopped the build with "internal error: KeyError: 'fp6'",
    a head's or a catalog draft model's alike: now a finding on serving.speculative.draft_precision naming the GPU,
    the format and the fix, as the target's precision gets (loader._draft_on_hardware)."""
    from test_head_last_stage import DSV3_PP2

    if where == "head":
        path = spec_file(DSV3_PP2.replace("draft_layers: 1}", "draft_layers: 1, draft_precision: fp6}"), "dsv3-fp6")
        overrides = ()
    else:
        path = SPECS / "llama70b-h100-tp8.yaml"
        overrides = ("serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_precision=fp6")
    with pytest.raises(SpecError) as e:
        load_report(path, overrides=overrides)
    text = str(e.value)
    assert "has no dense fp6 peak for the draft's format (fp6)" in text and "peak.dense.fp6" in text
    assert "KeyError" not in text


def test_an_fp8_draft_without_an_fp8_peak_computes_in_bf16():
    """An fp8 draft on an A100 runs weight-only in bf16 (spec.weight_only_fp8), as plan runs it there, not refused."""
    spec = load_report(SPECS / "llama70b-h100-tp8.yaml", overrides=(
        "hardware=a100-sxm-80gb", "serving.speculative.draft_model=llama-3.2-1b",
        "serving.speculative.draft_precision=fp8"))
    own = spec.serving.speculative.draft_precision
    assert (own.weights, own.compute) == ("fp8", "bf16")
