"""The report's sentences in the browser (templates/live/prose.js) against Python's (present/prose.py and
summary.sentences): the same strings, byte for byte, for the committed specs, sliding windows, a model that does
not fit, MoE and random what-ifs. One node subprocess per test."""

from __future__ import annotations

from genreport import evaluate
from genreport.present import live, prose, summary
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from livejs import load_cases, needs_node, run
from shared import ROOT

SPECS = ROOT / "specs"
SCRIPTS = ("formulas.js", "fmt.js", "model.js", "parallel.js", "prose.js")
pytestmark = needs_node

PROSE = """
const P = GR_PROSE;
output({article: INPUT.numbers.map(P.article), cases: INPUT.cases.map(function (inp) {
  const r = GR_MODEL.evaluate(inp, INPUT.tables), dec = GR_MODEL.decision(r, inp, INPUT.tables);  // as page.js passes
  return {decode_headline: P.decode_headline(r, inp), context_lines: P.context_lines(r, inp),
    prefill_lines: P.prefill_lines(r, inp), training_lines: P.training_lines(r, inp, dec),
    capacity_fact: P.capacity_fact(r, inp), critical_fact: P.critical_fact(r, inp),
    attention_text: P.attention_text(r, inp), sentences: P.sentences(r, inp, dec)};
})});
"""

FUNCTIONS = ("decode_headline", "context_lines", "prefill_lines", "training_lines", "capacity_fact", "critical_fact",
             "attention_text")


def browser_inputs(spec, r) -> dict:
    """live.inputs, with the model's title (prose names the model) and, for a many-GPU spec, its parallelism."""
    inp = live.inputs(spec)
    assert inp["model"]["title"] == spec.model.title and (inp["parallelism"] is not None) == (r.parallel is not None)
    return inp


def python_text(r) -> dict:
    """Python's sentences. Page 1's sentences when the weights do not fit a card with a link name the smallest
    many-GPU layout, which Python's layout search alone finds: the browser has none (and dims Python's)."""
    want = {name: getattr(prose, name)(r) for name in FUNCTIONS}
    layout = not r.verdicts.get("weights_fit", True) and r.spec.hardware.link is not None
    want["sentences"] = None if layout else summary.sentences(r)
    return want


def differences(specs, numbers=(), results=None) -> tuple[list[str], list[dict]]:
    """Every sentence that differs between Python and JavaScript, and Python's texts (``results``: the specs'
    where the caller has them)."""
    results = [evaluate(s) for s in specs] if results is None else results
    got = run(SCRIPTS, PROSE, {"cases": [browser_inputs(s, r) for s, r in zip(specs, results, strict=True)],
                               "tables": live.tables(), "numbers": list(numbers)})
    bad = [f"article({n}): python {prose.article(n)!r}, js {a!r}"
           for n, a in zip(numbers, got["article"], strict=True) if prose.article(n) != a]
    wants = []
    for spec, r, have in zip(specs, results, got["cases"], strict=True):
        want = python_text(r)
        wants.append(want)
        for name, text in want.items():
            if text != have[name]:
                bad.append(f"{spec.name} {' '.join(spec.overrides)}: {name}\n  python {text!r}\n  js     {have[name]!r}")
    return bad, wants


WINDOWS = [  # sliding windows: all layers (Mistral), every other layer (Gemma 2), 5 of 6 (Gemma 3); S* past the
    # window, no S* because the ceiling levels off above the ridge, no S* (and decode compute-bound at batch 1)
    # because I_kv is above it; then MoE, a fastest decode row that does not fit, a card that holds only the
    # leaner training recipe
    ("llama8b-h100.yaml", ["model=gemma-3-1b", "hardware.peak.bf16=200 TFLOP/s"]),
    ("llama8b-h100.yaml", ["model=mistral-7b", "hardware.peak.bf16=20 TFLOP/s"]),
    ("llama8b-h100.yaml", ["model=gemma-3-1b", "hardware.peak.bf16=2 TFLOP/s"]),
    ("llama8b-h100.yaml", ["model=gemma-2-9b"]),
    # one sequence of 128k fits beside Gemma 3 27B's weights in 66 GiB: "1 sequence", not "1 sequences"
    ("llama8b-h100.yaml", ["model=gemma-3-27b", "workloads.decode.context=[128k]", "hardware.memory.capacity=66 GiB"]),
    # four stages of one global layer each: the time at 1 global layer in 7, said beside the window's f(S)
    ("llama8b-h100.yaml", ["model=gemma-3-1b", "parallelism.pp=4", "workloads.decode.context=[1k, 32k]"]),
    ("llama8b-h100.yaml", ["parallelism.tp=1"]),  # a layout block of one GPU: "On one GPU", not "On 1 GPUs ()"
    ("llama8b-h100.yaml", ["parallelism.tp=2"]),  # training at a layout: its step is one GPU's slice, said so
    # training at a layout whose whole state does not fit one card: each GPU's share under page 1's ZeRO stage, which
    # fits on H200 (tp 2 x pp 4 x dp 2) and not even at ZeRO-3 on 2 H100 (review, stop 78)
    ("seed000-70b-h200.yaml", ["parallelism.tp=2", "parallelism.pp=4", "parallelism.dp=2"]),
    ("seed000-70b-h100.yaml", ["parallelism.tp=2"]),
    ("llama8b-h100.yaml", ["precision=fp8"]),  # served in fp8, trained in bf16: the training line names the bf16 peak
    ("llama8b-h100.yaml", ["model=mistral-7b"]),
    ("llama8b-h100.yaml", ["model=mixtral-8x7b"]),
    # an MoE's training step left of the ridge: the line gives the weights' traffic as the bound, the FLOPs beside it
    ("deepseek-v3-h200-ep8.yaml", ["parallelism.tp=8", "parallelism.dp=1", "workloads.training.micro_batch_tokens=2k"]),
    ("llama8b-h100.yaml", ["hardware.memory.capacity=17 GiB", "workloads.decode.context=[1k, 32k]",
                           "workloads.decode.batch=[1, 2, 1024]"]),  # the fastest row (1,024 at 32k) does not fit
    ("llama8b-h100.yaml", ["hardware.memory.capacity=125 GiB"]),  # training state fits at 16 B/param, not at 18
    ("llama70b-h100-tp8.yaml", ["parallelism.pp=2"]),  # two nodes: the estimate's collectives per stage's round
    # a prompt a replica cannot hold (34,202 tokens beside the weights at tp 2): its pass "would be, were it to fit"
    ("llama70b-h100-tp2.yaml", ["workloads.prefill.prompt=[8k, 100k]"]),
]
NUMBERS = [1, 8, 11, 18, 80, 110, 180, 800, 1024, 1100, 1800, 2048, 8192, 11000, 18000, 80000, 110000, 118000,
           810000, 1100000, 18000000] + list(range(0, 200, 7))


def test_committed_specs_windows_and_moe_match():
    from shared import evaluated

    results = ([evaluated(p.name) for p in sorted(SPECS.glob("*.yaml"))]
               + [evaluated(name, overrides) for name, overrides in WINDOWS])  # the session's, shared with other files
    specs = [r.spec for r in results]
    bad, wants = differences(specs, NUMBERS, results)
    assert bad == [], "\n".join(bad)
    by_name = {(s.name, tuple(s.overrides)): w for s, w in zip(specs, wants, strict=True)}
    # the cases exercise the branches they were chosen for
    assert by_name[("seed000-70b-h100", ())]["sentences"] is None  # names the smallest layout: Python's alone
    assert by_name[("llama8b-h100", ())]["sentences"][0].startswith("Decode at batch 1")
    assert by_name[("llama70b-h100-tp8", ())]["sentences"][0].startswith("On 8 GPUs (tp 8), decode at batch 1")
    assert sum(w["sentences"][0].startswith("On ") for w in wants if w["sentences"]) == 13  # the layouts' specs
    long = by_name[("llama70b-h100-tp2", ("workloads.prefill.prompt=[8k, 100k]",))]["prefill_lines"]
    assert "It does not fit" not in long[0] and "The whole pass would be, were it to fit, compute-bound" in long[1]
    assert by_name[("llama8b-h100", ("parallelism.tp=1",))]["sentences"][0].startswith("On one GPU, decode at batch 1")
    gemma = by_name[("llama8b-h100", ("model=gemma-3-1b", "parallelism.pp=4", "workloads.decode.context=[1k, 32k]"))]
    assert ("On the layout's 4 stages a step's time takes each stage's own global layers: 1 in 7 on the busiest, 1 in "
            "6 on the last, 3 in 20 on the stages before the last together for the walk through them (chapter 1)") in \
        gemma["attention_text"]
    # page 1 names the serial estimate's own collectives, never the bound's interconnect ledger beside it
    staged = by_name[("llama70b-h100-tp8", ("parallelism.pp=2",))]["sentences"][0]
    assert staged.startswith("On 16 GPUs (tp 8, pp 2)") and "through 2 stages in turn, each stage's GPUs spending" in staged
    assert "of it in the collectives on its critical path" in by_name[("llama70b-h100-tp8", ())]["sentences"][0]
    assert all("sliding window" in by_name[("llama8b-h100", tuple(o))]["attention_text"] for _, o in WINDOWS[:5])
    assert by_name[("llama8b-h100", tuple(WINDOWS[0][1]))]["critical_fact"].startswith("Critical context S*")
    assert by_name[("llama8b-h100", tuple(WINDOWS[1][1]))]["critical_fact"].startswith("No critical context")
    assert by_name[("llama8b-h100", tuple(WINDOWS[2][1]))]["critical_fact"].startswith("The attention intensity")
    assert "compute-bound on this card" in by_name[("llama8b-h100", tuple(WINDOWS[2][1]))]["decode_headline"]
    assert by_name[("llama8b-h100", tuple(WINDOWS[-4][1]))]["sentences"][1].startswith("Batching 2 sequences")
    assert "a micro-batch at the bf16 peak (the recipes train in mixed precision: bf16 GEMMs" in by_name[
        ("llama8b-h100", ("precision=fp8",))]["training_lines"][0]
    assert "a micro-batch per GPU (its slice of the model) at the bf16 peak" in by_name[
        ("llama8b-h100", ("parallelism.tp=2",))]["training_lines"][0]
    assert "only in the leaner recipe" in by_name[("llama8b-h100", tuple(WINDOWS[-3][1]))]["training_lines"][0]
    # at a layout, each GPU's share under page 1's recipe and ZeRO stage (seed 000's 70e9 parameters, bf16-grads: 2 B
    # of weights, 2 of gradients and 12 of fp32 Adam state; ZeRO-2 shards the last two over dp 2: 2 + 14 / 2 = 9 B a
    # parameter over tp 2 on the stage that holds the most of pp 4, the last (20 layers, the head and the final norm:
    # n_PT = 3.884 by the shapes), 70e9 x 9 / (2 x 3.884) = 81.1 GB on each GPU, not 80 / 4 layers' 78.75 GB)
    assert ("would not fit in 141 GiB (at least 8 cards' memory); at this layout each GPU holds its share: the "
            "bf16-grads recipe with ZeRO-2 leaves 81.1 GB on each GPU of the stage that holds the most parameters, which "
            "fits before activations") in by_name[
        ("seed000-70b-h200", ("parallelism.tp=2", "parallelism.pp=4", "parallelism.dp=2"))]["training_lines"][0]
    assert "even the leanest, ZeRO-3, leaves 560 GB on each GPU: it does not fit" in by_name[
        ("seed000-70b-h100", ("parallelism.tp=2",))]["training_lines"][0]
    assert "at the bandwidth (68.6 ms at the bf16 peak)" in by_name[("deepseek-v3-h200-ep8", (
        "parallelism.tp=8", "parallelism.dp=1", "workloads.training.micro_batch_tokens=2k"))]["training_lines"][0]
    assert all(w["prefill_lines"] and w["context_lines"] for w in wants)
    training = " ".join(line for w in wants for line in w["training_lines"])
    assert "Its state fits (" in training and "But its state does not fit" in training


OVERRIDES = st.one_of(
    st.floats(0.3, 20).map(lambda x: f"hardware.memory.bandwidth={x:.4g} TB/s"),
    st.floats(50, 5000).map(lambda x: f"hardware.peak.bf16={x:.4g} TFLOP/s"),
    st.floats(16, 300).map(lambda x: f"hardware.memory.capacity={x:.4g} GiB"),
    st.lists(st.integers(1, 4096), min_size=1, max_size=4, unique=True).map(
        lambda xs: "workloads.decode.batch=[" + ", ".join(map(str, xs)) + "]"),
    st.lists(st.sampled_from([1, 100, 512, "4k", "8k", "32k", "128k", 1000000]), min_size=1, max_size=3,
             unique=True).map(lambda xs: "workloads.decode.context=[" + ", ".join(map(str, xs)) + "]"),
    st.lists(st.sampled_from([1, 300, 800, "2k", "8k", "11k", "18k"]), min_size=1, max_size=3, unique=True).map(
        lambda xs: "workloads.prefill.prompt=[" + ", ".join(map(str, xs)) + "]"),
    st.sampled_from(["precision=fp8", "precision=int4", "precision=int8", "precision=fp16",
                     "precision.kv_cache=fp8", "precision.weights=int4", "workloads.training.micro_batch_tokens=8k"]),
    st.sampled_from(["model.kv_heads=1", "model.kv_heads=2", "model.kv_heads=4"]),
)
BASES = ["llama8b-h100.yaml", "llama8b-a100.yaml", "seed000-70b-h100.yaml", "seed000-70b-h200.yaml",
         "llama8b-h100.yaml --set model=gemma-3-1b", "llama8b-h100.yaml --set model=mixtral-8x7b"]


@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(BASES), st.lists(OVERRIDES, min_size=1, max_size=3)),
                min_size=30, max_size=30))
def test_random_what_ifs_match(cases):
    specs = load_cases(SPECS, cases)
    assert len(load_cases(SPECS, [(b, []) for b in BASES])) == len(BASES)  # every base is a case of its own
    bad, _ = differences(specs)
    assert bad == [], "\n".join(bad)


def test_an_moe_prefill_says_what_a_routed_experts_load_serves():
    """Mixtral 8x22B (mistralai/Mixtral-8x22B-v0.1 config.json: num_local_experts 8, num_experts_per_tok 2) on H100
    in bf16: a 512-token prefill's weight-reuse intensity 2 T / b = 512 FLOP/B is right of the ridge (989.4 TFLOP/s
    over 3.35 TB/s, 295 FLOP/B; NVIDIA H100 datasheet, SXM), but one load of a routed expert serves about
    512 x 2 / 8 = 128 of its tokens, 2 x 128 / 2 = 128 FLOP/B, left of it: the sentence says so beside the verdict
    (bandwidth-bound) it would otherwise contradict; the browser says the same (test above)."""
    from shared import evaluated

    lines = prose.prefill_lines(evaluated("mixtral8x22b-h100-tp8-ep8.yaml"))
    assert ("right of the ridge 295; counting activations, the 6,144×6,144 GEMM reads 439; a routed expert's weights "
            "serve about 128 of the 512 tokens (T k / E, uniform routing), 128 FLOP/B, left of the ridge. The whole "
            "pass is bandwidth-bound per GPU") in lines[0]
    assert "a routed expert's weights serve about 2,048 of the 8,192 tokens" in lines[-1]
    assert not any("routed expert" in x for x in prose.prefill_lines(evaluated("llama70b-h100-tp8.yaml")))


def test_the_shipped_bundle_says_what_the_source_says():
    """What a report carries, ``live.scripts()`` (compacted), gives the same sentences as prose.js's source: the
    compactor once took out the spaces of a template literal nested in another's substitution, so Gemma 2 9B's
    sliding-window sentence read "21of its 42 layers" in the page (and page 1's "On 4GPUs(tp 4)")."""
    import json

    from livejs import run_program
    from shared import evaluated

    results = [evaluated(name, overrides) for name, overrides in WINDOWS]
    payload = {"cases": [browser_inputs(r.spec, r) for r in results], "tables": live.tables(), "numbers": NUMBERS}
    program = (live.scripts(True) + "\nconst INPUT = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
               "function output(x) { process.stdout.write(JSON.stringify(x)); }\n" + PROSE)
    proc = run_program(program, json.dumps(payload))
    assert proc.returncode == 0, proc.stderr[-3000:]
    shipped = json.loads(proc.stdout)
    assert shipped == run(SCRIPTS, PROSE, payload)
    gemma2 = shipped["cases"][[r.spec.overrides for r in results].index(("model=gemma-2-9b",))]["attention_text"]
    assert " 21 of its 42 layers attend within a 4,096-token sliding window" in gemma2
