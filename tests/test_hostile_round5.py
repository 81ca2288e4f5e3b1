"""Hostile input, round five (stop 89's review): valid inputs at their edges whose output said what has no physical
value (a negative room, a speculative gain of a request with no decode round)."""

from __future__ import annotations

import re

from shared import evaluated, html


def _numbers(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj


def test_one_card_keeps_nothing_where_its_workspace_takes_all_the_reserve_leaves():
    """Llama 3.1 70B at tp 8 with a 400,000-token engine step: each GPU of the layout holds an eighth of the step's
    activations (51.7 GiB kept), one card the whole step, more than its 80 GiB less the reserve: the chapter read
    "131.5 GiB of weights against the -4.416 GiB one card alone keeps for them" and results.json's capacity_one_card
    was -4.74e9 B.  The room is 0 and the sentence says why."""
    over = ["engine.max_batched_tokens=400000"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    assert r.one_card["seed"]["capacity"] == 0.0 and r.one_card["exact"]["capacity"] == 0.0
    assert r.scalars["seed"]["capacity"] > 0  # the layout's GPU keeps room
    from genreport.write.results import document

    negative = [(p, x) for p, x in _numbers(document(r)) if x < 0]
    assert not [p for p, _ in negative if "capacity" in p], negative
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html("llama70b-h100-tp8.yaml", over)))
    assert ("131.5 GiB of weights against nothing one card alone keeps for them (one card's workspace for the "
            "engine's step takes all of its 80 GiB the reserve leaves") in text
    assert "-4.4" not in text


def test_a_one_token_request_does_not_speculate(capsys):
    """Llama 3.1 70B on 8 H100 with its speculative block and one output token: the chapter read "E_R = min(E, T_out
    - 1) = 2.95 tokens", a speculative row of 2.6x and a cheapest layout that "speculates ... 2.81x", though the request
    decodes nothing (derive speculative_request_tokens gave 0).  The spec's speculation is left out with a warning
    at its block; no speculative row, formula or sentence; the technique sentence names only what is there."""
    from genreport.commands.cli import main

    over = ["serving.output=1"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    assert r.spec.serving.speculative is None
    assert "speculative decoding" not in [row["technique"] for row in r.serving["techniques"]["rows"]]
    assert not r.serving["cheapest"].get("speculative")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html("llama70b-h100-tp8.yaml", over)))
    assert "E R = min" not in text and "It speculates" not in text and "speculative decoding is" not in text.lower()
    assert "(a request's last token). Chunked prefill takes one GPU's ledgers" in text
    assert main(["specs/llama70b-h100-tp8.yaml", "--set", "serving.output=1", "--format", "json", "-o",
                 str(_tmp())]) == 0
    err = capsys.readouterr().err
    assert "serving.speculative: warning: a request of one output token has no decode round to speculate" in err


def _tmp():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="genreport-test-"))
