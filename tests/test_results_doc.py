"""Issue 33: results.json and docs/results.md agree for every documented quantity (the test walks the doc).

Every id in the doc's quantity tables is emitted, with the documented parameters and unit, by a build that
meets its condition (one card with a GEMM, training and measurements; a many-GPU layout with training, an
efficiency block and data parallelism), unless its row says it is only "defined" (a formula ``derive`` knows whose
values sit elsewhere); and every id a build emits is documented (``_exact`` is the other accounting of an id).
"""

from __future__ import annotations

import json
import re

import pytest
from genreport.commands.cli import main
from shared import ROOT

DOC = (ROOT / "docs" / "results.md").read_text()

MANY = """\
kind: report
name: many
title: Llama 3.1 70B on 16 H100, training and decode
hardware: h100-sxm
model: llama-3.1-70b
precision: bf16
parallelism: {tp: 8, dp: 2}
efficiency: {bandwidth: 0.8, compute: 0.6, source: {title: assumed for the test}}
workloads:
  decode: {batch: [1, 64], context: [1k, 8k]}
  prefill: {prompt: [2k]}
  training: {micro_batch_tokens: 8k, recipes: [bf16-grads]}
"""


def documented() -> dict[str, tuple[set[str], str, bool]]:
    """id -> (params, unit, emitted) from the quantity tables: '## Quantities' up to '## `inputs`', and the
    many-GPU section's table."""
    parts = [DOC[DOC.index("## Quantities"):DOC.index("## `inputs`")], DOC[DOC.index("## Many GPUs"):]]
    out = {}
    for part in parts:
        for qid, params, unit, meaning in re.findall(
                r"^\| `([a-z0-9_]+)`\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|(.*)\|\s*$", part, re.M):
            out[qid] = (set(re.findall(r"`([a-z_]+)`", params)), unit, "(defined" not in meaning)
    return out


@pytest.fixture(scope="module")
def emitted(tmp_path_factory) -> dict[str, tuple[set[str], str]]:
    tmp = tmp_path_factory.mktemp("doc")
    (tmp / "many.yaml").write_text(MANY)
    found = {}
    for spec in (ROOT / "specs" / "llama8b-h100.yaml", tmp / "many.yaml"):
        assert main([str(spec), "--format", "json", "-q", "-o", str(tmp / "out"), "--force"]) == 0
        name = "llama8b-h100" if spec.name.startswith("llama") else "many"
        for q in json.loads((tmp / "out" / name / "results.json").read_text())["quantities"]:
            found.setdefault(q["id"], (set(q["params"]), q["unit"]))
    return found


def test_every_documented_quantity_is_emitted_as_documented(emitted):
    doc = documented()
    assert len(doc) >= 70
    problems = []
    for qid, (params, unit, is_emitted) in sorted(doc.items()):
        if not is_emitted:
            continue
        if qid not in emitted:
            problems.append(f"{qid}: documented, never emitted")
            continue
        got_params, got_unit = emitted[qid]
        if got_params != params:
            problems.append(f"{qid}: params {sorted(got_params)}, the doc says {sorted(params)}")
        if unit not in ("-", "") and got_unit != unit:
            problems.append(f"{qid}: unit {got_unit!r}, the doc says {unit!r}")
    assert not problems, "\n".join(problems)


def test_every_emitted_quantity_is_documented(emitted):
    doc = documented()
    bases = {qid.removesuffix("_exact").removesuffix("_one_card") for qid in emitted}
    one_card = {"capacity", "weight_bytes", "weight_stream_time", "kv_capacity_tokens"}  # the doc's scope table lists these
    missing = sorted(b for b in bases if b not in doc and b not in one_card)
    assert not missing, missing
    assert "`weight_bytes_one_card`" in DOC


def test_the_derated_rate_is_a_quantity(emitted):
    """With an efficiency block, decode_tokens_per_s_derated is in 'quantities' (it sat only under 'derated')."""
    assert emitted["decode_tokens_per_s_derated"] == ({"batch", "context"}, "token/s")
