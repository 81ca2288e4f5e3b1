"""Hostile and careless input, round two (issue 17): schema patterns, text lengths, --set depth, --name,
terminal escapes, notes, suggestions.  Cases that are spec files live in tests/bad_specs/."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from genreport.commands.cli import main
from genreport.errors import Finding, SpecError
from genreport.load.loader import load_report
from genreport.load.validate import ecma_pattern
from genreport.paths import specs_dir
from genreport.terminal import safe
from shared import ROOT, evaluated

SCHEMAS = sorted((specs_dir() / "schema").glob("*.schema.json"))

# One valid value per pattern in specs/schema/*.json; a pattern added without a sample fails the test below.
PATTERN_SAMPLES = {
    "^[a-z0-9][a-z0-9._-]*$": "h100-sxm",
    "^[A-Za-z][A-Za-z0-9]*$": "chip",  # hardware.noun
    "^https?://[^\\s]+$": "https://example.com/x",
    "^(?:[1-9][0-9]*|0(?=\\.[0-9]*[1-9]))(\\.[0-9]+)?[kKmM]?$": "8k",
}


def _patterns(node):
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for v in node.values():
            yield from _patterns(v)
    elif isinstance(node, list):
        for v in node:
            yield from _patterns(v)


def test_every_schema_pattern_rejects_a_trailing_newline():
    """Issue 17 item 15: Python's '$' matches before a final newline; JSON Schema's (ECMA-262) does not."""
    found = {p for path in SCHEMAS for p in _patterns(json.loads(path.read_text()))}
    assert found == set(PATTERN_SAMPLES), "give each schema pattern a sample value here"
    for pattern, sample in PATTERN_SAMPLES.items():
        assert ecma_pattern(pattern).search(sample), pattern
        for bad in (sample + "\n", "\n" + sample, sample + "\r\n"):
            assert not ecma_pattern(pattern).search(bad), (pattern, bad)
        assert re.search(pattern, sample + "\n")  # the hole the translation closes


def test_ecma_pattern_keeps_escapes_and_classes():
    assert ecma_pattern(r"^a\$$").search("a$") and not ecma_pattern(r"^a\$$").search("a$\n")
    assert ecma_pattern("^[$^]+$").search("$^$") and not ecma_pattern("^[$^]+$").search("$^\n")


def spec(tmp_path: Path, **extra) -> Path:
    text = ("kind: report\nname: case\ntitle: A case\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
            "workloads:\n  decode: {batch: [1, 8], context: [128]}\n")
    for k, v in extra.items():
        text += f"{k}: {json.dumps(v)}\n"
    path = tmp_path / "case.yaml"
    path.write_text(text)
    return path


def test_name_ending_in_newline_makes_no_folder(tmp_path, capsys):
    out = tmp_path / "out"
    assert main([str(spec(tmp_path)), "-o", str(out), "--set", 'name="nl\\n"', "--format", "json"]) == 1
    assert "'nl\\n' is not in the expected form" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_set_path_20000_levels_deep_is_a_clean_error(tmp_path, capsys):
    """Issue 17 item 15: a RecursionError before."""
    deep = ".".join(["model"] + ["a"] * 20_000)
    assert main([str(spec(tmp_path)), "--set", f"{deep}=1", "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "the path has 20,001 levels; specs nest at most 64" in err and "internal error" not in err
    assert len(err) < 1000  # the path is not echoed whole


def test_name_without_set_names_the_output_folder(tmp_path, capsys):
    """Issue 17 item 16: --name was silently ignored without --set."""
    out = tmp_path / "out"
    assert main([str(spec(tmp_path)), "-o", str(out), "--name", "mine", "--format", "json", "-q"]) == 0
    assert (out / "mine" / "results.json").is_file() and not (out / "case").exists()
    assert main([str(spec(tmp_path)), "-o", str(out), "--name", "mine", "--format", "json", "--check"]) == 0
    assert "matches a fresh build" in capsys.readouterr().out


def test_name_with_two_specs_is_refused(tmp_path, capsys):
    a = spec(tmp_path)
    b = tmp_path / "b.yaml"
    shutil.copy(a, b)
    assert main([str(a), str(b), "--name", "one", "-o", str(tmp_path / "out")]) == 1
    assert "--name names one report, but 2 specs are given" in capsys.readouterr().err


def test_notes_reach_results_json(tmp_path):
    """Issue 17 item 16: notes were never shown; they are now data in results.json (the schemas say so)."""
    from genreport.model.evaluate import evaluate
    from genreport.write.results import document

    hw = tmp_path / "hardware"
    hw.mkdir()
    text = (specs_dir() / "hardware" / "h100-sxm.yaml").read_text()
    (hw / "h100-sxm.yaml").write_text(text.rstrip("\n") + "\nnotes: measured on rack 7\n")
    path = spec(tmp_path, notes="why this report exists")
    path.write_text(path.read_text().replace("hardware: h100-sxm", "hardware: hardware/h100-sxm.yaml"))
    doc = document(evaluate(load_report(path)))
    assert doc["spec"]["notes"] == "why this report exists"
    assert doc["inputs"]["hardware"]["notes"] == "measured on rack 7"
    assert "notes" not in doc["inputs"]["model"]  # the catalog model has none
    for schema in SCHEMAS:
        notes = json.loads(schema.read_text()).get("properties", {}).get("notes")
        if notes:
            assert "results.json" in notes["description"] and "shown" not in notes["description"]


def test_finding_escapes_terminal_sequences():
    f = Finding("a\x1b[2J.yaml", 1, 2, "title", "bad \x1b]0;owned\x07 title", "fix \u202e it")
    text = f.format()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert text == "a\\x1b[2J.yaml:1:2: title: bad \\x1b]0;owned\\x07 title (hint: fix \\u202e it)"
    assert str(SpecError([f])) == text


def test_safe_keeps_ordinary_text():
    assert safe("H100 SXM5 80GB — 3.35 TB/s, µs, 日本語\tx") == "H100 SXM5 80GB — 3.35 TB/s, µs, 日本語\tx"
    assert safe("a\rb\x00c\x9bd\u2028") == "a\\rb\\x00c\\x9bd\\u2028"


def test_list_shows_titles_escaped(tmp_path, capsys, monkeypatch):
    """Issue 17 item 5: 'genreport list' printed spec titles raw."""
    (tmp_path / "specs" / "hardware").mkdir(parents=True)
    text = (specs_dir() / "hardware" / "h100-sxm.yaml").read_text()
    text = re.sub(r"(?m)^name: .*$", "name: evil", text)
    text = re.sub(r"(?m)^title: .*$", lambda m: 'title: "Evil \\e]0;owned\\a \\e[2J card"', text)
    (tmp_path / "specs" / "hardware" / "evil.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["list", "hardware"]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert "\x1b" not in out + err and "\x07" not in out + err
    # since stop 75 such a title is refused (the control characters), and list leaves the file out, saying why
    assert "owned" not in out and "evil.yaml:4:8: title: the text holds a control or direction-override character " \
        "(U+001B)" in err, err


def test_grid_budget_and_the_flag_that_raises_it(tmp_path, capsys, monkeypatch):
    """Issue 17 item 7: a 33 x 32 grid (1,056 points) is over the default budget of 1,024; --max-points or
    GENREPORT_MAX_POINTS raises it, and the build then runs."""
    from genreport.load import loader

    monkeypatch.delenv("GENREPORT_MAX_POINTS", raising=False)
    path = spec(tmp_path)
    path.write_text(path.read_text().replace("decode: {batch: [1, 8], context: [128]}",
                                             f"decode: {{batch: {list(range(1, 34))}, "
                                             f"context: {list(range(128, 128 + 32))}}}"))
    out = tmp_path / "out"
    assert main([str(path), "-o", str(out), "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "33 batches x 32 contexts = 1,056 points, over the budget of 1,024 points a report" in err
    assert "--max-points N" in err and not out.exists()
    assert main([str(path), "-o", str(out), "--format", "json", "--max-points", "1056", "-q"]) == 0
    assert len(json.loads((out / "case" / "results.json").read_text())["verdicts"]["decode_binds"]) == 33
    assert "GENREPORT_MAX_POINTS" not in __import__("os").environ  # the flag does not leak
    monkeypatch.setenv("GENREPORT_MAX_POINTS", "2000")
    assert loader.max_points() == 2000
    assert main([str(path), "--max-points", "0"]) == 1
    assert "must be a number of points from 1 to 99,999,999,999" in capsys.readouterr().err
    for bad in ("abc", "0", "-1"):  # the variable as the option: it was ignored, or a budget of 0 blamed the spec
        monkeypatch.setenv("GENREPORT_MAX_POINTS", bad)
        assert main([str(path), "-o", str(out), "--format", "json", "-q"]) == 1
        assert f"GENREPORT_MAX_POINTS={bad}: must be a whole number of points" in capsys.readouterr().err


def test_sweep_budget(tmp_path, capsys):
    """Issue 17 item 7: '--batch 1:8192:8192 --context 128:128k:2000' ended in a MemoryError."""
    out = tmp_path / "sweep"
    assert main(["sweep", "--batch", "1:8192:8192", "--context", "128:128k:2000", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "x 8,192 batches x 2,000 contexts = " in err and "over the budget of 5,000,000" in err
    assert "--max-points" in err and not out.exists()
    assert main(["sweep", "--batch", "1:8:99999999999", "-o", str(out)]) == 1
    assert "COUNT 99,999,999,999 is over the budget" in capsys.readouterr().err
    small = ["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--precision", "bf16", "--batch",
             "1:64:10", "--context", "1k,2k", "-o", str(out), "--format", "csv", "-q"]
    assert main([*small, "--max-points", "19"]) == 1
    assert "1 configurations x 10 batches x 2 contexts = 20 points, over the budget of 19" in capsys.readouterr().err
    assert main([*small, "--max-points", "20"]) == 0
    assert len((out / "sweep.csv").read_text().splitlines()) == 21


def test_calibrate_short_budget_uses_small_arrays(monkeypatch):
    """Issue 17 item 16: 'calibrate --seconds 0.5' took 7.9 s and 1.6 GB: on a CPU with a large cache the
    arrays were 512 MiB each, whatever the budget.  Now the budget bounds them: 128 MiB a second."""
    import time

    from genreport.commands import calibrate

    monkeypatch.setattr(calibrate, "_llc_bytes", lambda: 256 * 2**20)  # e.g. an EPYC's L3
    t0 = time.process_time()  # this process's CPU time: the work it did, whatever else the machine runs
    bw = calibrate.measure_bandwidth(0.5 * 0.4, threads=1)
    assert bw["array_bytes"] == 64 * 2**20  # the floor of MIN_SECONDS (0.5 s) x 128 MiB
    assert time.process_time() - t0 < 5


def test_whatif_story_with_a_recipe_parameter():
    """A what-if whose largest moves include a training quantity (params recipe=...) crashed the HTML with
    "Cannot specify ',' with 's'" (exit 3): --set model.vocab_size=100000000.  The build's page (shared.page: its
    rendering, no figure or formula drawn)."""
    from shared import page

    html = page("llama8b-h100.yaml", ["model.vocab_size=100000000"])
    assert "recipe bf16-grads" in html or "recipe fp32-grads" in html


def test_a_failing_render_stops_the_figure_child(monkeypatch):
    """A failure while the HTML was rendered left the forked figure process behind, blocked for ever on its
    full pipe and holding the caller's stdout (a '$(genreport ...)' never returned)."""
    import multiprocessing
    import os

    from genreport.present import render

    monkeypatch.delenv("GENREPORT_SERIAL", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(render, "context", boom)
    r = evaluated("llama8b-h100.yaml")
    with pytest.raises(RuntimeError, match="boom"):
        render.render_report(r)
    alive = multiprocessing.active_children()
    for p in alive:
        p.kill()
    assert not alive


def test_set_into_a_precision_that_is_a_number_is_a_clean_error(tmp_path, capsys):
    """``--set precision=2.5 --set precision.weights.embeddings=nvfp4`` (found by the live page's random overrides):
    the second --set read the number as a mapping and stopped with an internal error (AttributeError); it is the
    error every --set into a non-mapping gives, naming the path and the fix, and nothing is written."""
    out = tmp_path / "out"
    from shared import SPECS

    code = main([str(SPECS / "llama8b-h100.yaml"), "--set", "precision=2.5", "--set", "precision.weights.embeddings=nvfp4",
                 "-o", str(out), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 1 and "internal error" not in err, err
    assert "llama8b-h100.yaml is 2.5, not a mapping" in err and "set 'precision' itself" in err
    assert not out.exists()


@pytest.mark.parametrize("title, code", [(r"Small\u0000x", "U+0000"), (r"\e[31mred", "U+001B"), (r"bell\a", "U+0007"),
                                         (r"\u202eevil", "U+202E"), (r"Llama\x85 8B", "U+0085")])
def test_a_title_with_a_control_character_is_refused(tmp_path, capsys, title, code):
    """Hostile review, stop 75: NUL, ESC and BEL in a title went raw into report.html (grep called it binary) and
    U+202E reversed the page's <title>; each is refused at its line, nothing written.  Line breaks and tabs in notes
    stay allowed."""
    spec = tmp_path / "cc.yaml"
    spec.write_text(f'kind: report\nname: cc\ntitle: "{title}"\nhardware: h100-sxm\nmodel: llama-3.1-8b\n'
                    'precision: bf16\nnotes: "two\\n\\tlines"\nworkloads:\n  decode: {batch: [1], context: [1k]}\n')
    assert main([str(spec), "-o", str(tmp_path / "out"), "--format", "json", "-q"]) == 1
    err = capsys.readouterr().err
    assert f"cc.yaml:3:8: title: the text holds a control or direction-override character ({code})" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, said", [
    ("3,35 TB/s", "a decimal comma; write a point, e.g. '3.35 TB/s'"),
    ("12,5 ms", "a decimal comma; write a point, e.g. '12.5 ms'"),
    ("1,000 GB", "a comma in the number; write it without one, e.g. '1000 GB'"),
])
def test_a_comma_in_a_quantity_is_named(text, said):
    """Hostile review, stop 75: '3,35 TB/s' was refused as "unknown unit ',35 TB'"; the comma is named, with the
    value written as a spec takes it."""
    from genreport.load.units import UnitError, parse

    with pytest.raises(UnitError, match=re.escape(said)):
        parse(text)
    assert parse(said.split("e.g. '")[1].split("'")[0]).value > 0


def test_a_check_across_a_models_values_names_the_set_that_changed_one(tmp_path, capsys):
    """Hostile review, stop 75: ``--set model.hidden_size=100000000`` was refused at the catalog model's head_dim line
    ("heads x head_dim = 4096 is far from hidden_size 100000000, hint: check head_dim"), as if the file were wrong;
    the hint now names the option that changed the file's values."""
    spec = ROOT / "specs" / "llama8b-h100.yaml"
    assert main([str(spec), "--set", "model.hidden_size=100000000", "--format", "json", "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "llama-3.1-8b.yaml:10:11: head_dim: heads x head_dim = 4096 is far from hidden_size 100000000" in err
    assert "the file's values as --set model.hidden_size=100000000 changed them" in err


def test_a_capacity_of_bytes_is_named_at_its_line(tmp_path, capsys, monkeypatch):
    """Hostile review, stop 75: a hardware file's ``capacity: "1 B"`` was refused as an engine step's activations
    filling it (engine.max_batched_tokens blamed) where a workspace is set; the capacity itself is implausibly small,
    said at its line."""
    (tmp_path / "specs" / "hardware").mkdir(parents=True)
    text = (specs_dir() / "hardware" / "h100-sxm.yaml").read_text()
    text = re.sub(r"(?m)^name: .*$", "name: tiny", text)
    text = re.sub(r"(?m)^(\s*capacity:).*$", r'\1 "1 B"', text, count=1)
    (tmp_path / "specs" / "hardware" / "tiny.yaml").write_text(text)
    spec = (specs_dir() / "llama8b-h100.yaml").read_text()
    (tmp_path / "specs" / "r.yaml").write_text(re.sub(r"(?m)^hardware: .*$", "hardware: hardware/tiny.yaml", spec))
    monkeypatch.chdir(tmp_path)
    # a warning (the live page refuses what the loader's errors refuse, by the schema's limits), at its line; --strict
    # refuses it
    assert main(["specs/r.yaml", "--format", "json", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "tiny.yaml" in err and "memory.capacity: warning: memory capacity 1 B is implausibly small" in err, err
    assert main(["specs/r.yaml", "--format", "json", "-o", str(tmp_path / "out2"), "--strict"]) == 1
