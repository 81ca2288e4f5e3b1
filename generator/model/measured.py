"""Measured points against the roofline: MFU, MBU, the bottleneck diagnosis, and derated estimates.

Pure functions of an evaluated :class:`~genreport.model.evaluate.Results`: no disk, no
drawing.  Every number is computed with the compiled quantities of
:mod:`formulas.quantities` (``decode_flops``, ``decode_bytes``, ``mfu``, ``mbu``,
``derated_time`` ...) in the lead accounting of the report.

* :func:`analyse` turns each ``measured`` entry of the spec into a dict: the step
  time, its FLOPs and bytes, achieved FLOP/s and B/s, MFU and MBU (PaLM; seed 003
  section 5), the ideal bound at that point and the measured/bound ratio, and seed
  000's three-state diagnosis with its remedies.  A measurement faster than the
  bound is an input error (:class:`SpecError`, positioned at the measurement).
* :func:`utilisation_caveat` is the nvidia-smi sentence of seed 003 section 5.
* :func:`derated` is the ideal bound with the peaks scaled by the spec's
  ``efficiency`` block: decode tokens/s, prefill and training times.
* :func:`not_compared` and :func:`rechecked`: a what-if that changes what the runs
  ran on (their GPU, model, precision or layout) compares none of them; it says why
  and, for another GPU alone, gives its bound at each measured point.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
from genreport.errors import Finding, Findings
from genreport.formulas.recipes import TRAINING_WEIGHT_BYTES
from genreport.load.spec import Measurement
from genreport.model.results import Results
from genreport.present import fmt

# ---------------------------------------------------------------------------------------------- thresholds

NEAR_PEAK = 0.5
"""A utilisation (MFU or MBU) at or above this fraction of peak counts as "near peak"; below it, "far below".

Seed 000 names the states by "near peak" and "far below" without a number, and seed 003
gives 70-80 % as the MBU of a typical decode.  Half of peak is our choice, recorded
here so the report can print it: it puts seed 003's decode (MBU 0.7-0.8, MFU a few
per cent) firmly in the memory-bound state and leaves room below it for overhead.
"""

TOLERANCE = 1e-9
"""Relative slack when comparing a measurement with its bound (rounding of the inputs, not physics)."""

DIAGNOSIS_SOURCE = "seed 000, 'how to tell where you are stuck' (three typical states)"
UTILISATION_SOURCE = "seed 003, section 5 (nvidia-smi utilization; MFU and MBU)"

STATES: dict[str, dict[str, object]] = {
    "memory-bound": {
        "label": "memory-bound",
        "seed_term": "内存受限",
        "reading": "bandwidth near its peak, compute far below",
        "remedies": (
            "batching (more tokens served per weight load)",
            "quantization (fewer bytes per weight)",
            "operator fusion",
            "FlashAttention",
            "a better KV-cache layout",
        ),
        "note": "a GPU with more compute barely helps",
    },
    "compute-bound": {
        "label": "compute-bound",
        "seed_term": "算术受限",
        "reading": "compute near its peak, bandwidth far below (seed 000's 'ideal state')",
        "remedies": (
            "more efficient algorithms",
            "lower precision (FP8, INT8)",
            "a GPU with more compute",
        ),
        "note": "",
    },
    "overhead-bound": {
        "label": "overhead-bound (or the task is too small)",
        "seed_term": "开销受限",
        "reading": "both far below their peaks",
        "remedies": (
            "fewer kernels (operator fusion, graph compilation)",
            "merging small operations into larger ones",
            "{graphs}",
        ),
        "note": "check the kernel count and the work per kernel; the symptom is low GPU utilisation, "
                "low HBM bandwidth and a busy CPU",
    },
    "balanced": {
        "label": "at the ridge (both near peak)",
        "seed_term": "",
        "reading": "both near their peaks; not one of seed 000's three states",
        "remedies": (
            "less work per step (fewer FLOPs and fewer bytes)",
            "a GPU faster in both compute and bandwidth",
        ),
        "note": "the step's intensity is close to the ridge, where both roofs meet",
    },
}


# The remedy "{graphs}" above in the vendor's stack (Hardware.graph): a captured sequence of launches replayed at once,
# or on a TPU a step compiled whole (XLA launches no kernel on its own, so there is nothing to capture).
GRAPH_REMEDY = {"CUDA graph": "CUDA Graphs (record a sequence of launches, submit it once)",
                "compiled XLA graph": "one compiled program per step (jit the whole step, as XLA does: no kernel "
                                      "launched on its own)"}


def remedies(state: str, hw) -> list[str]:
    """Seed 000's remedies for ``state`` on ``hw``: in its noun ("a chip with more compute"), its vendor's graphs
    ("CUDA graphs", "HIP graphs", "HPU graphs"; a TPU's whole-step compilation), nvidia-smi's name kept."""
    from genreport.present.fmt import device

    graph = getattr(hw, "graph", "CUDA graph")
    words = GRAPH_REMEDY.get(graph, f"{graph}s (record a sequence of launches, submit it once)")
    return device([x.replace("{graphs}", words) for x in STATES[state]["remedies"]], getattr(hw, "noun", "GPU"))


def diagnose(mfu: float, mbu: float, near_peak: float = NEAR_PEAK) -> str:
    """Seed 000's three-state table as a function: which state MFU and MBU [1] put a step in.

    >>> diagnose(0.02, 0.75), diagnose(0.7, 0.1), diagnose(0.05, 0.2), diagnose(0.6, 0.6)
    ('memory-bound', 'compute-bound', 'overhead-bound', 'balanced')
    """
    compute_near, bandwidth_near = mfu >= near_peak, mbu >= near_peak
    if bandwidth_near and not compute_near:
        return "memory-bound"
    if compute_near and not bandwidth_near:
        return "compute-bound"
    if not compute_near and not bandwidth_near:
        return "overhead-bound"
    return "balanced"


def utilisation_caveat(utilization: float, mfu: float | None = None, mbu: float | None = None) -> str:
    """The sentence that goes beside an nvidia-smi utilisation figure (seed 003 section 5).

    >>> utilisation_caveat(0.99, 0.0021, 0.61)[:60]
    'nvidia-smi reported 99 % GPU utilization. That is the share '
    """
    text = (f"nvidia-smi reported {utilization:.0%} GPU utilization. That is the share of the sampling window in "
            "which at least one kernel was running on the GPU; it says nothing about how busy the compute units "
            "or the memory bus were, so it is not MFU and not MBU.").replace("%", " %")
    if mfu is not None and mbu is not None:
        text += f" Over the same step, MFU was {_pct(mfu)} and MBU {_pct(mbu)}."
    return text


def _pct(x: float) -> str:
    return f"{x * 100:.2g} %" if x < 0.1 else f"{x * 100:.0f} %"


# ---------------------------------------------------------------------------------------------- analyse

def analyse(results: Results) -> list[dict]:
    """One dict per measurement of the spec (decode first, then prefill, in spec order).

    Raises :class:`SpecError` listing every measurement that is incomplete, inconsistent
    or faster than the physical bound, each positioned at its entry in the spec.
    """
    spec = results.spec
    findings = Findings()
    out = []
    for m in spec.workloads.measured:
        row = _analyse_one(results, m, findings)
        if row is not None:
            out.append(row)
    findings.raise_if_errors()
    return out


def _finding(results: Results, m: Measurement, message: str, hint: str) -> Finding:
    return Finding(results.spec.file, m.line, m.col, m.path, message, hint)


def _point(results: Results, m: Measurement, findings: Findings):
    """The workload point of a measurement: (env, ids, tokens per step, description), or None."""
    env = results.envs[results.lead]
    if m.workload == "decode":
        missing = [k for k in ("batch", "context") if getattr(m, k) is None]
        if missing:
            findings.add(_finding(results, m, f"a decode measurement needs {' and '.join(missing)}",
                                  "add the batch (sequences per step) and the context (tokens in the KV cache; "
                                  "for a whole generation, prompt + half the output)"))
            return None
        e = env.at(batch=float(m.batch), context=float(m.context))
        ids = ("decode_flops", "decode_bytes", "decode_time_compute", "decode_time_memory")
        return e, ids, float(m.batch), f"batch {m.batch}, context {m.context}"
    if m.prompt is None:
        findings.add(_finding(results, m, "a prefill measurement needs prompt", "add the prompt length in tokens"))
        return None
    if m.batch not in (None, 1):
        findings.add(_finding(results, m, f"prefill measurements are per prompt; batch {m.batch} is not supported",
                              "give the time or tokens/s of one prompt, and drop batch"))
        return None
    e = env.at(T=float(m.prompt))
    ids = ("prefill_flops", "prefill_bytes", "prefill_time_compute", "prefill_time_memory")
    return e, ids, float(m.prompt), f"prompt {m.prompt}"


def _analyse_one(results: Results, m: Measurement, findings: Findings) -> dict | None:
    q = results.q
    point = _point(results, m, findings)
    if point is None:
        return None
    e, (f_id, q_id, tc_id, tm_id), tokens, where = point
    flops, nbytes = float(q[f_id](e)), float(q[q_id](e))
    t_comp, t_mem = float(q[tc_id](e)), float(q[tm_id](e))
    t_bound = max(t_comp, t_mem)
    peak, bandwidth = float(e["P"]), float(e["W"])

    # the measured step time, from whichever the measurement gives
    times = {}
    if m.tokens_per_s is not None:
        times["tokens_per_s"] = tokens / m.tokens_per_s
    if m.step_time is not None:
        times["step_time"] = m.step_time
    if len(times) == 2 and not math.isclose(times["tokens_per_s"], times["step_time"], rel_tol=0.01):
        findings.add(_finding(results, m, f"tokens_per_s {m.tokens_per_s:g} and step_time "
                              f"{_ms(m.step_time)} disagree: {tokens:g} tokens per step at "
                              f"{m.tokens_per_s:g} token/s take {_ms(times['tokens_per_s'])}",
                              "give one of them, or check the batch"))
        return None
    if times:
        given = next(iter(times))
        t = times[given]
    elif m.achieved_flops is not None:
        given, t = "achieved_flops", flops / m.achieved_flops
    elif m.achieved_bandwidth is not None:
        given, t = "achieved_bandwidth", nbytes / m.achieved_bandwidth
    else:
        findings.add(_finding(results, m, "the measurement gives no speed",
                              "add tokens_per_s, step_time, achieved_flops or achieved_bandwidth"))
        return None

    # utilisations: computed from the step time, unless the measurement states the achieved rate itself
    mfu = m.achieved_flops / peak if m.achieved_flops is not None else float(q["mfu"]({"F": flops, "t": t, "P": peak}))
    mbu = (m.achieved_bandwidth / bandwidth if m.achieved_bandwidth is not None
           else float(q["mbu"]({"Q": nbytes, "t": t, "W": bandwidth})))
    # both from the one step time t: then MFU / MBU = I / R exactly (formulas.measured.ratio_identity_holds)
    same_interval = (m.achieved_flops is None or given == "achieved_flops") and \
        (m.achieved_bandwidth is None or given == "achieved_bandwidth")
    intensity = flops / nbytes
    ridge = peak / bandwidth

    bad = _beats_bound(results, m, t, t_bound, mfu, mbu, tokens, where, t_mem >= t_comp)
    what_if = ""
    if spec_overrides := results.spec.overrides:
        # measured on the spec's own pair: a what-if re-checks it against its own bound and says what it found
        what_if = (f"Measured on the spec's own hardware and model, re-checked against this what-if's bound "
                   f"({', '.join(spec_overrides)}): ")
        what_if += (f"it beats it ({bad.message}), so the what-if could not have produced this measurement."
                    if bad else "it stays within it.")
    elif bad:
        findings.add(bad)
        return None

    state = diagnose(mfu, mbu)
    info = STATES[state]
    from genreport.present.fmt import device

    noun = results.spec.hardware.noun
    measured_tps = tokens / t
    bound_tps = tokens / t_bound
    row = {
        "path": m.path, "line": m.line, "workload": m.workload, "accounting": results.lead,
        "source": {"title": m.source.title, "url": m.source.url, "date": m.source.date, "note": m.source.note},
        "batch": m.batch, "context": m.context, "prompt": m.prompt, "where": where,
        "given": given,
        "tokens_per_step": tokens,
        "step_time": t,
        "tokens_per_s": measured_tps,
        "flops": flops, "bytes": nbytes,
        "achieved_flops": m.achieved_flops if m.achieved_flops is not None else flops / t,
        "achieved_bandwidth": m.achieved_bandwidth if m.achieved_bandwidth is not None else nbytes / t,
        "peak_flops": peak, "bandwidth": bandwidth,
        "mfu": mfu, "mbu": mbu,
        "intensity": intensity, "ridge": ridge, "intensity_over_ridge": intensity / ridge,
        "same_interval": same_interval,
        "bound_time": t_bound, "bound_time_memory": t_mem, "bound_time_compute": t_comp,
        "bound_tokens_per_s": bound_tps,
        "ratio": t_bound / t,  # measured speed over the ideal bound, <= 1
        "roofline_binds": "bandwidth" if t_mem >= t_comp else "compute",
        "state": state, "state_label": info["label"], "state_seed_term": info["seed_term"],
        "state_reading": info["reading"],
        # seed 000's advice in the hardware's noun ("a chip with more compute" on a TPU), nvidia-smi's name kept
        "remedies": remedies(state, results.spec.hardware), "state_note": device(info["note"], noun),
        "near_peak": NEAR_PEAK, "diagnosis_source": DIAGNOSIS_SOURCE,
        "what_if": what_if,  # "" for the spec as written
        "beats_bound": bad is not None,
        "utilization": m.utilization,
        "utilization_caveat": utilisation_caveat(m.utilization, mfu, mbu) if m.utilization is not None else "",
    }
    row.update(_other_accounting(results, m, t, bandwidth))
    row["gap"] = _gap_text(row)
    return row


def _other_accounting(results: Results, m: Measurement, t: float, bandwidth: float) -> dict:
    """The bytes per step and MBU in the other accounting: a source may count bytes differently from the bound."""
    other = "exact" if results.lead == "seed" else "seed"
    env = results.envs[other]
    q = results.q
    if m.workload == "decode":
        e = env.at(batch=float(m.batch), context=float(m.context))
        nbytes = float(q["decode_bytes"](e))
    else:
        nbytes = float(q["prefill_bytes"](env.at(T=float(m.prompt))))
    return {"other_accounting": other, "bytes_other": nbytes, "mbu_other": nbytes / t / bandwidth}


def _gap_text(row: dict) -> str:
    """What the distance to the bound means, in words (a near-peak state still has a gap worth naming)."""
    gap = 1 - row["ratio"]
    if gap <= 0.02:
        return "at the bound: nothing left to gain at this point without changing the bytes or FLOPs per step"
    if row["roofline_binds"] == "bandwidth":
        return (f"{gap:.0%} of the ideal step time is left: kernel launch and synchronisation gaps between layers, "
                "memory access below the datasheet bandwidth, and work outside "
                "the matrix products (sampling, norms, the attention kernel's own overheads)")
    return (f"{gap:.0%} of the ideal step time is left: tensor cores below peak on these shapes, and the non-matmul "
            "work (softmax, norms, activations) that runs on the slower vector units")


def _beats_bound(results, m, t, t_bound, mfu, mbu, tokens, where, memory_binds) -> Finding | None:
    """A finding when the measurement is faster than physics allows at its point, else None."""
    slack = 1 + TOLERANCE
    acc = results.lead
    if t * slack < t_bound:
        if m.workload == "decode":
            what = f"{fmt.sig4(tokens / t)} token/s is faster than the bound of {fmt.sig4(tokens / t_bound)} token/s"
        else:
            what = f"a {_ms(t)} prefill is faster than the bound of {_ms(t_bound)}"
        roof = f"MBU would be {mbu:.3g}" if memory_binds else f"MFU would be {mfu:.3g}"
        return _finding(results, m, f"{what} at {where} ({acc} accounting, {_hw(results)}): {roof}",
                        _mislabel_hint(results, m, t))
    if mfu > slack:
        return _finding(results, m, f"achieved {fmt.rate(m.achieved_flops)} exceeds the dense peak "
                        f"{fmt.rate(results.scalars[results.lead]['peak_flops'])} (MFU {mfu:.3g})",
                        "check the unit (TFLOP/s vs GFLOP/s) and that the peak is the dense one")
    if mbu > slack:
        return _finding(results, m, f"achieved {fmt.bandwidth(m.achieved_bandwidth)} exceeds the peak bandwidth "
                        f"{fmt.bandwidth(results.spec.hardware.bandwidth)} (MBU {mbu:.3g})",
                        "check the unit (TB/s vs GB/s); cache hits are not HBM traffic")
    return None


def _mislabel_hint(results, m, t) -> str:
    """What to check when a measurement beats its bound: the likely mislabels, each one that would make it fit.

    Never a change of accounting: a measurement that beats one accounting's bound and only fits the other
    at a utilisation no engine reaches is far likelier mislabelled (issue 16: the torchao H100 SXM point
    labelled H100 PCIe fits the 'exact' bound at MBU 0.953).
    """
    from genreport.load.loader import catalog_names, load_hardware, resolve_ref
    from genreport.model import audit
    from genreport.paths import project_root_for

    spec = results.spec
    if m.workload == "decode":
        claim = audit.Claim("measured", spec.model, spec.hardware, "tokens_per_s", float(m.batch) / t, gpus=1,
                            precision=spec.precision, batch=m.batch, input_tokens=m.context, output_tokens=1,
                            accounting=results.lead)
    else:
        claim = audit.Claim("measured", spec.model, spec.hardware, "ttft_ms", t * 1e3, gpus=1,
                            precision=spec.precision, batch=1, input_tokens=m.prompt, accounting=results.lead)
    root = project_root_for(Path(spec.file)) if spec.file else None
    family = spec.hardware.name.split("-")[0]
    variants = {}
    for name in catalog_names("hardware", root):
        if name.split("-")[0] == family and name != spec.hardware.name:
            target, _, _ = resolve_ref(name, "hardware", root or Path("."), root or Path("."))
            if target is not None:
                variants[name] = load_hardware(target)
    likely = audit.mislabels(claim, variants)
    text = "likely: " + "; ".join(likely) if likely else "no single relabelling explains it"
    text += (". Check that tokens/s is the total of the batch (not per GPU, nor per sequence), the GPU count "
             "and variant, the weight format, and that the engine did not use speculative decoding or a prefix cache")
    if results.lead != "exact":
        exact = audit.bound(dataclasses.replace(claim, accounting="exact"))
        if exact.holds(claim.metric, claim.value) and exact.mbu is not None:
            text += (f"; the 'exact' accounting's looser bound would take it at MBU {exact.mbu:.3g}, "
                     "which is no reason to switch accountings")
    return text


def _hw(results) -> str:
    hw = results.spec.hardware
    return f"{hw.title} at {hw.texts.get('memory.bandwidth', f'{hw.bandwidth:.3g} B/s')}"


def _ms(seconds: float) -> str:
    """A measured time with four significant digits, in seconds from 1 s up ('12.34 s', not '1.234e+04 ms')."""
    ms = f"{seconds * 1e3:.4g}"
    if float(ms) < 1e3:
        return f"{ms} ms"
    return f"{seconds:.4g} s" if seconds < 1e4 else f"{seconds:,.0f} s"


# ---------------------------------------------------------------------------------------------- derated

DERATED_LABEL = "derated estimate: the ideal bound with peak compute and bandwidth scaled by the spec's efficiency"


def derated(results: Results) -> dict | None:
    """Derated decode tokens/s grid and prefill and training times, or None when the spec has no efficiency.

    t_eta = max(F / (eta_P P), Q / (eta_W W)) per step (``derated_time``), beside the
    ideal bound (eta = 1).  Decode uses ``decode_tokens_per_s_derated`` on the spec's
    batch x context grid; at a layout a replica's round and a prompt through it are the strict
    bound's (``decode_time_bound``, ``prefill_time_bound``: each GPU's ledgers and its links through
    the pipeline) with the peaks scaled, so that the estimate never beats the bound it derates.
    Training counts 6 N_a T FLOPs and the three weight passes of seed 003 section 2 (activations
    excluded), like the report's training intensity.
    """
    eff = results.spec.efficiency
    if eff is None:
        return None
    lead = results.lead
    env = results.envs[lead]
    q = results.q
    w = results.spec.workloads
    etas = {"eta_P": eff.compute, "eta_W": eff.bandwidth}
    out: dict = {
        "label": DERATED_LABEL, "accounting": lead, "compute": eff.compute, "bandwidth": eff.bandwidth,
        "source": {"title": eff.source.title, "url": eff.source.url, "date": eff.source.date, "note": eff.source.note},
        "decode": None, "prefill": None, "training": None,
    }
    base = env.at()

    def step(flops, nbytes, scale=True):
        args = {"F": flops, "Q": nbytes, "P": base["P"], "W": base["W"],
                **(etas if scale else {"eta_P": 1.0, "eta_W": 1.0})}
        return np.asarray(q["derated_time"](args), dtype=float)

    laid = results.parallel is not None and lead in results.parallel.decode
    if lead in results.decode:
        batch = np.asarray(w.decode_batch, dtype=float)
        ctx = np.asarray(w.decode_context, dtype=float)
        grid = results.decode[lead]
        if laid:  # a replica's round: the strict bound's ledgers through the pipeline, the peaks scaled, links as given
            from genreport.model.layout import round_bound

            tok = batch[:, None] / round_bound(results, lead, batch, ctx, eff.compute, eff.bandwidth)
            pgrid = results.parallel.decode[lead]
            t_comp = pgrid["decode_time_compute_gpu"] / eff.compute
            t_mem = pgrid["decode_time_memory_gpu"] / eff.bandwidth
            t_link = pgrid["decode_time_comm"]
        else:
            g = env.at(batch=batch[:, None], context=ctx[None, :], **etas)
            tok = np.broadcast_to(np.asarray(q["decode_tokens_per_s_derated"](g), dtype=float),
                                  (len(batch), len(ctx))).copy()
            t_comp = grid["decode_time_compute"] / eff.compute
            t_mem = grid["decode_time_memory"] / eff.bandwidth
            t_link = np.zeros_like(t_mem)
        out["decode"] = {
            "batch": list(w.decode_batch), "context": list(w.decode_context),
            "tokens_per_s": tok, "ideal_tokens_per_s": grid["decode_tokens_per_s"],
            "ratio": tok / grid["decode_tokens_per_s"],
            # the ledger the derated step waits on; at a layout the links can outlast both scaled ledgers
            "binds": np.where(t_link > np.maximum(t_mem, t_comp), "interconnect",
                              np.where(t_mem >= t_comp, "bandwidth", "compute")),
        }
    if lead in results.prefill:
        p = results.prefill[lead]
        if results.parallel is not None and lead in results.parallel.prefill:  # a prompt through the replica
            from genreport.model.layout import prefill_bound_at

            derated_t = np.array([prefill_bound_at(results.spec, lead, t, None, eff.compute, eff.bandwidth)
                                  for t in w.prefill_prompt])
            ideal_t = np.asarray(results.parallel.prefill[lead]["prefill_time_bound"], dtype=float)
        else:
            derated_t = step(p["prefill_flops"], p["prefill_bytes"]) * np.ones_like(p["prefill_flops"])
            ideal_t = np.maximum(p["prefill_time_compute"], p["prefill_time_memory"])
        out["prefill"] = {"prompt": list(w.prefill_prompt), "time": derated_t, "ideal_time": ideal_t,
                          "ratio": ideal_t / derated_t}
    if w.training_tokens:
        t_tok = float(w.training_tokens)
        flops = float(q["training_flops_per_token"](base)) * t_tok
        nbytes = flops / float(q["training_weight_reuse_intensity"](env.at(T=t_tok, b=TRAINING_WEIGHT_BYTES)))
        derated_t, ideal_t = float(step(flops, nbytes)), float(step(flops, nbytes, scale=False))
        out["training"] = {"tokens": w.training_tokens, "flops": flops, "bytes": nbytes, "time": derated_t,
                           "ideal_time": ideal_t, "ratio": ideal_t / derated_t,
                           "note": "6 N_a T FLOPs and three weight passes (3 N b), activations excluded"}
    return out


# ---------------------------------------------------------------------------------------------- what-ifs of what a run ran on

RECHECKED = ("workload", "where", "path", "tokens_per_s", "bound_tokens_per_s", "beats_bound")


def rechecked(results) -> tuple[dict, ...]:
    """A what-if that changes the spec's GPU alone (``spec.measured_elsewhere``): each measurement's tokens/s beside
    the what-if's bound at its point, and whether it beats it (the what-if's GPU could not have run it).  Only these:
    the run's MBU and MFU over a GPU it did not run on are the utilisation of no run.  Empty where the what-if changes
    the model, the precision or the layout too (the bound at the point is then another computation's)."""
    from genreport.load.overrides import parse_override

    if any(parse_override(t)[0][0] != "hardware" for t in results.spec.measured_elsewhere):
        return ()
    return tuple({k: row[k] for k in RECHECKED} for row in analyse(results))


def not_compared(spec, checked: tuple[dict, ...] = ()) -> str:
    """Why the spec's measurements are not compared with this report's bound: a what-if that changes what they ran
    on (``spec.measured_elsewhere``: its GPU, model, precision or layout).  A run's achieved bandwidth over another
    GPU's, or its tokens/s against another model's bound, is the utilisation of no run (Llama 3.1 8B's 127 tok/s on an
    H100 read as 680% of an L4's bandwidth, and as "overhead-bound" at 42% of a 4.8 TB/s one).  ``checked``: the
    what-if's bound at each measured point (:func:`rechecked`), said in words.  Empty where they are compared."""
    from genreport.load.loader import changed_parts
    from genreport.load.overrides import as_arguments

    if not spec.measured_elsewhere or not spec.workloads.measured:
        return ""
    n = len(spec.workloads.measured)
    what = changed_parts(spec.measured_elsewhere)
    sets = as_arguments(spec.measured_elsewhere)
    them = "it is" if n == 1 else "they are"
    text = (f"The spec's {'measurement was' if n == 1 else f'{n} measurements were'} taken on its own configuration "
            f"(spec {spec.name}, \u201c{spec.title}\u201d); this what-if changes {what} ({sets}), so {them} not "
            f"compared with its bound as utilisations: a run's achieved bandwidth and FLOP/s over peaks it did not run "
            f"on are the utilisation of no run. The spec's own report compares {'it' if n == 1 else 'them'}.")
    for row in checked:
        ratio = row["bound_tokens_per_s"] / row["tokens_per_s"]
        verdict = ("the measurement beats it: this what-if's GPU could not have run it" if row["beats_bound"]
                   else f"within it, {fmt.num(ratio)}\u00d7 the measured speed")
        text += (f" At its point ({row['workload']}, {row['where']}) the what-if's bound is "
                 f"{fmt.num(row['bound_tokens_per_s'])} tok/s against the {fmt.num(row['tokens_per_s'])} tok/s measured: "
                 f"{verdict}.")
    return text
