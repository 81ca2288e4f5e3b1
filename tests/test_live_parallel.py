"""Many-GPU layouts in the browser (templates/live/parallel.js, through GR_MODEL) against Python's
genreport.model.layout and page 1's parallel rows: every entry of ``r.parallel.entries`` (value to 1e-9
relative, or None with the same reason), which roof binds each decode point, and the decision rows."""

from __future__ import annotations

import copy

from genreport import evaluate
from genreport.present import live
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from livejs import close, entry_differences, js_key, load_cases, needs_node, run
from shared import ROOT, evaluated_to_read
from test_live_model import compare_decision

SPECS = ROOT / "specs"
SCRIPTS = ("fmt.js", "formulas.js", "model.js", "parallel.js")  # fmt.js: the notes' numbers, as the page writes them
PARALLEL = ("llama70b-h100-tp2.yaml", "llama70b-h100-tp8.yaml", "llama405b-h200-fp8-tp8.yaml",
            "deepseek-v3-h200-ep8.yaml", "mixtral8x22b-h100-tp8-ep8.yaml")
pytestmark = needs_node
FIXED = [  # what-ifs the random ones seldom draw: no layout fits, training on a layout, scale-out groups
    ("llama405b-h200-fp8-tp8.yaml", ["workloads.decode.batch=[1, 4096]", "workloads.decode.context=[1k, 1M]",
                                     "hardware.memory.capacity=16 GiB"]),
    ("deepseek-v3-h200-ep8.yaml", ["workloads.training.micro_batch_tokens=16k", "parallelism.dp=16"]),
    ("llama70b-h100-tp2.yaml", ["workloads.training.micro_batch_tokens=4k", "parallelism.pp=4"]),
    ("llama70b-h100-tp8.yaml", ["parallelism.tp=16", "parallelism.dp=4", "parallelism.pp=2"]),
    ("mixtral8x22b-h100-tp8-ep8.yaml", ["parallelism.tp=2", "parallelism.dp=4", "precision=fp8"]),
    # weight-only weights: the estimate's e_w, one format and per class (issue 29)
    ("llama70b-h100-tp2.yaml", ["precision=int4"]),
    ("mixtral8x22b-h100-tp8-ep8.yaml", ["precision.weights.experts=int4"]),
    # the experts' all-to-all as DeepEP runs it, in one node and across two (issue 27)
    ("deepseek-v3-h200-ep8.yaml", ["engine.all_to_all=deepep"]),
    ("deepseek-v3-h200-ep8.yaml", ["engine.all_to_all=deepep", "parallelism.dp=16", "parallelism.ep=16"]),
    # RCCL's all-pairs all-reduce on MI300X's mesh, faster than its ring for a batch-1 step's 16 KiB (issue 27)
    ("llama70b-h100-tp8.yaml", ["hardware=mi300x", "precision=fp8"]),
    # page 1's FP8 compute lever on a layout's prefill rows, where the all-reduces bind once fp8 halves the compute
    ("llama70b-h100-tp8.yaml", ["model=llama-3.1-8b"]),
    # an MoE's short prompts read the experts their tokens touch (16 tokens: 102 of DeepSeek-V3's 256 a layer, per
    # replica; the expert group of 8 replicas: 254), per-tensor precision included
    ("deepseek-v3-h200-ep8.yaml", ["workloads.prefill.prompt=[2, 16, 2k]", "precision.weights.experts=int4"]),
    ("mixtral8x22b-h100-tp8-ep8.yaml", ["workloads.prefill.prompt=[1, 3, 512]"]),
    # the scale-out network on the page (stop 74): two nodes' expert and data groups, faster or slower between nodes
    ("deepseek-v3-h200-ep8.yaml", ["parallelism.dp=16", "parallelism.ep=16",
                                   "hardware.node.scale_out.bandwidth_per_direction=200 GB/s"]),
    ("llama70b-h100-tp8.yaml", ["parallelism.tp=16", "hardware.node.scale_out.latency=10 us"]),
    # the memory of each pipeline stage (genreport.model.stages): Gemma 3's global layers fall unevenly on four
    # stages, which one binds moves with the context; DeepSeek-V3's dense first layers and embedding on the first
    # PCIe cards (domain 1, no scale-out network): the group's link at its rate, which a shared fabric only lowers
    ("llama70b-h100-tp2.yaml", ["hardware=l40s", "precision=fp8", "parallelism.tp=2", "parallelism.pp=4"]),
    ("llama70b-h100-tp2.yaml", ["model=gemma-3-27b", "parallelism.tp=1", "parallelism.pp=4",
                                "workloads.decode.context=[512, 4k, 128k]"]),
    ("deepseek-v3-h200-ep8.yaml", ["parallelism.pp=2", "parallelism.tp=8", "parallelism.ep=8", "parallelism.dp=1"]),
]

EVALUATE = """
output(INPUT.cases.map(function (inp) {
  const r = GR_MODEL.evaluate(inp, INPUT.tables);
  const entries = {};
  r.parallel.entries.forEach(function (e) { entries[GR_MODEL.key(e.id, e.params)] = [e.value, e.reason || ""]; });
  return {entries: entries, binds: r.parallel.binds, weights_fit: r.verdicts.weights_fit,
          links: r.parallel.links, notes: r.parallel.notes, decision: GR_MODEL.decision(r, inp, INPUT.tables)};
}));
"""


def js_evaluate(inputs: list[dict]) -> list[dict]:
    return run(SCRIPTS, EVALUATE, {"cases": inputs, "tables": live.tables()})


def compare(r, got: dict) -> list[str]:
    """What differs between Python's parallel results of ``r`` and the browser's ``got``."""
    p = r.parallel
    want = {js_key(e.id, e.params): (e.value, e.reason) for e in p.entries}
    bad = []
    if set(want) != set(got["entries"]):
        bad.append(f"entries: only in Python {sorted(set(want) - set(got['entries']))[:4]}, "
                   f"only in JS {sorted(set(got['entries']) - set(want))[:4]}")
    bad += entry_differences(want, got["entries"])
    binds = [list(row) for row in p.binds] if p.binds is not None else None
    if binds != got["binds"]:
        bad.append(f"binds: python {binds}, js {got['binds']}")
    if r.verdicts["weights_fit"] != got["weights_fit"]:
        bad.append("weights_fit differs")
    for g, c in p.links.items():
        have = got["links"][g]
        if (c.tier, c.span, c.name, c.latency) != (have["tier"], have["span"], have["name"], have["latency"]) or not close(
                c.bandwidth_per_direction, have["bandwidth_per_direction"] if have["bandwidth_per_direction"] is not None
                else float("inf")):
            bad.append(f"link {g}: python {c}, js {have}")
    if p.notes != got["notes"]:
        bad.append(f"notes: python {p.notes}, js {got['notes']}")
    return bad + compare_decision(r, got["decision"])


def test_the_parallel_specs_match_and_a_changed_input_shows():
    # the session's evaluations, only read here (tests/shared.py evaluated_to_read): the five committed specs' are
    # shared with the other files that evaluate them
    results = [evaluated_to_read(name) for name in PARALLEL] + [evaluated_to_read(n, o) for n, o in FIXED]
    specs = [r.spec for r in results]
    inputs = [live.inputs(s) for s in specs]
    # the same specs with one input changed on the JS side only: the comparison must see it
    changed = []
    for i, (path, value) in enumerate((("parallelism.tp", 4), ("hardware.link.latency", 2e-6),
                                       ("hardware.bandwidth", 3e12), ("parallelism.dp", 2),
                                       ("hardware.link.bandwidth_per_direction", 1e11))):
        inp = copy.deepcopy(inputs[i])
        node = inp
        *head, last = path.split(".")
        for k in head:
            node = node[k]
        node[last] = value
        changed.append(inp)
    got = js_evaluate(inputs + changed)  # the changed inputs compare with the first five's results
    for spec, r, g in zip(specs, results, got[:len(specs)], strict=True):
        assert len(r.parallel.entries) > 100
        assert compare(r, g) == [], spec.name
    for spec, r, g in zip(specs, results, got[len(specs):], strict=False):
        assert compare(r, g) != [], spec.name


OVERRIDES = st.one_of(
    st.tuples(st.sampled_from(["tp", "pp", "ep", "dp"]), st.sampled_from([1, 2, 4, 5, 8, 16])).map(
        lambda x: f"parallelism.{x[0]}={x[1]}"),
    st.floats(1, 2000).map(lambda x: f"hardware.interconnect.bandwidth_per_direction={x:.4g} GB/s"),
    st.floats(0.01, 50).map(lambda x: f"hardware.interconnect.latency={x:.4g} us"),
    st.floats(5, 400).map(lambda x: f"hardware.node.scale_out.bandwidth_per_direction={x:.4g} GB/s"),
    st.floats(0.3, 20).map(lambda x: f"hardware.memory.bandwidth={x:.4g} TB/s"),
    st.floats(16, 300).map(lambda x: f"hardware.memory.capacity={x:.4g} GiB"),
    st.lists(st.integers(1, 4096), min_size=1, max_size=4, unique=True).map(
        lambda xs: "workloads.decode.batch=[" + ", ".join(map(str, xs)) + "]"),
    st.lists(st.sampled_from([1, 512, "4k", "32k", "128k", 1000000]), min_size=1, max_size=3, unique=True).map(
        lambda xs: "workloads.decode.context=[" + ", ".join(map(str, xs)) + "]"),
    st.sampled_from(["precision=fp8", "precision=int4", "precision=int8", "precision=fp16", "precision=fp32",
                     "precision.kv_cache=fp8", "workloads.prefill.prompt=[300, 8k]",
                     "precision.weights.experts=mxfp4", "precision.weights.attention=fp8", "hardware=h100-pcie", "hardware=h100-nvl",
                     "hardware=gb200", "hardware=l4", "workloads.training.micro_batch_tokens=16k"]),
)


@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(PARALLEL), st.lists(OVERRIDES, min_size=1, max_size=3)),
                min_size=30, max_size=30))
def test_random_what_ifs_match(cases):
    specs = load_cases(SPECS, cases)
    got = js_evaluate([live.inputs(s) for s in specs])
    for spec, g in zip(specs, got, strict=True):
        # the page redoes no layout search of the serving chapter, and compare reads none
        assert compare(evaluate(spec, plans=False), g) == [], (spec.name, spec.overrides)
