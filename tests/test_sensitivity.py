"""Elasticities d ln q / d ln x (formulas/sensitivity.py, issue 5): symbolic derivatives checked against
central finite differences of the compiled numeric quantity (float64, relative step 1e-6)."""

from __future__ import annotations

import numpy as np
import pytest
from genreport.formulas.compiled import load
from genreport.formulas.sensitivity import HEADLINE, at, elasticities
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate, make_env
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-h100.yaml"
H = 1e-6


@pytest.fixture(scope="module")
def spec():
    return load_report(SPEC)


def fd(qid: str, env: dict, name: str, tied: tuple[str, ...] = ()) -> float:
    """Central difference of ln q in ln x; symbols in ``tied`` move with x (N_a = N in the seed accounting)."""
    q = load()[qid]

    def value(scale: float) -> float:
        e = dict(env)
        for n in (name, *tied):
            e[n] = env[n] * scale
        return float(np.asarray(q(e), dtype=float))

    return (value(1 + H) - value(1 - H)) / (2 * H * value(1.0))


def test_batch_one_decode_rate(spec):
    """Seed 000: at batch 1 a decode step streams the weights: tok/s ~ W / (N b)."""
    env = make_env(spec.hardware, spec.model, spec.precision, "seed")
    el = elasticities(env, ["decode_tokens_per_s"], {"batch": 1, "context": 128})["decode_tokens_per_s"]
    assert el["W"] == pytest.approx(1.0, abs=1e-12)
    assert el["P"] == pytest.approx(0.0, abs=1e-12)
    # -N b / (B S c + N b): the KV read of 128 tokens is 0.1 % of the weights
    kv, w = 128 * 131072.0, 8.03e9 * 2
    assert el["N"] == pytest.approx(-w / (kv + w), rel=1e-9)
    assert el["b"] == pytest.approx(-w / (kv + w), rel=1e-9)
    assert round(el["N"], 2) == -1.0


QUANTITIES = [
    ("ridge_point", {}), ("weight_stream_time", {}), ("kv_capacity_tokens", {}), ("critical_context", {}),
    ("decode_tokens_per_s", {"batch": 1, "context": 1024}),  # memory-bound branch
    ("decode_tokens_per_s", {"batch": 4096, "context": 128}),  # compute-bound branch
    ("decode_intensity", {"batch": 64, "context": 8192}),
    ("decode_time_memory", {"batch": 16, "context": 2048}),
    ("decode_time_compute", {"batch": 16, "context": 2048}),
    ("decode_intensity_ceiling", {"context": 1024}),
    ("crossover_batch", {"context": 128}),
    ("prefill_intensity", {"tokens": 2048}),
    ("gemm_intensity", {"n": 4096, "m": 14336, "tokens": 256}),
]


@pytest.mark.parametrize("qid,params", QUANTITIES, ids=[f"{q}-{'-'.join(map(str, p.values()))}" for q, p in QUANTITIES])
def test_matches_finite_differences_every_input(spec, qid, params):
    """With every symbol apart (variant 'full'), each elasticity is a plain partial derivative of the compiled function."""
    env_obj = make_env(spec.hardware, spec.model, spec.precision, "seed")
    env = env_obj.at(batch=params.get("batch"), context=params.get("context"),
                     **{k: float(v) for k, v in (("T", params.get("tokens")), ("n", params.get("n")),
                                                  ("m", params.get("m"))) if v is not None})
    env = {k: float(np.asarray(v)) for k, v in env.items()}
    env["a"] = 1e3  # a little activation traffic, so that its elasticity is tested too
    el = at(env, qid, "full")
    assert el, qid
    for name, value in el.items():
        if env[name] == 0:
            continue
        assert value == pytest.approx(fd(qid, env, name), abs=1e-6), (qid, name)


@pytest.mark.parametrize("accounting", ["seed", "exact"])
def test_accounting_variants_tie_the_parameter_counts(spec, accounting):
    """Seed: N_a = N, so d/dN moves both; exact: N_a = N - N_e moves with N (the same absolute step)."""
    env_obj = make_env(spec.hardware, spec.model, spec.precision, accounting)
    env = {k: float(np.asarray(v)) for k, v in env_obj.at(batch=8, context=1024).items()}
    el = elasticities(env_obj, ["decode_tokens_per_s", "critical_context", "decode_time_compute"],
                      {"batch": 8, "context": 1024})
    for qid, values in el.items():
        for name, value in values.items():
            if accounting == "seed" and name == "N":
                want = fd(qid, env, "N", tied=("N_a",))
            elif accounting == "exact" and name in ("N", "N_e"):
                step = env[name] * H  # N_a = N - N_e follows N up and N_e down
                q = load()[qid]

                def val(sign, name=name, step=step, q=q):
                    e = dict(env)
                    e[name] += sign * step
                    e["N_a"] += sign * step * (1 if name == "N" else -1)
                    return float(np.asarray(q(e)))
                want = (val(1) - val(-1)) / (2 * H * val(0))
            else:
                want = fd(qid, env, name)
            assert value == pytest.approx(want, abs=1e-6), (accounting, qid, name)


def test_capacity_batch_differentiates_the_continuous_relaxation(spec):
    env_obj = make_env(spec.hardware, spec.model, spec.precision, "seed")
    el = elasticities(env_obj, ["capacity_batch", "kv_capacity_tokens"], {"context": 8192})
    cap, kv = el["capacity_batch"], el["kv_capacity_tokens"]
    for name in ("C", "N", "b", "c"):
        assert cap[name] == pytest.approx(kv[name], rel=1e-12)
    assert cap["S"] == pytest.approx(-1.0)


def test_results_and_arrays(spec):
    r = evaluate(spec)
    el = elasticities(r)  # the spec's first batch (1) and context (128)
    assert set(el) == set(HEADLINE)
    assert el["ridge_point"] == {"P": 1.0, "W": -1.0}
    assert el["decode_tokens_per_s"]["W"] == pytest.approx(1.0)
    # vectorised: a batch x context grid gives the same numbers as point by point
    batch, ctx = np.array([1.0, 64.0, 4096.0])[:, None], np.array([128.0, 8192.0])[None, :]
    grid = elasticities(r.envs["seed"], ["decode_tokens_per_s"], {"batch": batch, "context": ctx})
    for i in range(3):
        for j in range(2):
            one = elasticities(r.envs["seed"], ["decode_tokens_per_s"],
                               {"batch": batch[i, 0], "context": ctx[0, j]})["decode_tokens_per_s"]
            for name, v in one.items():
                assert np.broadcast_to(grid["decode_tokens_per_s"][name], (3, 2))[i, j] == pytest.approx(v)
    # quantities whose parameters are missing are skipped, not guessed
    assert "decode_tokens_per_s" not in elasticities(r.envs["seed"], ["decode_tokens_per_s", "ridge_point"], {})


def test_no_elasticity_of_a_count_of_no_sequence():
    """Where no sequence of the last context fits, 'sequences that fit' is 0 and has no elasticity (a review, stop 91,
    read 16.6 / -15.6 / -1 beside a capacity of 0 for DeepSeek-V3 at 160k): Llama 3.1 8B on one H100 holds about
    480,000 tokens of 128 KiB beside its weights, so no sequence of 600k; the 1k context's row stays."""
    from shared import evaluated

    r = evaluated("llama8b-h100.yaml", ("workloads.decode.context=[1k, 600k]",))
    assert r.per_context[r.lead]["capacity_batch"][-1] == 0
    from genreport.model.shown import sensitivities

    ids = [row["id"] for row in sensitivities(r)]
    assert "capacity_batch" not in ids and "kv_capacity_tokens" in ids
    fine = evaluated("llama8b-h100.yaml", ("workloads.decode.context=[1k, 100k]",))
    assert "capacity_batch" in [row["id"] for row in sensitivities(fine)]
