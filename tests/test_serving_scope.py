"""What a serving row and a sentence count, where an expert-parallel group is wider than a replica (data-parallel
attention): found by a review of Qwen3-235B-A22B at tp 1 x dp 8 x ep 8."""

from __future__ import annotations

import pytest
from genreport.load.spec import Parallelism
from genreport.model.serving_report import alone_label, ep_group_replicas
from shared import evaluated, page


def test_the_first_row_is_one_request_a_replica_when_replicas_share_the_experts():
    """At tp 1 x dp 8 x ep 8 the MoE layers gather the tokens of the 8 replicas: batch 1 a replica is 8 requests, and
    the row read "one request alone" beside their experts and their tok/s per GPU (DeepSeek-V3's committed spec)."""
    assert ep_group_replicas(Parallelism(tp=1, dp=8, ep=8)) == 8
    assert alone_label(Parallelism(tp=1, dp=8, ep=8)) == "one request a replica (8 replicas share the experts: 8 at once)"
    assert alone_label(Parallelism(tp=8, ep=8)) == "one request alone"  # the group is the replica
    assert alone_label(Parallelism(tp=4, dp=2, ep=8)) == \
        "one request a replica (2 replicas share the experts: 2 at once)"
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    assert r.serving["rows"][0]["label"] == "one request a replica (8 replicas share the experts: 8 at once)"
    assert evaluated("llama70b-h100-tp8.yaml").serving["rows"][0]["label"] == "one request alone"


def test_the_prefill_a_group_shares_is_not_called_alone():
    """The rate figure's t_p and the pools' t_p,R are a prompt's prefill while every replica of the expert group
    prefills one (167 ms for DeepSeek-V3), not the TTFT of a prompt alone (82 ms): the chapter said "alone" and "the
    TTFT above" of them."""
    text = page("deepseek-v3-h200-ep8.yaml")
    assert "while each of the 8 replicas of its expert group prefills one" in text
    assert "with every replica of its expert group prefilling one at once (the rows' prefill; their TTFT is one prompt alone)" in text
    assert "the rows' TTFT (not the rate" not in text
    plain = page("llama70b-h100-tp8.yaml")
    assert "a prefill of the uncached prompt alone on one GPU" in plain and "the rows' TTFT (not the rate" in plain


def test_the_roofline_caption_says_a_prefill_point_is_the_groups_pass():
    """Qwen3-235B at tp 1 x dp 8 x ep 8: the roofline put prefill 512 right of the ridge ("compute-bound", the pass of
    the 8 replicas prefilling at once, m_P = 8) while chapter 3 and page 1 said bandwidth-bound (one prompt alone).
    The caption now says which pass the point is."""
    from genreport.present import figures

    ds = figures.captions(evaluated("deepseek-v3-h200-ep8.yaml"))["fig6-roofline"]
    assert "A prefill point is a pass of the expert group, each of its 8 replicas prefilling a prompt at once" in ds
    dense = figures.captions(evaluated("llama70b-h100-tp8.yaml"))["fig6-roofline"]
    assert "pass of the expert group" not in dense


L405_PP2 = """\
kind: report
name: l405-h100-tp8pp2
title: Llama 3.1 405B in bf16 on 16 H100 SXM (tp 8, pp 2, two nodes)
hardware: h100-sxm
model: llama-3.1-405b
precision: bf16
parallelism: {tp: 8, pp: 2}
workloads:
  decode: {batch: [1, 8], context: [1k, 32k]}
"""


def test_the_appendix_index_states_the_replicas_rate():
    """Llama 3.1 405B at tp 8 x pp 2: the appendix's index listed the token/s block's 65 tok/s (one GPU's ledgers,
    the arithmetic the body shows with its note) where results.json and the table state the replica's 32; it now
    states the replica's with the block's beside it."""
    import html as h
    import re

    from shared import evaluated_text, rendered

    r = evaluated_text(L405_PP2, "l405-h100-tp8pp2.yaml")
    stated = next(e.value for e in r.entries if e.id == "decode_tokens_per_s" and e.params == {"batch": 1,
                                                                                                "context": 32768})
    text = rendered(r)
    index = h.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text[text.index('id="appendix"'):])))
    row = re.search(r"decode token/s ceiling (\S+) tok/s \(one GPU's ledgers: (\S+) tok/s\) batch 1, context 32,768",
                    index)
    assert row, index[:2000]
    assert float(row.group(1)) == round(stated) and float(row.group(2)) > 1.9 * stated


def test_the_table_says_what_its_prefill_rows_count(capsys):
    """``genreport table`` of DeepSeek-V3 at tp 1 x dp 8 x ep 8: a prefill row's time is one prompt alone (2,048
    tokens: 35.7 ms) and its tok/s the group's pass (26,241: 78 ms a prompt); a note says so, as page 1 does, and
    only where the expert group is wider than a replica."""
    import json

    from genreport.commands.cli import main

    assert main(["table", "specs/deepseek-v3-h200-ep8.yaml", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    notes = [n["note"] for n in doc["notes"]]
    assert len(notes) == 1 and "while all 8 replicas of its expert group prefill at once" in notes[0]
    assert main(["table", "specs/llama70b-h100-tp8.yaml", "--format", "json"]) == 0
    assert "notes" not in json.loads(capsys.readouterr().out)


def test_a_what_ifs_table_names_its_quantities_and_what_does_not_fit():
    """The what-if's table listed raw ids (capacity_batch, decode_tokens_per_s) and "7,076 -> 3,538 tok/s" at
    batch 128 and context 8k, where the what-if holds 61 sequences: the title beside the id, and the rate of a batch
    the cache does not hold says how many fit (Llama 3.1 70B at tp 4 in place of tp 8).  The page of ``--set
    parallelism.tp=4`` (shared.page: a build's words, no figure or formula drawn)."""
    import html as h
    import re

    from shared import page as page_of

    page = page_of("llama70b-h100-tp8.yaml", ["parallelism.tp=4"])
    section = page[page.index('id="whatif"'):]
    rows = [re.sub(r"\s+", " ", h.unescape(re.sub(r"<[^>]+>", " ", r))).strip()
            for r in re.findall(r"<tr>(.*?)</tr>", section[:section.index("</table>")], re.S)]
    assert any(r.startswith("decode token/s ceiling decode_tokens_per_s batch 128, context 8,192 7,076 tok/s "
                            "3,538 tok/s (61 fit)") for r in rows), rows
    assert any(r.startswith("decode token/s ceiling decode_tokens_per_s batch 128, context 1,024 18,626 tok/s "
                            "9,314 tok/s 0.5×") for r in rows), rows


def test_a_what_if_that_holds_no_sequence_says_none_fits():
    """Llama 3.1 70B in bf16 on one H100 (``--set parallelism.tp=1``): 141 GB of weights on an 80 GB card hold no
    sequence at any context, and the what-if's rates said "24 tok/s (0 fit)" (review, stop 78): "(none fits)"."""
    import html as h
    import re

    from shared import page as page_of

    page = page_of("llama70b-h100-tp8.yaml", ["parallelism.tp=1"])
    section = page[page.index('id="whatif"'):]
    table = h.unescape(re.sub(r"<[^>]+>", " ", section[:section.index("</table>")]))
    assert "(0 fit)" not in table and re.search(r"24 tok/s \(none fits\)", re.sub(r"\s+", " ", table)), table


def test_page_1s_cheapest_layout_says_its_batch_where_no_users_are_given(capsys):
    """Without users the cheapest layout is searched at the batch the chapter's own layout may run, the engine's
    max_sequences (vLLM's max_num_seqs, 256 by default): it was plan's default of 64, so page 1 named a layout dearer
    than one plan lists at 256 while saying its own layout "meets them up to 256 sequences per replica" (two reviews:
    stop 78, and stop 88 on Qwen3-235B over 16 H100). The Llama 3.1 70B spec without its 128 users: page 1 states the
    cap, the chapter's cheapest is ``genreport plan SPEC``'s first row, and that is plan's first row at --batch 256."""
    import json

    from genreport.commands.cli import main
    from shared import ROOT, evaluated_text, html, page, spec_file

    text = (ROOT / "specs" / "llama70b-h100-tp8.yaml").read_text().replace("  users: 128\n", "")
    path = spec_file(text, "l70-no-users.yaml")
    page1 = " ".join(page(path).split("<section id=\"s1\"")[0].split())
    assert ", with at most 256 sequences a replica (chapter" in page1
    r = evaluated_text(text, "l70-no-users.yaml")
    assert r.serving["replica_batch"] == 256
    rows = {}
    for args in ([], ["--batch", "256"], ["--batch", "64"]):
        assert main(["plan", str(path), "--format", "json", *args]) == 0
        rows[tuple(args)] = json.loads(capsys.readouterr().out)["rows"][0]
    assert rows[()] == rows[("--batch", "256")]
    cheapest = r.serving["cheapest"]
    assert {k: cheapest[k] for k in ("tp", "pp", "ep", "dp", "batch")} == {k: rows[()][k] for k in ("tp", "pp", "ep", "dp", "batch")}
    assert cheapest["usd_per_request"] <= rows[("--batch", "64")]["usd_per_request"]
    with_users = " ".join(html("llama70b-h100-tp8.yaml").split("<section id=\"s1\"")[0].split())
    assert "sequences a replica (chapter" not in with_users


def test_a_groups_link_row_counts_its_members_and_their_span():
    """DeepSeek-V3 on 16 B200 over two nodes (tp 8 x dp 2 x ep 16): the dp group is 2 GPUs, one in each node; the
    inputs table said "dp group's link (scale-out, 16 GPUs)" beside chapter 6's 2 (a review)."""
    from genreport.present.render import _inputs
    from shared import evaluated_text

    r = evaluated_text("kind: report\nname: ds16\ntitle: t\nhardware: b200\nmodel: deepseek-v3\nprecision: fp8\n"
                       "parallelism: {tp: 8, dp: 2, ep: 16}\nworkloads:\n  decode: {batch: [1, 64], context: [4k]}\n",
                       "ds16.yaml")
    rows = {row["what"].split(" (")[0]: row["what"] for row in _inputs(r) if "group's link" in row["what"]}
    assert rows["dp group's link"].startswith("dp group's link (scale-out, 2 GPUs spread over 16)"), rows
    assert rows["tp group's link"].startswith("tp group's link (scale-up, 8 GPUs)"), rows


def test_chapter_3_names_the_layouts_interconnect_beside_the_gpus_roofs():
    """DeepSeek-V3 in NVFP4 on 16 B200 (tp 8 x dp 2 x ep 16): batch-1 decode is interconnect-bound at 1k and 8k
    (page 1, chapter 6), where chapter 3's "what caps performance" said "bandwidth" alone, the GPU's two roofs."""
    from shared import page as page_of
    from shared import spec_file

    text = ("kind: report\nname: ds16n\ntitle: t\nhardware: b200\nmodel: deepseek-v3\n"
            "precision: {weights: nvfp4, kv_cache: fp8}\nparallelism: {tp: 8, ep: 16, dp: 2}\n"
            "workloads:\n  decode: {batch: [1, 32], context: [1k, 8k, 32k]}\n  prefill: {prompt: [512]}\n")
    page = " ".join(page_of(spec_file(text, "ds16n.yaml")).split())
    assert ("bandwidth of the GPU's two roofs; the interconnect at this layout at 2 of the 3 contexts (chapter 6)"
            in page), page[page.find("what caps performance"):][:600]
    # and the levers' chapter, whose times are the replica's batch-1 round, says the links hold it: no lever of the
    # GPU's own gains there (it said "the batch-1 bound follows bandwidth one for one" beside a 1.5x gain)
    from genreport.model.layout import decode_ledgers_at
    from shared import evaluated_text

    r = evaluated_text(text, "ds16n.yaml")
    led = decode_ledgers_at(r.spec, r.lead, 1.0, 0.0)
    assert led["interconnect"] == led["bound"] > max(led["compute"], led["bandwidth"])
    rows = {lv["lever"]: lv for lv in r.levers if lv["kind"] == "time"}
    assert set(rows) == {"weights-int4", "bandwidth-1.5", "peak-2"}  # int4 (0.516 B) below NVFP4's 0.5625
    for lv in rows.values():
        assert lv["before"] == lv["after"] == led["bound"] and lv["gain"] == 1.0
        assert lv["note"] == "no gain while the links hold the batch-1 round"
        assert f"<td>{lv['change']}</td>" in page or lv["change"] in page
    assert "no gain while the links hold the batch-1 round" in page
    assert "the interconnect at this layout" not in page_of("llama70b-h100-tp8.yaml")  # batch 1 reads HBM there


def test_a_layouts_attention_intensity_is_said_per_gpu_beside_the_models():
    """DeepSeek-V3 at tp 8: each GPU runs 16 of the 128 query heads over the whole latent cache (MLA's is not split
    by head), so its attention intensity is 60 FLOP/B where the model's is 484; chapter 4 said "Its attention
    intensity is 60" (a review).  Both now, and the page's prose computes the same (results' one-card entry)."""
    from genreport.present import prose
    from shared import evaluated_text

    r = evaluated_text("kind: report\nname: ds16a\ntitle: t\nhardware: b200\nmodel: deepseek-v3\n"
                       "precision: {weights: nvfp4, kv_cache: fp8}\nparallelism: {tp: 8, ep: 16, dp: 2}\n"
                       "workloads:\n  decode: {batch: [1, 32], context: [4k]}\n", "ds16a.yaml")
    text = prose.attention_text(r)
    assert ("Its attention intensity is 60 FLOP/B on one GPU of the layout (its 16 query heads over the cache it "
            "holds; the whole model's is 484) at fp8 KV" in text), text
    assert r.value("attention_intensity_one_card") == pytest.approx(484, abs=0.5)
    assert "on one GPU of the layout" not in prose.attention_text(evaluated("llama70b-h100-tp8.yaml"))  # the same 8


def test_the_cheapest_layout_says_its_tensor_parallel_group_crosses_nodes(tmp_path):
    """QA, stop 75: page 1 and the serving chapter named "16 GPUs, tp 16" the cheapest for Llama 3.1 405B fp8 on H100
    (1,000 users, 2k + 256, half of each prompt cached) where plan marks tp 16*: its all-reduces cross the scale-out
    network between two 8-GPU nodes.  Both sentences say so where the cheapest layout's tp group leaves the node."""
    import re

    from shared import evaluated_text, rendered

    r = evaluated_text(
        "kind: report\nname: l405\ntitle: 405B on H100\nhardware: h100-sxm\nmodel: llama-3.1-405b\nprecision: fp8\n"
        "parallelism: {tp: 8, pp: 2}\nworkloads:\n  decode: {batch: [1, 8], context: [1k]}\n"
        "serving: {prompt: 2k, output: 256, ttft: 3 s, tpot: 50 ms, users: 1000, prefix_hit: 0.5}\n", "l405.yaml")
    c = r.serving["cheapest"]
    crosses = "tp" in c["scale_out_groups"] and "tp: scale-out" in c["links"]
    for section, words in (("sections/s9_serving.html.j2", "its tensor-parallel group across nodes: its all-reduces "
                                                             "cross the scale-out network"),
                           ("sections/s0_summary.html.j2", "its tensor-parallel group across nodes, over the "
                                                           "scale-out network")):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, section)))
        assert (words in text) == crosses, (section, c["tp"], c["links"])
    assert crosses and c["tp"] > 8  # the case the review found: the group is wider than an HGX H100's 8 GPUs


def test_page_1s_cheapest_layout_without_an_engine_limit_says_as_many_as_fit():
    """The 8B spec's engine sets no max_sequences (0, as the seeds assume): the cheapest layout is searched at the
    chapter's cap, 65,536, which no one wrote; page 1 and chapter 7 said "with at most 65,536 sequences a replica" (a
    review of stop 88). They say as many as fit, results.json keeps the number and says the engine does not set it."""
    import re

    from shared import evaluated, page

    over = ["serving={prompt: 1k, output: 128, tpot: 20 ms}"]
    text = " ".join(re.sub(r"<[^>]+>", "", page("llama8b-h100.yaml", over)).split())
    assert "with as many sequences a replica as fit (no engine limit)" in text and "65,536 sequences" not in text
    sv = evaluated("llama8b-h100.yaml", over).serving
    assert sv["replica_batch"] == 65_536 and sv["replica_batch_engine"] is False
