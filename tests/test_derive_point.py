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
    the printed 2 L H_kv d_h b_kv is another form: derive states the report's and says whose it is."""
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    value, _, lines, _ = _stated_by_derive(r, "kv_bytes_per_token", r.lead)
    assert value == 61 * (512 + 64) * 1 == 35_136 == r.value("kv_bytes_per_token")
    assert lines[0].startswith("  scope: the report's value, one GPU's of tp 1 x pp 1 x ep 8 x dp 8")
    # the printed form is not MLA's: derive says so rather than evaluating it at d_h = 544 beside the report's value
    assert "the formula above is the keys' and values' form" in lines[1] and "not a number" not in lines[1]


def test_a_layout_s_value_says_whose_it_is_where_the_formula_agrees(capsys):
    """Llama 3.1 70B on 8 H100 (tp 8) at batch 64, context 8192: the printed formula gives the number the report
    states, 5,479.57 tok/s (one replica's, all 8 GPUs'), and derive says whose it is, as it did only where the two
    differ; the KV bytes per token, 40,960 B, are one GPU's (80 layers x 2 x 1 KV head x 128 x 2 B)."""
    from genreport.commands.cli import main

    assert main(["derive", "decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp8.yaml", "--batch", "64",
                 "--context", "8192"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2].startswith("  tok_s = 5479.57")
    assert lines[-1] == ("  scope: one replica's (8 GPUs of tp 8 x pp 1 x ep 1 x dp 1) (results.json: "
                         "decode_tokens_per_s at batch = 64, context = 8192)")
    # the point in one --at, in the words of --batch and --context (QA, stop 81: it read '64,context=8k' as a value)
    assert main(["derive", "decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp8.yaml", "--at",
                 "batch=64,context=8k"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-2:] == lines[-2:]
    assert main(["derive", "kv_bytes_per_token", "--spec", "specs/llama70b-h100-tp8.yaml"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2].startswith("  c = 40960 B") and 80 * 2 * 1 * 128 * 2 == 40960
    assert lines[-1] == "  scope: one GPU's of tp 8 x pp 1 x ep 1 x dp 1 (results.json: kv_bytes_per_token)"
    assert main(["derive", "kv_bytes_per_token", "--spec", "specs/llama8b-h100.yaml"]) == 0  # one card: no line
    assert "scope" not in capsys.readouterr().out


def test_a_serving_rate_at_a_layout_says_it_is_one_replicas(capsys):
    """DeepSeek-V3 on 8 H200 with data-parallel attention: the TPOT target's highest rate, lambda_theta, is one
    replica's (one GPU of tp 1 x ep 8 x dp 8), as the serving chapter states "the goodput of one replica"; derive
    printed the number alone (results.json does not list the chapter's rates, so no entry gave it a scope)."""
    from genreport.commands.cli import main

    assert main(["derive", "goodput_rate_tpot", "--spec", "specs/deepseek-v3-h200-ep8.yaml"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2].startswith("  lambda_theta = ")
    assert lines[-1] == ("  scope: one replica's (1 GPU of tp 1 x pp 1 x ep 8 x dp 8), as the serving chapter "
                         "states it")


def test_derive_states_the_training_state_of_the_whole_model_and_whole_tokens(tmp_path, capsys):
    """Qwen2.5 72B in bf16 on 4 H20 (tp 4) training 8k-token micro-batches: chapter 5 states the whole model's state,
    k N = 16 B x 72.7e9 = 1.163 TB (ZeRO's mixed-precision Adam, Rajbhandari et al. SC'20, section 3; Qwen/Qwen2.5-72B
    model card: 72.7B parameters). derive substituted one GPU's N_g = 18.2e9 and printed "not a number the report
    states: 290.8 GB"; it now takes N. Its KV tokens that fit, 679,123.69 per replica, the report states cut to
    679,123; derive's six significant digits read 679124, and now give the floor too."""
    from genreport.commands.cli import main

    path = tmp_path / "q72.yaml"
    path.write_text("""\
kind: report
name: q72
title: Qwen2.5 72B on 4 H20
hardware: h20
model: qwen2.5-72b
precision: bf16
parallelism: {tp: 4}
workloads:
  decode: {batch: [1], context: [1k]}
  training: {micro_batch_tokens: 8k, recipes: [bf16-grads]}
""", encoding="utf-8")
    assert main(["derive", "training_state_bytes", "--spec", str(path)]) == 0
    out = capsys.readouterr().out
    assert "inputs: N = 7.27e+10, k = 16 B" in out and "training_state_bytes = 1.1632e+12 B (1.163 TB)" in out
    assert "not a number the report states" not in out and "N_g" not in out
    assert main(["derive", "kv_capacity_tokens", "--spec", str(path)]) == 0
    out = capsys.readouterr().out
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    stated = evaluate(load_report(path)).value("kv_capacity_tokens")
    assert stated != int(stated) and f"(floor: {int(stated)})" in out
    # a mean count of tokens is not cut: E = (1 - 0.7^5) / 0.3 = 2.77 tokens a verify step (Leviathan et al. eq. 1)
    served = tmp_path / "q72s.yaml"
    served.write_text(path.read_text(encoding="utf-8")
                      + "serving: {prompt: 2k, output: 512, speculative: {draft_tokens: 4, acceptance: 0.7}}\n",
                      encoding="utf-8")
    assert main(["derive", "speculative_expected_tokens", "--spec", str(served)]) == 0
    out = capsys.readouterr().out
    assert "E = 2.7731 token\n" in out and "floor" not in out


def test_derive_of_a_short_moe_prompt_says_which_experts_it_reads(capsys):
    """derive evaluates a prefill quantity of a mixture of experts at the weights its T tokens read, as the report
    does (layout.at_prompt), and says so: DeepSeek-V3 with data-parallel attention over 8 H200, 4 tokens a replica,
    the ep group of 8 gathering 32: 256 (1 - (1 - 8/256)^32) = 163 of 256 experts a layer; its value is the layout's
    own evaluation at that prompt; a dense model's gets no such line."""
    import numpy as np
    from genreport.commands.cli import main
    from genreport.formulas.compiled import load
    from genreport.load.loader import load_report
    from genreport.model.layout import point_values

    spec = SPECS / "deepseek-v3-h200-ep8.yaml"
    assert main(["derive", "prefill_time_bound", "--spec", str(spec), "--tokens", "4", "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert 256 * (1 - (1 - 8 / 256) ** 32) == pytest.approx(163.31, abs=0.005)
    assert "N the weights the 4 tokens read: 163 of 256 experts a layer" in out and "gathers 8 replicas'" in out
    want = float(np.ravel(load()["prefill_time_bound"](point_values(load_report(spec), "seed", "prefill_time_bound",
                                                                      tokens=4.0)))[0])
    assert f"t_bound,pre = {want:.6g} s" in out
    assert main(["derive", "prefill_time_bound", "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--tokens", "4",
                 "--no-latex"]) == 0
    assert "experts a layer" not in capsys.readouterr().out


DEEPSEEK_ONE_CARD = """kind: report
name: ds-mi325x
title: DeepSeek-V3 on one MI325X
hardware: mi325x
model: deepseek-v3
precision: int4
workloads:
  decode: {batch: [1, 64], context: [2k]}
"""


def test_a_mixture_of_experts_n_is_named_as_what_the_step_streams(capsys, tmp_path):
    """derive's inputs gave a mixture of experts' N at the point as "N = 3.7e+10" (DeepSeek-V3 at batch 1: the
    37e9 active parameters a token streams, DeepSeek-V3 Technical Report, arXiv:2412.19437), beside a glossary whose N
    is the 671e9 the model holds. It names it as the report's formula blocks do: N_a at batch 1, N_s where a batch
    touches more experts, N_s where the formula has its own N_a (the layout's bound), and says what it stands for."""
    from genreport.commands.cli import main

    spec = tmp_path / "ds.yaml"
    spec.write_text(DEEPSEEK_ONE_CARD)
    assert main(["derive", "decode_time_memory", "--spec", str(spec), "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "inputs: B = 1, N_a = 3.7e+10, S = 2048 token" in out
    assert ("N_a stands for N in the formula, the weights the step streams (the dense layers and the experts its "
            "tokens touch), of the 6.71e+11 the model holds") in out
    assert main(["derive", "decode_time_memory", "--spec", str(spec), "--batch", "64", "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "inputs: B = 64, N_s = " in out and "N_s stands for N in the formula" in out and " N = " not in out
    assert main(["derive", "decode_time_bound", "--spec", "specs/deepseek-v3-h200-ep8.yaml", "--set",
                 "parallelism.tp=8", "--set", "parallelism.dp=1", "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "N_s = 3.7e+10, N_R = 7.21633e+09, N_a = 3.7e+10" in out  # the whole model's, the formula dividing it: two names
    assert main(["derive", "decode_time_memory", "--spec", "specs/llama8b-h100.yaml", "--no-latex"]) == 0
    assert "stands for N" not in capsys.readouterr().out  # a dense model on one card reads its N


def _scope_table() -> dict[str, set[str]]:
    """docs/results.md's "Scope" table: scope -> the ids of its row (the third column's code spans)."""
    import re

    from shared import ROOT

    docs = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Scope:"):docs.index("## Quantities")]
    rows = {}
    for line in section.splitlines():
        cells = line.split("|")
        if len(cells) > 4 and (m := re.fullmatch(r" `([a-z_]+)` ", cells[1])):
            rows[m.group(1)] = set(re.findall(r"`([a-z0-9_]+)`", cells[3])) - {"quantities", "compare_models", "null"}
    return rows


def test_whose_number_derive_says_is_the_scope_results_md_gives(capsys):
    """docs/results.md's "Scope" table puts the KV tokens, the sequences that fit, the intensity there, the crossover
    batch and the decode token/s of a layout in one replica (the chapter-4 table's "sequences that fit per replica");
    derive said "one GPU's" of all but the token/s (Qwen2.5 72B on 4 H20: "kv_capacity_tokens ... one GPU's of
    tp 4"), and of the whole model's parameters ("parameters ... one GPU's of tp 8"). The table's rows are
    values.SCOPES, id for id, and derive says each row's words."""
    from genreport.commands.cli import main
    from genreport.model.values import REPLICA_SCOPED, scope

    rows = _scope_table()
    assert set(rows) == {"model", "deployment", "replica", "gpu", "one_card"}
    for name, ids in rows.items():
        assert ids and {qid: scope(qid) for qid in ids} == dict.fromkeys(ids, name), name
    assert REPLICA_SCOPED <= rows["replica"]
    words = {"replica": "  scope: one replica's (8 GPUs of tp 8 x pp 1 x ep 1 x dp 1)",
             "model": "  scope: the whole model's, whatever the layout (this report's: tp 8 x pp 1 x ep 1 x dp 1)",
             "gpu": "  scope: one GPU's of tp 8 x pp 1 x ep 1 x dp 1"}
    for qid, kind in (*((q, "replica") for q in sorted(REPLICA_SCOPED - {"decode_tokens_per_s"})),
                      ("parameters", "model"), ("kv_bytes_per_token", "gpu")):
        # a point given to a quantity that takes none (parameters at --batch 1) does not move it off the report's
        # entry: derive said no scope there, as if the report stated no such number
        assert main(["derive", qid, "--spec", "specs/llama70b-h100-tp8.yaml", "--context", "8192", "--batch", "1"]) == 0
        last = capsys.readouterr().out.strip().splitlines()[-1]
        assert last.startswith(words[kind]), (qid, last)


def test_every_entry_of_results_json_states_its_scope(tmp_path):
    """One number, one scope: every entry of every committed report's results.json carries ``scope``, the one its id
    has in docs/results.md's table (an id missing from the table fails here: say whose it is before emitting it)."""
    import json

    from genreport.model.values import scope
    from shared import COMMITTED, ROOT

    by_id = {qid: name for name, ids in _scope_table().items() for qid in ids}
    seen = set()
    for spec in COMMITTED:
        data = json.loads((ROOT / "out" / spec.removesuffix(".yaml") / "results.json").read_text(encoding="utf-8"))
        for entry in data["quantities"]:
            base = entry["id"].removesuffix("_exact")
            assert entry["scope"] == by_id.get(base), (spec, entry["id"], entry["scope"])
            seen.add(base)
    assert {"gpus", "parameters", "kv_capacity_tokens_one_card", "decode_time_bound"} <= seen
    # what only a layout that trains, or a spec with an efficiency block, states (70B over tp 4 x dp 2)
    spec = tmp_path / "train.yaml"
    spec.write_text("kind: report\nname: train\ntitle: t\nhardware: h100-sxm\nmodel: llama-3.1-70b\n"
                    "precision: bf16\nparallelism: {tp: 4, dp: 2}\n"
                    "efficiency: {bandwidth: 0.8, compute: 0.6, source: {title: made-up fractions for the test}}\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n  training: {micro_batch_tokens: 8k}\n")
    rare = {e.id.removesuffix("_exact") for e in evaluated(spec).entries} - seen
    assert {"training_overlap_tokens", "training_state_per_gpu_zero3", "decode_tokens_per_s_derated"} <= rare
    assert {qid: scope(qid) for qid in rare} == {qid: by_id.get(qid) for qid in rare}


def test_a_layouts_training_quantities_are_the_reports_per_recipe(capsys, tmp_path):
    """A layout that trains states its per-GPU training states, gradient all-reduce and overlap tokens per recipe
    (results.json params {"recipe": ...}); derive takes no recipe for them unless given, evaluates them at the spec's
    first, and did not find the report's entry: no scope line, as if the report stated nothing there. It now states
    the first recipe's entry (70B over tp 4 x dp 2: 1,099.34 overlap tokens, one replica's, by the bf16-grads
    gradients), and --recipe fp32-grads the other's (twice the gradient bytes, about twice the tokens)."""
    from genreport.commands.cli import main

    spec = tmp_path / "train.yaml"
    spec.write_text("kind: report\nname: train\ntitle: t\nhardware: h100-sxm\nmodel: llama-3.1-70b\nprecision: bf16\n"
                    "parallelism: {tp: 4, dp: 2}\nworkloads:\n  decode: {batch: [1], context: [1k]}\n"
                    "  training: {micro_batch_tokens: 8k}\n")
    r = evaluated(spec)
    for recipe, extra in (("bf16-grads", []), ("fp32-grads", ["--recipe", "fp32-grads"])):
        for qid, whose in (("training_overlap_tokens", "one replica's (4 GPUs"), ("training_grad_comm_time", "one GPU's"),
                           ("training_state_per_gpu_zero3", "one GPU's")):
            assert main(["derive", qid, "--spec", str(spec), "--no-latex", *extra]) == 0
            lines = capsys.readouterr().out.strip().splitlines()
            assert lines[-1].startswith(f"  scope: {whose}") and f"at recipe = {recipe})" in lines[-1], (qid, lines[-1])
            stated = r.value(qid, "seed", recipe=recipe)
            assert f"{stated:.6g}" in lines[-2] or f"{stated:.4g}" in lines[-2], (qid, lines[-2], stated)
    assert r.value("training_overlap_tokens", "seed", recipe="fp32-grads") == pytest.approx(
        2 * r.value("training_overlap_tokens", "seed", recipe="bf16-grads"), rel=1e-5)  # the link's steps apart


def test_a_solved_quantitys_value_under_at_is_not_called_the_specs_own(capsys):
    """``derive critical_context --for W --at W=3 --spec`` (review, stop 78): S* evaluated with --at's W read "(the
    spec's own value)"; it says whose it is."""
    from genreport.commands.cli import main
    from shared import SPECS

    assert main(["derive", "critical_context", "--for", "W", "--at", "W=3", "--spec", str(SPECS / "llama8b-h100.yaml")]) == 0
    out = capsys.readouterr().out
    assert "(its value with --at's W)" in out and "the spec's own value" not in out
    assert main(["derive", "critical_context", "--for", "W", "--spec", str(SPECS / "llama8b-h100.yaml")]) == 0
    assert "S* = 420.563 token (the spec's own value)" in capsys.readouterr().out


@pytest.mark.parametrize("qid", ["capacity_batch_replica", "kv_capacity_tokens_replica"])
def test_a_replica_that_holds_no_cache_is_none_never_a_negative_count(qid, capsys):
    """Llama 3.1 70B in bf16 on one H100 (141 GB of weights in 75.5 GB): derive stated "B_cap,r = -41" at a context
    the report has no entry for, and "the formula above at these inputs: -323" beside the report's none (a review of
    stop 87, DeepSeek-V3 on 8 H20).  Every count of what fits is none with the reason (values.CAPACITIES)."""
    import re

    from genreport.commands.cli import main

    for context in ("5000", "1024"):
        assert main(["derive", qid, "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--set", "parallelism.tp=1",
                     "--context", context]) == 0
        out = capsys.readouterr().out
        assert "= none: the weights alone exceed the memory capacity" in out, out
        assert not re.search(r"= -\d", out) and ": -" not in out, out


def test_the_slice_value_a_formula_block_prints_is_not_called_unstated(capsys):
    """Llama 3.1 8B in bf16 on 2 H100 at pp 2, batch 1 at 1k: a round passes both stages, so the replica's tok/s (the
    report's value) is about half what the formula gives at one GPU's slice, and the report prints that slice value in
    the formula's block ("(16) = ... tok/s at batch 1") beside it. derive said the slice value was "not a number the
    report states" (the review of stop 88, on Qwen3-235B at tp 8 x pp 2); it says where the report prints it."""
    from genreport.commands.cli import main
    from genreport.commands.derive_values import report_of
    from genreport.load.loader import load_report
    from shared import spec_file

    path = spec_file("""\
kind: report
name: l8pp2
title: Llama 3.1 8B on 2 H100 at pp 2
hardware: h100-sxm
model: llama-3.1-8b
precision: bf16
parallelism: {pp: 2}
workloads:
  decode: {batch: [1], context: [1k]}
""", "l8pp2")
    assert main(["derive", "decode_tokens_per_s", "--spec", str(path)]) == 0
    out = capsys.readouterr().out
    block = report_of(load_report(path)).blocks["tps"]
    assert block.closed_form > 1.5 * block.entry.value  # the slice's rate, not the replica's
    assert f"tok_s = {block.entry.value:.6g} token/s" in out
    assert f"the formula above at these inputs: {block.closed_form:.6g} token/s, one GPU's ledgers over its slice" in out
    assert "not a number the report states" not in out


def test_every_results_json_id_is_one_derive_knows_or_explains():
    """derive's QUANTITY is "an id of results.json": each id of every committed report is a formula derive derives, or
    one STATED_FROM says whose it is (capacity_at_context was refused as unknown: the docs review of stop 92)."""
    import json

    from genreport.commands.derive import STATED_FROM
    from genreport.formulas.quantities import BY_ID
    from shared import COMMITTED, ROOT

    ids = set()
    for spec in COMMITTED:
        data = json.loads((ROOT / "out" / spec.removesuffix(".yaml") / "results.json").read_text(encoding="utf-8"))
        ids |= {q["id"].removesuffix("_exact") for q in data["quantities"]}
    assert ids and sorted(i for i in ids if i not in BY_ID and i not in STATED_FROM) == []
