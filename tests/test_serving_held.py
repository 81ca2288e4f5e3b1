"""The KV cache room holds c_h, the cache a sequence holds, while a step reads c (issue 30): a sliding-window model's
held cache per token falls with the context, so the request's mean over its decode contexts is more than the last
context's c; a model with full attention holds c at every context, and its ceiling is what it was.

Gemma 3 27B (specs/models/gemma-3-27b.yaml; google/gemma-3-27b-pt config.json, text_config,
https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json): 62 layers, sliding_window 1024, the pattern of
five local layers then a global one (10 global, 52 local), 16 KV heads of head_dim 128: a bf16 cache holds
2 x 16 x 128 x 2 B = 8,192 B per position and layer.  Llama 3.1 70B (specs/models/llama-3.1-70b.yaml): every layer
global.
"""

from __future__ import annotations

import numpy as np
import pytest
from genreport.model.serving import held_mean_c
from genreport.model.techniques import _inputs
from shared import evaluated

SPEC = "llama70b-h100-tp8.yaml"  # 4k prompts, 512 outputs, tp 8 on H100; the model swapped for Gemma 3 27B
POSITION, GLOBAL, LOCAL, WINDOW = 2 * 16 * 128 * 2, 10, 52, 1024


def _held(s: float) -> float:
    """KV bytes one Gemma 3 27B sequence at context s holds, by hand: s in a global layer, min(s, 1024) in a local one."""
    return POSITION * (GLOBAL * s + LOCAL * min(s, WINDOW))


def test_gemma_holds_more_per_token_at_the_mean_context_than_at_the_last():
    r = evaluated(SPEC, ("model=gemma-3-27b", "serving.users=16"))
    sv = r.spec.serving
    prompt, output = sv.prompt, sv.output
    mean, last = prompt + output / 2, float(prompt + output - 1)
    # every decode context 4,097 .. 4,607 is past the window: S c_held(S) = 8,192 (10 S + 52 x 1,024), affine, so
    # its mean over the rounds is its value at the mean context 4,352; tp 8 over 16 KV heads: each GPU an eighth
    c_h = _held(mean) / mean / 8
    assert c_h * 8 * mean == 8192 * (10 * 4352 + 52 * 1024) == 792_723_456
    assert held_mean_c(r.envs[r.lead], prompt, output) == pytest.approx(c_h, rel=1e-12)
    env = _inputs(r, r.serving["techniques"]["batch"], last)
    assert env["c_h"] == pytest.approx(c_h, rel=1e-12)
    assert env["c"] * 8 * last == pytest.approx(_held(last), rel=1e-12)  # the step's c: the last context's
    assert c_h / env["c"] == pytest.approx(_held(mean) / mean / (_held(last) / last), rel=1e-12) and c_h > env["c"]
    # the ceiling by hand: at its rate Little's law's running sequences, each holding 4,352 tokens at c_h, fill the
    # room beside the weights a GPU holds (no prefix shared, no draft)
    n = r.serving["techniques"]["numbers"]
    rate = n["goodput_rate_capacity"]
    # the steady step reads each cache at the mean decode context (request_bytes: (T_in + T_out / 2) c), so c there
    at_mean = _inputs(r, r.serving["techniques"]["batch"], mean)
    assert at_mean["c"] * 8 * mean == pytest.approx(_held(mean), rel=1e-12) and at_mean["c"] > env["c"]
    t_s = float(np.ravel(r.q["steady_step_time"]({**env, "c": at_mean["c"], "d_h": at_mean["d_h"], "lam": rate}))[0])
    room = env["C"] - env["N"] * env["b"]
    assert rate * (output - 1) * t_s * mean * c_h == pytest.approx(room, rel=1e-9)
    # the last context's c counted as held let a higher rate through
    assert float(np.ravel(r.q["goodput_rate_capacity"]({**env, "c_h": env["c"]}))[0]) > rate
    assert r.serving["techniques"]["rates"]["held_sequences_mean"] == pytest.approx(room / (mean * c_h), rel=1e-12)


def test_full_attention_holds_what_a_step_reads():
    """Llama 3.1 70B: c_h is c, exactly, so the ceiling is the balance with the step's c (to 1e-12)."""
    r = evaluated(SPEC)
    sv = r.spec.serving
    last = float(sv.prompt + sv.output - 1)
    env = _inputs(r, r.serving["techniques"]["batch"], last)
    assert held_mean_c(r.envs[r.lead], sv.prompt, sv.output) == env["c"] == env["c_h"]
    assert env["c"] * 8 == 2 * 8 * 128 * 2 * 80  # 80 layers, 8 KV heads of 128 in bf16, over 8 GPUs
    n = r.serving["techniques"]["numbers"]
    with_c = float(np.ravel(r.q["goodput_rate_capacity"]({**{k: v for k, v in env.items() if k != "c_h"},
                                                          "c_h": env["c"]}))[0])
    assert n["goodput_rate_capacity"] == pytest.approx(with_c, rel=1e-12)


def test_the_kv_cache_room_sentence_names_the_bytes_it_counts():
    """The serving chapter says which bytes per token the KV cache room counts: c_h, held, averaged over the request's
    contexts, beside the c a step of the slowest round (its last context) reads, for Gemma 3 27B (one GPU's of tp 8: by hand above);
    for Llama 3.1 70B, whose c_h is c, it names neither."""
    from genreport.present import fmt
    from shared import html
    from shared import page as page_of

    c_h, c = _held(4352) / 4352 / 8, _held(4607) / 4607 / 8
    page = page_of(SPEC, ("model=gemma-3-27b", "serving.users=16"))
    room = page[page.index("the KV cache room\n"):]
    room = room[:room.index("fill the room")]
    assert (f'c<sub>h</sub> = <span data-sv="kv_held_per_token" data-f="kib">{fmt.kib(c_h)}</span> per GPU (held, '
            "averaged over the request's contexts") in room
    assert f'not the c = <span data-sv="kv_read_per_token" data-f="kib">{fmt.kib(c)}</span> a step of the slowest' in room
    full = html(SPEC)
    full = full[full.index("the KV cache room\n"):]
    assert "c<sub>h</sub>" not in full[:full.index("fill the room")]


@pytest.mark.parametrize("layout, ways", [(("parallelism.tp=8",), 8), (("parallelism.tp=4", "parallelism.pp=2"), 8),
                                          (("parallelism.tp=16",), 16)])
def test_c_h_at_a_layout_is_the_slice_of_the_held_cache(layout, ways):
    """c_h (glossary: one GPU's) at a layout is the whole model's held cache over n_PP s_kv, as c_g is c's
    (formulas.layout.slice_inputs): Gemma 3 27B's 16 KV heads split min(tp, 16) ways, its 62 layers 31 to a stage."""
    from genreport import load_spec
    from genreport.model.env import spec_env
    from shared import SPECS

    spec = load_spec(SPECS / SPEC, ("model=gemma-3-27b", *layout))
    env = spec_env(spec)
    sv = spec.serving
    whole = held_mean_c(env.one_card(), sv.prompt, sv.output)
    assert whole * 4352 == pytest.approx(_held(4352), rel=1e-12)  # the one card's by hand, at the mean context
    assert held_mean_c(env, sv.prompt, sv.output) == pytest.approx(whole / ways, rel=1e-12)


def test_the_room_sentence_contrasts_c_h_and_c_only_where_they_differ():
    """Llama 4 Scout's chunked layers (attention_chunk_size 8192, specs/models/llama-4-scout.yaml; Meta's config.json)
    hold and read the whole context while it is under the chunk: at 4k + 512 every decode context is, so c_h is c.
    The chapter said "c_h = 24 KiB per GPU (held ...), not the c = 24 KiB a step at the last context reads", two
    equal numbers set against each other; it now names neither, as for a model without bounded layers."""
    from shared import page as page_of

    overrides = ("model=llama-4-scout", "precision=int4", "serving.users=16")
    r = evaluated(SPEC, overrides)
    tech = r.serving["techniques"]
    assert tech["kv_held_apart"] and tech["context"] < 8192
    assert tech["kv_held_per_token"] == pytest.approx(tech["kv_read_per_token"], rel=1e-12)
    page = page_of(SPEC, overrides)
    room = page[page.index("the KV cache room\n"):]
    assert "c<sub>h</sub>" not in room[:room.index("fill the room")]


def test_chapter_4s_capacity_names_the_held_cache_c_h(tmp_path):
    """Llama 4 Scout (specs/models/llama-4-scout.yaml; meta-llama/Llama-4-Scout-17B-16E config.json: 48 layers, 3 of
    every 4 chunked at 8,192 tokens, 8 KV heads of head_dim 128) at tp 4, context 131,072: a bf16 position of a layer
    is 2 x 8 x 128 x 2 B = 4,096 B, a GPU's quarter of it 1,024 B.  A sequence holds (12 x 131,072 + 36 x 8,192) x
    1,024 / 131,072 = 14,592 B per token on a GPU; a step reads 12 x 1,024 = 12,288 B (131,072 mod 8,192 = 0 of the
    current chunk).  The capacity formula (B_cap) takes the held one and prints it c_h, as the serving chapter does;
    the tok/s formula keeps c_g, the read one, and the printed arithmetic still gives the stated batch."""
    from genreport.present.render import Formulas

    path = tmp_path / "scout.yaml"
    path.write_text("kind: report\nname: scout\ntitle: Scout on 4 H100\nhardware: h100-sxm\nmodel: llama-4-scout\n"
                    "precision: bf16\nparallelism: {tp: 4}\nworkloads:\n  decode: {batch: [1], context: [128k]}\n")
    r = evaluated(path)
    cap, tps = r.blocks["cap_batch"], r.blocks["tps"]
    assert (cap.inputs["c"], tps.inputs["c"]) == (14592.0, 12288.0)
    assert cap.symbols == {"c": "c_{h}"} and "c" not in tps.symbols
    v = cap.inputs
    assert cap.entry.value == int((v["C"] - v["N"] * v["b"]) // (131072 * 14592.0))
    shown = Formulas(r).block(cap)
    assert "S \\, c_{h}" in shown["symbolic_tex"] and "c_{g}" not in shown["symbolic_tex"]
    assert shown["note"].startswith("c_h = 14.25 KiB per GPU") and "c_g = 12 KiB" in shown["note"]


def test_the_tpot_ceiling_of_a_windowed_model_is_where_the_rate_figures_step_meets_the_target():
    """Phi-3 mini (a 2,047-token window in every layer) on 2 H100 at tp 2, 2,048 + 256-token requests, TPOT 40 ms:
    the steady state's formulas read each cache at the mean decode context, but the chapter evaluated them with c at
    the last context (2,303: a window read as 2,047 / 2,303 of it per token, times the mean 2,176), so (22) stated a
    TPOT ceiling of 33.4 requests/s past the 32.5 where the rate figure's steady step (c at the mean) has no end, and
    the figure's goodput point sat at a TPOT of 0.79 s.  One steady state now: the ceiling is where the figure's
    chunked TPOT reaches the target, and the goodput point meets it."""
    r = evaluated("llama8b-h100.yaml", ("model=phi-3-mini", "parallelism.tp=2", "serving.prompt=2k",
                                        "serving.output=256", "serving.ttft=1 s", "serving.tpot=40 ms",
                                        "serving.users=100", "workloads.decode.context=[512, 2k]"))
    t = r.serving["techniques"]
    ceiling = t["numbers"]["goodput_rate_tpot"]
    chunked = t["rates"]["chunked"]
    rates, tpot = np.asarray(chunked["rate"]), np.asarray(chunked["tpot"])
    assert ceiling < chunked["limits"]["memory"]  # before the steady step's pole
    below, above = rates[rates < ceiling], rates[rates > ceiling]
    assert np.all(tpot[rates < ceiling] <= 0.040 + 1e-12) and (above.size == 0 or np.all(tpot[rates > ceiling] > 0.040))
    assert below.size and chunked["goodput_tpot"] <= 0.040 + 1e-12


def test_derive_states_the_windowed_steady_state_the_chapter_does(capsys):
    """derive's TPOT ceiling for the same Phi-3 mini service is the chapter's (one number): it evaluated (22) at the
    chapter's last context (33.44 requests/s beside the chapter's 31.60); the steady state's quantities are evaluated
    with each cache read at a request's mean decode context, 2,048 + 256 / 2 = 2,176, and say so."""
    import re

    from genreport.commands.cli import main

    over = ["model=phi-3-mini", "parallelism.tp=2", "serving.prompt=2k", "serving.output=256", "serving.ttft=1 s",
            "serving.tpot=40 ms", "serving.users=100", "workloads.decode.context=[512, 2k]"]
    chapter = evaluated("llama8b-h100.yaml", over).serving["techniques"]["numbers"]["goodput_rate_tpot"]
    assert main(["derive", "goodput_rate_tpot", "--spec", "specs/llama8b-h100.yaml",
                 *[x for o in over for x in ("--set", o)]]) == 0
    out = capsys.readouterr().out
    assert "context = 2176: the serving chapter's steady state" in out
    (value,) = re.findall(r"^  lambda_theta = ([\d.]+) 1/s", out, re.M)
    assert float(value) == pytest.approx(chapter, rel=1e-5) and chapter == pytest.approx(31.595, abs=5e-4)
