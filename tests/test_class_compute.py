"""Weights per tensor class compute each in their own format (Precision.class_compute, env.peak_of): the strict bound
of gpt-oss-120b's MXFP4 experts on a B200 is taken at the fp4 peak for the experts' GEMMs and bf16's for the rest.

Before, every GEMM of a per-class precision ran at the default class's compute (bf16): an engine multiplying the
experts in FP4 on Blackwell (TensorRT-LLM, vLLM) could beat that "bound" in a compute-bound prefill, found by the
review of stop 72 (issue 27: the strict bound must be a true lower bound on any implementation).

Hand counts from gpt-oss-120b's config.json (hidden 2880, 36 layers, 64 query heads and 8 KV heads of 64, 128
experts of width 2880, 4 active, vocabulary 201,088, untied head):
- the routed experts' matrices a token multiplies by: 36 x 4 x 3 x 2880^2 = 3,583,180,800;
- attention: per layer q 2880 x 4096 + 4096, k and v 2880 x 512 + 512 each, o 4096 x 2880 + 2880, 64 sinks:
  26,550,144; 36 layers: 955,805,184;
- the output head: 201,088 x 2,880 = 579,133,440; the router: 36 x (2880 x 128 + 128) = 13,275,648.
Peaks (specs/hardware/b200.yaml, NVIDIA HGX B200 datasheet, 8-GPU totals over 8, dense = sparse / 2): bf16 2.25
PFLOP/s, fp4 9 PFLOP/s; an H100 SXM (NVIDIA H100 datasheet): bf16 989.4 TFLOP/s, fp8 1,978.9 TFLOP/s, no fp4.

A decode token runs the output head; a prompt's tokens run it once (F_pre = ... + 2 N_p T + 2 V d).  P is the
faster of the two mixes, so that no workload runs faster than P says: with the head in every mix, P was 4.724
PFLOP/s and an FP4 engine's 1k prefill took 1.784 ms against the "bound" of 2.015 ms (the review of d14bf25).
"""

from __future__ import annotations

import json

import pytest
from genreport import evaluate, load_spec
from genreport.commands.cli import main as cli_main
from genreport.load.objects import _precision
from genreport.model.env import class_flops, peak_of
from shared import ROOT

ROOT_SPECS = ROOT / "specs"

F_EXPERTS = 36 * 4 * 3 * 2880 * 2880
F_ATTENTION = 36 * (2880 * 4096 + 4096 + 2 * (2880 * 512 + 512) + 4096 * 2880 + 2880 + 64)
F_HEAD = 201_088 * 2880
F_ROUTER = 36 * (2880 * 128 + 128)
assert (F_EXPERTS, F_ATTENTION, F_HEAD, F_ROUTER) == (3_583_180_800, 955_805_184, 579_133_440, 13_275_648)
F_REST = F_ATTENTION + F_HEAD + F_ROUTER
BF16, FP4 = 2.25e15, 9e15
P_DECODE = (F_EXPERTS + F_REST) / (F_EXPERTS / FP4 + F_REST / BF16)  # a decode token's mix: 4.724 PFLOP/s
P_MIXED = (F_EXPERTS + F_REST - F_HEAD) / (F_EXPERTS / FP4 + (F_REST - F_HEAD) / BF16)  # a prompt's: 5.492, faster


def report(tmp_path, precision: str, hardware="b200", name="r", extra="", prompts="[8k]") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"kind: report\nname: {name}\ntitle: t\nhardware: {hardware}\nmodel: gpt-oss-120b\n"
                    f"precision: {precision}\naccounting: exact\n{extra}"
                    "workloads:\n  decode: {batch: [1, 64, 4096], context: [8k]}\n"
                    f"  prefill: {{prompt: {prompts}}}\n")
    return str(path)


def prefill(r, what: str, tokens: int = 8192) -> float:
    return next(e.value for e in r.entries if e.id == what and e.params == {"tokens": tokens})


def test_the_classes_flops_and_the_peak_by_hand(tmp_path):
    spec = load_spec(report(tmp_path, "{weights: {experts: mxfp4, default: bf16}}"))
    p = spec.precision
    assert p.own_compute and not p.native and p.compute == "bf16"
    assert p.label() == "weights experts mxfp4, rest bf16, KV bf16, compute per class"
    assert {c: p.class_compute(c, spec.hardware.dense) for c in ("experts", "attention", "embeddings", "default")} \
        == {"experts": "fp4", "attention": "bf16", "embeddings": "bf16", "default": "bf16"}
    assert class_flops(evaluate(spec).params, spec.model) == {"experts": F_EXPERTS, "attention": F_ATTENTION,
                                                              "embeddings": F_HEAD, "default": F_ROUTER}
    peak = peak_of(p, spec.hardware, spec.model)
    assert peak.value == pytest.approx(P_MIXED, rel=1e-12) and peak.value == pytest.approx(5.492e15, rel=1e-4)
    assert peak.prompt and P_MIXED > P_DECODE
    assert peak.label("bf16") == "a blend of fp4 for the routed experts and bf16 for the rest"  # no format's peak
    rest = F_ATTENTION + F_ROUTER
    assert [share for *_, share in peak.parts] == pytest.approx([F_EXPERTS / (F_EXPERTS + rest),
                                                                 rest / (F_EXPERTS + rest)], rel=1e-12)
    r = evaluate(spec)
    assert r.scalars[r.lead]["peak_flops"] == pytest.approx(P_MIXED, rel=1e-12)
    assert r.scalars[r.lead]["ridge_point"] == pytest.approx(P_MIXED / 7.7e12, rel=1e-12)


PROMPTS = (128, 512, 1024, 2048, 4096, 8192)


def test_the_prefill_bound_is_never_above_what_an_fp4_engine_takes(tmp_path):
    """Prefills of gpt-oss-120b on one B200, 128 to 8k tokens: the FLOPs less the weight GEMMs' (T tokens through
    the blocks, the head once) are attention's, which the bound charges at P (faster than their bf16): so the
    compute bound sits at or below the class-wise time 2T F_experts / P_fp4 + (2T (F_attention + F_router) + 2 V d
    + F_scores) / P_bf16, and above the whole prefill at the fp4 peak.  Decode (the head every token) likewise."""
    r = evaluate(load_spec(report(tmp_path, "{weights: {experts: mxfp4, default: bf16}}",
                                  prompts="[128, 512, 1k, 2k, 4k, 8k]")))
    for tokens in PROMPTS:
        t, flops = prefill(r, "prefill_time_compute", tokens), prefill(r, "prefill_flops", tokens)
        blocks = 2 * tokens * (F_EXPERTS + F_ATTENTION + F_ROUTER)
        scores = flops - blocks - 2 * F_HEAD
        assert scores > 0, tokens
        engine = 2 * tokens * F_EXPERTS / FP4 + (2 * tokens * (F_ATTENTION + F_ROUTER) + 2 * F_HEAD + scores) / BF16
        assert flops / FP4 < t <= engine, tokens
        assert t == pytest.approx(flops / P_MIXED, rel=1e-12)
    for e in (e for e in r.entries if e.id == "decode_time_compute"):
        b = e.params["batch"]
        step = next(x.value for x in r.entries if x.id == "decode_flops" and x.params == e.params)
        scores = step - 2 * b * (F_EXPERTS + F_REST)
        assert e.value <= 2 * b * F_EXPERTS / FP4 + (2 * b * F_REST + scores) / BF16, e.params
    old = evaluate(load_spec(report(tmp_path, "{weights: {experts: mxfp4, default: bf16}, compute: bf16}", name="o")))
    assert prefill(old, "prefill_time_compute") == pytest.approx(flops / BF16, rel=1e-12)  # a compute given is kept
    assert engine < prefill(old, "prefill_time_compute")  # which the FP4 engine beats (the 8k prefill)


def test_a_gpu_without_the_format_and_fp8_classes(tmp_path):
    """On an H100 (no fp4 peak) MXFP4 experts are dequantized to bf16: P is bf16's, exactly, and the precision reads
    "compute bf16", not "per class".  fp8 experts beside bf16
    weights multiply at fp8's peak (W8A8), the rest at bf16's; with compute fp8 given, everything at fp8's."""
    h100 = load_spec(report(tmp_path, "{weights: {experts: mxfp4, default: bf16}}", hardware="h100-sxm"))
    dense = h100.hardware.dense
    assert (dense["bf16"], dense["fp8"], "fp4" in dense) == (pytest.approx(989.4e12, rel=1e-3),
                                                              pytest.approx(1978.9e12, rel=1e-3), False)
    assert evaluate(h100).scalars["exact"]["peak_flops"] == dense["bf16"]
    assert h100.precision.label(dense) == "weights experts mxfp4, rest bf16, KV bf16, compute bf16"
    fp8 = load_spec(report(tmp_path, "{weights: {experts: fp8, default: bf16}}", hardware="h100-sxm", name="f"))
    rest = F_ATTENTION + F_ROUTER  # the head (bf16) left out: a prompt's mix, the faster
    want = (F_EXPERTS + rest) / (F_EXPERTS / dense["fp8"] + rest / dense["bf16"])
    assert evaluate(fp8).scalars["exact"]["peak_flops"] == pytest.approx(want, rel=1e-12)
    given = load_spec(report(tmp_path, "{weights: {experts: fp8, default: bf16}, compute: fp8}", hardware="h100-sxm",
                             name="g"))
    assert not given.precision.own_compute and evaluate(given).scalars["exact"]["peak_flops"] == dense["fp8"]
    # int4 experts are weight-only (bf16, WEIGHT_COMPUTE): nothing computes apart, P is bf16's exactly
    int4 = load_spec(report(tmp_path, "{weights: {experts: int4, default: bf16}, group_size: 128}",
                            hardware="h100-sxm", name="i"))
    assert not peak_of(int4.precision, int4.hardware, int4.model).mixed
    # classes sharing the fast format are named together (the review's "routed experts, output head" read as a list)
    head = load_spec(report(tmp_path, "{weights: {experts: mxfp4, embeddings: nvfp4, default: bf16}}", name="h"))
    assert peak_of(head.precision, head.hardware, head.model).label("bf16") == \
        "a blend of fp4 for the routed experts and output head, and bf16 for the rest"
    # one format named for every class is that format: NVFP4 all through is fp4 on a B200 (spec.on_hardware)
    assert _precision({"weights": {"experts": "nvfp4", "default": "nvfp4"}}).native


def test_the_report_and_results_json_say_it(tmp_path):
    """results.json as the command line writes it, and the page's words (shared.page: a build's page, no figure or
    formula drawn)."""
    from shared import page as page_of

    out = tmp_path / "out"
    spec = report(tmp_path, "{weights: {experts: mxfp4, default: bf16}}")
    assert cli_main([spec, "-o", str(out), "-q", "--format", "json"]) == 0
    doc = json.loads((out / "r" / "results.json").read_text())["inputs"]
    assert doc["hardware"]["peak_flops"] == pytest.approx(P_MIXED, rel=1e-12)
    assert doc["precision"]["weights_by_class"]["experts"]["compute"] == "fp4"
    assert doc["precision"]["weights_by_class"]["attention"]["compute"] == "bf16"
    page = " ".join(page_of(spec).split())
    assert "5.492 PFLOP/s: routed experts fp4 (9 PFLOP/s, 78.7% of the weight FLOPs)" in page
    assert "the output head left out, as a prompt&#39;s tokens run it once" in page
    assert "sparse figure" not in page  # bf16's 4.5 PFLOP/s sparse, below the dense P: not said beside it
    assert "P = ΣF_c / Σ(F_c / P_c) over the classes" in page
    assert "The roofline's roof is the dense peak P (<span data-live=\"compute\">a blend of fp4 for the routed experts and bf16 " \
           "for the rest</span>" in page
    # gpt-oss's FFN matrix has its attention projection's shape (2,880 x 2,880) and other bytes (mxfp4 beside bf16):
    # its row showed the projection's numbers, both keyed (n, m) (a review); it is keyed by its bytes too
    assert '<span data-q="gemm_saturation" data-n="2880" data-m="2880" data-b="0.53125" data-f="num">' in page
    # no FP8-compute lever where the classes already run faster than fp8's 4.5 PFLOP/s
    assert "FP8 compute" not in page.split("What would change it")[-1].split("</table>")[0]


def test_a_what_if_of_one_class_computes_it_in_its_format(tmp_path):
    """--set precision.weights.experts=mxfp4 on a spec of 'precision: bf16': the string's explicit form leaves
    compute out, as the string does, so the class set next computes in its own format (fp4 on a B200)."""
    spec = load_spec(report(tmp_path, "bf16"), ["precision.weights.experts=mxfp4"])
    assert spec.precision.own_compute and spec.precision.compute == "bf16"
    assert evaluate(spec).scalars["exact"]["peak_flops"] == pytest.approx(P_MIXED, rel=1e-12)
    kept = load_spec(report(tmp_path, "fp8", hardware="h100-sxm", name="k"), ["precision.kv_cache=bf16"])
    assert (kept.precision.compute, kept.precision.kv_cache, kept.precision.own_compute) == ("fp8", "bf16", False)


def test_plan_of_a_report_spec_plans_its_own_classes(tmp_path, capsys):
    """`plan SPEC` of gpt-oss-120b with {experts: nvfp4, default: fp8} planned the checkpoint's formats (mxfp4
    experts, bf16 rest) under a header saying it took the spec's (a hostile-input review): its rows now name the
    spec's formats, with its cache (fp8, the compute's) and its compute (nvfp4 experts in fp4 on a B200)."""
    spec = report(tmp_path, "{weights: {experts: nvfp4, default: fp8}}", name="m")
    assert cli_main(["plan", spec, "--gpus", "1", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    own = [r for r in rows if r["precision"] == "nvfp4+fp8"]
    assert own and all(r["kv_cache"] == "fp8" for r in own)
    assert {r["precision"] for r in rows} == {"nvfp4+fp8", "checkpoint"}
    ckpt = next(r for r in rows if r["precision"] == "checkpoint")
    assert own[0]["ttft"] < ckpt["ttft"]  # fp4 experts and fp8 rest beside mxfp4 (fp4) experts and bf16 rest


def test_the_rooflines_caption_keeps_the_layouts_verdict(tmp_path):
    """gpt-oss-120b on 4 GB200 (tp 4 x ep 4): an 8k prefill right of the ridge whose all-reduces outlast its compute
    read "Compute-bound, right of the ridge" in figure 2's caption beside page 1's "interconnect" (a review); the
    caption now says the layout's verdict, and the three-modes table states the ridge over batch-1 decode's
    weight-reuse intensity (the active mix's 2/b, with the bf16 norms, router and K/V projections each GPU holds
    whole: 414x, where the held mean's b gave 213x)."""
    from genreport.present.figures.fig6_roofline import caption6

    path = tmp_path / "gb.yaml"
    path.write_text("kind: report\nname: gb\ntitle: t\nhardware: gb200\nmodel: gpt-oss-120b\n"
                    "precision: {weights: {experts: mxfp4, default: bf16}}\nparallelism: {tp: 4, ep: 4}\n"
                    "workloads:\n  decode: {batch: [1, 64], context: [8k]}\n  prefill: {prompt: [512, 8k]}\n")
    r = evaluate(load_spec(str(path)))
    assert list(r.verdicts["prefill_binds"]) == ["bandwidth", "interconnect"]
    text = caption6(r)
    assert "Interconnect-bound at the report's layout, as the tables say: prefill 8k" in text
    assert "Compute-bound" not in text and "Bandwidth-bound, left of the ridge: prefill 512" in text
    i_1 = r.value("weight_reuse_intensity", "seed", tokens=1)
    assert r.facts["ridge_reuses"] == pytest.approx(r.s("ridge_point") / i_1, rel=1e-12)
    assert round(r.facts["ridge_reuses"]) == 414


def test_a_class_the_model_lacks_and_a_set_compute_are_said_where_written(tmp_path, capsys):
    """Routed experts named on a dense Llama 3.1 8B hold no weight: a warning at the line (an error under --strict),
    where it was silent beside "mxfp4+bf16 weights".  A compute format the GPU lacks that a --set made is the
    option's doing: the error names the option, not the file's 'precision: bf16' line (a hostile-input review)."""
    path = tmp_path / "dense.yaml"
    path.write_text("kind: report\nname: dense\ntitle: t\nhardware: b200\nmodel: llama-3.1-8b\n"
                    "precision: {weights: {experts: mxfp4, default: bf16}}\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n")
    out = tmp_path / "out"
    assert cli_main([str(path), "-o", str(out), "--format", "json", "-q"]) == 0
    assert "dense.yaml:6:32: precision.weights.experts: warning: Llama 3.1 8B has no routed experts: experts mxfp4 " \
           "applies to no weight (hint: remove precision.weights.experts)" in capsys.readouterr().err
    assert cli_main([str(path), "-o", str(tmp_path / "strict"), "--format", "json", "--strict"]) == 1
    assert not (tmp_path / "strict").exists()
    plain = report(tmp_path, "bf16", hardware="h100-sxm", name="p")
    assert cli_main([plain, "-o", str(out), "--format", "json", "--set", "precision.compute=int4"]) == 1
    err = capsys.readouterr().err
    assert "--set precision.compute=int4: precision.compute: NVIDIA H100 SXM5 80GB has no dense int4 peak" in err


def test_two_matrices_of_one_shape_keep_their_own_numbers(tmp_path):
    """The ridge over b/2 of each matrix (B200: 5.492 PFLOP/s over 7.7 TB/s): gpt-oss-120b's bf16 attention
    projection and its MXFP4 FFN matrix are both 2,880 x 2,880; their crossovers (with activations) differ, 1,622
    and 236 tokens on GB200 for the review's spec, here each at its own b."""
    r = evaluate(load_spec(report(tmp_path, "{weights: {experts: mxfp4, default: bf16}}")))
    att, ffn = r.gemm
    assert (att["n"], att["m"]) == (ffn["n"], ffn["m"]) == (2880, 2880)
    assert att["key"] == {"n": 2880, "m": 2880} and ffn["key"] == {"n": 2880, "m": 2880, "b": 0.53125}
    assert r.value("gemm_crossover_tokens", "seed", n=2880, m=2880) == att["crossover"]
    assert r.value("gemm_crossover_tokens", "seed", n=2880, m=2880, b=0.53125) == ffn["crossover"]
    assert ffn["crossover"] < att["crossover"] / 5
    ridge = r.s("ridge_point")
    assert att["weight_crossover"] == pytest.approx(ridge * 2 / 2) and ffn["weight_crossover"] == pytest.approx(
        ridge * 0.53125 / 2)


def test_a_group_size_beside_no_integer_weights_is_said(tmp_path, capsys):
    """group_size counts one fp16 scale a group for int8/int4 weights only (spec.format_bytes); beside bf16 or MXFP4
    (fixed 32-value blocks) it was dropped unsaid (a hostile-input review); int4 experts take it."""
    plain = report(tmp_path, "{weights: bf16, group_size: 128}", hardware="h100-sxm", name="g")
    assert cli_main([plain, "-o", str(tmp_path / "o"), "--format", "json", "-q"]) == 0
    assert "precision.group_size: warning: group_size 128 applies to int8 and int4 weights only" in \
        capsys.readouterr().err
    used = report(tmp_path, "{weights: {experts: int4, default: bf16}, group_size: 128}", hardware="h100-sxm",
                  name="u")
    assert cli_main([used, "-o", str(tmp_path / "o"), "--format", "json", "-q", "--strict"]) == 0


def test_the_serial_estimate_runs_attention_at_its_own_peak(tmp_path):
    """The serial estimate charges the attention's scores and values at P_a, the slower of the compute format's and
    the KV cache's (env.attention_peak), the weights' FLOPs at P: gpt-oss-120b's blend on 4 GB200 is 6.103 PFLOP/s,
    its attention on a bf16 cache runs at bf16's 2.5 (specs/hardware/gb200.yaml: dense bf16 2.5, fp8 5 PFLOP/s),
    where the 8k prefill's attention was charged at the blend (a review: ~7% of the prefill).  By hand with the
    compiled formulas, one GPU of tp 4: (F_w / P + F_a / P_a) / (4 e_m), F_w = 2 N_p T + 2 V d, F_a = 2 L H_q d_h T^2.
    NVFP4 weights on a B200 with an fp8 cache: P 9 PFLOP/s (fp4), P_a 4.5 (fp8); one format (bf16): P_a = P."""
    from genreport.formulas.compiled import load
    from genreport.load.loader import load_hardware
    from genreport.model.env import attention_peak

    path = tmp_path / "gb.yaml"
    path.write_text("kind: report\nname: gb\ntitle: t\nhardware: gb200\nmodel: gpt-oss-120b\n"
                    "precision: {weights: {experts: mxfp4, default: bf16}}\nparallelism: {tp: 4, ep: 4}\n"
                    "workloads:\n  decode: {batch: [1, 64], context: [8k]}\n  prefill: {prompt: [8k]}\n")
    spec = load_spec(str(path))
    values = evaluate(spec).envs["seed"].card
    assert values["P_a"] == 2.5e15 and values["P"] == pytest.approx(6.103e15, rel=1e-3)
    q = load()["prefill_time_compute_serial"]
    v = {"L": 36.0, "H_q": 64.0, "d_h": 64.0, "N_p": 4.6e9, "V": 201088.0, "d": 2880.0, "T": 8192.0, "P": 6.1e15,
         "P_a": 2.5e15, "e_m": 0.8, "n_TP": 4.0, "n_PP": 1.0, "n_St": 1.0, "s_st": 0.0, "kappa_B": 1.0, "n_EP": 4.0, "N_x": 1.1e11, "E_x": 128.0,
         "k_e": 4.0, "m_P": 1.0, "N_R": 0.0}  # N_R: nothing held whole (tests/test_tp_copies.py counts it)
    f_w, f_a = 2 * 4.6e9 * 8192 + 2 * 201088 * 2880, 2 * 36 * 64 * 64 * 8192**2
    assert float(q(v)) == pytest.approx((f_w / 6.1e15 + f_a / 2.5e15) / (4 * 0.8), rel=1e-12)
    assert float(q({**v, "P_a": 6.1e15})) == pytest.approx((f_w + f_a) / 6.1e15 / (4 * 0.8), rel=1e-12)
    from genreport.load.objects import _precision
    from genreport.load.spec import on_hardware

    b200 = load_hardware(ROOT_SPECS / "hardware" / "b200.yaml")
    nv = on_hardware(_precision({"weights": "nvfp4", "kv_cache": "fp8"}), b200.dense)
    assert (nv.compute, attention_peak(nv, b200)) == ("fp4", 4.5e15)
    assert attention_peak(_precision("bf16"), b200) == b200.dense["bf16"]
