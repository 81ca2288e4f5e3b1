"""The browser's report model (templates/live/model.js + the SymPy-printed formulas.js) against Python's:
every entry of results.json, for specs and random what-ifs, to 1e-9 relative."""

from __future__ import annotations

from genreport import evaluate, load_spec
from genreport.present import live
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from livejs import close, entry_differences, js_key, load_cases, needs_node, run
from shared import ROOT, evaluated_to_read

SPECS = ROOT / "specs"
pytestmark = needs_node

EVALUATE = """
const out = INPUT.cases.map(function (inp) {
  const r = GR_MODEL.evaluate(inp, INPUT.tables);
  const entries = {};
  r.entries.forEach(function (e, k) { entries[k] = [e.value, e.reason || ""]; });
  return {entries: entries, verdicts: r.verdicts, decision: GR_MODEL.decision(r, inp, INPUT.tables)};
});
output(out);
"""


def js_evaluate(specs) -> list[dict]:
    return run(("formulas.js", "model.js", "parallel.js"), EVALUATE, {"cases": [live.inputs(s) for s in specs],
                                                      "tables": live.tables()})


def compare(spec, got: dict, r=None) -> list[str]:
    """What differs between the page's evaluation ``got`` and Python's (``r``: the spec's results where the caller
    has them; none compared reads the serving chapter's layout searches, which the page does not redo)."""
    r = evaluate(spec, plans=False) if r is None else r
    want = {js_key(e.id, e.params): (e.value, e.reason) for e in r.entries}  # many-GPU entries included
    bad = []
    missing = sorted(set(want) - set(got["entries"]))
    if missing:
        bad.append(f"missing in JS: {missing[:5]}")
    bad += entry_differences(want, got["entries"])
    binds = r.verdicts.get("decode_binds")
    if binds is not None and [list(row) for row in binds] != got["verdicts"]["decode_binds"]:
        bad.append("decode_binds differ")
    fits = r.verdicts.get("prefill_fits")
    if fits is not None and list(fits) != got["verdicts"]["prefill_fits"]:
        bad.append(f"prefill_fits differ: {list(fits)} against {got['verdicts']['prefill_fits']}")
    return bad + compare_decision(r, got["decision"])


def compare_decision(r, got: dict) -> list[str]:
    """Page 1's rows, the levers and the ways to fit (the smallest many-GPU layout, from the layout search, is
    Python's alone: a row whose lever is that layout is not compared)."""
    bad = []
    searched = [o["label"] for o in r.fit_options if o["kind"] == "gpus" and r.many is not None
                and r.many.smallest is not None]
    want_fit = [o for o in r.fit_options if o["label"] not in searched]
    for name, want, have in (("rows", r.decision, got["rows"]), ("levers", r.levers, got["levers"]),
                             ("fit_options", want_fit, got["fit_options"])):
        if len(want) != len(have):
            bad.append(f"{name}: {len(want)} in Python, {len(have)} in JS")
            continue
        for a, b in zip(want, have, strict=True):
            for k, v in a.items():
                if k == "lever" and isinstance(v, dict) and v.get("change") in searched:
                    continue
                if k == "lever" and isinstance(v, dict):
                    if v.get("change") != (b.get(k) or {}).get("change") or not close(v.get("gain"), b[k].get("gain")):
                        bad.append(f"{name} {a.get('label', a.get('lever'))}: lever {v} != {b.get(k)}")
                elif isinstance(v, float) or isinstance(b.get(k), float):
                    if not close(None if v is None else float(v), b.get(k)):
                        bad.append(f"{name} {a.get('label', a.get('lever'))}.{k}: {v!r} != {b.get(k)!r}")
                elif k in b and v != b[k] and not (v is None and b[k] is None):
                    bad.append(f"{name} {a.get('label', a.get('lever'))}.{k}: {v!r} != {b[k]!r}")
                elif k not in b and k not in ("parts", "source"):
                    bad.append(f"{name}: {k} missing in JS")
    return bad


ALL = sorted(p.name for p in SPECS.glob("*.yaml"))


WINDOWS = [  # sliding windows, with S* past the window (a numeric root, bisection in both languages) or not
    ("llama8b-h100.yaml", ["model=gemma-3-1b", "hardware.peak.bf16=200 TFLOP/s"]),
    ("llama8b-h100.yaml", ["model=gemma-3-1b", "hardware.peak.bf16=20 TFLOP/s"]),
    ("llama8b-h100.yaml", ["model=gemma-2-9b", "workloads.decode.context=[100, 4k, 1M]"]),
    ("llama8b-h100.yaml", ["model=mistral-7b", "precision=fp8"]),
    ("llama8b-h100.yaml", ["model=phi-3-mini", "precision.weights=int4"]),
]
CHUNKED = [  # a decode step reads a chunked layer's S mod chunk tokens; the capacity counts the chunk held
    ("llama8b-h100.yaml", ["model=llama-4-scout", "precision=int4", "hardware.memory.capacity=141 GiB",
                           "workloads.decode.context=[1000, 8k, 10000]"]),
    ("llama70b-h100-tp8.yaml", ["model=llama-4-scout", "workloads.decode.context=[8k, 10000, 32k]"]),
]
PER_CLASS = [  # weights per tensor class: b is the mean of what each point reads (the experts a batch touches)
    ("llama8b-h100.yaml", ["model=gpt-oss-120b", "precision.weights.experts=mxfp4", "accounting=exact"]),
    ("llama8b-h100.yaml", ["model=gpt-oss-20b", "precision.weights.experts=mxfp4", "precision.weights.embeddings=fp8"]),
    # classes computing apart (env.peak_of): MXFP4 experts in fp4 on a B200, fp8 experts in fp8 on an H100
    ("llama8b-h100.yaml", ["hardware=b200", "model=gpt-oss-120b", "precision.weights.experts=mxfp4"]),
    ("mixtral8x22b-h100-tp8-ep8.yaml", ["precision.weights.experts=fp8"]),
    ("llama8b-h100.yaml", ["precision.weights.attention=fp8", "precision.weights.embeddings=int4", "accounting=exact"]),
    ("deepseek-v3-h200-ep8.yaml", ["precision=fp8_block"]),
    ("deepseek-v3-h200-ep8.yaml", ["precision.weights=checkpoint", "workloads.prefill.prompt=[300, 8k]"]),
    # short prompts read the experts their tokens touch, and b is the mean of those bytes (the prefill rows, the
    # intensity table's tokens per load)
    ("llama8b-h100.yaml", ["model=gpt-oss-120b", "precision.weights.experts=mxfp4",
                           "workloads.prefill.prompt=[2, 24, 2k]"]),
    ("llama8b-h100.yaml", ["model=gpt-oss-20b", "precision.weights=checkpoint", "parallelism.tp=2", "parallelism.ep=2"]),
    ("deepseek-v3-h200-ep8.yaml", ["precision.weights.experts=nvfp4", "precision.weights.default=fp8_block"]),
    # served in fp8, trained in bf16: the training step and its ridge at the bf16 peak (recipes.TRAINING_COMPUTE)
    ("llama8b-h100.yaml", ["precision=fp8"]),
    # an MoE's training step below the ridge (I = 2 T N_a / (N b) = 113 FLOP/B at 2k tokens over tp 8, against 206):
    # page 1's row takes its weight traffic over the bandwidth, not its FLOPs, as the bound
    ("deepseek-v3-h200-ep8.yaml", ["parallelism.tp=8", "parallelism.dp=1", "workloads.training.micro_batch_tokens=2k"]),
    # the engine's reserve written as a size (tests/test_reserve_size.py): every fit decision keeps those bytes
    ("deepseek-v3-h200-ep8.yaml", ["engine.memory_reserve=30 GiB"]),
    # and the ways to fit on page 1: the A100 80 GB keeps 14 GiB, under the 16.06 GB of weights; the H200 75 GiB
    ("llama8b-h100.yaml", ["engine.memory_reserve=66 GiB", "hardware.memory.capacity=70 GiB"]),
    # at a layout a larger card holds the whole model (141 GB: the H200's 126 GiB do not, the B200's 160 GiB do)
    ("llama70b-h100-tp2.yaml", ["compare.hardware=[h200, b200]", "hardware.memory.capacity=60 GiB"]),
    ("llama70b-h100-tp2.yaml", ["compare.hardware=[h200, b200]", "hardware.memory.capacity=60 GiB",
                                "parallelism.tp=1", "parallelism.pp=2"]),
]


def test_every_committed_spec_matches():
    cases = [(name, []) for name in ALL] + WINDOWS + PER_CLASS + CHUNKED
    # the session's, shared with other files; only read here, so not copied (tests/shared.py evaluated_to_read)
    results = [evaluated_to_read(name, overrides) for name, overrides in cases]
    got = js_evaluate([r.spec for r in results])
    for r, g in zip(results, got, strict=True):
        assert compare(r.spec, g, r) == [], r.spec.name


OVERRIDES = st.one_of(
    st.floats(0.3, 20).map(lambda x: f"hardware.memory.bandwidth={x:.4g} TB/s"),
    st.floats(50, 5000).map(lambda x: f"hardware.peak.bf16={x:.4g} TFLOP/s"),
    st.floats(16, 300).map(lambda x: f"hardware.memory.capacity={x:.4g} GiB"),
    st.lists(st.integers(1, 4096), min_size=1, max_size=4, unique=True).map(
        lambda xs: "workloads.decode.batch=" + ("[" + ", ".join(map(str, xs)) + "]" if len(xs) > 1 else str(xs[0]))),
    st.lists(st.sampled_from([1, 100, 512, "4k", "32k", "128k", 1000000]), min_size=1, max_size=3, unique=True).map(
        lambda xs: "workloads.decode.context=[" + ", ".join(map(str, xs)) + "]"),
    st.sampled_from(["precision=fp8", "precision=int4", "precision=int8", "precision=fp16",
                     "precision.kv_cache=fp8", "precision.weights=int4",
                     "precision.weights.experts=mxfp4", "precision.weights.attention=fp8", "precision=nvfp4"]),
    st.sampled_from(["model.kv_heads=1", "model.kv_heads=2", "model.kv_heads=4", "model.layers=48",
                     "model.hidden_size=5120", "model.ffn.size=20480", "model.vocab_size=32000"]),
    st.sampled_from(["workloads.prefill.prompt=[300, 8k]", "workloads.training.micro_batch_tokens=16k"]),
)


@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(["llama8b-h100.yaml", "llama8b-h100.yaml --set model=gemma-3-1b", "seed000-70b-h100.yaml", "deepseek-v3-h200-ep8.yaml",
                                           "mixtral8x22b-h100-tp8-ep8.yaml", "llama8b-a100.yaml"]),
                          st.lists(OVERRIDES, min_size=1, max_size=3)), min_size=40, max_size=40))
def test_random_what_ifs_match(cases):
    specs = load_cases(SPECS, cases)
    got = js_evaluate(specs)
    for spec, g in zip(specs, got, strict=True):
        assert compare(spec, g) == [], (spec.name, spec.overrides)


LAYOUTS = [  # what-ifs of the layout itself: every entry (chapters 1-6 included) recomputed at the new layout
    ("llama70b-h100-tp8.yaml", ["parallelism.tp=4"]),
    ("llama70b-h100-tp8.yaml", ["parallelism.tp=4", "parallelism.pp=2", "parallelism.dp=2"]),
    ("mixtral8x22b-h100-tp8-ep8.yaml", ["parallelism.tp=2", "parallelism.dp=4"]),
    ("deepseek-v3-h200-ep8.yaml", ["parallelism.dp=4", "parallelism.ep=4"]),
    ("deepseek-v3-h200-ep8.yaml", ["parallelism.dp=4", "parallelism.ep=4", "precision.weights.experts=nvfp4"]),
    ("mixtral8x22b-h100-tp8-ep8.yaml", ["parallelism.tp=2", "parallelism.dp=4", "precision.weights.experts=mxfp4",
                                        "accounting=exact"]),
    ("llama8b-h100.yaml", ["parallelism.tp=2", "model=gemma-2-9b"]),  # a layout added to a one-card spec
    # stages whose global layers fall unevenly: each stage's own share of them (stages.stage_shares: 1 in 7, 2 in 13)
    ("llama8b-h100.yaml", ["model=gemma-3-1b", "parallelism.pp=4", "workloads.decode.context=[1k, 128k]",
                           "workloads.prefill.prompt=[512, 64k]"]),
    ("llama8b-h100.yaml", ["model=gemma-3-27b", "parallelism.pp=5", "parallelism.tp=2",
                           "workloads.decode.context=[4k, 128k]"]),
    # past the window the last stage binds, its logits' workspace too: capacity_at_context moves off the capacity
    ("llama8b-h100.yaml", ["model=gemma-3-27b", "hardware=l4", "precision=int4", "parallelism.pp=4",
                           "engine.max_sequences=256", "workloads.decode.context=[1k, 118000]",
                           "workloads.decode.batch=[1, 6]"]),
]


def test_a_layout_what_if_recomputes_every_number_at_the_new_layout():
    specs = [load_spec(SPECS / n, o) for n, o in LAYOUTS]
    assert all(s.parallelism is not None for s in specs)
    got = js_evaluate(specs)
    for spec, g in zip(specs, got, strict=True):
        assert compare(spec, g) == [], (spec.name, spec.parallelism)


# prompts whose KV cache does not fit beside the weights (evaluate.prompt_fits), and batching levers that stop where
# the round turns compute-bound (decision.compute_bound_batch): at a layout, on one card, over a windowed pipeline
FITS = [
    ("llama70b-h100-tp2.yaml", ["workloads.prefill.prompt=[4k, 100k]"]),
    ("llama8b-h100.yaml", ["hardware.memory.capacity=20 GiB", "workloads.prefill.prompt=[2k, 64k]"]),
    ("llama8b-h100.yaml", ["model=gemma-3-27b", "parallelism.pp=2", "workloads.prefill.prompt=[8k, 2M]",
                           "workloads.decode.context=[1k, 128k]"]),
    ("llama8b-h100.yaml", ["parallelism.tp=2"]),
]


def test_the_prompts_that_fit_and_the_batching_levers_match():
    specs = [load_spec(SPECS / n, o) for n, o in FITS]
    got = js_evaluate(specs)
    for spec, g in zip(specs, got, strict=True):
        assert compare(spec, g) == [], (spec.name, spec.overrides)
    assert got[0]["verdicts"]["prefill_fits"] == [True, False]
    assert any("compute-bound from there" in (row["lever"] or {}).get("change", "") for row in got[3]["decision"]["rows"])


def test_the_pages_compacted_bundle_evaluates_as_the_readable_sources():
    """The bundle a report carries (live.scripts: const as let, lines joined, formulas without their argument
    lists, which model.js reads off each function) gives the same entries, bit for bit, as templates/live/: a
    many-GPU MoE + MLA fp8 spec with a serving block, and a one-card spec."""
    import json

    from livejs import run_program

    for name, many in (("deepseek-v3-h200-ep8", True), ("llama8b-h100", False)):
        payload = {"cases": [live.inputs(load_spec(SPECS / f"{name}.yaml"))], "tables": live.tables()}
        scripts = ("formulas.js", "model.js") + (("parallel.js",) if many else ())
        readable = run(scripts, EVALUATE, payload)
        program = (live.scripts(many) + "\nconst INPUT = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
                   "function output(x) { process.stdout.write(JSON.stringify(x)); }\n" + EVALUATE)
        proc = run_program(program, json.dumps(payload))
        assert proc.returncode == 0, proc.stderr[-3000:]
        page = json.loads(proc.stdout)
        assert len(page[0]["entries"]) > 100 and page == readable, name


ROUTED = """
output(INPUT.cases.map(function (inp) {
  return GR_MODEL.routedFacts(GR_MODEL.evaluate(inp, INPUT.tables), inp, INPUT.tables);
}));
"""


def test_the_routed_expert_row_follows_a_what_if():
    """Chapter 3's routed-expert row (a routed expert's weight-reuse intensity, T k / E tokens a load) in the page as
    Python states it (shown.facts), for the MoE specs and what-ifs of the prompts, the weight format, the model and the
    layout: Mixtral 8x22B (2 of 8 experts), DeepSeek-V3 (8 of 256, fp8), gpt-oss-20b's MXFP4 experts (4 of 32).
    Each number is keyed by its prompt's tokens: keyed by place, a what-if that dropped the first prompt showed the
    second prompt's number under the first's span."""
    cases = [("mixtral8x22b-h100-tp8-ep8.yaml", []), ("deepseek-v3-h200-ep8.yaml", []),
             ("mixtral8x22b-h100-tp8-ep8.yaml", ["workloads.prefill.prompt=[100, 3000]", "precision=int4"]),
             ("deepseek-v3-h200-ep8.yaml", ["parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1"]),
             ("llama8b-h100.yaml", ["model=gpt-oss-20b", "precision.weights=checkpoint"]),
             ("llama8b-h100.yaml", [])]  # dense: no row
    specs = [load_spec(SPECS / name, overrides) for name, overrides in cases]
    got = run(("formulas.js", "model.js", "parallel.js"), ROUTED, {"cases": [live.inputs(s) for s in specs],
                                                                   "tables": live.tables()})
    for (name, overrides), spec, have in zip(cases, specs, got, strict=True):
        f = evaluated_to_read(name, overrides).facts  # evaluate(spec): the session's, shared with other files
        want = {f"routed_weight_reuse_{t}": v
                for t, v in zip(spec.workloads.prefill_prompt, f.get("routed_weight_reuse", []), strict=False)}
        if "training_routed_weight_reuse" in f:
            want["training_routed_weight_reuse"] = f["training_routed_weight_reuse"]
        assert set(have) == set(want), (name, overrides)
        assert all(close(have[k], want[k]) for k in want), (name, overrides, have, want)
        assert bool(want) == (spec.model.moe is not None), (name, overrides)
    # keyed by the prompt, not its place: the what-if with prompts [100, 3000] keys them so, and the built page's
    # spans are keyed by its prompts (512, 2k, 8k), so one dropped prompt leaves no span showing another's number
    assert {"routed_weight_reuse_100", "routed_weight_reuse_3000"} <= set(got[2])
    from shared import html

    page = html("mixtral8x22b-h100-tp8-ep8.yaml")
    assert [f'data-fact="routed_weight_reuse_{t}"' in page for t in (512, 2048, 8192)] == [True] * 3
    assert 'data-fact="routed_weight_reuse_0"' not in page


def test_the_ways_to_fit_at_a_layout_count_gpus_not_copies_of_it(tmp_path):
    """Ways to fit a layout whose GPUs cannot hold their slice: gpt-oss-120b in its checkpoint's formats (mxfp4
    experts) on 2 L4s (tp 2) offered "2 × NVIDIA L4 24GB", an even split of one GPU's slice, i.e. two copies of the
    layout: the layout search had found no layout "in the spec's format" (plan names the checkpoint's formats
    'checkpoint', the spec's weights read 'mxfp4+bf16'), and the page offered another lever.  Now the search's own
    smallest layout is offered, the same in the page; and without a search (no decode workload) the even split is the
    whole model's over one card's room: Llama 3.1 70B in bf16 (141 GB) on L4s at tp 2 needs 7 cards, not 4."""
    import math

    oss = tmp_path / "oss.yaml"
    oss.write_text("kind: report\nname: oss\ntitle: t\nhardware: l4\nmodel: gpt-oss-120b\n"
                   "precision: {weights: checkpoint, kv_cache: fp8}\nparallelism: {tp: 2}\n"
                   "workloads:\n  decode: {batch: [1], context: [1k]}\n")
    big = tmp_path / "big.yaml"
    big.write_text("kind: report\nname: big\ntitle: t\nhardware: l4\nmodel: llama-3.1-70b\nprecision: bf16\n"
                   "parallelism: {tp: 2}\nworkloads:\n  prefill: {prompt: [2k]}\n")
    specs = [load_spec(oss), load_spec(big)]
    rs = [evaluate(s) for s in specs]
    gpus = [o for o in rs[0].fit_options if o["kind"] == "gpus"]
    assert len(gpus) == 1 and gpus[0]["label"].startswith("3 × NVIDIA L4 24GB (tp 1 × pp 3)"), gpus
    assert rs[0].many.smallest["precision"] == "checkpoint"
    (split,) = [o for o in rs[1].fit_options if o["kind"] == "gpus"]
    whole = rs[1].one_card[rs[1].lead]
    n = math.ceil(whole["weight_bytes"] / whole["capacity"])
    assert split["label"] == f"{n} × NVIDIA L4 24GB" and n == 7 and split["weight_bytes"] == whole["weight_bytes"] / n
    for spec, r, got in zip(specs, rs, js_evaluate(specs), strict=True):
        assert compare(spec, got, r) == [], spec.name
