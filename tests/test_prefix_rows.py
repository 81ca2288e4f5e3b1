"""A spec's prefix cache in every per-request number of the serving chapter (stop 92's review, K 1): ``prefix_hit``
moved the compute batch B_P,theta but left the rows' TTFT, their prefill, $/M in, the request's cost, the frontier's
TTFT filter and ``plan``'s rows at the whole prompt, one input read with two scopes in one chapter.  Now one function,
``serving.prompt_prefill``, counts a request's TTFT and its prefill occupancy from the prompt's uncached part, and
every output takes it; the prefix caching row keeps the whole prompt as its "before".  The capacity stays each
sequence's whole context: a hit rate says nothing of whether the cached prefixes are one shared prompt (held once,
the row's "after") or each user's own history.

The numbers come from the committed specs' own shapes; the hand counts from the model files (Llama 3.1 70B: 80 layers,
hidden 8,192, 64 query heads of 128; DeepSeek-V3: the evaluation's own values at its layout, tp 1 x ep 8 x dp 8)."""

from __future__ import annotations

import json

import pytest
from shared import MAVERICK_TWO_NODES, SPECS, evaluated, evaluated_text, spec_file

HITS = ("serving.prefix_hit=0.5",)


def _rows(r):
    return [(row["batch"], row["bound"], row["serial"]) for row in r.serving["rows"]]


@pytest.mark.parametrize("spec", ["llama70b-h100-tp8.yaml", "deepseek-v3-h200-ep8.yaml"])
def test_every_per_request_number_takes_the_uncached_part(spec):
    """A dense model at tp 8 and an MoE whose expert group is eight replicas wide (tp 1 x ep 8 x dp 8, its steady
    prefill every replica of the group prefilling at once): the rows' TTFT and prefill are the prefix caching row's
    after, its before the plain spec's rows; the frontier's titled layout and the chapter agree."""
    plain, cached = evaluated(spec), evaluated(spec, HITS)
    n = cached.serving["techniques"]["numbers"]
    before = plain.serving["rows"][0]["bound"]
    for (b0, p, ps), (b1, c, cs) in zip(_rows(plain), _rows(cached), strict=True):
        assert c["ttft"] == n["prefix_ttft"] and c["prefill"] == n["prefix_prefill"]
        assert p["ttft"] == n["prefix_ttft_before"] and p["prefill"] == n["prefix_prefill_before"]
        # half the prompt: under the whole prompt's and at least half of it (the weights read once, the uncached
        # half attending to the cached half as well)
        assert 0.5 * p["ttft"] < c["ttft"] < p["ttft"] and 0.5 * ps["ttft"] < cs["ttft"] < ps["ttft"]
        # $/M in is the prompt's tokens (cached ones too) over the occupancy: it falls with it, to the digit
        assert c["usd_per_mtok_in"] / p["usd_per_mtok_in"] == pytest.approx(c["prefill"] / p["prefill"], rel=1e-12)
        # the decode rounds are the same rounds where the batch is the same
        if b0 == b1:
            assert c["tpot"] == p["tpot"]
    assert n["prefix_ttft_before"] == before["ttft"]
    titled = next(x for x in cached.serving["frontier"]["layouts"] if x["titled"])
    assert titled["ttft_bound"] == cached.serving["rows"][0]["bound"]["ttft"]
    row = next(x for x in cached.serving["techniques"]["rows"] if x["technique"] == "prefix caching")
    assert row["ttft"] == (before["ttft"], n["prefix_ttft"])
    # the capacity is each sequence's whole context, as without the cache
    assert cached.serving["capacity_batch"] == plain.serving["capacity_batch"]


def test_the_70b_rows_ttft_by_hand():
    """Llama 3.1 70B bf16 at tp 8, 4,096-token prompts half cached: one H100 of eight runs 2 N_p / 8 FLOPs per token
    for the 2,048 uncached tokens (N_p the 80 layers' weights: q and o 8,192^2, k and v 8,192 x 1,024, the FFN
    3 x 8,192 x 28,672, two norms), and their attention over 2,048 x (2,048 + 2 x 2,048) / 2 query-key pairs a layer
    (4 d_h FLOPs per pair and head: QK^T and PV), at the bf16 peak, 989.4 TFLOP/s: the compute bound, which binds (the
    weights, 141 GB / 8, take 5.3 ms at 3.35 TB/s).  What the hand count leaves out, the last token's LM head and the
    norms every GPU keeps whole, is under 0.1%."""
    r = evaluated("llama70b-h100-tp8.yaml", HITS)
    ttft = r.serving["rows"][0]["bound"]["ttft"]
    n_p = 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192)
    pairs = 2048 * (2048 + 2 * 2048) / 2
    flops = (2 * n_p * 2048 + 80 * 64 * 4 * 128 * pairs) / 8
    assert flops / 989.4e12 < ttft < 1.001 * flops / 989.4e12
    # the whole prompt's (the row's before): 4,096 tokens, 4,096^2 / 2 pairs
    whole = (2 * n_p * 4096 + 80 * 64 * 4 * 128 * 4096 ** 2 / 2) / 8
    before = r.serving["techniques"]["numbers"]["prefix_ttft_before"]
    assert whole / 989.4e12 < before < 1.001 * whole / 989.4e12


def test_a_memory_bound_prefill_barely_moves():
    """Llama 4 Maverick bf16 over two nodes (tp 8 x pp 2 x ep 8): a 4k prompt's pass streams each GPU's ~50 GB of
    weights, so a 90% hit saves under 5% of the TTFT (the weights are still read once), where the compute-bound
    70B's halves."""
    plain = evaluated_text(MAVERICK_TWO_NODES, "svmav")
    cached = evaluated_text(MAVERICK_TWO_NODES, "svmav", ("serving.prefix_hit=0.9",))
    t0, t1 = (x.serving["rows"][0]["bound"]["ttft"] for x in (plain, cached))
    assert 0.95 * t0 < t1 < t0


def test_a_zero_hit_is_the_plain_chapter():
    """h_p = 0 is no prefix cache: the same rows, to the bit, and no prefix row."""
    plain, zero = evaluated("deepseek-v3-h200-ep8.yaml"), evaluated("deepseek-v3-h200-ep8.yaml",
                                                                     ("serving.prefix_hit=0",))
    assert _rows(plain) == _rows(zero)
    assert plain.serving["compute_batch"] == zero.serving["compute_batch"]


def test_plan_takes_the_hit_from_the_command_line_and_from_a_spec(capsys):
    """``plan --prefix-hit`` (new) and a report spec's serving.prefix_hit give the rows the chapter's TTFT at the
    same layout; the table's first line and its legend say so; a share outside [0, 1) is refused with a fix."""
    from genreport.commands.cli import main

    def rows(*argv):
        assert main(["plan", *argv, "--format", "json", "--limit", "0"]) == 0
        doc = json.loads(capsys.readouterr().out)
        return doc, {(x["tp"], x["pp"], x["ep"], x["dp"]): x for x in doc["rows"]}

    chapter = evaluated("llama70b-h100-tp8.yaml", HITS).serving["rows"][0]["bound"]["ttft"]
    args = ["llama-3.1-70b", "--hardware", "h100-sxm", "--prompt", "4k", "--output", "512", "--weights", "bf16",
            "--kv-cache", "bf16"]
    doc, cached = rows(*args, "--prefix-hit", "50%")
    assert doc["prefix_hit"] == 0.5
    assert cached[(8, 1, 1, 1)]["ttft"] == pytest.approx(chapter, rel=1e-12)
    _, plain = rows(*args)
    assert all(cached[k]["ttft"] < plain[k]["ttft"] and cached[k]["usd_per_request"] < plain[k]["usd_per_request"]
               for k in cached)
    # a report spec's own hit: plan takes it without the option, as its chapter's cheapest layout does
    text = (SPECS / "llama70b-h100-tp8.yaml").read_text(encoding="utf-8").replace(
        "  users: 128\n", "  users: 128\n  prefix_hit: 0.5\n")
    path = spec_file(text, "pfx70")
    own = evaluated_text(text, "pfx70").serving
    doc, from_spec = rows(str(path))
    assert doc["prefix_hit"] == 0.5
    assert from_spec[(8, 1, 1, 1)]["ttft"] == own["rows"][0]["bound"]["ttft"] == pytest.approx(chapter, rel=1e-12)
    first = doc["rows"][0]
    assert (first["tp"], first["ttft"]) == (own["cheapest"]["tp"], own["cheapest"]["ttft"])
    assert main(["plan", *args, "--prefix-hit", "0.5", "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert "50% of each prompt in a prefix cache" in text.splitlines()[0]
    assert "TTFT: one prompt alone on the replica (the 50% of it a prefix cache leaves" in text
    for bad in ("1", "-0.1", "x", "nan"):
        assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--prefix-hit", bad]) == 1
        err = capsys.readouterr().err
        assert f"--prefix-hit {bad}: is not a share from 0 to below 1" in err and "Traceback" not in err


def test_the_prefix_rows_before_is_the_chapter_without_the_cache():
    """Llama 3.1 70B bf16 at tp 8 with a 15 ms TPOT target: whole prompts' prefills keep 91 sequences a replica at the
    target, half-cached ones 161 (the compute batch), so the prefix caching row's before is the plain chapter's last
    row, batch 91 (TPOT, tok/s per GPU and $/M out), its after the rows' at 161: a review of stop 94 found the before
    taking the cached chapter's batch, the cache's 1.3x in tok/s per GPU shown as none."""
    over = ("serving.tpot=15 ms",)
    plain, cached = evaluated("llama70b-h100-tp8.yaml", over), evaluated("llama70b-h100-tp8.yaml", over + HITS)
    last0, last1 = plain.serving["rows"][-1], cached.serving["rows"][-1]
    assert (last0["batch"], last1["batch"]) == (91, 161) == (plain.serving["compute_batch"],
                                                             cached.serving["compute_batch"])
    row = next(x for x in cached.serving["techniques"]["rows"] if x["technique"] == "prefix caching")
    for key, col in (("ttft", "ttft"), ("tpot", "tpot"), ("per_gpu", "tokens_per_s_gpu"), ("usd", "usd_per_mtok_out")):
        assert row[key] == (last0["bound"][col], last1["bound"][col]), key
    assert row["per_gpu"][1] / row["per_gpu"][0] > 1.25
    assert row["note"].endswith("before, the chapter's last row without the cache, batch 91 (whole prompts' prefills "
                                "keep 91 sequences at the TPOT target)")
    # where the chapter's batch is not the compute batch's, the before keeps it (the 128 users' at 50 ms)
    row = next(x for x in evaluated("llama70b-h100-tp8.yaml", HITS).serving["techniques"]["rows"]
               if x["technique"] == "prefix caching")
    assert row["tpot"][0] == row["tpot"][1] and "before, the" not in row["note"]


def test_a_hit_past_the_last_token_is_taken_at_one_token_with_a_warning():
    """A prompt prefills at least its last token, whose logits are the first output token: serving.prefix_hit 0.99999
    left 0.041 of a 4,096-token prompt to prefill, the TTFT one token's (max(T_in (1 - h_p), 1)) beside a goodput of
    0.041-token prompts, 8,192 / 0.041 of them in a chunk budget (a review of stop 94). The loader now takes 1 - 1/4,096 and says so: every number is one
    token's, the same as at that hit."""
    over = ("serving.output=1", "serving.rate=5")
    r = evaluated("llama70b-h100-tp8.yaml", over + ("serving.prefix_hit=0.99999",))
    one = evaluated("llama70b-h100-tp8.yaml", over + (f"serving.prefix_hit={1 - 1 / 4096!r}",))
    assert r.spec.serving.prefix_hit == 1 - 1 / 4096
    assert r.serving["rows"] == one.serving["rows"]
    n, n1 = r.serving["techniques"]["numbers"], one.serving["techniques"]["numbers"]
    for key in ("goodput_rate", "goodput_rate_compute", "chunk_budget_rate"):
        assert n[key] == n1[key], key


def test_the_warning_names_the_value_taken(capsys):
    """The warning says what it left, what it takes and what to write instead."""
    from genreport.commands.cli import main

    assert main(["table", str(SPECS / "llama70b-h100-tp8.yaml"), "--set", "serving.prefix_hit=0.99999"]) == 0
    err = capsys.readouterr().err
    assert ("prefix_hit 0.99999 leaves 0.041 of each 4,096-token prompt to prefill, less than one token: a prompt "
            "prefills at least its last, so the report takes 1 - 1/4,096 = 0.999756") in err


def test_plan_takes_a_hit_past_the_last_token_at_one_token(capsys):
    """``plan --prefix-hit`` follows the loader's rule: 0.99999 of a 4,096-token prompt is taken at 1 - 1/4,096, said in
    a note, the rows those of that hit."""
    from genreport.commands.cli import main

    args = ["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--prompt", "4k", "--output", "1", "--format", "json"]
    assert main([*args, "--prefix-hit", "0.99999"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["prefix_hit"] == 1 - 1 / 4096
    assert any(n.startswith("note: --prefix-hit 0.99999 leaves 0.041 of each 4,096-token prompt") for n in doc["notes"])
    assert main([*args, "--prefix-hit", repr(1 - 1 / 4096)]) == 0
    same = json.loads(capsys.readouterr().out)
    assert doc["rows"] == same["rows"] and not any("leaves" in n for n in same["notes"])


@pytest.mark.parametrize("spec, over", [
    # the chapter without the cache ends on its users' row (its TPOT batch 1): the before is batch 88, not 1 (a review
    # of stop 94 read TPOT 5.47 -> 22.9 ms and a 21x gain of tok/s per GPU at the same batch)
    ("llama70b-h100-tp8.yaml", ("serving.output=4", "serving.prompt=16k", "serving.tpot=15 ms", "serving.prefix_hit=0.9")),
    # whole prompts keep no sequence at the target, the users' row last without the cache
    ("llama70b-h100-tp8.yaml", ("serving.output=4", "serving.tpot=15 ms", "serving.prefix_hit=0.9")),
    ("deepseek-v3-h200-ep8.yaml", ("serving.output=16", "serving.prompt=16k", "serving.tpot=15 ms",
                                   "serving.prefix_hit=0.9")),
    ("deepseek-v3-h200-ep8.yaml", ("serving.tpot=25 ms", "serving.prefix_hit=0.5")),
    ("llama70b-h100-tp8.yaml", ("parallelism.tp=4", "parallelism.pp=2", "serving.tpot=20 ms", "serving.prefix_hit=0.5")),
])
def test_the_prefix_rows_before_is_the_plain_chapters_last_row(spec, over):
    """Whatever row ends the chapter without the cache (the TPOT target's, the users', the request alone), the prefix
    caching row's before is its numbers: its TTFT, TPOT, tok/s per GPU and $/M out, to the bit."""
    cached = evaluated(spec, over)
    plain = evaluated(spec, tuple(o for o in over if not o.startswith("serving.prefix_hit")))
    last = plain.serving["rows"][-1]["bound"]
    row = next(x for x in cached.serving["techniques"]["rows"] if x["technique"] == "prefix caching")
    got = tuple(row[k][0] for k in ("ttft", "tpot", "per_gpu", "usd"))
    assert got == (last["ttft"], last["tpot"], last["tokens_per_s_gpu"], last["usd_per_mtok_out"])
    if plain.serving["rows"][-1]["batch"] != cached.serving["rows"][-1]["batch"]:
        assert f"batch {plain.serving['rows'][-1]['batch']:,} (whole prompts' prefills keep " in row["note"]


def test_one_token_left_is_not_less_than_one(capsys):
    """0.9 of a 10-token prompt leaves 10 x (1 - 0.9) = 0.99999... in floating point: one token, no warning; the
    warning's hint is rounded down, so writing it warns no more (a review of stop 94: 0.999756 warned again)."""
    from genreport.commands.cli import main

    spec = str(SPECS / "llama70b-h100-tp8.yaml")
    for sets in (["serving.prompt=10", "serving.prefix_hit=0.9"], ["serving.prefix_hit=0.999755"]):
        assert main(["table", spec, *[x for s in sets for x in ("--set", s)]]) == 0
        assert "prefix_hit" not in capsys.readouterr().err
    assert main(["table", spec, "--set", "serving.prefix_hit=0.99999"]) == 0
    assert "(hint: write serving.prefix_hit: 0.999755 or less)" in capsys.readouterr().err


def test_derive_of_the_pools_without_a_decode_pool_is_an_input_error(capsys):
    """A one-token request has no disaggregation row: derive said "internal error: KeyError" (a review of stop 94)."""
    from genreport.commands.cli import main

    assert main(["derive", "balanced_prefill_gpus", "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--set",
                 "serving.output=1"]) == 1
    err = capsys.readouterr().err
    assert "needs n_S, t_pr, t_s" in err and "internal error" not in err


def test_plan_and_derive_of_a_spec_say_its_warnings(capsys):
    """``plan SPEC`` and ``derive --spec`` take the loader's clamped hit as the build does, and now say so as ``table``
    does, on stderr (a review of stop 94: neither printed a spec's warnings)."""
    from genreport.commands.cli import main

    text = (SPECS / "llama70b-h100-tp8.yaml").read_text(encoding="utf-8").replace(
        "  users: 128\n", "  users: 128\n  prefix_hit: 0.99999\n")
    path = str(spec_file(text, "pfx-warn"))
    for argv in (["plan", path, "--limit", "1"], ["derive", "compute_batch", "--spec", path]):
        assert main(argv) == 0
        err = capsys.readouterr().err
        assert err.count("prefix_hit 0.99999 leaves 0.041 of each 4,096-token prompt") == 1, argv
