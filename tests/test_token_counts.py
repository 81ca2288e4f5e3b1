"""Token counts as specs, --set and plan write them (2048, '2k', '1.5k', '0.5k'; k = 1024, M = 1024^2), the step budget they set, and how
long ones are echoed in findings."""

from __future__ import annotations

import json

import pytest
from shared import SPECS


@pytest.mark.parametrize("text,count", [("0.5k", 512), ("0.25k", 256), ("1.5k", 1536), ("2k", 2048), ("0.5M", 524288),
                                        ("0k", None), ("00.5k", None), ("0.0k", None), (".5k", None), ("0.5", None)])
def test_a_token_count_below_one_k_may_start_with_0(text, count):
    """'0.5k' is 512 tokens as '1.5k' is 1,536 (the hostile review of stop 88: the first was "not in the expected
    form"); a zero count, a leading 0 before digits and a fraction of a token stay refused, in the schema too."""
    import jsonschema
    from genreport.load.objects import tokens

    schema = json.loads((SPECS / "schema" / "report.schema.json").read_text())["$defs"]["tokens"]
    if count is None:
        with pytest.raises(ValueError):
            tokens(text)
        if text != "0.5":  # the schema's pattern admits a decimal; tokens() says it is no whole number
            assert not jsonschema.Draft202012Validator(schema).is_valid(text)
    else:
        assert tokens(text) == count and jsonschema.Draft202012Validator(schema).is_valid(text)


def test_a_long_hostile_value_is_echoed_cut(tmp_path, capsys):
    """A 5,000-character --set value and a 400-digit rate in a spec were echoed whole in every finding (the hostile
    review of stop 88); each is cut to its start and its length, the file, line and path kept whole."""
    from genreport.commands.cli import main
    from shared import ROOT

    long_set = "serving.tpot=" + "9" * 5000 + " ms"
    assert main([str(ROOT / "specs" / "llama8b-h100.yaml"), "--set", long_set, "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    label = "--set " + long_set  # an argument: its first 280 characters (a --set of a long path stays whole)
    assert "9" * 300 not in err and f"... ({len(label):,} characters):" in err, err
    assert "serving.tpot: text of 5,003 characters is too long" in err  # the value's own check
    spec = tmp_path / "long.yaml"
    spec.write_text("kind: report\nname: x\ntitle: t\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n"
                    "serving: {prompt: 1k, output: 8, rate: 1" + "0" * 400 + ".0}\n")
    assert main([str(spec), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert f"{spec}:9:" in err and "0" * 101 not in err and "... (403 characters)" in err, err
    assert not (tmp_path / "out").exists()


def test_a_step_budget_given_twice_names_where_each_was_given(tmp_path, capsys):
    """serving.chunk and engine.max_batched_tokens are one vLLM setting: two different numbers are an error naming
    both. Given with --set, the engine's was said to be at "(line 1)", a line of the file that has no such key (the
    hostile review of stop 88); it names the --set."""
    from genreport.commands.cli import main
    from shared import ROOT

    spec = str(ROOT / "specs" / "llama70b-h100-tp8.yaml")
    assert main([spec, "--set", "serving.chunk=4096", "--set", "engine.max_batched_tokens=8192", "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "differs from engine.max_batched_tokens 8,192 (--set engine.max_batched_tokens=8192)" in err, err
    assert "(line 1)" not in err and not any(tmp_path.iterdir())


@pytest.mark.parametrize("value,words", [
    ("serving={<<: {prompt: 1k, output: 1}}", "serving: merge keys ('<<') are not supported"),
    ("serving={prompt: !!python/name:os.system , output: 1}",
     "serving.prompt: tag '!!python/name:os.system' is not allowed in specs"),
    ("workloads.decode.batch=[1, 010]", "workloads.decode.batch[1]: 010 reads as 8"),
])
def test_a_set_value_is_refused_as_a_spec_file_refuses_it(value, words, tmp_path, capsys):
    """A --set value with a merge key or a tag read "'...' is not a mapping (key: value)" where a spec file says what
    is wrong (the hostile review of stop 88); it says the same, named by the option and the path inside its value."""
    from genreport.commands.cli import main
    from shared import ROOT

    assert main([str(ROOT / "specs" / "llama70b-h100-tp8.yaml"), "--set", value, "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"--set {value}: {words}" in err, err
    assert "is not a mapping" not in err and not any(tmp_path.iterdir())


@pytest.mark.parametrize("x,text", [(0.85, "85%"), (0.05, "5%"), (0.075, "7.5%"), (0.995, "99.5%"), (1.0, "100%"),
                                    (0.0, "0%"), (0.9999999999999999, "over 99.99%"), (1e-7, "under 0.01%"),
                                    (0.99999, "over 99.99%"), (0.9999, "99.99%")])
def test_a_share_strictly_between_0_and_1_never_reads_0_or_100_percent(x, text):
    """fmt.share, the lever rows' acceptance, prefix hit, draft cost and pool shares (the hostile review of stop 88: an
    acceptance of 0.9999999999999999 read "accepted 100%")."""
    from genreport.present.fmt import share

    assert share(x) == text


def test_the_rows_say_a_share_at_its_end_as_it_is():
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ["serving.speculative.acceptance=0.9999999999999999",
                                             "serving.prefix_hit=0.00001"])
    rows = {row["technique"]: row for row in r.serving["techniques"]["rows"]}
    assert "accepted over 99.99% each" in rows["speculative decoding"]["setting"], rows["speculative decoding"]
    assert rows["prefix caching"]["setting"].startswith("under 0.01% of each prompt cached")


def test_a_budget_below_the_batch_is_said_to_be_passed_and_one_token_is_singular():
    """Llama 3.1 70B on 8 H100, a step budget of 1 token beside the chapter's 256 sequences: the row said "the 256
    decode tokens fill the budget of 1" and the chapter "a chunked-prefill step takes at most 1 tokens"; 256 tokens
    do not fit in 1 (vLLM refuses a max_num_batched_tokens below max_num_seqs).  A budget of exactly the batch is
    filled."""
    from genreport.model.techniques import _filled
    from shared import evaluated, rendered

    over = ["serving.chunk=1", "engine.max_batched_tokens=1"]
    row = next(x for x in evaluated("llama70b-h100-tp8.yaml", over).serving["techniques"]["rows"]
               if x["technique"] == "chunked prefill")
    assert row["ends"].startswith("the 256 decode tokens alone pass the budget of 1 (an engine schedules no more "
                                  "tokens a step than its budget"), row["ends"]
    assert "takes at most <span data-sv=\"chunk\" data-f=\"tokens\">1 token</span>, the running" in \
        rendered(evaluated("llama70b-h100-tp8.yaml", over), "sections/s9_serving.html.j2")
    assert _filled(256, 256) == "the 256 decode tokens fill the budget of 256"
    assert _filled(1, 1) == "the 1 decode token fills the budget of 1"


def test_a_budget_below_max_sequences_is_a_warning_at_its_place(capsys, tmp_path):
    """vLLM refuses a max_num_batched_tokens below max_num_seqs (a step carries every running sequence's decode token);
    the hostile review of stop 89 built serving.chunk=1 beside 256 sequences with no word.  A warning at the option
    that gave it (or the spec's line), the build goes on; the figure caption and the goodput sentence say '1 token'."""
    from genreport.commands.cli import main
    from shared import evaluated, rendered

    assert main(["specs/llama70b-h100-tp8.yaml", "--set", "serving.chunk=100", "--format", "json", "-o",
                 str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert ("--set serving.chunk=100: serving.chunk: warning: a step budget of 100 tokens is below the 256 sequences "
            "the engine runs at once (engine.max_sequences): vLLM refuses a max_num_batched_tokens below max_num_seqs"
            ) in err, err
    assert "(hint: raise it to at least 256, or lower engine.max_sequences)" in err
    over = ["serving.chunk=1", "engine.max_batched_tokens=1"]
    text = rendered(evaluated("llama70b-h100-tp8.yaml", over), "report.html.j2")
    assert "1 tokens" not in text.replace("+ 1 tokens", "")  # k_d + 1 tokens is the verify step's, not a count of 1
    from genreport.present import figures

    caption = " ".join(figures.captions(evaluated("llama70b-h100-tp8.yaml", over))["fig11-rates"].split())
    assert "every step carries up to 1 token, the running" in caption
    assert "past it a step's budget of <span data-sv=\"chunk\" data-f=\"tokens\">1 token</span>, its" in text


def test_the_pools_gain_is_a_share_that_never_reads_0_percent():
    """DeepSeek-V3 on 8 H200 with two-token outputs: the pools' sentence read "tok/s per GPU 0% of the same
    replicas' decoding alone" (the hostile review of stop 89); it takes fmt.share, as the rows do."""

    from genreport.present.fmt import share
    from shared import evaluated, words

    over = ["serving.output=2"]
    gain = evaluated("deepseek-v3-h200-ep8.yaml", over).serving["techniques"]["numbers"]["pool_gain"]
    assert 0 < gain < 0.1
    text = words(evaluated("deepseek-v3-h200-ep8.yaml", over), "s9_serving")
    assert "of the same replicas' decoding alone" in text and f" {share(gain)} of the same replicas'" in text
    assert " 0% of the same replicas'" not in text
