"""Hostile input, round eight: each defect an earlier review listed, reproduced, and what the command says now.

1 derive --at a fractional batch or context without --spec; 3 a value YAML read as a boolean or an infinity echoed as
'true' or '.inf'; 4 calibrate -o inside a file; 5 -o a dangling symbolic link; 6 bash completion of a path with a
space or a glob character; 7 the appendix's rebuild command named the spec relative to the working folder.
"""

from __future__ import annotations

import re

import pytest
from genreport.commands.cli import main
from livejs import needs_node
from shared import ROOT

SPEC = "specs/llama8b-h100.yaml"


# ----------------------------------------------------------------------------------------------- 1: derive --at

@pytest.mark.parametrize("at", ["S=1000.5", "B=2.5", "S=1e3", "B=5/2"])
@pytest.mark.parametrize("spec", [(), ("--spec", SPEC)])
def test_a_points_batch_or_context_takes_no_fraction_without_a_spec_either(capsys, at, spec):
    """``derive decode_time_memory --at S=1000.5`` (no --spec) printed t_mem = (2001 B c + 2 N b)/(2 W), half a
    token in the KV cache, where the same with --spec was refused ("S is a count"): both refuse it now, naming the
    --at and the value."""
    assert main(["derive", "decode_time_memory", "--at", at, *spec]) == 1
    captured = capsys.readouterr()
    name = at.split("=")[0]
    assert captured.err.startswith(f"--at {at}: {name} is a count (") and "internal error" not in captured.err
    assert f"write a whole number in digits, e.g. --at {name}=8" in captured.err and captured.out == ""


def test_whole_counts_still_substitute_without_a_spec(capsys):
    assert main(["derive", "decode_time_memory", "--at", "B=8", "--at", "S=8k"]) == 0
    assert "with B = 8, S = 8k:\n    t_mem = (N b + 65536 c)/W" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------- 3: the echo

@pytest.mark.parametrize("written, message", [
    ("model.kv_heads=yes", "kv_heads: yes (read as true) is not an integer"),
    ("model.kv_heads=On", "kv_heads: On (read as true) is not an integer"),
    ("model.kv_heads=1e999", "kv_heads: 1e999 (read as .inf) is not a finite number"),
    ("workloads.decode.batch=[on, 8]", "workloads.decode.batch[0]: on (read as true) is not a valid value here"),
    ("workloads.decode.batch=off", "workloads.decode.batch[0]: off (read as false) is not a valid value here"),
    ("hardware.memory.bandwidth=1e999", "memory.bandwidth: 1e999 (read as .inf) is not a finite number"),
    ("model.kv_heads=true", "kv_heads: true is not an integer"),  # written as it reads: no echo
    ("model.kv_heads=TRUE", "kv_heads: true is not an integer"),  # nor in other capitals
    ("model.kv_heads=.NaN", "kv_heads: .nan is not a finite number"),
])
def test_a_value_yaml_read_otherwise_is_echoed_as_written(tmp_path, capsys, written, message):
    """``--set model.kv_heads=yes`` said "true is not an integer" and ``=1e999`` ".inf is not a finite number": values
    the user never wrote.  The message shows what was written and what YAML read it as."""
    assert main([SPEC, "--set", written, "--format", "json", "-o", str(tmp_path / "out"), "-q"]) == 1
    err = capsys.readouterr().err
    assert f"--set {written}: {message}" in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()


def test_a_spec_files_value_is_echoed_as_written(tmp_path, capsys):
    spec = tmp_path / "odd.yaml"
    spec.write_text("kind: report\nname: odd\ntitle: Odd\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [Yes, 1e999], context: [128]}\n")
    assert main([str(spec), "--format", "json", "-o", str(tmp_path / "out"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "odd.yaml:8:20: workloads.decode.batch[0]: Yes (read as true) is not a valid value here" in err, err
    assert "odd.yaml:8:25: workloads.decode.batch[1]: 1e999 (read as .inf) is not a finite number" in err, err


@needs_node
def test_the_page_echoes_as_the_loader_does():
    """The live page's what-if said "true is not an integer" as the loader did; both show what was written now, in
    the same words (tests/test_live_rules.py's parity)."""
    from test_live_rules import ONE, agree, cli, node

    cases = [(ONE, [o]) for o in ("model.kv_heads=yes", "model.kv_heads=1e999", "workloads.decode.batch=[ on ,2]",
                                  "hardware.bandwidth=yes", "hardware.bandwidth=1e999", "workloads.decode.batch=off")]
    for (spec, overrides), js in zip(cases, node(cases)["cases"], strict=True):
        assert len(js["errors"]) == 1 and agree(js["errors"][0], cli(spec, tuple(overrides))[1]), (overrides, js["errors"])
        assert "read as" in js["errors"][0] or "reads as" in js["errors"][0]


# ----------------------------------------------------------------------------------------------- 5: -o a dangling link

@pytest.mark.parametrize("under", ["", "sub"])
def test_output_through_a_dangling_link_is_refused_and_not_followed(tmp_path, capsys, under):
    """``-o LINK`` where LINK points at a missing folder said "LINK is a file, not a folder" (and ``-o LINK/sub``
    the same of LINK/sub); it names the link and where it points, makes nothing there, and exits 2."""
    link, target = tmp_path / "link", tmp_path / "elsewhere" / "missing"
    link.symlink_to(target)
    out = link / under if under else link
    assert main([SPEC, "-o", str(out), "--format", "json", "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{link} is a symbolic link to {target}, which does not exist; genreport does not make folders through " \
           "a link" in err and "Traceback" not in err, err
    assert not (tmp_path / "elsewhere").exists() and link.is_symlink()


def test_output_inside_a_file_names_the_file(tmp_path, capsys):
    """``-o FILE/sub`` said only "Not a directory"."""
    (tmp_path / "file").write_text("x")
    assert main([SPEC, "-o", str(tmp_path / "file" / "sub"), "--format", "json", "-q"]) == 2
    assert f"{tmp_path / 'file'} is a file, not a folder; name a folder with -o" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- 4: calibrate -o

def _no_measuring(monkeypatch):
    from genreport.commands import calibrate

    def measured(*a, **k):
        raise AssertionError("measured before the -o was checked")

    monkeypatch.setattr(calibrate, "measure_cpu", measured)


@pytest.mark.parametrize("output, blocker, why", [
    ("afile/x.yaml", "afile", "is a file, not a folder"),
    ("afile/sub/x.yaml", "afile", "is a file, not a folder"),
    ("dangling/x.yaml", "dangling", "is a symbolic link to gone, which does not exist"),
])
def test_calibrate_names_what_blocks_the_output_before_measuring(tmp_path, monkeypatch, capsys, output, blocker, why):
    """``calibrate -o FILE/x.yaml`` measured for ten seconds, then said "cannot write FILE/x.yaml: File exists" (exit
    2); a dangling link as the folder likewise.  It is refused before measuring, naming the file or link (exit 1, a
    bad -o, as calibrate's help says)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "dangling").symlink_to("gone")
    _no_measuring(monkeypatch)
    assert main(["calibrate", "-o", output, "--seconds", "0.5"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"genreport calibrate: cannot write {output}: {blocker} {why}; name a file in a folder"), err
    assert not (tmp_path / "gone").exists()


def test_calibrate_refuses_an_empty_output(tmp_path, monkeypatch, capsys):
    """``-o ''`` wrote specs/hardware/cpu-calibrated.yaml, the default, as if no -o were given."""
    monkeypatch.chdir(tmp_path)
    _no_measuring(monkeypatch)
    assert main(["calibrate", "-o", "", "--seconds", "0.5"]) == 1
    assert "-o '' names no file" in capsys.readouterr().err and not (tmp_path / "specs").exists()


# ----------------------------------------------------------------------------------------------- 6: bash completion

def test_bash_completes_a_path_with_a_space_or_a_glob_character(tmp_path):
    """The bash script read candidates with an unquoted $(...): 'my spec.yaml' went onto the line as two words, and
    'a[1].yaml' was a glob that matched a1.yaml; a word typed with a backslash or a quote ('my\\ s') found nothing.
    Each candidate is quoted where the shell needs it now, and the word typed is read as the shell reads it."""
    from test_cli_conventions import _complete_in_bash

    for name in ("my spec.yaml", "a[1].yaml", "a1.yaml", "plain.yaml"):
        (tmp_path / name).write_text("kind: report\n")
    assert _complete_in_bash(["genreport", "my"], tmp_path) == ["my\\ spec.yaml"]
    assert _complete_in_bash(["genreport", "my\\ s"], tmp_path) == ["my\\ spec.yaml"]
    assert _complete_in_bash(["genreport", "'my s"], tmp_path) == ["my\\ spec.yaml"]
    assert _complete_in_bash(["genreport", "a"], tmp_path) == ["audit", "a1.yaml", "a\\[1\\].yaml"]
    assert _complete_in_bash(["genreport", "pl"], tmp_path) == ["plan", "plain.yaml"]
    assert _complete_in_bash(["genreport", "plan", "--hardware", "h100-sxm,b2"], tmp_path) == ["h100-sxm,b200"]


# ----------------------------------------------------------------------------------------------- 7: rebuild with

def test_the_command_path_is_the_projects_or_absolute(tmp_path, monkeypatch):
    """The appendix's "rebuild with" and the page's "Copy as command" named the spec relative to the folder the
    build ran in: 'genreport llama8b-h100.yaml' built from specs/ (which fails from the checkout, where the committed
    reports say 'specs/llama8b-h100.yaml'), 'genreport my.yaml' for a spec in no project, built from its folder
    (which runs nowhere else).  A spec in a project is named from the project's folder, any other absolutely."""
    from genreport import load_spec
    from genreport.paths import command_path
    from genreport.present import live

    monkeypatch.chdir(ROOT / "specs")
    assert command_path("llama8b-h100.yaml") == "specs/llama8b-h100.yaml"
    assert live.page_data(load_spec(ROOT / "specs" / "llama8b-h100.yaml"))["spec_file"] == "specs/llama8b-h100.yaml"
    own = tmp_path / "mine" / "specs"
    own.mkdir(parents=True)
    (own / "a.yaml").write_text("kind: report\n")
    (tmp_path / "loose.yaml").write_text("kind: report\n")
    monkeypatch.chdir(tmp_path)
    assert command_path("mine/specs/a.yaml") == "specs/a.yaml"  # run from mine/, as genreport runs in a project
    assert command_path("loose.yaml") == str(tmp_path / "loose.yaml")
    assert command_path("") == ""


def test_the_rebuild_line_of_a_spec_outside_a_project_is_absolute(tmp_path, monkeypatch):
    import html as html_lib
    import re

    (tmp_path / "my spec.yaml").write_bytes((ROOT / SPEC).read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["my spec.yaml", "--format", "html", "-o", "out", "-q"]) == 0
    page = (tmp_path / "out" / "llama8b-h100" / "report.html").read_text(encoding="utf-8")
    line = html_lib.unescape(re.search(r"rebuild with <code>([^<]*)</code>", page).group(1))
    assert line == f"genreport '{tmp_path / 'my spec.yaml'}'"


@pytest.mark.parametrize("text, said", [
    ("1_000 GB/s", "cannot read '1_000 GB/s': an underscore in the number; write it without one, e.g. '1000 GB/s'"),
    ("2_039_000 MB/s", "an underscore in the number; write it without one, e.g. '2039000 MB/s'"),
])
def test_an_underscore_in_a_quantitys_number_is_named(text, said):
    """'1_000 GB/s' (YAML 1.1 reads a bare 1_000 as 1000, so a user writes it in a quantity too) said "unknown unit
    '_000 GB'"; the loader and the live page (tests/test_live_whatif.py BAD) now name the underscore."""
    from genreport.load.units import UnitError, parse

    with pytest.raises(UnitError, match=re.escape(said)):
        parse(text)
