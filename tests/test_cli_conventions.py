"""Issue 33: what a user expects of a command-line tool and a Python library."""

from __future__ import annotations

import pytest
from genreport.commands.cli import EXIT, main


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
    assert main(["diff", "--format", "xml", "a", "b"]) == 64
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0


def test_exit_codes_are_distinct_and_documented():
    assert len(set(EXIT.values())) == len(EXIT)
    readme = (__import__("pathlib").Path(__file__).resolve().parents[1] / "README.md").read_text()
    for name, code in EXIT.items():
        assert f"| {code} |" in readme, (name, code)
