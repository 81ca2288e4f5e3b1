"""Hostile input, round eight: each defect an earlier review listed, reproduced, and what the command says now.

1 derive --at a fractional batch or context without --spec; 3 a value YAML read as a boolean or an infinity echoed as
'true' or '.inf'; 4 calibrate -o inside a file; 5 -o a dangling symbolic link; 6 bash completion of a path with a
space or a glob character; 7 the appendix's rebuild command named the spec relative to the working folder.
"""

from __future__ import annotations

import pytest
from genreport.commands.cli import main

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
    assert captured.err.startswith(f"--at {at}:1:1: {name} is a count (") and "internal error" not in captured.err
    assert f"write a whole number in digits, e.g. --at {name}=8" in captured.err and captured.out == ""


def test_whole_counts_still_substitute_without_a_spec(capsys):
    assert main(["derive", "decode_time_memory", "--at", "B=8", "--at", "S=8k"]) == 0
    assert "with B = 8, S = 8k:\n    t_mem = (N b + 65536 c)/W" in capsys.readouterr().out
