"""Issue 33: what a user expects of a command-line tool and a Python library."""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import EXIT, main
from shared import ROOT


def test_unknown_command_names_the_close_matches(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["frobnicate"]) == EXIT["usage"] == 64
    err = capsys.readouterr().err
    assert "unknown command 'frobnicate'" in err and "commands: derive, sweep" in err
    assert main(["dif", "a", "b"]) == 64
    assert "did you mean 'diff'?" in capsys.readouterr().err
    assert main(["plna"]) == 64 and "did you mean 'plan'?" in capsys.readouterr().err


def test_a_spec_is_not_taken_for_a_command(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["missing.yaml"]) == EXIT["input"]  # a spec that is not there: bad input, with the file named
    assert "missing.yaml" in capsys.readouterr().err
    assert main(["sub/dir"]) == EXIT["input"]


def test_usage_errors_are_not_build_problems(capsys):
    assert main(["specs/llama8b-h100.yaml", "--no-such-option"]) == 64
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    assert main(["plan"]) == 64  # a missing argument
    # a value outside an option's choices is bad input, as every command's own checks of a value say (review, stop 82:
    # plan --format yaml exited 64, sweep --format xml 1), with the closest choice
    assert main(["diff", "--format", "xml", "a", "b"]) == 1
    assert main(["plan", "llama-3.1-8b", "--format", "jsn"]) == 1
    assert "'jsn' is not one of table, md, json, csv (did you mean 'json'?)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0


def test_an_unknown_option_names_the_closest_one_of_each_command(capsys):
    """A slip of an option's name, as the commands and spec keys already say: a prefix of a longer option (abbreviations
    are refused) or a near spelling.  Every command's parser is options.Parser."""
    import ast

    from shared import ROOT

    for argv, hint in ((["plan", "gemma-3-27b", "--kv", "fp8"], "--kv: did you mean --kv-cache?"),
                       (["plan", "gemma-3-27b", "--gpu", "4"], "--gpu: did you mean --gpus?"),
                       (["specs/llama8b-h100.yaml", "--fromat", "html"], "--fromat: did you mean --format?"),
                       (["derive", "ridge_point", "--sepc=x.yaml"], "--sepc: did you mean --spec?")):
        assert main(argv) == 64, argv
        assert hint in capsys.readouterr().err, argv
    assert main(["specs/llama8b-h100.yaml", "--no-such-option"]) == 64
    assert "did you mean" not in capsys.readouterr().err  # nothing close: argparse's words alone
    for path in (ROOT / "generator" / "commands").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        plain = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr == "ArgumentParser"]
        assert not plain, f"{path.name}:{plain}: make the parser with genreport.commands.options.Parser"


def test_exit_codes_are_distinct_and_documented():
    assert len(set(EXIT.values())) == len(EXIT)
    readme = (ROOT / "README.md").read_text()
    for name, code in EXIT.items():
        assert f"| {code} |" in readme, (name, code)


# ------------------------------------------------------------------------------------------------ tables out

def test_list_formats(capsys):
    import csv
    import io
    import json

    assert main(["list", "hardware", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    h100 = next(x for x in doc["hardware"] if x["name"] == "h100-sxm")
    # NVIDIA H100 SXM5 datasheet: 80 GB HBM3 (80 GiB addressable), 3.35 TB/s, 989.4 dense bf16 TFLOP/s
    assert h100["capacity_bytes"] == 80 * 2**30 and h100["bandwidth_bytes_per_s"] == 3.35e12
    assert h100["peak_bf16_flops"] == 989.4e12
    assert main(["list", "models", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    llama = next(r for r in rows if r["name"] == "llama-3.1-8b")
    assert float(llama["kv_bytes_per_token_bf16"]) == 2 * 32 * 8 * 128 * 2  # 2 (K, V) x L x H_kv x d_h x 2 B
    assert main(["list", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "**hardware** (" in md and "**models** (" in md and "| h100-sxm |" in md


def test_table_command_gives_page_one(capsys):
    import json

    assert main(["table", "specs/llama8b-h100.yaml", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    first = doc["decision"][0]
    # seed 003: 16.06 GB of bf16 weights / 3.35 TB/s = 4.79 ms a token at batch 1 (context 128 adds 17 MB)
    assert first["workload"] == "decode" and first["batch"] == 1 and abs(first["time"] - 4.8e-3) < 0.02e-3
    assert doc["summary"][0]["sentence"].startswith("Decode at batch 1")
    assert main(["table", "specs/llama70b-h100-tp8.yaml"]) == 0
    out = capsys.readouterr().out
    assert "on 8 x NVIDIA H100" in out and "tok/s per replica" in out


@pytest.mark.parametrize("spec", ["deepseek-v3-h200-ep8.yaml", "llama8b-h100.yaml", "llama70b-h100-tp8.yaml"])
def test_table_cells_are_page_ones(spec):
    """The command's decision cells are page 1's, as printed: DeepSeek-V3's decode at batch 64 and 8k costs
    $0.39999 per million tokens, "0.400" on page 1 and in the table (the command wrote "0.4", and 41.1 tok/s per
    user where page 1 says 41); time, tok/s per user, tok/s and $/M tokens each through page 1's own filter."""
    import html as html_lib
    import re

    from shared import evaluated, rendered

    r = evaluated(spec)
    _, rows = r.decision_table()
    page = rendered(r, "sections/s0_summary.html.j2")
    body = page[page.index("<th>best lever</th>"):]
    cells = [[html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
             for row in re.findall(r"<tr><td>(.*?)</tr>", body, re.S)]
    assert len(cells) == len(rows) > 0
    for row, shown in zip(rows, cells, strict=True):
        label, binds, time, per_user, tps, usd, fits = row
        want = [time, per_user.replace("-", "—"), tps] + ([usd.replace("-", "—")] if r.spec.hardware.price_per_hour else [])
        got = [shown[1], shown[5], shown[6]] + ([shown[7].replace(" (prompt)", "")] if r.spec.hardware.price_per_hour else [])
        assert got == want, (label, got, want)
        assert shown[3].replace("\xa0", " ") == fits, (label, shown[3], fits)  # "yes, ≤ 886; past max_sequences (256)"
    if spec.startswith("deepseek"):
        assert [x[5] for x in rows if x[0] == "decode B = 64, S = 8,192"] == ["0.400"]


def test_table_says_the_devices_noun_and_one_gpu_in_words(capsys):
    """Page 1 as the report says it: on Gaudi 3 (noun: chip) "On 8 chips ... tok/s per chip", as the HTML does (the
    command printed "GPUs", under the spec's title naming 8 H100s); a layout block of one GPU is "On one GPU", not
    "On 1 GPUs ()"."""
    assert main(["table", "specs/llama70b-h100-tp8.yaml", "--set", "hardware=gaudi3"]) == 0
    out = capsys.readouterr().out
    assert "On 8 chips (tp 8)" in out and "tok/s per chip" in out and "GPU" not in out
    # a what-if is titled by what it analyses (the spec's title names 8 H100s): as its report's heading is
    assert out.splitlines()[0] == "What-if: Llama 3.1 70B on 8 × Intel Gaudi 3 (HL-325L OAM), bf16"
    assert main(["table", "specs/llama8b-h100.yaml", "--set", "parallelism.tp=1", "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)["summary"][0]["sentence"]
    assert first.startswith("On one GPU, decode at batch 1") and "with no collective on its critical path" in first


@pytest.mark.parametrize(("spec", "overrides", "words"), [
    # DeepSeek-V3 on 8 H200 at its serving block: met up to 165 sequences, the cheapest layout that meets it
    ("deepseek-v3-h200-ep8.yaml", [], "meets them up to 165 sequences per replica in plain decode rounds, and 147 with "
                                      "each prompt's prefill between them (the 128 users take 8 GPUs)"),
    # the 70B on one H100: 141 GB of bf16 weights in 80 GB, the replica cannot serve at all
    ("llama70b-h100-tp8.yaml", ["parallelism.tp=1"], "cannot serve them: its weights alone exceed the card's memory"),
    # a 1 ms TTFT no prefill meets: no layout plan tries meets it
    ("llama70b-h100-tp8.yaml", ["serving.ttft=1 ms"], "no layout plan tries on NVIDIA H100 SXM5 80GB meets them"),
    # a Gaudi 3 (noun: chip) has no price: the fastest per chip
    ("llama70b-h100-tp8.yaml", ["hardware=gaudi3"], "the fastest per chip layout that meets them"),
    # no serving block: no sentence
    ("llama8b-h100.yaml", [], None),
    # a cheap request's dollars in fixed notation: 1 H100 at $2.99/h, 1k + 128 tokens (fmt.dollars; sig3 wrote
    # "$1.23e-05 per request"; searched at the engine's batch, which this spec leaves unlimited, since stop 88)
    ("llama8b-h100.yaml", ["serving={prompt: 1k, output: 128, tpot: 20 ms}"], "at $0.00000857 per request ($0.0193"),
])
def test_the_table_says_page_ones_serving_sentence(capsys, spec, overrides, words):
    """``genreport table`` printed page 1's three sentences but not the fourth, on the spec's serving block (does the
    layout meet the targets, up to how many sequences, the cheapest layout that does): a user who scripts page 1
    had to build the report for it.  Both print summary.serving_parts' words, the page's line breaks spaces."""
    import html as html_lib
    import json
    import re

    from shared import page as page_of

    args = [x for o in overrides for x in ("--set", o)]
    assert main(["table", f"specs/{spec}", *args, "--format", "json"]) == 0
    sentences = [x["sentence"] for x in json.loads(capsys.readouterr().out)["summary"]]
    found = re.search(r'<p class="summary" data-static>(.*?)</p>', page_of(spec, overrides), re.S)
    if words is None:
        assert found is None and not any(x.startswith("Serving ") for x in sentences)
        return
    on_page = html_lib.unescape(re.sub(r"<[^>]+>", "", found.group(1))).replace("\n", " ")
    assert sentences[-1] == on_page and words in on_page, (sentences[-1], on_page)


# ------------------------------------------------------------------------------------------------ the API

def test_value_off_the_grid_is_evaluated_and_a_wrong_question_says_why():
    import genreport

    r = genreport.evaluate(genreport.load_spec("specs/llama70b-h100-tp8.yaml"))
    off = r.value("decode_tokens_per_s", batch=96, context=8192)
    assert off is not None and r.entry("decode_tokens_per_s", batch=96, context=8192) is None
    # the same number a spec with batch 96 on its grid states
    grid = genreport.evaluate(genreport.load_spec("specs/llama70b-h100-tp8.yaml",
                                                  overrides=["workloads.decode.batch=[96]"]))
    assert off == grid.value("decode_tokens_per_s", batch=96, context=8192)
    with pytest.raises(KeyError, match="did you mean 'decode_tokens_per_s'"):
        r.value("decode_tokens_per", batch=1, context=1024)
    with pytest.raises(KeyError, match="takes batch, context, not batch"):
        r.value("decode_tokens_per_s", batch=1)
    with pytest.raises(KeyError, match="takes no parameters"):
        r.value("ridge_point", batch=3)
    fp8 = r.what_if("precision.kv_cache=fp8")
    assert fp8.s("kv_bytes_per_token") == r.s("kv_bytes_per_token") / 2


def test_notebook_display_is_the_decision_table_escaped(tmp_path):
    import genreport

    spec = tmp_path / "s.yaml"
    spec.write_text("kind: report\nname: s\ntitle: '<b>x</b> & y'\nhardware: h100-sxm\nmodel: llama-3.1-8b\n"
                    "precision: bf16\nworkloads:\n  decode: {batch: [1], context: [1k]}\n")
    r = genreport.evaluate(genreport.load_spec(spec))
    html = r._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt; &amp; y" in html and "<b>x" not in html
    assert "<th>tok/s per user</th>" in html and "decode B = 1, S = 1,024" in html
    assert repr(r).startswith("<genreport Results 's': Llama 3.1 8B on one NVIDIA H100")


def _package_tree(tmp_path):
    """genreport's import layout (package-dir generator/ with formulas/ inside), as an installed copy has it:
    type checkers do not follow the editable install's import hook."""

    root = ROOT
    pkg = tmp_path / "site" / "genreport"
    pkg.mkdir(parents=True)
    for f in (root / "generator").iterdir():
        (pkg / f.name).symlink_to(f)
    (pkg / "formulas").symlink_to(root / "formulas")
    return tmp_path / "site", root


def test_the_api_is_typed(tmp_path):
    """mypy --strict on a script that uses the documented API: clean, and a wrong type is caught."""
    import os
    import subprocess
    import sys

    site, root = _package_tree(tmp_path)
    assert (root / "generator" / "py.typed").is_file()
    assert '"genreport" = ["py.typed"]' in (root / "pyproject.toml").read_text()  # shipped in the wheel
    good = tmp_path / "use.py"
    good.write_text(
        "import genreport\n"
        "spec = genreport.load_spec('specs/llama8b-h100.yaml', overrides=['precision.kv_cache=fp8'])\n"
        "model = genreport.evaluate(spec)\n"
        "quick = genreport.evaluate(spec, plans=False)\n"
        "tok: float | None = model.value('decode_tokens_per_s', batch=96, context=8192)\n"
        "other = model.what_if('hardware.memory.bandwidth=4.8 TB/s')\n"
        "built = genreport.build_report('specs/llama8b-h100.yaml', formats=('json',), spec=spec)\n"
        "folder = genreport.write_report(built, 'out')\n"
        "print(tok, other.spec.name, folder.name, quick.spec.name)\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import genreport\nn: int = genreport.evaluate(genreport.load_spec('x.yaml'))"
                   ".value('ridge_point')\n")
    cmd = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental",
           "--cache-dir", os.devnull]
    env = {**os.environ, "MYPYPATH": str(site)}
    # one mypy run over both scripts (its start-up, reading genreport's stubs, is most of the time): the errors
    # are all bad.py's
    run = subprocess.run([*cmd, str(good), str(bad)], capture_output=True, text=True, env=env, cwd=root, timeout=240)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert run.returncode == 1 and errors, run.stdout + run.stderr
    assert all(line.startswith(str(bad)) for line in errors), run.stdout  # the documented use is clean
    assert any("float | None" in line for line in errors), run.stdout  # and a wrong type is caught


# ------------------------------------------------------------------------------------------- the terminal

def _complete_in_bash(words: list[str], cwd) -> list[str]:
    """Drive the bash completion script as bash does at a Tab: COMP_WORDS, COMP_CWORD, then the function."""
    import os
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    script = ("source <(genreport completion bash); COMP_WORDS=(" + " ".join(shlex.quote(w) for w in words)
              + f"); COMP_CWORD={len(words) - 1}; _genreport; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert out.returncode == 0, out.stderr
    return [x for x in out.stdout.splitlines() if x]


def test_bash_completion_of_commands_options_catalog_names_and_paths():

    root = ROOT
    assert _complete_in_bash(["genreport", "pl"], root) == ["plan"]
    assert _complete_in_bash(["genreport", "plan", "--hardware", "h1"], root) == ["h100-nvl", "h100-pcie", "h100-sxm"]
    assert _complete_in_bash(["genreport", "plan", "--hardware", "h100-sxm,b2"], root) == ["h100-sxm,b200"]
    assert "llama-3.1-70b" in _complete_in_bash(["genreport", "plan", "llama-3.1"], root)
    assert "specs/llama8b-h100.yaml" in _complete_in_bash(["genreport", "specs/llama8"], root)
    assert _complete_in_bash(["genreport", "spe"], root) == ["specs/"]  # a folder: completed without a space
    assert {"--format", "--check", "--verbose"} <= set(_complete_in_bash(["genreport", "specs/x.yaml", "--"], root))
    assert _complete_in_bash(["genreport", "diff", "--format", ""], root) == ["text", "md", "json"]
    assert _complete_in_bash(["genreport", "derive", "critical_c"], root) == ["critical_context"]
    # options whose parsers check their values themselves, and --set's catalog names as bash splits them at '=' (QA,
    # stop 81: each offered nothing)
    assert _complete_in_bash(["genreport", "audit", "x.csv", "--format", ""], root) == ["table", "csv", "json"]
    assert "bf16,fp8" in _complete_in_bash(["genreport", "sweep", "--precision", "bf16,fp"], root)
    assert _complete_in_bash(["genreport", "specs/x.yaml", "--set", "hardware", "=", "h1"], root) == [
        "h100-nvl", "h100-pcie", "h100-sxm"]
    assert "model=qwen3-32b" in _complete_in_bash(["genreport", "specs/x.yaml", "--set", "model=qwen3"], root)


def test_completion_scripts_for_three_shells(capsys):
    for shell in ("bash", "zsh", "fish"):
        assert main(["completion", shell]) == 0
        assert "genreport __complete" in capsys.readouterr().out
    assert main(["completion", "tcsh"]) == 1  # a value outside the choices: bad input


def test_quiet_and_verbose(tmp_path, capsys):

    root = ROOT
    config = root / "tests" / "fixtures" / "hf" / "gemma-3-27b.json"  # notes what it assumed
    assert main(["import-hf", str(config), "-o", str(tmp_path / "m.yaml")]) == 0
    assert "model spec" in capsys.readouterr().err
    assert main(["import-hf", str(config), "-o", str(tmp_path / "n.yaml"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["list", "hardware", "-v"]) == 0
    err = capsys.readouterr().err
    assert "genreport list:" in err and "read 1" in err and "h100-sxm.yaml" in err
    assert main(["list", "-q", "-v"]) == 64  # one or the other


def test_a_progress_line_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    import sys

    from genreport.write import build

    monkeypatch.setattr(build.Timer, "PROGRESS_AFTER", 0.0)
    spec = "specs/llama8b-h100.yaml"
    assert main([spec, "--format", "json", "-o", str(tmp_path), "--force"]) == 0
    assert "\r" not in capsys.readouterr().err  # not a terminal: no progress line
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main([spec, "--format", "json", "-o", str(tmp_path), "--force"]) == 0
    err = capsys.readouterr().err
    assert "\r\x1b[Kgenreport: building llama8b-h100: evaluate done" in err and err.endswith("\r\x1b[K")
    assert main([spec, "--format", "json", "-o", str(tmp_path), "--force", "-q"]) == 0
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------------------------------------- user defaults

def test_user_and_project_defaults(tmp_path, monkeypatch, capsys):
    """The project's .genreport.yaml over the user's config.yaml; the command line over both; a bad file is an
    error naming file, line and fix."""
    import json

    from genreport import config

    monkeypatch.delenv("GENREPORT_NO_CONFIG")
    home = tmp_path / "home"
    (home / "genreport").mkdir(parents=True)
    (home / "genreport" / "config.yaml").write_text("prices: {h100-sxm: 2.5, b200: 6}\nmemory_reserve: 0.05\n"
                                                    "hardware: [h100-sxm]\nout: reports\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    project = tmp_path / "project" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "project" / ".genreport.yaml").write_text("prices: {b200: 5.5}\nout: built\n")
    monkeypatch.chdir(project)
    c = config.load()
    assert c.prices == {"h100-sxm": 2.5, "b200": 5.5} and c.memory_reserve == 0.05 and c.hardware == ("h100-sxm",)
    assert c.out == tmp_path / "project" / "built"  # relative to the file that sets it
    assert main(["list", "hardware", "--format", "json"]) == 0
    prices = {x["name"]: x["price_per_hour_usd"] for x in json.loads(capsys.readouterr().out)["hardware"]}
    assert prices["b200"] == 5.5 and prices["h100-sxm"] == 2.5
    spec = str(ROOT / "specs" / "llama8b-h100.yaml")
    assert main([spec, "--format", "json", "-q"]) == 0
    assert (tmp_path / "project" / "built" / "llama8b-h100" / "results.json").is_file()
    assert main([spec, "--format", "json", "-q", "-o", str(tmp_path / "given")]) == 0  # the command line wins
    assert (tmp_path / "given" / "llama8b-h100" / "results.json").is_file()
    (tmp_path / "project" / ".genreport.yaml").write_text("prices: {b200: -5}\nouts: x\n")
    assert main(["list", "hardware"]) == 1
    err = capsys.readouterr().err
    assert ".genreport.yaml:1:" in err and ".genreport.yaml:2:1" in err and "outs" in err
    monkeypatch.setenv("GENREPORT_NO_CONFIG", "1")
    assert config.load() == config.Config()


def test_plan_as_markdown(capsys):
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--limit", "2", "--format", "md"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("| weights | KV | GPU |"))
    assert lines[head + 1].startswith("|---|---|---|---:|") and len([x for x in lines if x.startswith("| ")]) == 3
    assert "... " in out and "more" in out  # the rows left out are said, as in the table


def test_plan_shows_progress_past_a_second_on_a_terminal(capsys, monkeypatch):
    import itertools
    import sys

    from genreport.commands import plan as plan_cmd

    clock = itertools.count(0.0, 2.0)  # every reading two seconds later
    monkeypatch.setattr(plan_cmd.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["plan", "llama-3.2-1b", "--hardware", "h100-sxm,h200", "--limit", "1"]) == 0
    err = capsys.readouterr().err
    assert "\r\x1b[Kgenreport plan: h200 (2/2)" in err and err.endswith("\r\x1b[K")


def test_table_csv_quotes_what_a_spreadsheet_would_evaluate():
    """One rule for every CSV genreport writes (tables.FORMULA_START, as audit): fullwidth and line-break starts too."""
    from genreport.commands.tables import csv_cell

    for text in ("=HYPERLINK(1)", "+1", "-2+3", "@x", "\uff1dSUM(1)", "\nx"):
        assert csv_cell(text) == "'" + text
    assert csv_cell("h100-sxm") == "h100-sxm" and csv_cell(-2.5) == -2.5 and csv_cell(None) == ""
    assert (csv_cell(True), csv_cell(False), csv_cell(1), csv_cell(0)) == ("true", "false", 1, 0)


def test_table_csv_writes_truth_values_as_its_json_does(capsys):
    """page 1's decision table: 'fits' is true in the JSON and was 'True' in the CSV (sweep's CSV says 'true')."""
    import csv
    import io

    assert main(["table", "specs/llama8b-h100.yaml", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    block = text.split("# decision\n")[1].split("\n\n")[0]
    fits = {r["fits"] for r in csv.DictReader(io.StringIO(block))}
    assert fits <= {"true", "false"} and fits, fits
    assert "True" not in text and "False" not in text


# Llama 3.1 70B in bf16 (141 GB) on one TPU v5e chip (16 GB), no layout: the serving chapter's single-card refusal and
# the training row's "N cards' memory" say the device's noun mid-sentence
ONE_CHIP_70B = """\
kind: report
name: llama70b-one-v5e
title: Llama 3.1 70B on one TPU v5e chip
hardware: tpu-v5e
model: llama-3.1-70b
precision: bf16
workloads:
  decode: {batch: [1], context: [1k]}
  training: {micro_batch_tokens: 8k}
serving: {prompt: 2k, output: 256, tpot: 50 ms}
"""


def test_the_devices_noun_mid_sentence_is_lower_case(capsys):
    """fmt.device capitalizes a word with nothing before it (a sentence's start), so "card" handed to it alone said
    "exceed the Chip's memory" on page 1 and in ``genreport table`` (a TPU or a Gaudi), "the Chip holds" in the serving
    chapter and "(one Chip)", "3 Chips' memory" in the training chapter: each phrase goes to it whole."""
    import re

    from shared import evaluated_text, spec_file
    from shared import page as page_of

    assert main(["table", str(spec_file(ONE_CHIP_70B, "one-chip")), "--format", "json"]) == 0
    sentence = [x["sentence"] for x in json.loads(capsys.readouterr().out)["summary"]][-1]
    assert "its weights alone exceed the chip's memory" in sentence, sentence
    text = re.sub(r"<[^>]+>", "", page_of(evaluated_text(ONE_CHIP_70B, "one-chip")))
    assert "exceed the chip's memory" in text and "the chip holds" in text and "chips' memory" in text
    assert not re.search(r"(?<![.!?>\n]) (Chip|Chips)\b", text), re.findall(r".{40}[^.!?>\n] Chips?\b.{20}", text)


def test_one_user_is_singular_on_page_one_and_in_the_chapter(capsys):
    """``serving.users=1`` (review, stop 78): page 1's serving sentence (and ``table``) read "the 1 users take 8 GPUs"
    and the chapter "1 users take", "the spec's 1 users"."""
    import re

    from shared import SPECS, evaluated, rendered

    assert main(["table", str(SPECS / "llama70b-h100-tp8.yaml"), "--set", "serving.users=1"]) == 0
    out = capsys.readouterr().out
    assert "(the 1 user takes 8 GPUs)" in out and "1 users" not in out
    r = evaluated("llama70b-h100-tp8.yaml", ["serving.users=1"])
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, "sections/s9_serving.html.j2")))
    assert "1 users" not in text and "1 user takes 8 GPUs" in text
