"""derive at the report's own point states the evaluation's entry there (one number, one place): for every committed
spec and every quantity derive can state at the spec's point (the workloads' first batch, context, prompt, recipe;
the serving chapter's point for its quantities), in both accountings, derive's value is the value results.json
states; where the printed formula at derive's inputs gives another number (a replica's round rate at a pipeline, MLA's
latent cache), derive says the report's scope and what the formula gives."""

from __future__ import annotations

import pytest
from genreport.commands.derive import _numbers, _parser
from genreport.commands.derive_values import report_of, stated_at_point
from genreport.errors import SpecError
from genreport.formulas.quantities import BY_ID
from genreport.model.values import key
from shared import COMMITTED, SPECS, evaluated


def _stated_by_derive(r, qid: str, acc: str):
    """derive's (value, why, scope lines, parameters) for ``qid`` at r's spec's point; None where derive cannot
    evaluate it there (an input the spec does not give)."""
    path = str(SPECS / r.spec.file.split("/")[-1])
    report_of(r.spec, r)  # the evaluation made once this session (tests/shared.py), not again by derive
    try:
        nums = _numbers(_parser().parse_args([qid, "--spec", path, "--accounting", acc]), acc, qid, r.spec)
        return (*stated_at_point(qid, nums, BY_ID[qid].unit, BY_ID[qid].integer), nums.params)
    except SpecError:
        return None


@pytest.mark.parametrize("name", COMMITTED)
def test_derive_at_the_reports_point_states_results_json(name):
    r = evaluated(name)
    found = 0
    for qid in sorted(BY_ID):
        for acc in ("seed", "exact"):
            got = _stated_by_derive(r, qid, acc)
            if got is None:
                continue
            value, why, _, params = got
            entry = r.index.get(key(qid + ("" if acc == "seed" else "_exact"), params, acc))
            if entry is None:
                continue
            found += 1
            assert value == entry.value, (qid, acc, params)
            if value is None:
                assert why == entry.reason and why, (qid, acc)
    assert found >= 60


def test_the_scope_where_the_formula_is_another_number():
    """DeepSeek-V3 caches MLA's latent and RoPE key, L (r + rho) b_kv = 61 x 576 x 1 B = 35,136 B a token
    (deepseek-ai/DeepSeek-V3 config.json: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers; fp8 cache), where
    the printed 2 L H_kv d_h b_kv is another number: derive states the report's and says whose it is."""
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    value, _, lines, _ = _stated_by_derive(r, "kv_bytes_per_token", r.lead)
    assert value == 61 * (512 + 64) * 1 == 35_136 == r.value("kv_bytes_per_token")
    assert lines[0].startswith("  scope: the report's value, one GPU's of tp 1 x pp 1 x ep 8 x dp 8")
    assert "the formula above at these inputs" in lines[1]
