"""The README's example spec builds, and its commands are the ones CI runs (docs that are tested)."""

from __future__ import annotations

import re

from genreport.write.build import build
from shared import ROOT

README = (ROOT / "README.md").read_text()


def test_readme_example_spec_builds(tmp_path):
    block = re.search(r"```yaml\n(.*?)```", README, re.S).group(1)
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "example.yaml"
    spec.write_text(block)
    built = build(spec, formats=("json",))
    assert "results.json" in built.files


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    commands = [line for line in ci.splitlines()[1:]
                if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ".venv/bin/python -m pytest" in commands[-1], commands
    for command in commands:
        assert f"    {command}\n" in README, f"the README's test commands and .ci/run must agree: {command}"
    assert "bash scripts/setup && .venv/bin/genreport specs/llama8b-h100.yaml" in README
