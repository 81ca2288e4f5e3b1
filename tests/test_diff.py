"""``genreport diff OLD NEW`` (issue 5): folders, results.json files and git revisions."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from genreport.commands.cli import main as cli_main
from genreport.commands.diff import compare, read_results
from shared import ROOT


def doc(values: dict) -> dict:
    """A minimal results.json: id -> value, or (id, params) -> value."""
    qs = []
    for key, value in values.items():
        qid, params = key if isinstance(key, tuple) else (key, {})
        qs.append({"id": qid, "params": params, "value": value, "unit": "1", "symbol": "x", "latex": "x",
                   "accounting": "seed"})
    return {"quantities": qs}


OLD = doc({"ridge_point": 295.34, "critical_context": 420.56, ("decode_tokens_per_s", (("batch", 1),)): 208.0,
           "same": 1.0, "gone": 5.0, "zero": 0.0, "none_then_some": None})
NEW = doc({"ridge_point": 206.13, "critical_context": 606.2, ("decode_tokens_per_s", (("batch", 1),)): 298.1,
           "same": 1.0, "new_one": 7.0, "zero": 3.0, "none_then_some": 2.0})
for d in (OLD, NEW):
    for q in d["quantities"]:
        q["params"] = dict(q["params"])


def test_compare_sorts_by_log_ratio_and_lists_added_and_removed():
    d = compare(OLD, NEW)
    ids = [c.id for c in d.changed]
    # no ratio (from zero, from none) first, then |ln(606.2/420.56)| = 0.366 > |ln(298.1/208)| = 0.360 > 0.360 (ridge)
    assert set(ids[:2]) == {"zero", "none_then_some"}
    sizes = [abs(math.log(606.2 / 420.56)), abs(math.log(298.1 / 208.0)), abs(math.log(206.13 / 295.34))]
    assert ids[2:] == [x for _, x in sorted(zip(sizes, ["critical_context", "decode_tokens_per_s", "ridge_point"],
                                                strict=True), reverse=True)]
    assert [q["id"] for q in d.added] == ["new_one"] and [q["id"] for q in d.removed] == ["gone"]
    assert d.same == 1
    assert compare(OLD, NEW, threshold=0.5).changed[0].id in ("zero", "none_then_some")
    assert {c.id for c in compare(OLD, NEW, threshold=0.5).changed} == {"zero", "none_then_some"}


def write(folder: Path, d: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(d))
    return folder


def test_cli_folders_and_files(tmp_path, capsys):
    a, b = write(tmp_path / "a", OLD), write(tmp_path / "b", NEW)
    assert cli_main(["diff", str(a), str(b / "results.json")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "5 changed (1 unchanged; every accounting)" in out
    row = next(x for x in lines if x.startswith("critical_context"))
    assert "420.56" in row and "606.2" in row and "1.441x" in row
    assert "batch=1" in next(x for x in lines if x.startswith("decode_tokens_per_s"))
    assert "Added (1):" in out and "new_one" in out and "Removed (1):" in out and "gone" in out
    assert cli_main(["diff", str(a), str(a)]) == 0
    assert "no quantity changed (7 compared; every accounting)" in capsys.readouterr().out
    assert cli_main(["diff", "--exit-code", str(a), str(b)]) == 4
    assert cli_main(["diff", str(a), str(tmp_path / "missing")]) == 1
    assert "no report here" in capsys.readouterr().err


def test_the_layout_is_an_input_that_changes(tmp_path, capsys):
    """Two committed reports of Llama 3.1 70B on H100, tp 2 and tp 8: the inputs table names the layout's change
    (results.json's 'parallel' section: tp 2 -> 8 on 2 -> 8 GPUs), which it left out (it read a 'layout' key that
    section does not have), a one-card report against a layout reads "(none)" for the degrees, and the engine's
    redundant experts (results.json's parallel.redundant_experts) count as the layout's."""
    assert cli_main(["diff", str(ROOT / "out" / "llama70b-h100-tp2"), str(ROOT / "out" / "llama70b-h100-tp8"),
                     "--format", "json"]) == 0
    changed = {x["input"]: (x["old"], x["new"]) for x in json.loads(capsys.readouterr().out)["inputs"]}
    assert changed["layout.tp"] == (2, 8) and changed["layout.gpus"] == (2, 8) and "layout.pp" not in changed
    assert cli_main(["diff", str(ROOT / "out" / "llama8b-h100"), str(ROOT / "out" / "llama70b-h100-tp8"),
                     "--format", "json"]) == 0
    changed = {x["input"]: (x["old"], x["new"]) for x in json.loads(capsys.readouterr().out)["inputs"]}
    assert changed["layout.tp"] == (None, 8) and changed["layout.dp"] == (None, 1)
    # the engine's redundant experts are the layout's too (DeepSeek-V3 on ep 8: 256 + 8, 33 experts a GPU)
    assert cli_main(["specs/deepseek-v3-h200-ep8.yaml", "--format", "json", "-o", str(tmp_path), "-q",
                     "--set", "engine.redundant_experts=8"]) == 0
    assert cli_main(["diff", str(ROOT / "out" / "deepseek-v3-h200-ep8"), str(tmp_path / "deepseek-v3-h200-ep8-whatif"),
                     "--format", "json"]) == 0
    changed = {x["input"]: (x["old"], x["new"]) for x in json.loads(capsys.readouterr().out)["inputs"]}
    assert changed["layout.redundant_experts"] == (0, 8)


def test_a_layouts_changes_say_whose_number_each_is(tmp_path, capsys):
    """One number, one scope: tp 2 -> tp 8 halves nothing a replica reads, yet decode_bytes reads 0.25x (one GPU's
    slice) beside decode_time_bound's 0.25x (a replica's round). Each moved entry says whose it is (results.json's
    ``scope``), in the text table where either side is a layout and in the JSON always; a results.json written before
    entries carried a scope (an older revision) gets the one its id has now. Two one-card reports print no column."""
    tp2, tp8 = str(ROOT / "out" / "llama70b-h100-tp2"), str(ROOT / "out" / "llama70b-h100-tp8")
    assert cli_main(["diff", tp2, tp8, "--format", "json"]) == 0
    changed = {(c["id"], json.dumps(c["params"], sort_keys=True)): c["scope"]
               for c in json.loads(capsys.readouterr().out)["changed"]}
    point = json.dumps({"batch": 1, "context": 8192}, sort_keys=True)
    assert changed[("decode_bytes", point)] == "gpu" and changed[("decode_time_bound", point)] == "replica"
    assert cli_main(["diff", tp2, tp8, "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert "unit  scope" in text and "per replica" in text and "per GPU" in text
    older = json.loads((ROOT / "out" / "llama70b-h100-tp2" / "results.json").read_text(encoding="utf-8"))
    for q in older["quantities"]:
        del q["scope"]
    (tmp_path / "old.json").write_text(json.dumps(older), encoding="utf-8")
    assert cli_main(["diff", str(tmp_path / "old.json"), tp8, "--format", "json"]) == 0
    assert {(c["id"], json.dumps(c["params"], sort_keys=True)): c["scope"]
            for c in json.loads(capsys.readouterr().out)["changed"]} == changed
    assert cli_main(["diff", str(ROOT / "out" / "llama8b-h100"), str(ROOT / "out" / "llama8b-a100"), "--limit", "1"]) == 0
    assert "scope" not in capsys.readouterr().out


def test_the_serving_chapters_answers_are_compared(tmp_path, capsys):
    """Llama 3.1 70B on 8 H100 against its what-if with an 8 ms TPOT target: no quantity of the grid moves, but the
    serving chapter's answers do (the batch the target allows 256 -> 48, the GPUs for the 128 users 8 -> 24), and
    diff lists them (it compared the quantities, inputs and verdicts only, so a changed deployment answer read "no
    quantity changed"); --exit-code counts them."""
    assert cli_main(["specs/llama70b-h100-tp8.yaml", "--format", "json", "-o", str(tmp_path), "-q",
                     "--set", "serving.tpot=8ms"]) == 0
    old, new = str(ROOT / "out" / "llama70b-h100-tp8"), str(tmp_path / "llama70b-h100-tp8-whatif")
    assert cli_main(["diff", old, new, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    serving = {x["answer"]: (x["old"], x["new"]) for x in doc["serving"]}
    assert serving["tpot_target"] == (0.05, 0.008) and serving["tpot_batch"] == (256, 48)
    assert serving["gpus_for_users"] == (8, 24) and doc["changed"] == []
    assert cli_main(["diff", old, new]) == 0
    text = capsys.readouterr().out
    assert "Serving changed (" in text and "tpot_target" in text
    assert all(len(line) < 200 for line in text.splitlines())  # a layout's links cut to the column
    assert cli_main(["diff", "--exit-code", old, old]) == 0 and cli_main(["diff", "--exit-code", old, new]) == 4
    # --limit caps the serving answers too (a review read all of a what-if's under --limit 5): the first 2, and how
    # many more
    capsys.readouterr()
    assert cli_main(["diff", old, new, "--limit", "2"]) == 0
    text = capsys.readouterr().out
    block = text[text.index("Serving changed"):]
    assert f"... {len(serving) - 2} more (raise --limit)" in block, block


def test_a_what_if_side_is_named_with_the_set_arguments_that_made_it(tmp_path, capsys):
    """A what-if's results.json names its --set arguments (``what_if.overrides``, written by the build: see
    tests/test_layout_frame.py); diff shows them beside that side's name, quoted as a shell reads them, in text,
    Markdown and JSON. A what_if block that is not a list of strings is not read; control characters in one are
    escaped."""
    whatif = {**NEW, "what_if": {"title": "What-if: x", "overrides": ["hardware.memory.bandwidth=4.8 TB/s",
                                                                       "precision=fp8"]}}
    a, b = write(tmp_path / "a", OLD), write(tmp_path / "b", whatif)
    assert cli_main(["diff", str(a), str(b)]) == 0
    head = capsys.readouterr().out.splitlines()[:2]
    assert head == [f"--- {a}", f"+++ {b} (a what-if: --set 'hardware.memory.bandwidth=4.8 TB/s' --set precision=fp8)"]
    assert cli_main(["diff", "--format", "md", str(a), str(b)]) == 0
    assert "b is a what-if: --set 'hardware.memory.bandwidth=4.8 TB/s' --set precision=fp8\n" in capsys.readouterr().out
    assert cli_main(["diff", "--format", "json", str(a), str(b)]) == 0
    assert json.loads(capsys.readouterr().out)["what_if"] == {
        "old": None, "new": ["hardware.memory.bandwidth=4.8 TB/s", "precision=fp8"]}
    for block in ("x", {"overrides": "precision=fp8"}, {"overrides": [1]}, {"overrides": []},
                  {"overrides": ["a=" + "1" * 2000]}, {"overrides": ["p=1"] * 65}):
        assert compare(OLD, {**NEW, "what_if": block}).what_if == (None, None), block
    c = write(tmp_path / "c", {**NEW, "what_if": {"overrides": ["model.title=\x1b[31mred"]}})
    assert cli_main(["diff", str(a), str(c)]) == 0
    assert "\x1b" not in capsys.readouterr().out  # escaped, as every text from a file


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_cli_git_revision(tmp_path, capsys, monkeypatch):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)

    git("init", "-q")
    report = write(tmp_path / "out" / "llama", OLD)
    git("add", "-A")
    git("commit", "-q", "-m", "old")
    write(report, NEW)
    git("commit", "-q", "-am", "new")
    write(report, doc({"ridge_point": 1.0}))  # the working tree differs from both commits
    monkeypatch.chdir(tmp_path)
    assert cli_main(["diff", "HEAD~1:out/llama", "HEAD:out/llama/results.json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("--- HEAD~1:out/llama\n+++ HEAD:out/llama/results.json")
    assert "5 changed" in out and "606.2" in out
    assert cli_main(["diff", "HEAD:out/llama", "out/llama"]) == 0
    assert "ridge_point" in capsys.readouterr().out
    assert read_results("HEAD~1:out/llama") == OLD
    assert cli_main(["diff", "HEAD~5:out/llama", "out/llama"]) == 1
    assert "git:" in capsys.readouterr().err


def test_review_of_a_real_spec_change(tmp_path, capsys):
    """Issue 33: the inputs that changed first, the grid change as a grid change, each quantity once (the lead
    accounting), grouped; Markdown for a pull-request comment; --exit-code 4."""
    spec = ROOT / "specs" / "llama8b-h100.yaml"
    common = [str(spec), "--format", "json", "-q", "--name", "r"]
    assert cli_main([*common, "-o", str(tmp_path / "a")]) == 0
    assert cli_main([*common, "-o", str(tmp_path / "b"), "--set", "precision.kv_cache=fp8",
                     "--set", "workloads.decode.batch=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 96]"]) == 0
    capsys.readouterr()
    a, b = tmp_path / "a" / "r", tmp_path / "b" / "r"
    assert cli_main(["diff", "--exit-code", str(a), str(b)]) == 4
    out = capsys.readouterr().out
    parts = out.split("\n\n")
    assert parts[1].startswith("Inputs changed (3):")  # the inputs come first
    assert "precision.kv_cache              bf16" in parts[1] and "fp8" in parts[1]
    assert parts[2].startswith("Workload grid changed (1):") and "batch  96" in parts[2]
    assert "_exact" not in out  # one accounting: the lead one (seed)
    assert "(seed accounting)" not in out and "unchanged; seed accounting" in out
    # the 3 contexts at batch 96 are a grid change, not 3 x (quantities) added rows
    assert "Added" not in out and "quantities at grid points added" in out
    # the KV cache halves: (80 GiB - 8.03e9 x 2 B) / (8192 x 128 KiB) = 65.04 sequences at 8k (seed 003's 65),
    # floor(2 x 65.04) = 130 in fp8
    cap = next(line for line in out.splitlines() if line.startswith("capacity_batch ") and "context=8192" in line)
    assert cap.split()[2:4] == ["65", "130"]
    assert "attention_intensity" in parts[parts.index(next(p for p in parts if p.startswith("Intensities")))]
    assert cli_main(["diff", "--format", "md", str(a), str(b)]) == 0
    md = capsys.readouterr().out
    assert md.startswith("### genreport diff:") and "| precision.kv\\_cache | bf16 | fp8 |" in md
    assert cli_main(["diff", "--format", "json", "--accounting", "all", str(a), str(b)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["grid"] == [{"axis": "batch", "added": [96], "removed": []}]
    assert {c["id"] for c in doc["changed"]} & {"decode_bytes", "decode_bytes_exact"} == {"decode_bytes",
                                                                                           "decode_bytes_exact"}


def test_the_serving_rows_ttft_and_cost_are_compared(tmp_path, capsys):
    """The chapter's rows at the titled layout (TTFT, TPOT, $/M tokens of the bound and the estimate) are answers
    too: a faster memory (4.8 TB/s) on the 70B at tp 8 moves the rows' TPOT and cost, and diff listed only the
    cheapest layout's.  The rows are keyed by their place (rows.1 is one request alone)."""
    assert cli_main(["specs/llama70b-h100-tp8.yaml", "--format", "json", "-o", str(tmp_path), "-q",
                     "--set", "hardware.memory.bandwidth=4.8 TB/s"]) == 0
    old, new = ROOT / "out" / "llama70b-h100-tp8", tmp_path / "llama70b-h100-tp8-whatif"
    assert cli_main(["diff", str(old), str(new), "--format", "json"]) == 0
    serving = {x["answer"]: (x["old"], x["new"]) for x in json.loads(capsys.readouterr().out)["serving"]}
    rows = [json.loads((p / "results.json").read_text())["serving"]["rows"] for p in (old, new)]
    assert serving["rows.1.serial.tpot"] == (rows[0][0]["serial"]["tpot"], rows[1][0]["serial"]["tpot"])
    assert serving["rows.1.bound.tpot"][1] < serving["rows.1.bound.tpot"][0]  # the faster memory's
    assert serving["rows.3.serial.usd_per_mtok_out"] == (rows[0][2]["serial"]["usd_per_mtok_out"],
                                                          rows[1][2]["serial"]["usd_per_mtok_out"])
    assert "rows.1.label" not in serving  # the same row on both sides


def test_the_other_gpus_and_models_rows_are_compared(tmp_path, capsys):
    """Chapter 7's comparison rows (results.json 'compare', 'compare_models') were left out: a what-if of one KV head
    moved the 8B's own row there (capacity 65 -> 523 sequences at 8k) and every GPU's token rate, and diff listed
    none of it.  Numbers equal to 1e-9 are the same (a ratio of moved parts differs in its last bit)."""
    assert cli_main(["specs/llama8b-h100.yaml", "--format", "json", "-o", str(tmp_path), "-q",
                     "--set", "model.kv_heads=1"]) == 0
    old, new = str(ROOT / "out" / "llama8b-h100"), str(tmp_path / "llama8b-h100-whatif")
    assert cli_main(["diff", old, new, "--format", "json"]) == 0
    rows = {x["row"]: (x["old"], x["new"]) for x in json.loads(capsys.readouterr().out)["compared"]}
    assert rows["compare_models.llama-3.1-8b.capacity_batch"] == (65, 523)
    assert rows["compare_models.llama-3.1-8b.kv_bytes_per_token"] == (131072, 16384)
    assert "compare.h200.decode_tokens_per_s" in rows and "compare.h200.decode_speedup" not in rows
    assert cli_main(["diff", "--exit-code", old, old]) == 0


def test_a_prompts_verdicts_are_named_by_the_prompt():
    """verdicts.prefill_binds and verdicts.prefill_fits, one per prompt: named by its length, not its index (QA, stop
    81: 'prefill_fits[0]')."""
    from genreport.commands.diff import verdict_changes

    old = {"inputs": {"workloads": {"prefill_prompt": [4096, 102400]}},
           "verdicts": {"prefill_binds": ["compute", "compute"], "prefill_fits": [True, True]}}
    new = {"inputs": {"workloads": {"prefill_prompt": [4096, 102400]}},
           "verdicts": {"prefill_binds": ["compute", "bandwidth"], "prefill_fits": [True, False]}}
    assert sorted(verdict_changes(old, new)) == [("prefill_binds at prompt=102400", "compute", "bandwidth"),
                                                  ("prefill_fits at prompt=102400", True, False)]


def test_limit_caps_the_verdicts_too():
    """--limit caps every group, the verdicts' as well (README; a review found 8 verdicts under --limit 3)."""
    from types import SimpleNamespace

    from genreport.commands.diff import sections

    d = SimpleNamespace(inputs=[], grid=[], verdicts=[(f"v{i}", "compute", "bandwidth") for i in range(8)],
                        serving=[], compared=[], changed=[], laid_out=False, added=[], removed=[])
    (title, _, rows, _, more), = sections(d, 3)
    assert title == "Verdicts changed" and len(rows) == 3 and more == 5
