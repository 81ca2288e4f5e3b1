"""``genreport diff`` on hostile input (issue 17, items 2 and 14): option injection into git, malformed
results.json, a closed pipe, nonsense limits.  Each gives a clean error (exit 1) or a quiet exit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from genreport.commands.cli import main as cli_main
from genreport.commands.diff import MAX_BYTES, compare, read_results, render
from genreport.errors import SpecError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared import ROOT

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}


def results(n: int = 3, scale: float = 1.0) -> dict:
    return {"quantities": [{"id": f"q{i}", "params": {"batch": i}, "value": (i + 1) * scale, "unit": "B"}
                           for i in range(n)]}


def folder(path: Path, doc) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


@pytest.fixture
def repo(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, env=env, check=True)
    folder(tmp_path / "out" / "r", results())
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "x"], cwd=tmp_path, env=env, check=True)
    monkeypatch.chdir(tmp_path)
    for k, v in GIT_ENV.items():
        monkeypatch.setenv(k, v)
    return tmp_path


@pytest.mark.parametrize("rev", ["--output=x:results.json", "-p:out/r", "--output=x:out/r", "-:out/r",
                                 "HEAD..HEAD:out/r", "HEAD\x1b[2J:out/r"])
def test_a_revision_is_never_an_option(repo, capsys, rev):
    """Issue 17 item 2: '--output=x' before ':' reached 'git show' as an option and wrote the file x."""
    before = sorted(p.name for p in repo.iterdir())
    assert cli_main(["diff", "--", rev, "out/r"]) == 1
    err = capsys.readouterr().err
    assert "is not a git revision genreport reads" in err and "cannot start with '-'" in err
    assert "Traceback" not in err and "\x1b" not in err
    assert sorted(p.name for p in repo.iterdir()) == before  # no file 'x'


def test_git_revision_still_works(repo, capsys):
    assert cli_main(["diff", "HEAD:out/r", "out/r"]) == 0
    assert "no quantity changed (3 compared; every accounting)" in capsys.readouterr().out


MALFORMED = {
    "wrong types": ({"quantities": [{"id": 3, "value": "x"}]}, "quantities[0]: not a results.json quantity: 'id' is "
                                                                "a number, not a string"),
    "value a string": ({"quantities": [{"id": "a", "value": "x"}]}, "'value' is a string, not a number or null"),
    "params a list": ({"quantities": [{"id": "a", "params": [1], "value": 1}]}, "'params' is not an object"),
    "params of objects": ({"quantities": [{"id": "a", "params": {"b": {}}, "value": 1}]}, "'params' is not an object"),
    "missing keys": ({"quantities": [{"value": 1}]}, "no 'id' string"),
    "scope a number": ({"quantities": [{"id": "a", "value": 1, "scope": 3}]}, "'scope' is not a string"),
    # stop 71: the diff of a second entry of one quantity and point depended on the two entries' order
    "an entry twice": ({"quantities": [{"id": "a", "params": {"tokens": 8}, "value": 1},
                                       {"id": "a", "params": {"tokens": 8}, "value": 999}]},
                       "quantities[1]: not a results.json quantity: 'a' at {\"tokens\": 8} is given twice (also "
                       "quantities[0])"),
    "no quantities": ({"spec": {}}, "no list 'quantities'"),
    "quantities an object": ({"quantities": {"a": 1}}, "'quantities' is an object, not a list"),
    "entry not an object": ({"quantities": [1]}, "a number, not an object"),
    "not an object": ([1, 2], "the JSON is a list, not an object"),
    "invalid JSON": ('{"quantities": [', "not valid JSON"),
    "NaN": ('{"quantities": [{"id": "a", "value": NaN}]}', "NaN is not a number JSON allows"),
    "1e400": ('{"quantities": [{"id": "a", "value": 1e400}]}', "1e400 is out of range"),
    "5000 digits": ('{"quantities": [{"id": "a", "value": ' + "9" * 5000 + "}]}", "a 5000-digit number"),
    "deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "not UTF-8": (b'{"quantities": ["\xff"]}', "not UTF-8 text"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_results_json_is_a_clean_error(tmp_path, capsys, case):
    """Issue 17 item 14: five of six malformed variants crashed with exit 3."""
    doc, message = MALFORMED[case]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.json").write_bytes(doc if isinstance(doc, bytes) else
                                       (doc if isinstance(doc, str) else json.dumps(doc)).encode())
    good = folder(tmp_path / "good", results())
    assert cli_main(["diff", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert message in err, err
    assert "internal error" not in err and "Traceback" not in err


def test_huge_results_json_is_refused_without_reading_it(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    with open(bad / "results.json", "wb") as fh:  # sparse: no disk used
        fh.truncate(MAX_BYTES + 10)
    assert cli_main(["diff", str(bad), str(bad)]) == 1
    assert "too large for a results.json" in capsys.readouterr().err


def test_results_json_that_is_a_fifo_is_not_opened(tmp_path, capsys):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "results.json")
    good = folder(tmp_path / "good", results())
    assert cli_main(["diff", str(good), str(tmp_path)]) == 1
    assert "not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("limit, error", [("-1", "must be 0 (all rows) or more"), ("-5", "must be 0 (all rows)")])
def test_negative_limit_is_refused(tmp_path, capsys, limit, error):
    """Issue 17 item 14: --limit -1 used to hide the last row (a Python slice [:-1])."""
    a, b = folder(tmp_path / "a", results()), folder(tmp_path / "b", results(scale=2.0))
    assert cli_main(["diff", "--limit", limit, str(a), str(b)]) == 1
    assert error in capsys.readouterr().err


def test_limit_shows_that_many_rows():
    d = compare(results(5), results(5, scale=3.0))
    text = render(d, "a", "b", limit=2)
    assert "... 3 more (raise --limit)" in text
    assert sum(line.startswith("q") and not line.startswith("quantity") for line in text.splitlines()) == 2
    assert sum(line.startswith("q") and not line.startswith("quantity") for line in render(d, "a", "b", limit=0).splitlines()) == 5


def test_nan_threshold_is_refused(tmp_path, capsys):
    a = folder(tmp_path / "a", results())
    assert cli_main(["diff", "--threshold", "nan", str(a), str(a)]) == 1
    assert "must be a number, 0 or more" in capsys.readouterr().err


def test_terminal_escapes_in_results_json_are_shown_escaped(tmp_path, capsys):
    doc = {"quantities": [{"id": "evil\x1b]0;owned\x07\u202e", "params": {"k": "\x1b[2J"}, "value": 1.0,
                           "unit": "\x9b31m"}]}
    a, b = folder(tmp_path / "a", results()), folder(tmp_path / "b", doc)
    assert cli_main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\x9b" not in out
    assert "evil\\x1b]0;owned\\x07\\u202e" in out and "k=\\x1b[2J" in out


def test_closed_pipe_is_quiet(tmp_path):
    """Issue 17 item 14: 'genreport diff ... | head' gave an internal BrokenPipeError."""
    a, b = folder(tmp_path / "a", results(3000)), folder(tmp_path / "b", results(3000, scale=2.0))
    code = ("import sys; from genreport.commands.cli import entry; sys.argv = ['genreport', 'diff', "
            f"{str(a)!r}, {str(b)!r}]; entry()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # what 'head -1' does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert err == ""


# ----------------------------------------------------------------------------------------------- fuzz

REFERENCE = json.loads((ROOT / "out" / "llama8b-h100" / "results.json").read_text())
BASE = {"quantities": REFERENCE["quantities"][:40], "spec": REFERENCE["spec"]}
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(), st.text(max_size=12))
VALUE = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                   st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                     max_leaves=6)
RAW = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000, "[" * 5000, '"\\ud800"', "{}", "[]"])


@st.composite
def malformed(draw) -> bytes:
    doc = json.loads(json.dumps(BASE))
    for _ in range(draw(st.integers(1, 3))):
        qs = doc.get("quantities") if isinstance(doc, dict) else None
        op = draw(st.sampled_from(["entry", "key", "drop", "top", "raw", "doc"]))
        if op == "doc":
            doc = draw(VALUE)
        elif op == "top" and isinstance(doc, dict):
            doc["quantities"] = draw(VALUE)
        elif isinstance(qs, list) and qs:
            i = draw(st.integers(0, len(qs) - 1))
            if op == "entry":
                qs[i] = draw(VALUE)
            elif op == "drop" and isinstance(qs[i], dict) and qs[i]:
                qs[i].pop(draw(st.sampled_from(sorted(qs[i]))))
            elif op == "raw" and isinstance(qs[i], dict):
                qs[i]["value"] = "@@RAW@@"
            elif isinstance(qs[i], dict):
                qs[i][draw(st.sampled_from(["id", "params", "value", "unit"]))] = draw(VALUE)
    text = json.dumps(doc).replace('"@@RAW@@"', draw(RAW))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):  # raw damage: cut, or a stray byte
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] if draw(st.booleans()) else data[:cut] + draw(st.binary(min_size=1, max_size=3)) + data[cut:]
    return data


@settings(max_examples=int(os.environ.get("GENREPORT_FUZZ_EXAMPLES", 80)), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(malformed())
def test_fuzz_diff(tmp_path_factory, data):
    """Any damaged results.json gives a diff or findings, never an internal error."""
    folder_path = tmp_path_factory.mktemp("r")
    (folder_path / "results.json").write_bytes(data)
    try:
        doc = read_results(str(folder_path))
    except SpecError as exc:
        assert exc.findings and all(f.hint for f in exc.findings)
        return
    text = render(compare(BASE, doc), "a", "b", limit=5)
    assert text.startswith("--- a\n+++ b\n")


@pytest.mark.parametrize("ref", ["a" * 5000, "HEAD:" + "a/" * 3000])
def test_names_too_long_for_the_file_system(capsys, ref):
    """An OSError (ENAMETOOLONG) from the existence check was an internal error."""
    assert cli_main(["diff", ref, ref]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and len(err.splitlines()[0]) < 400
