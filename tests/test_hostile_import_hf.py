"""``genreport import-hf`` on malformed config.json values (issue 17 items 9 and 16): each is a finding that
names config.json, the key and the fix; never an internal error, never a finding printed twice.  A
hypothesis test mutates real configs (tests/fixtures/hf/) the way a careless or hostile editor would."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from genreport.commands.cli import main
from genreport.commands.import_hf import import_config
from genreport.errors import SpecError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "hf"
LLAMA = (FIXTURES / "llama-3.1-8b.json").read_text()


def edited(text: str, key: str, raw: str) -> str:
    """The config text with the value of ``key`` (a top-level number or string) replaced by raw JSON text."""
    data = json.loads(text)
    data[key] = "@@"
    return json.dumps(data, indent=2).replace('"@@"', raw)


def run(tmp_path: Path, text: str, capsys) -> tuple[int, str]:
    path = tmp_path / "config.json"
    path.write_text(text)
    code = main(["import-hf", str(path)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("raw, shown", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
                                        ("1e400", "1e400"), ("9" * 5000, "a 5,000-digit number"),
                                        ("1e12", "1000000000000.0"), ("0", "0"), ("4096.5", "4096.5"),
                                        ('"4096"', "'4096'"), ("[4096]", "a list"), ("true", "True")])
def test_bad_numbers_are_findings(tmp_path, capsys, raw, shown):
    """Issue 17 item 9: NaN, Infinity, 1e400 and a 5000-digit integer crashed with exit 3."""
    code, err = run(tmp_path, edited(LLAMA, "hidden_size", raw), capsys)
    assert code == 1, err
    line = next(x for x in err.splitlines() if "hidden_size" in x)
    assert line.startswith(f"{tmp_path / 'config.json'}:")
    assert f"'hidden_size' is {shown}, not a whole number from 1 to 100,000,000" in line
    assert "fix 'hidden_size' in config.json" in line
    assert "internal error" not in err and "Traceback" not in err


def test_string_sliding_window_pattern(tmp_path, capsys):
    data = json.loads((FIXTURES / "gemma-3-1b.json").read_text())
    data.pop("sliding_window_pattern", None)
    data["_sliding_window_pattern"] = "six"
    code, err = run(tmp_path, json.dumps(data, indent=2), capsys)
    assert code == 1
    assert "'_sliding_window_pattern' is 'six', not a whole number from 2" in err


def test_integer_mlp_only_layers(tmp_path, capsys):
    data = json.loads((FIXTURES / "qwen3-30b-a3b.json").read_text())
    data["mlp_only_layers"] = 3
    code, err = run(tmp_path, json.dumps(data, indent=2), capsys)
    assert code == 1
    assert "'mlp_only_layers' is 3, not a list of layer numbers" in err


def test_string_tie_word_embeddings_is_reported_once(tmp_path, capsys):
    """Issue 17 item 16: the same finding was printed twice."""
    code, err = run(tmp_path, edited(LLAMA, "tie_word_embeddings", '"yes"'), capsys)
    assert code == 1
    lines = [x for x in err.splitlines() if "tie_word_embeddings" in x]
    assert len(lines) == 1 and "'tie_word_embeddings' is 'yes', not true or false" in lines[0]


@pytest.mark.parametrize("key, raw", [("model_type", "[1]"), ("architectures", '{"a": 1}'),
                                      ("hidden_act", "[1, 2]"), ("_name_or_path", '"a\\u001b[2Jb"'),
                                      ("_name_or_path", '"' + "x" * 1000 + '"')])
def test_odd_types_elsewhere_are_findings(tmp_path, capsys, key, raw):
    text = edited(LLAMA, key, raw)
    if key == "model_type":
        text = json.dumps({k: v for k, v in json.loads(text).items() if k != "architectures"})
    code, err = run(tmp_path, text, capsys)
    assert code == (0 if key == "architectures" else 1), err  # a broken 'architectures' falls back on model_type
    assert "internal error" not in err and "\x1b" not in err and len(err) < 2000


# ----------------------------------------------------------------------------------------------- fuzz

JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-10**40, 10**40), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.sampled_from(["silu", "gelu", "sliding_attention", "full_attention", "llama", ""]),
)
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                              st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=8)
RAW_NUMBERS = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "9" * 5000, "1e-400", "-0", "0.0"])
CONFIGS = sorted(p.name for p in FIXTURES.glob("*.json"))


@st.composite
def mutated_config(draw) -> str:
    data = json.loads((FIXTURES / draw(st.sampled_from(CONFIGS))).read_text())
    for _ in range(draw(st.integers(1, 3))):
        keys = sorted(data)
        op = draw(st.sampled_from(["delete", "value", "raw", "text_config"]))
        key = draw(st.sampled_from(keys)) if keys else "hidden_size"
        if op == "delete":
            data.pop(key, None)
        elif op == "value":
            data[key] = draw(JSON_VALUE)
        elif op == "text_config" and isinstance(data.get("text_config"), dict) and data["text_config"]:
            sub = data["text_config"]
            sub[draw(st.sampled_from(sorted(sub)))] = draw(JSON_VALUE)
        else:
            data[key] = "@@RAW@@"
    text = json.dumps(data, indent=2)
    while '"@@RAW@@"' in text:
        text = text.replace('"@@RAW@@"', draw(RAW_NUMBERS), 1)
    return text


def _fuzz_examples(default: int) -> int:
    return int(os.environ.get("GENREPORT_FUZZ_EXAMPLES", default))


@settings(max_examples=_fuzz_examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated_config())
def test_fuzz_import_hf(tmp_path_factory, text):
    """Any mutation of a real config.json gives a spec that loads, or findings naming config.json."""
    path = tmp_path_factory.mktemp("hf") / "config.json"
    path.write_text(text)
    try:
        spec, _ = import_config(path)
    except SpecError as exc:
        assert exc.findings
        for f in exc.findings:
            assert f.hint, f.format()
            assert "\x1b" not in f.format()
        assert len({f.format() for f in exc.findings}) == len(exc.findings)  # nothing twice
        return
    assert spec.startswith("# yaml-language-server")


def test_deeply_nested_config_is_a_finding(tmp_path, capsys):
    code, err = run(tmp_path, "[" * 100_000 + "]" * 100_000, capsys)
    assert code == 1 and "the JSON nests too deeply for a config.json" in err and "internal error" not in err


# ----------------------------------------------------------------------------------------------- issue 28 families

def _variant(name: str, edit) -> str:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    edit(data)
    return json.dumps(data, indent=2)


@pytest.mark.parametrize("name, edit, key, words", [
    ("llama-4-maverick", lambda d: d["text_config"].update(moe_layers=[0, 2, 4]), "text_config.moe_layers",
     "are not every 2nd layer"),
    ("llama-4-maverick", lambda d: d["text_config"].update(moe_layers="odd"), "text_config.moe_layers",
     "not a list of layer numbers"),
    ("llama-4-scout", lambda d: d["text_config"].update(no_rope_layers=[1, 0] + [1] * 46), "text_config.no_rope_layers",
     "do not follow a regular pattern"),
    ("llama-4-scout", lambda d: d["text_config"].update(no_rope_layers=[2] * 48), "text_config.no_rope_layers",
     "1 (RoPE, chunked) or 0"),
    ("llama-4-scout", lambda d: d["text_config"].update(attention_chunk_size="big"), "text_config.attention_chunk_size",
     "not a whole number"),
    ("llama-4-scout", lambda d: d["text_config"].update(interleave_moe_layer_step=64),
     "text_config.interleave_moe_layer_step", "leaves none of the 48 layers routed"),
    ("llama-4-scout", lambda d: d.pop("text_config"), "text_config", "needs its 'text_config' object"),
    ("gpt-oss-120b", lambda d: d["layer_types"].pop(), "layer_types", "once per layer"),
    ("gpt-oss-120b", lambda d: d["layer_types"].__setitem__(0, "full_attention"), "layer_types", "regular pattern"),
    ("gpt-oss-120b", lambda d: d.update(num_local_experts=0), "num_local_experts", "not a whole number from 1"),
    ("gemma-3-27b", lambda d: d["text_config"].update(sliding_window_pattern="six"),
     "text_config.sliding_window_pattern", "not a whole number from 2"),
])
def test_new_families_bad_values_name_file_key_and_fix(tmp_path, capsys, name, edit, key, words):
    code, err = run(tmp_path, _variant(name, edit), capsys)
    assert code == 1, err
    line = next(x for x in err.splitlines() if words in x)
    assert line.startswith(f"{tmp_path / 'config.json'}:") and f" {key}:" in line and "(hint: " in line
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("name, edit, key, shown", [
    # Qwen3-Next (Qwen/Qwen3-Next-80B-A3B-Instruct config.json): three Gated DeltaNet layers per full-attention one
    ("qwen3-30b-a3b", lambda d: d.update(architectures=["Qwen3NextForCausalLM"], model_type="qwen3_next",
                                         full_attention_interval=4, linear_num_value_heads=32,
                                         linear_key_head_dim=128), "full_attention_interval", "'full_attention_interval'"),
    # a supported architecture whose layer_types names a linear-attention layer
    ("gpt-oss-120b", lambda d: d["layer_types"].__setitem__(0, "linear_attention"), "layer_types",
     "layer_types lists 'linear_attention'"),
    # Nemotron-H (nvidia/Nemotron-H-8B-Base-8K): Mamba-2 and attention layers by a pattern string
    ("llama-3.1-8b", lambda d: d.update(architectures=["NemotronHForCausalLM"], hybrid_override_pattern="M-M-M*-",
                                        ssm_state_size=128), "hybrid_override_pattern", "'hybrid_override_pattern'"),
    # Jamba (ai21labs/Jamba-v0.1): an attention layer every 8th, Mamba in the others
    ("mixtral-8x7b", lambda d: d.update(architectures=["JambaForCausalLM"], attn_layer_period=8, attn_layer_offset=4,
                                        mamba_d_state=16), "attn_layer_period", "'attn_layer_period'"),
    # a multimodal config whose text model is a hybrid
    ("gemma-3-27b", lambda d: d["text_config"].update(layer_types=["mamba"] * 62), "text_config.layer_types",
     "layer_types lists 'mamba'"),
])
def test_layers_with_a_recurrent_state_are_refused_with_the_reason(tmp_path, capsys, name, edit, key, shown):
    """Linear-attention and state-space hybrids keep a fixed state per sequence, not a KV cache growing with the
    context: genreport cannot bound them, and says so at the key that shows it, whichever the architecture (Qwen3-Next
    was refused as "not supported ... write the model spec by hand", which the schema cannot express; gpt-oss with a
    linear layer as "layer_types must list 'sliding_attention' or 'full_attention'")."""
    code, err = run(tmp_path, _variant(name, edit), capsys)
    assert code == 1, err
    line = next(x for x in err.splitlines() if "keep a fixed state per sequence" in x)
    assert line.startswith(f"{tmp_path / 'config.json'}:") and f" {key}: " in line and f"({shown}: " in line
    assert "no bound can be stated for this model" in line and "write the model spec by hand" not in err
    assert "internal error" not in err and "Traceback" not in err


def test_an_unsupported_architecture_says_how_to_go_round(tmp_path, capsys):
    code, err = run(tmp_path, edited(LLAMA, "architectures", '["MambaForCausalLM"]'), capsys)
    assert code == 1 and "write the model spec by hand" in err and "model.schema.json" in err


def test_notes_name_the_key_and_line_and_reach_the_yaml(tmp_path, capsys):
    """What the spec cannot describe is said, with the key's line, on the terminal and in the written YAML."""
    path = tmp_path / "config.json"
    path.write_text((FIXTURES / "gpt-oss-120b.json").read_text())
    out = tmp_path / "oss.yaml"
    assert main(["import-hf", str(path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    text = (FIXTURES / "gpt-oss-120b.json").read_text()
    line = text[:text.index('"quantization_config"')].count("\n") + 1
    assert f"config.json:{line}:3: note: quantization_config: " in err and "MXFP4" in err
    assert "#   quantization_config: the checkpoint stores the routed experts in MXFP4" in out.read_text()
    # Llama's mlp_bias: biases on the gate, up and down projections, counted
    path.write_text((FIXTURES / "llama-3.1-8b.json").read_text().replace('"mlp_bias": false', '"mlp_bias": true'))
    assert main(["import-hf", str(path)]) == 0
    captured = capsys.readouterr()
    assert "ffn_bias: true" in captured.out
    assert f"parameters: {8_030_261_248 + 32 * (2 * 14336 + 4096)}" in captured.out


def test_a_spec_that_would_not_load_points_at_the_configs_key(tmp_path, capsys):
    """``num_key_value_heads: 5`` beside 32 heads (review, stop 78): the written spec does not load (kv_heads must
    divide heads), and the error was placed at config.json:1:1 naming the spec's kv_heads; it points at the config's
    own key and line, and still names the field."""
    data = json.loads(LLAMA)
    data["num_key_value_heads"] = 5
    text = json.dumps(data, indent=2)
    code, err = run(tmp_path, text, capsys)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if '"num_key_value_heads"' in x)
    assert code == 1 and f"config.json:{line}:3: num_key_value_heads: the imported model spec would not load" in err, err
    assert "(kv_heads, read from num_key_value_heads)" in err and "Traceback" not in err


def test_a_quantization_config_that_is_not_an_object_is_a_finding(tmp_path, capsys):
    """Stop 88's hostile review: `"quantization_config": [1, 2]` was read as no quantization (transformers reads the
    key as an object of settings); it is now refused at its line, and null still means none."""
    code, err = run(tmp_path, edited(LLAMA, "quantization_config", "[1, 2]"), capsys)
    assert code == 1, err
    assert "quantization_config: 'quantization_config' is a list, not an object of the checkpoint's quantization " \
           "settings" in err
    line = next(x for x in err.splitlines() if "quantization_config" in x)
    text = edited(LLAMA, "quantization_config", "[1, 2]")
    assert line.startswith(f"{tmp_path / 'config.json'}:{text[:text.index('quantization_config')].count(chr(10)) + 1}:")
    assert run(tmp_path, edited(LLAMA, "quantization_config", "null"), capsys)[0] == 0


def test_an_moe_field_that_would_not_load_points_at_its_configs_line(tmp_path, capsys):
    """Stop 88's hostile review: 16 active experts of 8 (Mixtral's keys) were named at config.json:1:1."""
    text = (FIXTURES / "mixtral-8x7b.json").read_text()
    data = json.loads(text)
    data["num_experts_per_tok"] = 16
    text = json.dumps(data, indent=2)
    code, err = run(tmp_path, text, capsys)
    assert code == 1, err
    line = text[:text.index('"num_experts_per_tok"')].count("\n") + 1
    assert f"config.json:{line}:3: num_experts_per_tok: the imported model spec would not load: 16 active experts " \
           "of 8 (moe.active_experts, read from num_experts_per_tok)" in err, err
