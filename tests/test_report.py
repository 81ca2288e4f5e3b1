"""The report a reader opens: numbers of seed 003 in the HTML and PDF, figures present, bytes stable.

Reference values: seed 003 (Llama 3.1 8B, bf16, one H100 SXM), as listed in the project's
seed-claims table (claim ids in tests/test_seed_claims.py); seed 000 for the 70B / H200 pair.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from genreport.write.build import build
from shared import ROOT, evaluated
from shared import built as shared_built
from shared import html as shared_html
from shared import page as page_of

_FIGURE_URI = re.compile(r'data:image/svg\+xml;base64,PD94bWwg[^"]*"')  # a figure's SVG ("<?xml "), not a formula's
_FORMULA_URI = re.compile(r'(<img class="math(?:-inline)?" alt="[^"]*"(?: style="vertical-align:)?)([-0-9.]*)(px")?'
                          r'( src="data:image/svg\+xml;base64,)[^"]*"')


def _emptied(html: str) -> str:
    """``html`` with each figure's and each formula's data URI that of an empty SVG (an inline formula at the
    baseline), as ``shared.page`` writes them."""
    html = _FORMULA_URI.sub(lambda m: m.group(1) + ("0.00" + m.group(3) if m.group(3) else "") + m.group(4) + '"', html)
    return _FIGURE_URI.sub('data:image/svg+xml;base64,"', html)

SPEC = ROOT / "specs" / "llama8b-h100.yaml"

# (text the report must contain, what it is; claim id in seed-claims)
SEED_003_NUMBERS = [
    ("4.79 ms", "memory lower bound, batch 1 (s003-decode-tmem-h100)"),
    ("0.0162 ms", "compute lower bound, batch 1 (s003-decode-tcomp-h100)"),
    ("295", "ridge and tokens per bandwidth window (s003-ridge-h100)"),
    ("124", "ceiling at 1k (s003-decode-ceiling-1k)"),
    ("19 FLOP/B", "ceiling at 8k (s003-decode-ceiling-8k)"),
    ("421", "critical context (s003-critical-context)"),
    ("425", "batch crossing the ridge at 128 (s003-batch-to-cross-at-128)"),
    ("532,831", "KV tokens that fit, ~53.3 万 (s003-kv-capacity-tokens)"),
    ("65 sequences", "capacity batch at 8k (s003-batch-cap-8k)"),
    ("is 15", "intensity at the capacity batch, 8k (s003-intensity-at-cap-8k)"),
    ("16.06 GB", "weights (s003-weights-gb)"),
    ("14.96 GiB", "weights (s003-weights-gib)"),
    ("128.5 GB", "16 B/param (s003-train-16-gb)"),
    ("119.7 GiB", "16 B/param (s003-train-16-gib)"),
    ("144.5 GB", "18 B/param (s003-train-18-gb)"),
    ("134.6 GiB", "18 B/param (s003-train-18-gib)"),
    ("65.04 GiB", "KV cache beside the weights (s003-infer-kv-gib)"),
    ("2,048", "2k prefill weight reuse and 4096^2 saturation (s003-prefill-2k-weight-reuse)"),
    ("1,024", "2k prefill with activations (s003-prefill-2k-full)"),
    ("1,638", "8k micro-batch with activations (s003-training-microbatch-8k-full)"),
    ("3,186", "FFN matrix saturation (s003-full-intensity-sat-ffn)"),
    ("345", "tokens per load to reach the ridge (s003-crossover-4096)"),
    ("228", "256-token prefill, full intensity (s003-prefill-256-full)"),
    ("591", "FP8 ridge ~590 (s003-fp8-ridge)"),
    ("compute 3.17×", "A100 -> H100 compute (s003-a100-h100-compute-ratio)"),
    ("batch-1 decode 1.64×", "A100 -> H100 decode follows bandwidth (s003-decode-speedup-tracks-bw)"),
    ("128 KiB", "KV bytes per token (s003-kv-bytes-per-token)"),
    ("80.8%", "FFN share of block parameters, the corrected slip (s003-ffn-param-share)"),
    ("75.1%", "FFN share of streamed bytes, the corrected slip (s003-ffn-traffic-share)"),
]


@pytest.fixture(scope="module")
def built():
    """The session's build of the 8B report (tests/shared.py; tests/test_print_layout.py reads its PDF too)."""
    return shared_built(SPEC.name, ("html", "pdf", "json"))


def _text(html: str) -> str:
    text = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"\s+", " ", text.replace("&#39;", "'").replace("&amp;", "&"))


@pytest.mark.parametrize("needle,what", SEED_003_NUMBERS)
def test_html_states_seed_003_number(built, needle, what):
    assert needle in _text(built.files["report.html"].decode()), what


def test_html_is_self_contained(built):
    html = built.files["report.html"].decode()
    assert "<script" not in html.split("<!-- genreport live what-if -->")[0].lower()  # the live what-if's alone
    assert not re.search(r'(src|href)="(https?:)?//', html), "the report must fetch nothing"
    assert html.count("<figure") == 9
    numbers = [int(n) for n in re.findall(r"<strong>Figure (\d+)\.</strong>", html)]
    assert numbers == list(range(1, 10)), numbers  # numbered in order of appearance
    assert html.count('class="math"') >= 20


def test_figures_are_svg(built):
    figs = {k: v for k, v in built.files.items() if k.startswith("figures/")}
    assert sorted(figs) == [f"figures/{n}.svg" for n in (
        "fig1-decode-bounds", "fig2-three-modes", "fig3-intensity-ruler", "fig4-decode-intensity",
        "fig5-memory-ledger", "fig6-roofline", "fig7-serving", "fig8-gpus", "fig9-gpu-rates")]
    for data in figs.values():
        assert data.startswith(b"<?xml") and b"<svg" in data and len(data) > 5000


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed (scripts/setup --test)")
def test_pdf_text_and_pages(built, tmp_path):
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(built.files["report.pdf"])
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    assert 6 <= pages <= 30
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = re.sub(r"\s+", " ", text)
    for needle in ("4.79 ms", "421", "425", "14.96 GiB", "119.7 GiB", "Figure 6.", "Appendix"):
        assert needle in flat, needle


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils not installed")
def test_pdf_figures_are_not_blank(built, tmp_path):
    from PIL import Image

    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(built.files["report.pdf"])
    subprocess.run(["pdftoppm", "-r", "30", "-gray", str(pdf), str(tmp_path / "p")], check=True)  # PGM: no PNG encoding
    pages = sorted(tmp_path.glob("p-*.pgm"))
    inked = []
    for page in pages:
        im = Image.open(page).convert("L")
        hist = im.histogram()
        inked.append(1 - hist[255] / sum(hist))
    assert all(x > 0.01 for x in inked), "a blank page"
    assert max(inked) > 0.10, "no page carries a figure-sized amount of ink"


def test_build_twice_same_bytes(built):
    again = build(SPEC, formats=("html", "pdf", "json"))
    for name in ("report.html", "results.json", "report.pdf"):  # PDF too: same fonts and versions here
        assert again.files[name] == built.files[name], name
    for name, data in again.files.items():
        if name.startswith("figures/"):
            assert data == built.files[name], name


def test_h200_70b_tells_its_own_story():
    """Seed 000's 70B on an H200: ridge ~206, a faster bound than on the H100, no H100 numbers left over."""
    def body(name):  # the argument itself: summary to section 5 (the comparison table names the other card)
        html = shared_html(name)
        return _text(html[html.index('id="s0"'):html.index('id="s6"')])

    h200, h100 = body("seed000-70b-h200.yaml"), body("seed000-70b-h100.yaml")
    assert "ridge 206" in h200
    assert "29.2 ms" in h200  # 140 GB / 4.8 TB/s (seed-claims derived_not_stated: h200_70b_bf16_decode_ms 29.17)
    assert "41.8 ms" in h100  # 140 GB / 3.35 TB/s, ~42 ms (s000-70b-decode-time)
    assert "41.8 ms" not in h200 and "ridge 295" not in h200[:h200.index("1. A machine")]
    for text in (h200, h100):
        assert "exceed the card" in text or "does not fit" in text  # 140 GB of weights vs one card


def test_the_page_without_figures_is_the_builds_page():
    """``shared.page``, which the tests reading a page's words use in place of a build (no figure or formula drawn),
    is the page a build writes but for the figures' and formulas' data URIs: the 8B report's (the session's build, tests/test_golden.py
    compares it with out/); a what-if over its baseline in test_measured_roof_is_drawn_under_the_datasheet_roof."""
    built = shared_html(SPEC.name)
    assert len(_FIGURE_URI.findall(built)) == 18  # nine figures, wide and phone
    assert len(_FORMULA_URI.findall(built)) >= 90 and '<img class="math' not in _FORMULA_URI.sub("", built)
    assert page_of(SPEC.name) == _emptied(built)


def test_model_that_does_not_fit_is_stated(tmp_path):
    text = _text(page_of(SPEC.name, ("hardware.memory.capacity=8 GiB",)))
    summary = text[text.index("0. Summary", text.index("0. Summary") + 1):]
    assert summary.index("does not fit") < summary.index("1. A machine waiting")  # page 1 says it first
    assert "it fits with int8 weights" in summary or "it fits with fp8 weights" in summary
    assert "No KV cache fits" in text


def test_efficiency_gives_a_labelled_derated_estimate(tmp_path):
    text = SPEC.read_text().replace("compare:\n", "efficiency:\n  bandwidth: 0.75\n  compute: 0.6\n  source:\n"
                                    "    title: assumed for this test\ncompare:\n")
    spec = tmp_path / "eff.yaml"
    spec.write_text(text)
    html = _text(page_of(spec))
    assert "Derated estimate" in html
    assert "208 → 156 tok/s" in html  # batch 1, context 128: 0.75 of the bandwidth-bound 208 tok/s


def test_measured_roof_is_drawn_under_the_datasheet_roof():
    built = build(SPEC, formats=("html",), overrides=("hardware.measured.bandwidth=2.9 TB/s",))
    text = _text(built.files["report.html"].decode())
    assert "Dash-dotted: the roof measured on this machine by genreport calibrate (989 TFLOP/s, 2,900 GB/s)" in text
    assert b"measured (calibrate), ridge 341" in built.files["figures/fig6-roofline.svg"]
    # the page the tests read without figures is this what-if's page (its baseline's rows included)
    what_if = page_of(SPEC.name, ("hardware.measured.bandwidth=2.9 TB/s",))
    assert what_if == _emptied(built.files["report.html"].decode())


@pytest.mark.parametrize("model,needles", [
    # Mixtral 8x7B: top-2 of 8; one token reads 2 experts, a batch of 16 nearly all (8 (1 - 0.75^16) = 7.92)
    ("mixtral-8x7b", ["is a mixture of experts", "batch 1: 2 of 8 experts per layer", "batch 16: 7.92 of 8"]),
    # DeepSeek-V3 MLA: 61 layers x (512 + 64) x 2 B = 70,272 B per token (kv_lora_rank 512, RoPE 64)
    ("deepseek-v3", ["multi-head latent attention", "61 × 576 × 2 = 70,272 B", "is a mixture of experts"]),
])
def test_moe_and_mla_reports_explain_what_differs(tmp_path, model, needles):
    spec = tmp_path / f"{model}.yaml"
    spec.write_text(f"kind: report\nname: {model}\ntitle: {model} on H200\nhardware: h200\nmodel: {model}\n"
                    "precision: bf16\nworkloads:\n  decode: {batch: [1, 16], context: [1k, 8k]}\n")
    text = _text(page_of(spec))
    for needle in needles:
        assert needle in text, needle


def test_seed_000_reports_hold_its_tables():
    """Issue 15: seed 000's memory hierarchy (this GPU's sizes) and its three-state diagnosis table."""
    text = _text(shared_html("seed000-70b-h100.yaml"))
    assert "Where the data lives" in text and "256 KiB per SM" in text and "50 MB" in text  # H100 architecture
    assert "Diagnosing a real run" in text
    for state in ("memory-bound", "compute-bound", "overhead-bound"):
        assert state in text
    assert "Where the data lives" not in _text(shared_html("llama8b-h100.yaml"))


def test_moe_sentence_exponent_counts_the_tokens_an_ep_group_gathers():
    """Chapter 1 wrote E (1 - (1 - k/E)^B) beside values taken at 8 B tokens: DeepSeek-V3 at tp 1 x ep 8 x dp 8
    said "batch 1: 57.4 of 256 experts", which is 256 (1 - (1 - 8/256)^8), not the 8 one token touches.  The
    exponent the sentence prints must give the values it lists (k 8 of E 256: DeepSeek-V3 config.json)."""
    import re

    from genreport.present import prose

    text = prose.moe_text(evaluated("deepseek-v3-h200-ep8.yaml"))
    (gather,) = re.findall(r"\(1 − k/E\)\^\((\d+) B\)", text)
    points = re.findall(r"batch (\d+): ([\d.]+) of 256 experts", text)
    assert gather == "8" and points
    for batch, touched in points:
        assert float(touched) == pytest.approx(256 * (1 - (1 - 8 / 256) ** (8 * int(batch))), rel=5e-3)


def test_the_moe_paragraph_counts_its_dense_layers_in_words():
    """Kimi K2 and DeepSeek-V3's successors keep one dense layer first (first_k_dense_replace 1): the paragraph said
    "the first 1 layers are dense"; DeepSeek-V3's 3 keep the plural."""
    from genreport.present import prose

    assert "; the first 3 layers are dense, so" in prose.moe_text(evaluated("deepseek-v3-h200-ep8.yaml"))
    one = prose.moe_text(evaluated("deepseek-v3-h200-ep8.yaml", ["model.moe.first_dense_layers=1"]))
    assert "; the first layer is dense, so" in one and "first 1 layers" not in one
    assert "dense, so" not in prose.moe_text(evaluated("deepseek-v3-h200-ep8.yaml", ["model.moe.first_dense_layers=0"]))


def test_page1_kv_headline_of_a_model_windowed_in_every_layer(tmp_path):
    """Phi-3 mini (sliding_window 2047 in all 32 layers, specs/models/phi-3-mini.yaml): page 1 said "past it 0 KiB
    per token in the 0 global layers plus 767.6 MiB per sequence"; with no global layer it states the fixed cache."""
    import re

    spec = tmp_path / "phi.yaml"
    spec.write_text("kind: report\nname: phi\ntitle: t\nhardware: rtx-4090\nmodel: phi-3-mini\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1], context: [4k]}\n")
    text = re.sub(r"<[^>]+>", "", page_of(spec))
    assert "0 global layers" not in text
    assert "past it a fixed 767.6 MiB per sequence, every one of the 32 layers windowed" in text


def test_page1_kv_headline_past_the_window_has_each_gpus_share_at_a_layout(tmp_path):
    """gpt-oss-120b at tp 4 (8 KV heads of 64, bf16; 18 global and 18 windowed layers of 128, config.json): page 1
    read "18 KiB per token on each GPU ... past it 36 KiB per token", the whole model's beside a GPU's, as if a GPU's
    cache grew past the window.  Each GPU's share is stated beside it: 36 / 4 = 9 KiB, 4.5 / 4 = 1.125 MiB."""
    from genreport.present.render import _env

    spec = tmp_path / "oss.yaml"
    spec.write_text("kind: report\nname: oss\ntitle: t\nhardware: h100-sxm\nmodel: gpt-oss-120b\n"
                    "precision: {weights: checkpoint, kv_cache: bf16, compute: bf16}\nparallelism: {tp: 4}\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n")
    facts = evaluated(spec).facts
    assert facts["kv_global_per_token"] == 18 * 2 * 8 * 64 * 2
    assert facts["kv_global_per_token_gpu"] == 18 * 2 * 2 * 64 * 2
    assert facts["kv_windowed_per_sequence_gpu"] == 18 * 128 * 2 * 2 * 64 * 2
    src = (ROOT / "templates" / "sections" / "s0_summary.html.j2").read_text(encoding="utf-8")
    start = src.index("past it {% if facts.kv_global_layers %}")
    text = _env().from_string(src[start:src.index("</span>", start)]).render(facts=facts)
    assert "(9 KiB and 1.125 MiB on each GPU)" in text


def test_a_batch_whose_cache_does_not_fit_is_said_to_be_held_by_the_capacity():
    """Hostile review, stop 75: decode at batch 1,024 and context 128k on one H100 (4 sequences of 131,072 tokens fit:
    532,831 KV tokens) printed "binds at batch 1024: bandwidth" and "fits: yes" where the decision table says the
    capacity binds and it does not fit; page 1 said "No batch larger than the first fits" of a first that does not."""
    from genreport.present.summary import sentences, terminal_lines
    from shared import evaluated

    r = evaluated("llama8b-h100.yaml", ("workloads.decode.batch=[1024]", "workloads.decode.context=[128k]"))
    assert not r.decision[0]["fits"] and r.decision[0]["binds"] == "capacity"
    assert r.s("kv_capacity_tokens") // 131_072 == 4
    lines = terminal_lines(r)
    assert lines[0].startswith("  binds at batch 1024: capacity (4 sequences of 131,072 tokens fit; were it to fit, "
                               "bandwidth-bound at"), lines
    assert lines[1].endswith("(were it to fit)") and lines[2].startswith("  fits: the weights only, ")
    said = sentences(r)
    assert said[0].startswith("Decode at batch 1,024 and context 131,072 does not fit: 4 sequences of 131,072 tokens "
                              "fit; were it to fit, it would be bandwidth-bound"), said
    assert "None of the spec's batches fits" in said[1] and not any("No batch larger" in x for x in said)
    fitting = terminal_lines(evaluated("llama8b-h100.yaml"))  # as before where the first batch fits
    assert fitting[0].startswith("  binds at batch 1: bandwidth") and fitting[2].startswith("  fits: yes, ")


def test_the_inputs_say_the_checkpoint_as_shipped_where_the_spec_reads_other_formats():
    """Deployment review, stop 75: DeepSeek-V3 at fp8 throughout reads its bf16 embeddings and head at half their
    bytes, which decided 16 against 32 H100s for 2,000 users, and the report did not say the checkpoint ships them
    in bf16 (its config.json quantization_config: fp8 blocks, the embeddings and head left out).  The inputs table's
    bytes-per-weight row says what the checkpoint ships and how to take it; a spec at its checkpoint's format says
    nothing more."""
    from genreport.present.render import _inputs
    from shared import evaluated

    def source(spec, overrides=()):
        rows = _inputs(evaluated(spec, overrides))
        return next(x["source"] for x in rows if x["symbol"] == "b")

    assert source("deepseek-v3-h200-ep8.yaml").endswith(
        "the checkpoint as shipped: routed experts fp8_block, attention projections fp8_block, embedding and output "
        "head bf16, the rest (dense FFN, shared experts, router, norms) fp8_block (precision: checkpoint takes them)")
    assert "as shipped" not in source("deepseek-v3-h200-ep8.yaml", ("precision=checkpoint",))
    assert source("llama8b-h100.yaml") == "precision"  # bf16, as Meta ships it
