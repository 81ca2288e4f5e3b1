"""Command-line input a review found mishandled (round four): each case states what happened before."""

from __future__ import annotations

import pytest
from genreport.commands.cli import main
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-h100.yaml"


@pytest.mark.parametrize("names", [",", "", " , "])
def test_plan_with_no_gpu_named_is_an_input_error(names, capsys):
    """``plan llama-3.1-8b --hardware ,`` was an internal IndexError (exit 3)."""
    assert main(["plan", "llama-3.1-8b", "--hardware", names]) == 1
    err = capsys.readouterr().err
    assert "no GPU named" in err and "genreport list hardware" in err and "internal error" not in err


@pytest.mark.parametrize("option", [["--idle-exit", "-1"], ["--idle-exit", "nan"], ["--idle-exit", "inf"],
                                    ["--idle-exit", "0"], ["--max-requests", "0"], ["--max-requests", "-1"]])
def test_serve_refuses_its_limits_before_it_is_ready(option, capsys):
    """``serve --idle-exit -1`` printed 'ready', then died of select()'s ValueError (nan: the same; inf: an
    OverflowError); ``--max-requests 0`` answered one request.  Now refused before anything is loaded: an option's
    value, exit 1 (the README's exit table)."""
    assert main(["serve", "--no-pdf", *option]) == 1
    out = capsys.readouterr()
    assert "ready" not in out.out and option[0] in out.err


def test_two_specs_of_one_name_are_refused_and_nothing_is_written(tmp_path, capsys):
    """Two specs named alike on one command line: the second replaced the first's folder, exit 0."""
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    text = SPEC.read_text()
    a.write_text(text)
    b.write_text(text.replace("hardware: h100-sxm", "hardware: h200"))
    out = tmp_path / "out"
    assert main([str(a), str(b), "-o", str(out), "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert f"{a} and {b} both write {out / 'llama8b-h100'}/" in err and "give each spec a name of its own" in err
    assert not out.exists()


def test_a_bad_spec_among_several_writes_none(tmp_path, capsys):
    """A good spec before (or after) a bad one was built and written, exit 1, with no word of it."""
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(SPEC.read_text())
    bad.write_text(SPEC.read_text().replace("batch: [", "batch: [0, "))
    out = tmp_path / "out"
    for order in ([good, bad], [bad, good]):
        assert main([*map(str, order), "-o", str(out), "--format", "json"]) == 1
        err = capsys.readouterr().err
        assert f"{bad}:" in err and "nothing was written" in err
        assert not out.exists()
    assert main([str(good), "-o", str(out), "--format", "json", "-q"]) == 0  # and alone it builds


def test_the_check_names_the_command_that_rebuilds_what_it_compared(tmp_path, capsys):
    """``--check`` of a what-if in another folder ended "run 'genreport SPEC --format html,json'": the baseline,
    into ./out.  The hint keeps -o, --format, every --set and --name, quoted for the shell."""
    out = tmp_path / "d1"
    what_if = ["--set", "hardware.memory.bandwidth=4.8 TB/s", "--set", "model.kv_heads=1"]
    assert main([str(SPEC), "-o", str(out), "--format", "json", "--check", *what_if]) == 4
    err = capsys.readouterr().err
    assert (f"run 'genreport {SPEC} -o {out} --format json --set 'hardware.memory.bandwidth=4.8 TB/s' "
            "--set model.kv_heads=1'") in err, err
    assert main([str(SPEC), "-o", str(out), "--format", "json", "-q", *what_if]) == 0  # that command
    assert main([str(SPEC), "-o", str(out), "--format", "json", "--check", "-q", *what_if]) == 0


@pytest.mark.parametrize("written, reads, why", [
    ("010", "8", "a leading 0 as octal"), ("1:30", "90", "a colon as base 60"), ("0b101", "5", "0b as binary")])
def test_a_number_yaml_1_1_reads_otherwise_is_refused(written, reads, why, tmp_path, capsys):
    """``batch: [1, 010]`` built batch 8, ``[1, 1:30]`` batch 90, ``[1, 0b101]`` batch 5, exit 0 (YAML 1.1's octal,
    base-60 and binary ints; YAML 1.2 and JSON read none of them so): refused at the value, in a file and in --set."""
    spec = tmp_path / "odd.yaml"
    spec.write_text(SPEC.read_text().replace("batch: [1, 2, 4,", f"batch: [1, {written}, 4,"))
    out = tmp_path / "out"
    assert main([str(spec), "-o", str(out), "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert f"odd.yaml:15:16: workloads.decode.batch[1]: {written} reads as {reads}: YAML 1.1 reads {why}" in err, err
    assert f"quote it if it is text ('{written}'), or write the number in decimal ({reads})" in err
    assert main([str(SPEC), "-o", str(out), "--format", "json", "--set", f"workloads.decode.batch=[1, {written}]"]) == 1
    assert f"{written} reads as {reads}" in capsys.readouterr().err
    assert not out.exists()


def test_numbers_that_read_as_they_look_still_do(tmp_path, capsys):
    """0, 0.5, 1e9, 0x10 (hexadecimal, as YAML 1.2 reads it) and a quoted '010' are read as before."""
    from genreport.load.yamlread import _yaml11_number

    assert [_yaml11_number(t) for t in ("0", "0.5", "1e9", "-3", "0x10", "1_000", "10")] == [""] * 7
    assert _yaml11_number("-010") and _yaml11_number("+1:00:00")


def test_what_is_wrong_inside_a_mapping_set_made_points_at_the_option(tmp_path, capsys):
    """``--set hardware.memroy.bandwidth=1`` was "specs/hardware/h100-sxm.yaml:2:1: memroy: unknown key" (the file
    has no such key: the option made it); ``--set serving.tpot=20ms`` on a spec without a serving block blamed the
    spec for the block's missing prompt and output.  Both now point at the option, the latter naming the --set to add."""
    out = str(tmp_path / "out")
    assert main([str(SPEC), "-o", out, "--format", "json", "--set", "hardware.memroy.bandwidth=1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("--set hardware.memroy.bandwidth=1: memroy: unknown key 'memroy'"), err
    assert main([str(SPEC), "-o", out, "--format", "json", "--set", "serving.tpot=20ms"]) == 1
    err = capsys.readouterr().err
    assert "--set serving.tpot=20ms: serving: missing key 'output' (hint: add --set serving.output=... as well: " \
        "tokens one request generates, e.g. 512)" in err
    assert "--set serving.prompt=... as well" in err and "llama8b-h100.yaml" not in err
    # a key the file's own block lacks stays the file's
    bad = tmp_path / "bad.yaml"
    bad.write_text(SPEC.read_text() + "serving: {prompt: 4k}\n")
    assert main([str(bad), "-o", out, "--format", "json", "--set", "serving.tpot=20ms"]) == 1
    assert "bad.yaml:" in capsys.readouterr().err


def test_a_hint_quotes_what_was_written_not_what_yaml_read(tmp_path, capsys):
    """``title: no`` said "false is not a string (hint: quote it: 'false')": quoting 'false' gives another title.
    The message now names the text as written and what YAML read it as, in a file and in --set."""
    spec = tmp_path / "t.yaml"
    spec.write_text(SPEC.read_text().replace("title: ", "title: no\n# was: ", 1))
    assert main([str(spec), "-o", str(tmp_path / "out"), "--format", "json"]) == 1
    assert "title: no reads as false, not a string (hint: quote it: 'no')" in capsys.readouterr().err
    assert main([str(SPEC), "-o", str(tmp_path / "out"), "--format", "json", "--set", "title=no"]) == 1
    assert "--set title=no: title: no reads as false, not a string (hint: quote it: 'no')" in \
        capsys.readouterr().err


@pytest.mark.parametrize("command", [["import-hf", "tests/fixtures/hf/gemma-3-27b.json"], ["calibrate"]])
def test_an_output_that_is_a_folder_is_named_so(command, tmp_path, capsys):
    """``import-hf -o FOLDER`` said "FOLDER exists; pass --force", and with --force "is a folder"; ``calibrate -o
    FOLDER`` that FOLDER "does not match the name" (with no --name given).  Both now say it is a folder."""
    folder = tmp_path / "models"
    folder.mkdir()
    for force in ([], ["--force"]):
        assert main([*command, "-o", str(folder), *force]) == 1
        err = capsys.readouterr().err
        assert f"{folder} is a folder; name the file to write" in err and "pass --force" not in err
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("argv", [["--max-points", "nan", "specs/llama8b-h100.yaml"],
                                  ["diff", "--threshold", "abc", "a", "b"], ["diff", "--limit", "abc", "a", "b"],
                                  ["calibrate", "--seconds", "abc"]])
def test_an_options_value_that_argparse_cannot_read_is_bad_input(argv, capsys):
    """``--max-points nan`` exited 64 (a usage error) where ``plan --batch abc`` exits 1: the README's exit table
    puts an option's value under 1, bad input; an unknown option or a missing argument stays 64."""
    assert main(argv) == 1
    assert "invalid" in capsys.readouterr().err
    assert main(["diff", "--no-such", "a", "b"]) == 64


def test_a_batch_is_a_count_of_sequences_in_every_command(capsys):
    """``--batch x`` said "not a token count" in sweep and derive and "not a count of sequences" in plan."""
    for argv in (["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--batch", "x"],
                 ["derive", "decode_time_memory", "--spec", str(SPEC), "--batch", "x"],
                 ["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--batch", "x"]):
        assert main(argv) == 1, argv
        assert "'x' is not a count of sequences" in capsys.readouterr().err, argv


def test_plan_says_whether_no_layout_fits_or_none_meets_the_targets(capsys):
    """``plan llama-3.1-8b --hardware h100-sxm --tpot 1ns`` said "no layout fits" of layouts that fit and miss it; and
    exited 0 as for a table (review, stop 81: a script could not tell): 5, a search with no answer, in every format."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--tpot", "1ns"]) == 5
    out = capsys.readouterr().out
    assert "no layout meets the targets" in out and "misses the latency target" in out
    # and how near a layout came (deployment review, stop 75: "no layout meets the targets" and nothing to aim at):
    # batch 1 at the least is 8.03e9 x 1 B / 8 GPUs / 3.35 TB/s (fp8 at tp 8: 0.30 ms) or less at its context
    assert "(the least TPOT, at batch 1, is " in out
    assert main(["plan", "deepseek-v3", "--hardware", "h100-sxm", "--ttft", "1ms", "--format", "json"]) == 5
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] == [] and 0.001 < doc["closest"]["ttft"] < 0.05
    assert main(["plan", "llama-3.1-405b", "--hardware", "rtx-4090", "--max-gpus", "1"]) == 5
    assert "no layout fits" in capsys.readouterr().out
    assert main(["plan", "llama-3.1-405b", "--hardware", "rtx-4090", "--max-gpus", "1", "--format", "csv"]) == 5
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm"]) == 0  # a table


def test_an_output_folder_that_is_a_file_is_named_so(tmp_path, capsys):
    """``-o FILE`` said "cannot write FILE/NAME: File exists", with no fix."""
    afile = tmp_path / "afile"
    afile.write_text("mine")
    assert main([str(SPEC), "-o", str(afile), "--format", "json"]) == 2
    assert f"{afile} is a file, not a folder; name a folder with -o" in capsys.readouterr().err
    assert afile.read_text() == "mine"


def test_a_misspelt_short_form_names_the_short_form(tmp_path, capsys):
    """``--set 'hardware.bandwith=4.8 TB/s'`` suggested 'achieved_bandwidth', a key of the hardware file, where the
    user meant the short form hardware.bandwidth (hardware.memory.bandwidth)."""
    assert main([str(SPEC), "-o", str(tmp_path), "--format", "json", "--set", "hardware.bandwith=4.8 TB/s"]) == 1
    assert "did you mean hardware.bandwidth? (short for hardware.memory.bandwidth)" in capsys.readouterr().err


def test_plan_notes_a_context_past_the_models_maximum(capsys):
    """Qwen3-32B's config stops at 40,960 positions (specs/models/qwen3-32b.yaml max_context); a 62k + 2k request
    was planned without a word, where a report spec's loader warns."""
    assert main(["plan", "qwen3-32b", "--hardware", "h20", "--prompt", "62k", "--output", "2k", "--batch", "1"]) == 0
    assert "note: the last context, 65,535 tokens, is past Qwen3 32B's max_context 40,960" in capsys.readouterr().out
    assert main(["plan", "qwen3-32b", "--hardware", "h20", "--prompt", "8k", "--output", "1k", "--batch", "1"]) == 0
    assert "max_context" not in capsys.readouterr().out


def test_a_format_or_a_model_named_twice_is_listed_once(capsys):
    """Hostile review, stop 75: ``plan --weights fp8,fp8`` listed every row twice and ``sweep --models a,a`` swept a
    twice ("2 configurations"), as ``--hardware h100-sxm,h100-sxm`` once did."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--weights", "fp8,fp8", "--format", "csv"]) == 0
    twice = capsys.readouterr().out
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--weights", "fp8", "--format", "csv"]) == 0
    assert twice == capsys.readouterr().out
    from genreport.commands.sweep import _names

    assert _names("llama-3.1-8b, llama-3.1-8b,qwen3-8b") == ["llama-3.1-8b", "qwen3-8b"]


def test_the_rebuild_command_quotes_the_spec_path(tmp_path, capsys):
    """Hostile review, stop 75: the appendix's "rebuild with" line quoted the --set values but not the spec's path, so
    'a;touch PWNED;b.yaml' pasted into a shell ran touch, and a path with a space split in two."""
    import shlex

    folder = tmp_path / "sp ace"
    folder.mkdir()
    spec = folder / "a;touch PWNED;b.yaml"
    spec.write_bytes((ROOT / "specs" / "llama8b-h100.yaml").read_bytes())
    assert main([str(spec), "--format", "html", "-o", str(tmp_path / "out"), "-q", "--set", "model.kv_heads=4"]) == 0
    import html as html_lib
    import re

    page = (tmp_path / "out" / "llama8b-h100-whatif" / "report.html").read_text()
    line = html_lib.unescape(re.search(r"rebuild with <code>([^<]*)</code>", page).group(1))
    assert shlex.split(line) == ["genreport", str(spec), "--set", "model.kv_heads=4"]


def test_plan_takes_the_engines_max_sequences(capsys):
    """Deployment review, stop 75: the engine's 256 sequences (vLLM's max_num_seqs) could be changed only in a spec;
    ``plan --max-sequences N`` sets it (0: what fits), a value out of range names the option."""
    import json

    args = ["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "1", "--batch", "1000",
            "--context", "1024", "--format", "json"]
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)["rows"][0]
    assert main([*args, "--max-sequences", "300"]) == 0
    wider = json.loads(capsys.readouterr().out)["rows"][0]
    assert (default["batch"], default["limit"]) == (256, "engine") and (wider["batch"], wider["limit"]) == (300, "engine")
    assert main([*args, "--max-sequences", "0"]) == 0
    free = json.loads(capsys.readouterr().out)["rows"][0]
    assert free["batch"] == 450 and free["limit"] == "capacity"  # what fits at 1,024 tokens (no logits rows kept)
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--max-sequences", "-1"]) == 1
    assert "--max-sequences -1: must be from 0 to 10,000,000" in capsys.readouterr().err


def test_a_name_too_long_is_bad_input(tmp_path, capsys):
    """Hostile review, stop 75: --name of 245-255 characters passed the check and failed to write (its temporary
    folder's name past the file system's 255), exit 2 with no hint; past a spec's own limit, 100, it is refused."""
    code = main([str(ROOT / "specs" / "llama8b-h100.yaml"), "--name", "a" * 250, "-o", str(tmp_path), "--format",
                 "json"])
    assert code == 1 and "the name is 250 characters long (hint: use at most 100" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_input_at_twice_is_refused(tmp_path, capsys):
    """Hostile review, stop 75: ``derive --at W=1 --at W=2`` took the last silently, where ``--price`` twice is
    refused; it names the earlier value."""
    # (--set X=a --set X=b still takes b: the live page applies its what-ifs in turn, the later one winning, and the
    # page and the command line refuse the same inputs: tests/test_live_rules.py)
    assert main(["derive", "critical_context", "--at", "W=1e12", "--at", "W=2e12"]) == 1
    assert "W is set twice (--at W=1e12 before)" in capsys.readouterr().err


def test_plan_names_every_unknown_gpu(capsys):
    """``plan --hardware h100-sxm,h100-sx,b20`` named the first wrong name only (review, stop 82); sweep names all."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm,h100-sx,b20"]) == 1
    err = capsys.readouterr().err
    assert "--hardware h100-sx: no hardware named 'h100-sx' (hint: did you mean 'h100-sxm'?)" in err
    assert "--hardware b20: no hardware named 'b20' (hint: did you mean 'b200'?)" in err and "2 problems" in err


def test_the_engine_counts_take_k_as_the_token_counts_do(capsys):
    """``--max-batched-tokens 8k`` was argparse's "invalid int value: '8k'" where ``--context 8k`` is taken (review,
    stop 82): the engine's counts read as the token counts, k = 1024."""
    import json

    args = ["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--format", "json"]
    assert main([*args, "--max-batched-tokens", "8k", "--max-sequences", "1k"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--max-batched-tokens", "8192", "--max-sequences", "1024"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["rows"] == second["rows"] and first["rows"]
    assert main([*args, "--max-sequences", "x"]) == 1
    assert "--max-sequences x: is not a whole number (hint: write e.g. 8192 or 8k (k = 1024))" in capsys.readouterr().err


def test_a_percentage_where_the_spec_takes_a_fraction_says_the_fraction(capsys):
    """``--memory-reserve 10%`` is taken on the command line; the spec's engine.memory_reserve is a fraction or a
    size, and ``--set engine.memory_reserve=10%`` was told "write a plain number such as 8.03e9" (review, stop 82)."""
    assert main(["specs/llama8b-h100.yaml", "--set", "engine.memory_reserve=10%", "--format", "json"]) == 1
    assert ("'10%' is neither a fraction nor a size (hint: write the fraction, e.g. 0.1, without quotes, or a size "
            "such as '6 GiB')") in capsys.readouterr().err
