"""Hostile input found by an outside review (stop 71): a name longer than the file system allows, a config.json that
gives a key twice, an engine step whose sequences' logits fill the card. Each is refused with the reason, exit 1,
nothing written; none is an internal error."""

from __future__ import annotations

import json

from genreport.commands.cli import main
from shared import SPECS


def test_a_name_longer_than_the_file_system_allows_is_an_input_error(tmp_path, capsys):
    """``genreport xxx...x`` (300 characters) and ``plan xxx...x.yaml`` raised ENAMETOOLONG from a file check: exit 3,
    "internal error ... Rerun with --debug and report it"."""
    long = "x" * 300
    for argv in ([long, "-o", str(tmp_path / "out"), "--format", "json"],
                 ["plan", long + ".yaml", "--hardware", "h100-sxm"]):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert "the name is longer than the file system allows" in err and "internal error" not in err
        assert "hint: give a shorter file name" in err
    assert not (tmp_path / "out").exists()


def test_a_config_that_gives_a_key_twice_is_refused_at_its_second_place(tmp_path, capsys):
    """json keeps the last of two keys silently: a config.json with hidden_size 4096 and, further down, 8192 was
    imported as an 8192-wide model (head_dim 256) with no note. The YAML loader refuses a duplicate key; so does
    import-hf, at the second one's line."""
    config = tmp_path / "config.json"
    config.write_text('{\n "architectures": ["LlamaForCausalLM"],\n "model_type": "llama",\n "hidden_size": 4096,\n'
                      ' "num_attention_heads": 32,\n "num_key_value_heads": 8,\n "num_hidden_layers": 32,\n'
                      ' "intermediate_size": 14336,\n "vocab_size": 128256,\n "hidden_size": 8192\n}\n')
    out = tmp_path / "m.yaml"
    assert main(["import-hf", str(config), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{config}:10:2: hidden_size: 'hidden_size' is given twice" in err
    assert not out.exists()
    json.loads(config.read_text())  # valid JSON: only the duplicate is refused


def test_a_step_whose_logits_fill_the_card_names_max_sequences(tmp_path, capsys):
    """``--set engine.max_sequences=1000000``: the logits of a million rows of Llama 3's 128,256-token vocabulary
    (about 478 GiB at 4 B) fill the card; the error blamed serving.chunk (the 8,192-token default) and said to lower
    it. It names the part that fills it."""
    argv = [str(SPECS / "llama70b-h100-tp8.yaml"), "-o", str(tmp_path / "out"), "--format", "json"]
    assert main([*argv, "--set", "engine.max_sequences=1000000"]) == 1
    err = capsys.readouterr().err
    assert "engine.max_sequences: one engine step of 8,192 tokens and 1,000,000 sequences" in err
    assert "GiB of them the sequences' logits" in err and "vLLM's default is 256 sequences" in err
    assert main([*argv, "--set", "serving.chunk=10000000"]) == 1
    err = capsys.readouterr().err
    assert "serving.chunk: one engine step of 10,000,000 tokens" in err and "vLLM's default is 8,192 tokens" in err
    assert not (tmp_path / "out").exists()


def test_a_whole_number_written_as_a_float_is_the_integer(tmp_path):
    """``users: 128.0`` (or ``--set parallelism.tp='!!float 8'``) passed JSON Schema's integer and went on as a float:
    results.json said "128.0 users" and "gpus_for_users": 8.0. Such a value is read as the integer, as the live page
    reads it: the serving section equals the spec's with ``users: 128``."""
    from genreport import load_spec
    from genreport.model.evaluate import evaluate
    from genreport.write.results import results_json

    text = (SPECS / "llama70b-h100-tp8.yaml").read_text()
    assert "  users: 128\n" in text
    spec = tmp_path / "llama70b-h100-tp8.yaml"
    spec.write_text(text.replace("  users: 128\n", "  users: 128.0\n"))
    floats = json.loads(results_json(evaluate(load_spec(spec, ["parallelism.tp=!!float 8"])), None))
    ints = json.loads(results_json(evaluate(load_spec(SPECS / "llama70b-h100-tp8.yaml")), None))
    assert json.dumps(floats["serving"], sort_keys=True) == json.dumps(ints["serving"], sort_keys=True)
    assert isinstance(floats["serving"]["gpus_for_users"], int)


def test_a_hidden_size_the_heads_do_not_divide_is_named_not_head_dim(tmp_path, capsys):
    """A Llama config.json with hidden_size 4097 (32 heads, no head_dim) was refused for lacking head_dim, and a
    hidden_size of 1e400 got that second, spurious finding too: the finding is at hidden_size, once."""
    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_attention_heads": 32,
            "num_key_value_heads": 8, "num_hidden_layers": 32, "intermediate_size": 14336, "vocab_size": 128256}
    for hidden, words in ((4097, "hidden_size 4,097 is not a multiple of num_attention_heads 32"),
                          ("1e400", "'hidden_size' is 1e400, not a whole number")):
        config = tmp_path / "config.json"
        config.write_text(json.dumps(base)[:-1] + f', "hidden_size": {hidden}}}')
        assert main(["import-hf", str(config), "-o", str(tmp_path / "m.yaml")]) == 1
        err = capsys.readouterr().err
        assert words in err and "head_dim:" not in err and "1 problem" in err, err


def test_plan_counts_users_and_sequences_not_tokens(capsys):
    """``plan --users 0`` said "'0' is not a token count" and ``--users 1e11`` "more than 100,000,000 tokens"."""
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--users", "0"]) == 1
    assert "'0' is not a count of users" in capsys.readouterr().err
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--batch", "200M"]) == 1
    assert "is more than 100,000,000 sequences" in capsys.readouterr().err


def test_plan_takes_each_gpu_once(capsys):
    """``plan --hardware h100-sxm,h100-sxm`` listed every row twice, and ``--price foo=1`` named "the GPUs asked
    (h100-sxm, h100-sxm)"."""
    argv = ["plan", "llama-3.1-70b", "--weights", "bf16", "--format", "json"]
    assert main([*argv, "--hardware", "h100-sxm"]) == 0
    once = json.loads(capsys.readouterr().out)["rows"]
    assert main([*argv, "--hardware", "h100-sxm,h100-sxm"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == once
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--price", "foo=1"]) == 1
    assert "the GPUs asked (h100-sxm)" in capsys.readouterr().err
