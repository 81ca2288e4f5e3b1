"""Evaluate a spec at its layout on many GPUs: per-GPU memory, the interconnect ledger, the strict bound and the serial estimate.

Called by the evaluate stage when the spec has a ``parallelism`` block (``evaluate_parallel``), and by
``genreport plan`` for every layout it tries (``Layout``, ``layout_env``).  Only numbers: the formulas
are in :mod:`genreport.formulas.parallel`, compiled once like every other quantity.

Placement of the groups (Megatron-LM's order, tensor parallel innermost): a tp group is tp consecutive
GPUs, the expert group ep consecutive GPUs of the tp x dp block, a dp group spans tp x dp GPUs and the
pipeline tp x dp x pp.  A group whose span fits in the scale-up domain (interconnect.domain, or the
node's GPUs, whichever is larger) uses the scale-up link; a larger one crosses the scale-out network
(node.scale_out), whose per-GPU rate then bounds the ring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import load
from genreport.load.spec import (
    DEEPEP_LOW_LATENCY_SHARE,
    DEEPEP_NVLINK_SHARE,
    DEEPEP_RDMA_SHARE,
    LL128_SHARE,
    PRECISION_BYTES,
    Hardware,
    Kernels,
    Model,
    Parallelism,
    Precision,
    Protocols,
)
from genreport.model import stages
from genreport.model.env import (
    READ_AT_CONTEXT,
    Env,
    layout_slice,
    pipeline_split,
    prefill_head_dim,
    spec_env,
    usable_at,
    weight_bytes_of,
    weight_efficiency,
)
from genreport.model.stages import kappas, stage_layers
from genreport.model.values import NO_FIT, Entry, physical


# Bytes of one activation element sent between GPUs: 16-bit and 8-bit compute formats reduce their
# activations in bf16 (vLLM, SGLang and TensorRT-LLM all-reduce in the model dtype, also for fp8 weights).
def activation_bytes_per_element(precision: Precision) -> float:
    """b_a [B]: 4 for fp32/tf32 compute, else 2 (activations travel in bf16)."""
    return 4.0 if PRECISION_BYTES.get(precision.compute, 2.0) >= 4.0 else 2.0


# Training bytes per parameter by part (seed 003 section 4; ZeRO SC'20 section 3): weights, gradients, optimizer.
TRAINING_SPLIT = {"bf16-grads": (2.0, 2.0, 12.0), "fp32-grads": (2.0, 4.0, 12.0)}

GROUPS = ("tp", "pp", "ep", "dp")
# The per-GPU ledgers, in the order the bound takes their maximum; the HBM ledger binds "bandwidth", the word the
# single-card verdicts use for the same roof.
BINDS = ("compute", "bandwidth", "interconnect")
# The serial estimate's terms, in the order its largest is named: compute, the busiest GPU's HBM, the collectives as
# the library runs them, and the kernels' fixed costs; "overhead" is seed 000's third state, overhead-bound.
ESTIMATE_TERMS = (("compute", "decode_time_compute_serial"), ("bandwidth", "decode_time_memory_busiest"),
                  ("interconnect", "decode_time_comm_estimate"), ("overhead", "decode_time_overhead"))
PREFILL_ESTIMATE_TERMS = (("compute", "prefill_time_compute_serial"), ("bandwidth", "prefill_time_memory_serial"),
                          ("interconnect", "prefill_time_comm_estimate"), ("overhead", "prefill_time_overhead"))
DECODE_GRID = ("interconnect_bytes_decode", "decode_time_comm", "decode_time_compute_gpu", "decode_time_memory_gpu",
               "decode_time_bound", "decode_time_comm_estimate", "decode_time_memory_busiest", "decode_time_overhead",
               "decode_time_compute_serial", "decode_time_serial", "memory_per_gpu")
# Evaluated with the weights the GPU holds, not those a batch reads: every expert stays resident.
RESIDENT = ("memory_per_gpu",)
# Throughputs at the strict bound, from decode_time_bound (their expanded formulas would only repeat it).
RATES = {
    "decode_tokens_per_s_replica": (r"\text{tok/s}_{r}(B, S)", r"\text{tok/s}_{r} = \frac{B}{t_{\mathrm{bound}}}"),
    "decode_tokens_per_s_gpu": (r"\text{tok/s}_{g}(B, S)", r"\text{tok/s}_{g} = \frac{B}{t_{\mathrm{bound}} \, n_{\mathrm{TP}} \, n_{\mathrm{PP}}}"),
}
# what a prompt occupies its replica for in a steady state: the prefill formulas at m_P = n_EP / n_TP (at_prompt's
# steady; the TTFT's own where the expert group is inside the replica), read by the prompt rates and prices
OCCUPANCY = {"prefill_occupancy_bound": "prefill_pass_bound", "prefill_occupancy_serial": "prefill_time_serial"}
STEADY = r"\big|_{m_{P} = n_{\mathrm{EP}} / n_{\mathrm{TP}}}"
SCALARS = ("gpus", "weight_bytes_per_gpu", "kv_bytes_per_token_per_gpu", "kv_capacity_tokens_replica",
           "link_ridge", "tp_link_intensity", "tp_weight_crossover", "tp_link_bound_degree")


@dataclass(frozen=True)
class LinkChoice:
    """The link one parallel group crosses."""

    group: str  # tp, pp, ep, dp
    span: int  # GPUs the group spans (its members lie within this many consecutive GPUs)
    tier: str  # "none" (group of one), "scale-up" or "scale-out"
    name: str
    bandwidth_per_direction: float  # B/s
    latency: float  # s (0 when the spec gives none: the bound stays a lower bound)
    latency_given: bool
    per_direction_from: str  # "spec", "bandwidth/2", or "mesh" (n-1 peer links of a mesh)
    bus_bandwidth: float | None = None  # B/s, what the library reaches on it (nccl-tests busbw); None: not measured
    in_network: bool = False  # the switch reduces (NVLink SHARP): the bound's all-reduce sends each byte once
    in_network_bus_bandwidth: float | None = None  # B/s, the library's in-switch all-reduce (NCCL NVLS)
    call_latency: float = 0.0  # s, the library's fixed cost per call (Hardware.collectives; 0 when not given)
    in_network_call_latency: float | None = None  # s, the same for its in-switch all-reduce
    # a tp or ep group that leaves the scale-up domain: its GPUs in one domain and the scale-up tier they use there
    # (this choice is then the scale-out tier, the NIC); None for a group in one domain (or one that cannot split)
    local: int | None = None
    inner: LinkChoice | None = None
    protocols: Protocols | None = None  # the library's protocols beside LL (Hardware.collectives.protocols)
    # s, the library's all-pairs all-reduce inside a full mesh (Collectives.all_pairs_call_latency); None elsewhere
    all_pairs_call_latency: float | None = None
    # where bus_bandwidth comes from, for the report's words: "" (measured over the whole domain, or the link's own),
    # "group" (measured on a smaller group, bus_group_gpus of them: interconnect.group_bus_bandwidth), "mesh" (the
    # group's share of the mesh's links)
    bus_scope: str = ""
    bus_group_gpus: int | None = None

    @property
    def domains(self) -> int | None:
        """Scale-up domains a two-tier group spans (span / local); None for a group in one domain."""
        return None if not self.local else round(self.span / self.local)

    @property
    def estimate_bandwidth(self) -> float:
        """The rate the estimate charges: the library's measured bus bandwidth, else the line rate."""
        return self.bandwidth_per_direction if self.bus_bandwidth is None else self.bus_bandwidth

    def as_json(self) -> dict:
        return {"group": self.group, "span": self.span, "tier": self.tier, "name": self.name,
                "bandwidth_per_direction": self.bandwidth_per_direction, "latency": self.latency,
                "latency_given": self.latency_given, "per_direction_from": self.per_direction_from,
                "bus_bandwidth": self.bus_bandwidth, "in_network_reduction": self.in_network,
                "in_network_bus_bandwidth": self.in_network_bus_bandwidth, "call_latency": self.call_latency,
                "in_network_call_latency": self.in_network_call_latency,
                "all_pairs_call_latency": self.all_pairs_call_latency, "bus_scope": self.bus_scope,
                "bus_group_gpus": self.bus_group_gpus, "local": self.local,
                "inner": self.inner.as_json() if self.inner is not None else None}

    def tier_values(self, g: str) -> dict[str, float]:
        """The formulas' values of this group's link: W, alpha, W_c of its scale-up tier and, for tp and ep, n_u, W_o,
        alpha_o, W_co of its scale-out tier (the one-tier values where the group stays in one domain: n_u = n,
        alpha_o = 0, W_o = W, W_co = W_c, so every two-tier form is the one-tier one)."""
        G = g.upper()
        up = self.inner if self.inner is not None else self
        v = {f"W_{G}": up.bandwidth_per_direction, f"alpha_{G}": up.latency, f"W_c{G}": up.estimate_bandwidth}
        if g in ("tp", "ep"):
            two = self.inner is not None
            v.update({f"W_o{G}": self.bandwidth_per_direction, f"alpha_o{G}": self.latency if two else 0.0,
                      f"W_co{G}": self.estimate_bandwidth})
        return v


def spans(par: Parallelism) -> dict[str, int]:
    """GPUs each group spans with tensor parallel innermost, then data (experts inside it), then pipeline."""
    return {"tp": par.tp, "ep": par.ep, "dp": par.tp * par.dp, "pp": par.tp * par.dp * par.pp}


def scale_up_size(hw: Hardware) -> int:
    """GPUs reachable over the scale-up link: the link's domain or the node, whichever is larger."""
    link_domain = (hw.link.domain if hw.link and hw.link.domain else 1)
    node = (hw.node.gpus_per_node if hw.node and hw.node.gpus_per_node else 1)
    return max(link_domain, node)


def choose_links(hw: Hardware, par: Parallelism) -> tuple[dict[str, LinkChoice], list[str]]:
    """The link of each group, and notes on what the spec left out."""
    notes: list[str] = []
    out: dict[str, LinkChoice] = {}
    degree = {"tp": par.tp, "pp": par.pp, "ep": par.ep, "dp": par.dp}
    size = scale_up_size(hw)
    lib = hw.collectives
    for g, span in spans(par).items():
        up, down = hw.link, (hw.node.scale_out if hw.node else None)
        if degree[g] == 1:
            link, tier = up, "none"
        elif span <= size or down is None:
            link, tier = up, "scale-up"
            if span > size == 1:  # a link with no peer at its full rate (PCIe cards: domain 1) and nothing else
                from genreport.present import fmt

                notes.append(f"the {g} group's {span} {hw.noun}s reach each other over {up.short_name}, whose spec "
                             f"gives no domain of peers at its full rate (domain 1) and no scale-out network: its "
                             f"{g} traffic is counted on it at {fmt.bandwidth(up.bandwidth_per_direction)} per "
                             f"direction a {hw.noun}, which a shared fabric (PCIe switches, the CPUs' links) can only "
                             "lower, so the bound stays a lower bound")
            elif span > size:
                notes.append(f"the {g} group spans {span} {hw.noun}s, more than the {size} of one scale-up domain, but "
                             f"{hw.title}'s spec has no scale-out network (node.scale_out): its {g} traffic is "
                             f"counted on the scale-up link, so the bound stays a lower bound")
        else:
            link, tier = down, "scale-out"
        if link is None:  # one GPU and no interconnect in the spec: nothing is sent
            out[g] = LinkChoice(g, span, "none", "", math.inf, 0.0, False, "")
            continue
        n = 2 if g == "pp" else degree[g]  # a stage sends to one peer
        # an ep group inside the tp group sends nothing of its own (the tp all-reduces carry its tokens): no note on
        # what its link gives it (a mesh's share said once, for the tp group)
        silent = g == "ep" and par.ep <= par.tp
        choice = _choice(g, span, tier, link, n, degree[g], lib, [] if silent else notes, hw.noun)
        local = min(degree[g], size)
        if tier == "scale-out" and g in ("tp", "ep") and up is not None and local > 1:
            # two tiers: the group's `local` GPUs in each domain over the scale-up link, the NICs across domains
            inner = _choice(g, local, "scale-up", up, local, local, lib, notes, hw.noun)
            choice = replace(choice, local=local, inner=inner)
        out[g] = choice
    return out, sorted(set(notes))


def _choice(g: str, span: int, tier: str, link, n: int, degree: int, lib, notes: list[str],
            noun: str = "GPU") -> LinkChoice:
    """The LinkChoice of ``link`` for a group of ``n`` GPUs on ``tier``, and the notes on what the spec left out."""
    if degree > 1 and link.latency is None:
        notes.append(f"{link.short_name}: no latency in the spec; 0 is used, so the {g} collectives cost only "
                     "their bytes and the bound stays a lower bound")
    mesh = link.topology == "mesh" and link.link_bandwidth_per_direction is not None and tier == "scale-up"
    rate = link.rate(n) if mesh else link.bandwidth_per_direction
    if mesh and degree > 1 and rate < link.bandwidth_per_direction:
        notes.append(f"{link.short_name} is a mesh, one link to each peer: {'an' if g == 'ep' else 'a'} {g} group of "
                     f"{n} {noun}s gets {n - 1} of them, {rate / 1e9:.0f} GB/s per direction of the "
                     f"{link.bandwidth_per_direction / 1e9:.0f}")
    entry = link.group_bus_entry(n) if tier == "scale-up" else None  # a smaller group's measured bus bandwidth
    group = None if entry is None else entry[1]
    bus = link.bus_rate(n) if mesh or group is not None else link.bus_bandwidth
    measured_on = entry[0] if entry is not None and group < (link.bus_bandwidth or math.inf) else None
    scope = "mesh" if mesh and rate < link.bandwidth_per_direction else "group" if measured_on else ""
    if bus is not None:  # what the library reaches of the link, never more than its line rate (a --set may lower it)
        bus = min(bus, rate)
    return LinkChoice(g, span, tier, link.name, rate, link.latency or 0.0, link.latency is not None,
                      "mesh" if mesh and rate < link.bandwidth_per_direction else link.per_direction_from,
                      bus, link.in_network_reduction and tier == "scale-up",
                      (link.in_network_bus_bandwidth if group is None or link.in_network_bus_bandwidth is None
                       else min(group, link.in_network_bus_bandwidth)) if tier == "scale-up" else None,
                      lib.call_latency if lib else 0.0, lib.in_network_call_latency if lib else None,
                      protocols=lib.protocols if lib else None,
                      all_pairs_call_latency=lib.all_pairs_call_latency if lib and mesh else None,
                      bus_scope=scope if bus is not None else "",
                      bus_group_gpus=measured_on if bus is not None else None)


def layout_base(env: Env, model: Model, hw: Hardware, precision: Precision, par: Parallelism,
                accounting: str) -> tuple[dict[str, LinkChoice], dict, float]:
    """A layout's links, its values (:func:`layout_values`) with ``C`` the memory one of its GPUs may use, and that
    memory: the engine's reserve and the GPU's own step's activations at this layout's tp, ep and pp kept
    (env.usable_at), not the report's layout's (``hw.usable``).  What ``plan``'s rows, the serving chapter's
    frontier and the tensor-parallel sweep each count a layout at."""
    links, _ = choose_links(hw, par)
    base = layout_values(env.values, model, par, links, precision, accounting, env.pc, kernels=hw.kernels, hw=hw)
    if par.pp <= 1:  # with stages layout_values gave the C of the stage that holds the fewest tokens
        base["C"] = usable_at(hw, model, par.tp, par.ep, par.pp)
    return links, base, float(base["C"])


def held_at(base: dict, hw: Hardware, model: Model, precision: Precision, par: Parallelism, context,
            c) -> dict:
    """``base`` at ``context`` with ``c`` the cache a sequence holds there: what the memory formulas (the capacity,
    memory_per_gpu) take.  With pipeline stages the stage that holds the fewest tokens at that context gives n_PW,
    n_PK and C (Gemma 3's global layers fall unevenly on the stages: which stage binds moves with the context)."""
    v = dict(base, S=context, c=c)
    if par.pp > 1 and arch.bounded_layers(model):
        v.update(stages.stage_values(hw, model, precision, par, context))
    return v


def layout_values(base: dict[str, float], model: Model, par: Parallelism, links: dict[str, LinkChoice],
                  precision: Precision, accounting: str, pc: arch.ParameterCount, recipe: str = "bf16-grads",
                  kernels: Kernels | None = None, hw: Hardware | None = None) -> dict:
    """The parallel symbols' values for one layout, on top of a single-card Env's values; ``kernels`` the engine's
    fixed costs per kernel (the hardware's, from the report spec's engine block; the defaults without).  With
    pipeline stages and ``hw``, the memory held is the stage's that holds the fewest tokens within every window
    (n_PW, n_PK and its C: genreport.model.stages; :func:`held_at` at a context)."""
    v = dict(base)
    k = kernels or Kernels()
    v.update({"k_L": kernels_per_layer(model, k), "tau_k": k.decode, "tau_l": k.launch,
              # the weights' share of the bandwidth in the estimate: below 1 for weight-only int8/int4 GEMMs
              "e_w": weight_efficiency(precision, pc, k),
              **one_shot_values(k, links["tp"]),
              # the experts' all-to-all as DeepEP runs it (engine.all_to_all: deepep), at its published shares
              "o_EP": 1.0 if k.all_to_all == "deepep" else 0.0, "e_Du": DEEPEP_NVLINK_SHARE,
              "e_Do": DEEPEP_RDMA_SHARE, "e_Dl": DEEPEP_LOW_LATENCY_SHARE})
    v.update({"n_PW": 1.0, "n_PK": 1.0, "n_PT": stages.training_split(model, par.pp)})
    if par.pp > 1 and hw is not None:
        v.update(stages.stage_values(hw, model, precision, par))
    v.update({"n_TP": float(par.tp), "n_PP": pipeline_split(model.layers, par.pp), "n_St": float(par.pp),
              "s_st": 1.0 if par.pp > 1 else 0.0,  # the output head is the last stage's (parallel.at_last_stage)
              # each stage's attention over mean layers' (parallel.at_stage): at_batch and at_prompt give a point's
              "kappa_B": 1.0, "kappa_L": 1.0, "kappa_F": 1.0,
              # the bound's micro-batches (parallel.fastest_schedule): at_batch finds a round's
              "m_b": 1.0 if par.pp == 1 else float("nan"),
              "n_EP": float(par.ep), "n_DP": float(par.dp),
              "N_x": float(pc.experts_routed) * _declared_per_routed(v, pc, accounting), "L_x": float(pc.moe_layers),
              "k_e": float(model.moe.active_experts) if model.moe else 0.0,
              "E_x": float(model.moe.experts) if model.moe else 1.0,  # 1 for a dense model: N_x = 0 over it
              "b_a": activation_bytes_per_element(precision),
              "s_kv": 1.0 if model.attention.kind == "mla" else float(min(par.tp, model.kv_heads)),
              # what tensor parallelism holds whole on each GPU beyond one copy (ParameterCount.tp_copies)
              "N_R": pc.tp_copies(par.tp, 1.0 if model.attention.kind == "mla" else min(par.tp, model.kv_heads)),
              # redundant expert replicas per routed expert (engine.redundant_experts)
              "rho_x": par.redundant_experts / model.moe.experts if model.moe else 0.0})
    for g in GROUPS:
        v.update(links[g].tier_values(g))
    v.update({"n_uTP": float(links["tp"].local or par.tp), "n_uEP": float(links["ep"].local or par.ep)})
    v.update(collective_costs(links["tp"]))
    k_w, k_g, k_o = TRAINING_SPLIT[recipe]
    # u_x: the mean GPU until a batch says otherwise; m_P: one prompt alone until a steady state says otherwise
    v.update({"k_w": k_w, "k_g": k_g, "k_o": k_o, "u_x": 1.0, "m_P": 1.0})
    wb = weight_bytes_of(precision, pc)
    if wb.uniform is None:  # per-class precisions: b is the mean bytes per weight of the slice one GPU holds
        keep = 1.0 - (1.0 + v["rho_x"]) * par.tp / max(par.tp, par.ep)  # the experts it holds, replicas and all
        cut = layout_slice(model, par, precision)  # and what tensor parallelism holds whole, in its formats
        v["b"] = wb.mean(v["N"] - v["N_x"], v["N_x"] * (1.0 - keep), 0.0, cut.copies, cut.copies_bytes)
    return {k: np.float64(x) if isinstance(x, float) else x for k, x in v.items()}  # x/0 is inf, not an exception


def _one_shot_calls(k: Kernels, tp: LinkChoice) -> dict[str, float]:
    """The one-shot all-reduces that can run on the tensor-parallel link, by whose they are, with their call's fixed
    cost: the engine's kernel reads its peers over the scale-up link (inside the domain only); the library's all-pairs
    algorithm runs inside one full-mesh domain whose hardware file gives its cost (RCCL on MI300X)."""
    calls = {"engine": k.one_shot_latency} if k.one_shot and tp.tier == "scale-up" else {}
    if tp.inner is None and tp.all_pairs_call_latency is not None:
        calls["library"] = tp.all_pairs_call_latency
    return calls


def one_shot_by(k: Kernels, tp: LinkChoice) -> str | None:
    """Whose one-shot all-reduce the estimate charges: "engine" or "library", the faster call where both run (both
    send the same bytes; a tie goes to the engine's, which the spec asked for); None where neither runs."""
    calls = _one_shot_calls(k, tp)
    return min(calls, key=calls.__getitem__) if calls else None


def one_shot_values(k: Kernels, tp: LinkChoice) -> dict[str, float]:
    """o_TP and tau_o: whether a one-shot all-reduce runs on the tensor-parallel link, and its call's fixed cost
    (:func:`one_shot_by`'s; the engine kernel's default where none runs, multiplied by o_TP = 0)."""
    calls, by = _one_shot_calls(k, tp), one_shot_by(k, tp)
    return {"o_TP": 1.0 if by else 0.0, "tau_o": calls[by] if by else k.one_shot_latency}


def kernels_per_layer(model: Model, k: Kernels) -> float:
    """k_L [1]: the kernels of a layer, the mean over the model's layers: L_x MoE layers at the fused-MoE path's count
    (Kernels.moe_layer), the others at the dense count.  10 for a dense model; DeepSeek-V3 (58 MoE layers of 61, shared
    experts) (3 x 10 + 58 x 18) / 61 = 17.61."""
    if model.moe is None:
        return float(k.per_layer)
    moe = arch.moe_layer_count(model)
    return ((model.layers - moe) * k.per_layer + moe * k.moe_layer(model.moe.shared_experts)) / model.layers


def collective_costs(choice: LinkChoice) -> dict[str, float]:
    """The library's fixed costs and the tensor-parallel link's in-switch reduction: tau_c, tau_s, s_TP, W_sTP.

    Without a ``collectives`` block in the hardware file the estimate charges no fixed cost per call (what the spec
    does not say is not invented); an in-switch all-reduce the file gives no measurement of costs what the ring does
    (the same call latency, the ring's bus bandwidth), and only counts where the switch reduces (s_TP = 1).
    """
    tp = choice.inner if choice.inner is not None else choice  # the in-switch reduction of the group's own domain
    return {"tau_c": tp.call_latency,
            "tau_s": tp.call_latency if tp.in_network_call_latency is None else tp.in_network_call_latency,
            "s_TP": 1.0 if tp.in_network else 0.0,
            "W_sTP": tp.estimate_bandwidth if tp.in_network_bus_bandwidth is None else tp.in_network_bus_bandwidth,
            **protocol_costs(choice)}


def protocol_costs(choice: LinkChoice) -> dict[str, float]:
    """The ring's protocols on the tensor-parallel link (formulas.parallel.all_reduce_time_ring_protocols): LL128's
    and Simple's call and step latencies, in the domain and across it, and LL's bus bandwidths (half the bus
    bandwidth, at most NCCL's llMaxBw on one node; across domains half each GPU's NIC rate, the ring's at most the
    two-node llMaxBw), and what a Simple call pays where the file measured it (tau_cSm, alpha_SmTP; else the tuner's).
    Without the file's protocols: LL's latencies and the whole bus bandwidth for all three, so the ring is the one it
    was.  A group whose link is the network (no scale-up tier) steps at the network's."""
    up = choice.inner if choice.inner is not None else choice
    two = choice.inner is not None
    pr = up.protocols
    alpha_o = choice.latency if two else 0.0
    W_co = choice.estimate_bandwidth
    if pr is None or choice.tier == "none":
        return {"tau_c8": up.call_latency, "tau_cS": up.call_latency, "alpha_8TP": up.latency, "alpha_STP": up.latency,
                "alpha_8oTP": alpha_o, "alpha_SoTP": alpha_o, "W_lTP": up.estimate_bandwidth, "W_loTP": W_co,
                "tau_cSm": up.call_latency, "alpha_SmTP": up.latency}
    net = up.tier == "scale-out"  # the whole group on the network: its steps are the network's

    def step(p, across: bool) -> float:
        if across or net:
            return p.scale_out_step_latency if p.scale_out_step_latency is not None else (choice.latency if across
                                                                                              else up.latency)
        return p.step_latency

    ll_out = pr.ll_scale_out_bus_bandwidth
    W_l = min(pr.ll_scale_out_bus_bandwidth if net and ll_out is not None else pr.ll_bus_bandwidth,
              up.estimate_bandwidth / 2.0)
    W_lo = min(ll_out / choice.local, W_co / 2.0) if two and ll_out is not None else (W_co / 2.0 if two else W_l)
    # what a Simple call pays, where the file measured it on the scale-up link (a group on the network: the tuner's)
    paid = pr.simple.measured if not net else None
    return {"tau_c8": pr.ll128.call_latency, "tau_cS": pr.simple.call_latency,
            "alpha_8TP": step(pr.ll128, False), "alpha_STP": step(pr.simple, False),
            "alpha_8oTP": step(pr.ll128, True) if two else 0.0, "alpha_SoTP": step(pr.simple, True) if two else 0.0,
            "W_lTP": W_l, "W_loTP": W_lo,
            "tau_cSm": paid.call_latency if paid else pr.simple.call_latency,
            "alpha_SmTP": paid.step_latency if paid else step(pr.simple, False)}


def _declared_per_routed(values: dict, pc: arch.ParameterCount, accounting: str) -> float:
    """Parameters counted per routed-expert parameter of the shapes: 1 when counting from the shapes.

    The seed accounting uses the declared counts: between N_a (one token) and N (every expert read) it maps
    the routed experts' shape count linearly, as ``Env.read`` does, so (N - N_a) / (total - active).
    """
    if accounting != "seed":
        return 1.0
    spare = pc.total - pc.active
    return (values["N"] - values["N_a"]) / spare if spare else 0.0


def at_batch(values: dict, env: Env, batch, busiest: bool = True, per_sequence: float = 1.0,
             bound: str | None = "decode_time_bound") -> dict:
    """The layout formulas' values at batch B: for MoE, the whole model's N and N_x that one micro-batch
    (B / min(pp, B) sequences, ``per_sequence`` tokens each: a verify round's n_v) reads, as ``Env.read`` counts them
    for ``env``'s layout (an expert group wider than a replica reads the experts of all its replicas' tokens).  A
    sequence's tokens are not split between micro-batches: its n_v verify tokens go through the stages together.
    ``busiest=False`` leaves u_x at 1: only the estimate's busiest-GPU ledger reads it, and its expected maximum is
    costly to count at many batches.  With stages whose global layers fall unevenly, kappa_B, kappa_L and kappa_F: the
    busiest, the last stage's and the stages' before the last together, attention over mean layers' at the point's c
    (stages.kappas: Gemma 3 1B at pp 4, 1 global layer in 7, 1 in 6 and 3 in 20 where the model's is 4 in 26), c and
    d_h staying the mean layer's.  m_b: the
    micro-batches whose round of ``bound`` (decode_time_bound, request_decode_time_bound or verify_time_bound, the
    quantity these values are for) is the least (:func:`fastest_schedule`)."""
    out = dict(values)
    bt = np.asarray(batch, dtype=float)
    out["B"] = bt
    if "c" in values:
        out["kappa_B"], out["kappa_L"], out["kappa_F"] = kappas(env.model, env.cut.pp, values["c"], env.card["c"])
    if env.model.moe is not None:
        micro = per_sequence * bt / np.minimum(float(env.cut.pp), bt)
        out["N"], out["N_x"] = env.read(micro)
        out["u_x"] = env.busiest(micro) if busiest else np.ones(np.shape(micro))
    if env.per_class:  # b: the mean bytes per weight of what the GPU reads at this batch
        out["b"] = env.read_b(out["N"], out["N_x"]) if env.model.moe is not None else env.read_b()
    if bound is not None:  # None: the caller adds what the bound needs (a verify round's n_v), then finds m_b
        out["m_b"] = fastest_schedule(out, env.cut.pp, bound)
    return out


def fastest_schedule(values: dict, stages: int, bound: str = "decode_time_bound"):
    """m_b at ``values`` (an :func:`at_batch` point, B an array or a number): of the splits of the B sequences into
    m = 1 .. min(pp, B) micro-batches, the one whose round of the strict bound ``bound`` is the least, the fewest where
    two tie (formulas.parallel.fastest_schedule).  Every m is evaluated at once, on an axis of its own in front of the
    point's.  An MoE's weights stay those of vLLM's micro-batch of B / min(pp, B) sequences (at_batch's N, N_x):
    fewer micro-batches are larger and touch at least as many experts each, so the round is not over-counted.  A
    point whose inputs change after it was found (a faster memory, another N) finds it again: the least round of the
    new inputs may be another split."""
    bt = np.asarray(values["B"], dtype=float)
    top = int(min(stages, np.nanmax(bt))) if stages > 1 and bt.size else 1
    if top <= 1:
        return np.ones_like(bt) if bt.ndim else np.float64(1.0)
    f = load()[bound]
    # the m axis in front of every axis of the bound's own inputs (only theirs: a point's values are ~150 entries,
    # and walking them all took more time than the bound's evaluation)
    nd = max([getattr(values[a], "ndim", 0) for a in f.fn_args if a != "m_b"], default=0)
    ms = np.arange(1.0, top + 1.0).reshape((top,) + (1,) * nd)
    # whole micro-batches, no more than the point's sequences (its floor, at least 1; the same candidates for a point
    # alone as among others, and as the live page's)
    most = np.maximum(np.floor(bt), 1.0)
    t = np.asarray(f(dict(values, m_b=np.minimum(ms, most))), dtype=float)
    t = np.broadcast_to(t, np.broadcast_shapes(t.shape, ms.shape))
    best = np.minimum(np.argmin(np.where(np.isnan(t), np.inf, t), axis=0) + 1.0, most)
    return best if best.ndim else np.float64(best)


def at_prompt(values: dict, env: Env, tokens, fewest: bool = False, steady: bool = False, cached: float = 0.0) -> dict:
    """The layout formulas' values of a pass over a prompt of ``tokens`` tokens (T; d_h in the prefill's form): for
    an MoE, the whole model's N and N_x that the prompt's tokens read, as :func:`at_batch` counts them for a batch of
    that many tokens (a prompt is one micro-batch, its tokens those of a decode step of that batch: E (1 - (1 -
    k/E)^T) experts a layer, all of them long before a typical prompt's length; an expert group wider than the
    replica reads those of the m_P prompts it runs, one alone for the TTFT); ``fewest``: the experts one token
    picks, the least any routing reads (every token picking the same), for a bound no routing can beat.  b: the mean
    bytes per weight of what is read.  ``steady``: the GPU time the prompt occupies when every replica of an expert
    group wider than a replica prefills at once (m_P = n_EP / n_TP: each GPU runs its replicas' shares of the experts),
    what rates and prices take; otherwise one prompt alone (m_P = 1: the group's GPUs share its experts), its TTFT.
    ``cached``: the positions a prefix cache holds before the prompt's ``tokens`` (a prompt's uncached part): its
    tokens attend to them too, T (T + 2 x cached) / 2 pairs a layer without windows where the formulas count T^2 / 2
    for a fresh prompt, so d_h takes the ratio (T + 2 x cached) / T (and the share windowed layers compute of those
    pairs, architecture.prefill_attended_fraction_after)."""
    t = np.asarray(tokens, dtype=float)
    m_p = prompt_group(env) if steady else 1.0
    d_h = prefill_head_dim(env.model, values["d_h"], tokens, cached=cached)
    if cached > 0:
        d_h = d_h * (t + 2.0 * cached) / t
    out = dict(values, T=t, d_h=d_h, m_P=np.float64(m_p))
    if arch.bounded_layers(env.model) and env.model.attention.kind != "mla":  # each stage's own attention
        g = arch.prefill_attended_fraction_after(env.model, t, cached)
        out["kappa_B"], out["kappa_L"], out["kappa_F"] = kappas(env.model, env.cut.pp, g, 1.0)
    if env.model.moe is not None:  # the experts the m_P prompts' tokens touch: a prompt alone, its own
        out["N"], out["N_x"] = env.read(np.ones_like(t) if fewest else t, m_p)
        out["b"] = env.read_b(out["N"], out["N_x"])
    else:
        out["b"] = env.read_b()
    for k in ("T", "N", "N_x", "b"):  # one prompt: numbers, as the layout's other values (stacked.over takes them so)
        if np.ndim(out[k]) == 0:
            out[k] = np.float64(out[k])
    return out


def report_env(spec, accounting: str | None = None) -> Env:
    """One GPU of a report spec's layout (env.spec_env) whose slice streams its weights once per micro-batch of the
    layout bound's schedule (:class:`SliceSchedule`): the Env the report's chapters, derive and page 1 evaluate."""
    env = spec_env(spec, accounting)
    if spec.parallelism is not None and spec.parallelism.pp > 1:
        env.schedule = SliceSchedule(spec, env)
    return env


class SliceSchedule:
    """m_b of a spec's layout at (batch, context), for the slice Env of its pipeline (Env.schedule): chapters 1-6 state
    one GPU's ledgers with the slice streamed once a micro-batch, and those must be the layout bound's own
    (:func:`fastest_schedule`), not vLLM's min(pp, B), so that the slice and the layout state one number.  A picklable
    callable (results are), remembering the points it was asked."""

    def __init__(self, spec, env: Env):
        self.spec, self.env, self.memo = spec, env, {}

    def __call__(self, batch, context):
        bt, s = np.asarray(batch, dtype=float), np.asarray(context, dtype=float)
        key = (bt.shape, bt.tobytes(), s.shape, s.tobytes())
        if key not in self.memo:
            if "base" not in self.memo:  # the layout formulas' values, as point_values takes them
                self.memo["base"] = point_base(self.spec, self.env.accounting)[0]
            g = self.env.one_card().at(batch=bt, context=s)
            v = at_batch(dict(self.memo["base"], S=g["S"], c=g["c"], d_h=g["d_h"]), self.env, bt)
            self.memo[key] = np.asarray(v["m_b"], dtype=float)
        return self.memo[key]


def prompt_group(env: Env) -> float:
    """m_P of a steady state: the replicas whose prompts an expert group wider than a replica runs at once, n_EP /
    n_TP (1 where the group is inside a replica)."""
    return prompt_group_of(env.cut)


def occupancy(q, qids, values: dict, env: Env, tokens, alone: dict, cached: float = 0.0) -> dict:
    """Each quantity of ``qids`` at what a prompt of ``tokens`` occupies its replica for in a steady state (every
    replica of an expert group wider than a replica prefilling: :func:`at_prompt`'s ``steady``), given ``alone``, the
    same quantities of the prompt alone, which it is where the group is inside the replica."""
    if prompt_group(env) == 1.0:
        return {qid: alone[qid] for qid in qids}
    steady = at_prompt(values, env, tokens, steady=True, cached=cached)
    return {qid: q[qid](steady) for qid in qids}


def prompt_group_of(par) -> float:
    """:func:`prompt_group` of a layout (anything with tp and ep)."""
    return par.ep / par.tp if par.ep > par.tp else 1.0


def prompt_rate(tokens, busy, stages: int = 1):
    """Prompt tokens a second a replica admits: one prompt of ``tokens`` each ``busy`` seconds (its occupancy,
    :func:`occupancy`), a replica of ``stages`` pipeline stages working on as many prompts at once (it admits one
    every 1/stages of a pass: DistServe, Zhong et al., OSDI 2024, section 3.1) -- an upper bound, the busiest stage
    taking at least 1/stages of the pass.  Page 1's prompt rows, the serving rows' and ``plan``'s $/M input tokens."""
    return tokens * stages / busy


@dataclass
class ParallelResults:
    parallelism: Parallelism
    links: dict[str, LinkChoice]
    notes: list[str]
    scalars: dict[str, dict[str, float | None]] = field(default_factory=dict)  # accounting -> id -> value
    per_context: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    decode: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)  # accounting -> id -> (B, S)
    prefill: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    min_gpus: dict[str, np.ndarray] = field(default_factory=dict)  # accounting -> (B, S) GPUs, nan if none fits
    min_layout: dict[str, list] = field(default_factory=dict)  # accounting -> [[(tp, pp) or None]] per (B, S)
    training: dict[str, list[tuple[str, dict, float | None]]] = field(default_factory=dict)  # (id, params, value)
    activation_bytes: float = 2.0
    entries: tuple = ()  # genreport.model.values.Entry, appended to the report's entries by evaluate
    binds: np.ndarray | None = None  # (B, S) of "compute", "bandwidth", "interconnect", "capacity", lead accounting
    estimate_binds: np.ndarray | None = None  # (B, S): the serial estimate's largest term (ESTIMATE_TERMS), or "capacity"
    prefill_estimate_binds: tuple = ()  # per prompt: the serial prefill's largest term (PREFILL_ESTIMATE_TERMS)
    stage_layers: tuple = ()  # layers of each pipeline stage (stages.stage_layers: vLLM's split)
    all_reduce: dict = field(default_factory=dict)  # one tensor-parallel all-reduce at batch 1: see _all_reduce_costs
    collective_formulas: tuple = ()  # (id, what it is, LaTeX, value or None) of the collectives this layout uses
    kernels_per_layer: float = 0.0  # k_L: the kernels of a layer, the mean over dense and MoE layers
    weight_efficiency: float = 1.0  # e_w: the weights' share of the bandwidth in the estimate (weight-only GEMMs < 1)
    matmul_share: float = 1.0  # e_m: a large matmul's measured share of the peak in the estimate (achieved_matmul)
    attention_slower: float = 1.0  # P / P_a: the attention's peak below the weights' (env.attention_peak)
    # e_g: a small-M GEMM's measured share of the bandwidth on its weights in the serial prefill (achieved_bandwidth)
    small_gemm_share: float = 1.0
    all_to_all: str = "nccl"  # the experts' all-to-all the estimate charges (engine.all_to_all): "nccl" or "deepep"

    @property
    def pp_split(self) -> float:
        """n_PP in the formulas: the layers over the busiest stage's, L / ceil(L/pp) (pp itself for even stages)."""
        return sum(self.stage_layers) / max(self.stage_layers) if self.stage_layers else 1.0

    @property
    def uneven(self) -> bool:
        """Stages of different sizes: the busiest, ceil(L/pp) layers, sets each GPU's memory and time."""
        return len(set(self.stage_layers)) > 1

    def as_json(self) -> dict:
        p = self.parallelism
        return {"tp": p.tp, "pp": p.pp, "ep": p.ep, "dp": p.dp, "gpus": p.gpus, "redundant_experts": p.redundant_experts,
                "decode_binds": self.binds.tolist() if self.binds is not None else [],
                "decode_estimate_binds": self.estimate_binds.tolist() if self.estimate_binds is not None else [],
                "stage_layers": list(self.stage_layers),
                "prefill_estimate_binds": list(self.prefill_estimate_binds),
                "activation_bytes_per_element": self.activation_bytes, "all_reduce_batch1": dict(self.all_reduce),
                "links": {g: c.as_json() for g, c in sorted(self.links.items())}, "notes": list(self.notes)}


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _divisors(n: int, limit: int) -> list[int]:
    return [x for x in range(1, min(n, limit) + 1) if n % x == 0]


def tp_choices(model: Model, limit: int = 64) -> list[int]:
    """TP degrees the loader accepts for ``model``: divisors of the query heads that split the KV heads evenly."""
    out = []
    for t in _divisors(model.heads, limit):
        if model.attention.kind == "mla" or model.kv_heads % t == 0 or t % model.kv_heads == 0:
            out.append(t)
    return out


def min_gpus_to_fit(q, values: dict, model: Model, batch, context, capacity, max_gpus: int = 4096, b_at=None):
    """Smallest tp x pp (then the smaller pp; pp divides the layers or is a power of two) whose per-GPU memory holds
    the weights and B x S of KV: with stages, on the stage that holds the fewest tokens (genreport.model.stages).

    ``capacity``: a function of (tp, pp) giving the memory formulas' n_PW, n_PK and C there, over the contexts
    (:func:`stage_capacity`).  ``b_at``: a function of tp giving the bytes per weight a GPU of tp holds where the
    precision differs by tensor class (:func:`held_b_at`: what tp holds whole in its own formats), else ``values``'
    b.
    Returns (gpus, tp, pp) arrays over (batch, context); nan / 0 where no layout up to ``max_gpus`` fits.
    """
    batch = np.asarray(batch, dtype=float)[:, None]
    context = np.asarray(context, dtype=float)[None, :]
    shape = np.broadcast_shapes(batch.shape, context.shape)
    best = np.full(shape, np.nan)
    best_tp = np.zeros(shape, dtype=int)
    best_pp = np.zeros(shape, dtype=int)
    layouts = sorted((t * p, p, t) for t in tp_choices(model) for p in _pp_choices(model.layers, max_gpus)
                      if t * p <= max_gpus)
    for g, p, t in layouts:
        if np.all(np.isfinite(best)):
            break
        held = capacity(t, p)
        s_kv = 1.0 if model.attention.kind == "mla" else float(min(t, model.kv_heads))
        v = dict(values, n_TP=float(t), n_PP=pipeline_split(model.layers, p), n_St=float(p), n_EP=1.0, rho_x=0.0,
                 s_kv=s_kv, N_R=arch.parameter_count(model).tp_copies(t, s_kv), B=batch, S=context,
                 n_PW=held["n_PW"], n_PK=held["n_PK"])
        if b_at is not None:
            v["b"] = np.float64(b_at(t))
        mem = np.broadcast_to(np.asarray(q["memory_per_gpu"](v), dtype=float), shape)
        new = np.isnan(best) & (mem <= held["C"])
        best[new], best_tp[new], best_pp[new] = g, t, p
    return best, best_tp, best_pp


def held_b_at(env: Env, precision: Precision):
    """:func:`min_gpus_to_fit`'s ``b_at`` for one card's ``env``: the mean bytes per weight a GPU of tp (ep 1) holds,
    every routed expert split tp ways beside the rest, and what tp holds whole in its own formats (gpt-oss's bf16
    norms and router beside mxfp4 experts); None where the precision is one format (b is the same at every tp)."""
    if env.wb is None or env.wb.uniform is not None:
        return None
    card = env.card if env.card is not None else env.values
    n_x = env.n_routed()

    def b_at(tp: int) -> float:
        cut = layout_slice(env.model, Parallelism(tp), precision)
        return float(env.wb.mean(card["N"] - n_x, n_x, 0.0, cut.copies, cut.copies_bytes))

    return b_at


def stage_capacity(hw: Hardware, model: Model, precision: Precision, context):
    """The ``capacity`` of :func:`min_gpus_to_fit` for ``hw``: at tp x pp (ep 1) the memory one GPU may use (the
    activation workspace's FFN share splits tp ways), with stages the n_PW, n_PK and C of the stage that holds the
    fewest tokens at each context (row vectors, as the search's contexts)."""
    ctx = np.asarray(context, dtype=float)[None, :] if arch.bounded_layers(model) else None
    return lambda t, p: stages.stage_values(hw, model, precision, Parallelism(tp=t, pp=p), ctx if p > 1 else None)


def evaluate_parallel(r) -> ParallelResults:
    """The parallel quantities of an evaluated spec (``genreport.model.evaluate.Results``), with their entries.

    Computed once; the arrays are read-only like the rest of the report model.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = _evaluate(r)
        out.entries = tuple(_entries(r, out))
        out.collective_formulas = _collective_formulas(out, r.spec.accounting, r.spec.workloads.prefill_prompt,
                                                       r.spec.hardware.noun)
        out.binds = decode_binds(out, r.spec.accounting, r.spec.workloads.decode_batch)
        out.estimate_binds = decode_binds(out, r.spec.accounting, r.spec.workloads.decode_batch, estimate=True)
        pre = out.prefill.get(r.spec.accounting)
        if pre is not None:
            terms = np.stack([pre[qid] for _, qid in PREFILL_ESTIMATE_TERMS])
            out.prefill_estimate_binds = tuple(PREFILL_ESTIMATE_TERMS[k][0] for k in np.argmax(terms, axis=0))
    for a in (out.binds, out.estimate_binds):
        if a is not None:
            a.flags.writeable = False
    for block in (out.per_context, out.decode, out.prefill, out.min_gpus):
        for arrays in block.values():
            for a in (arrays.values() if isinstance(arrays, dict) else [arrays]):
                a.flags.writeable = False
    return out


def decode_binds(out: ParallelResults, accounting: str, batch, estimate: bool = False) -> np.ndarray | None:
    """Which roof binds each decode point of the layout: the largest per-GPU ledger, or "capacity" when the
    batch is more sequences than one replica holds at that context.  With ``estimate``, the serial estimate's largest
    term instead (ESTIMATE_TERMS): "overhead" where the kernels' fixed costs outweigh compute, HBM and collectives."""
    grid = out.decode.get(accounting)
    if grid is None:
        return None
    if estimate:
        names = tuple(name for name, _ in ESTIMATE_TERMS)
        ledgers = np.stack([grid[qid] for _, qid in ESTIMATE_TERMS])
    else:
        names = BINDS
        ledgers = np.stack([grid["decode_time_compute_gpu"], grid["decode_time_memory_gpu"], grid["decode_time_comm"]])
    binds = np.asarray(names, dtype=object)[np.argmax(ledgers, axis=0)]
    cap = out.per_context[accounting]["capacity_batch_replica"]
    binds[np.asarray(batch, dtype=float)[:, None] > cap[None, :]] = "capacity"
    return binds


# A per-replica capacity has no physical value when negative, as the single-card one (genreport.model.values).
_LIKE = {"kv_capacity_tokens_replica": "kv_capacity_tokens", "capacity_batch_replica": "capacity_batch"}


PREFILL = ("interconnect_bytes_prefill", "prefill_time_comm", "prefill_time_bound", "prefill_time_compute_gpu",
           "prefill_time_memory_gpu", "prefill_time_compute_serial", "prefill_time_memory_serial",
           "prefill_time_comm_estimate", "prefill_time_overhead", "prefill_time_serial")
PER_CONTEXT = ("capacity_batch_replica", "comm_hbm_crossover_batch")
TRAINING = tuple(f"training_state_per_gpu_zero{k}" for k in range(4)) + (
    "training_grad_comm_time", "training_zero3_comm_time", "training_overlap_tokens", "training_backward_time")
# the quantities this module evaluates at a layout, from the whole model's values (its formulas divide them)
# a prompt's pass through the stages: evaluated for the occupancy (OCCUPANCY), not stated apart
PASS = ("prefill_pass_bound",)
LAYOUT_IDS = frozenset(SCALARS + PER_CONTEXT + DECODE_GRID + PREFILL + PASS + TRAINING)
# what a replica holds beside a draft (draft.Draft.capacity, the serving chapter's): the whole model's values at the
# layout too, its M_d and c_d one GPU's (derive adds them)
DRAFT_CONTEXT = ("capacity_batch_draft",)


def point_base(spec, accounting: str, recipe: str | None = None) -> tuple[dict, Env, Env]:
    """(the layout formulas' values of ``spec``'s whole model at its layout, the layout's Env, the one-card Env):
    what :func:`point_values` and ``serving.round_point_values`` evaluate a point from."""
    from genreport.load.spec import Parallelism

    par = spec.parallelism or Parallelism()  # one GPU: the layout formulas at tp = pp = 1
    links, _ = choose_links(spec.hardware, par)
    at_layout = report_env(spec, accounting)
    env = at_layout.one_card()
    recipe = recipe or (spec.workloads.recipes[0] if spec.workloads.recipes else "bf16-grads")
    base = layout_values(env.values, spec.model, par, links, spec.precision, accounting, env.pc, recipe,
                         spec.hardware.kernels, spec.hardware)
    return base, at_layout, env


def point_values(spec, accounting: str, qid: str, batch=None, context=None, tokens=None,
                 recipe: str | None = None) -> dict | None:
    """The inputs at which :func:`_evaluate` evaluates the layout quantity ``qid`` of ``spec`` at a point (for
    ``derive``, one number in one place); None for a quantity this module does not evaluate.  The layout's formulas
    take the whole model (N, L, c ...) and divide it themselves: the sliced inputs of one GPU would divide twice."""
    par = spec.parallelism
    if par is None or (qid not in LAYOUT_IDS and qid not in DRAFT_CONTEXT):
        return None
    base, at_layout, env = point_base(spec, accounting, recipe)
    if qid == "tp_weight_crossover":
        return at_batch(base, at_layout, 1.0)
    if qid in TRAINING:
        return dict(base, T=np.float64(tokens if tokens is not None else spec.workloads.training_tokens or 0))
    if qid in PREFILL or qid in PASS:
        return at_prompt(base, at_layout, float(tokens))
    if qid in DECODE_GRID:
        g = env.at(batch=float(batch), context=float(context))
        v = at_batch(dict(base, S=g["S"], c=g["c"], d_h=g["d_h"]), at_layout, float(batch))
        if qid in RESIDENT:
            held = held_at(base, spec.hardware, spec.model, spec.precision, par, v["S"],
                           env.at(context=float(context))["c"])
            return dict(v, N=base["N"], N_x=base["N_x"], b=base["b"], c=held["c"], n_PW=held["n_PW"],
                        n_PK=held["n_PK"], C=held["C"])
        return v
    if qid in PER_CONTEXT or qid in DRAFT_CONTEXT:
        c = env.at(context=float(context), reads=qid in READ_AT_CONTEXT)["c"]
        if qid in READ_AT_CONTEXT:
            return dict(base, S=np.float64(context), c=c)
        return held_at(base, spec.hardware, spec.model, spec.precision, par, np.float64(context), c)
    return base


def _evaluate(r) -> ParallelResults:
    spec = r.spec
    par, hw, model = spec.parallelism, spec.hardware, spec.model
    links, notes = choose_links(hw, par)
    q = load()
    out = ParallelResults(par, links, notes, activation_bytes=activation_bytes_per_element(spec.precision),
                          stage_layers=stage_layers(model.layers, par.pp),
                          kernels_per_layer=kernels_per_layer(model, spec.hardware.kernels),
                          weight_efficiency=weight_efficiency(spec.precision, r.envs["seed"].pc, spec.hardware.kernels),
                          matmul_share=float(r.envs["seed"].values["e_m"]),
                          attention_slower=float(r.envs["seed"].values["P"] / r.envs["seed"].values["P_a"]),
                          small_gemm_share=float(r.envs["seed"].values["e_g"]),
                          all_to_all=spec.hardware.kernels.all_to_all)
    w = spec.workloads
    batch = np.asarray(w.decode_batch, dtype=float)
    ctx = np.asarray(w.decode_context, dtype=float)
    recipe = w.recipes[0] if w.recipes else "bf16-grads"
    for acc, at_layout in r.envs.items():
        env = at_layout.one_card()  # the layout's formulas take the whole model's values and divide them themselves
        base = layout_values(env.values, model, par, links, spec.precision, acc, env.pc, recipe, spec.hardware.kernels,
                             spec.hardware)
        sc = {qid: _f(q[qid](base)) for qid in SCALARS if qid not in ("tp_weight_crossover", "tp_link_bound_degree")}
        one = at_batch(base, at_layout, 1.0)
        sc["tp_weight_crossover"] = _f(q["tp_weight_crossover"](one))
        sc["tp_link_bound_degree"] = _f(q["tp_link_bound_degree"](base))
        sc["kv_capacity_tokens_replica"], _ = physical("kv_capacity_tokens", q["kv_capacity_tokens_replica"](base))
        out.scalars[acc] = sc
        if not out.all_reduce:
            out.all_reduce = _all_reduce_costs(q, base)
            if out.all_reduce:  # whose one-shot all-reduce it is, where one runs
                out.all_reduce["one_shot_by"] = one_shot_by(spec.hardware.kernels, links["tp"])
        if len(ctx):
            # the cache a sequence holds for the capacity, the one a step reads for the crossover (READ_AT_CONTEXT)
            cv = held_at(base, hw, model, spec.precision, par, ctx, np.asarray(env.at(context=ctx)["c"], dtype=float))
            rv = dict(base, S=ctx, c=np.asarray(env.at(context=ctx, reads=True)["c"], dtype=float))
            cap = np.asarray(q["capacity_batch_replica"](cv), dtype=float) * np.ones_like(ctx)
            cross = np.asarray(q["comm_hbm_crossover_batch"](rv), dtype=float) * np.ones_like(ctx)
            out.per_context[acc] = {"capacity_batch_replica": np.maximum(cap, 0.0),  # a count: 0 when none fits
                                    "capacity_batch_replica_raw": cap,  # stated: none (with the reason) when < 0
                                    "comm_hbm_crossover_batch": cross}
        if len(batch) and len(ctx):
            g = env.at(batch=batch[:, None], context=ctx[None, :])
            v = at_batch(dict(base, S=g["S"], c=g["c"], d_h=g["d_h"]), at_layout, batch[:, None])
            shape = (len(batch), len(ctx))
            c_held = np.asarray(env.at(context=ctx[None, :])["c"], dtype=float)  # what the cache holds (chunks)
            mem = held_at(base, hw, model, spec.precision, par, g["S"], c_held)
            held = dict(v, N=base["N"], N_x=base["N_x"], b=base["b"], **{k: mem[k] for k in ("c", "n_PW", "n_PK", "C")})
            grid = {qid: np.broadcast_to(np.asarray(q[qid](held if qid in RESIDENT else v), dtype=float), shape).copy()
                    for qid in DECODE_GRID}
            grid["decode_tokens_per_s_replica"] = batch[:, None] / grid["decode_time_bound"]
            grid["decode_tokens_per_s_gpu"] = batch[:, None] / (grid["decode_time_bound"] * par.replica_gpus)
            out.decode[acc] = grid
            gpus, tp, pp = min_gpus_to_fit(q, dict(base, c=c_held), model, batch, ctx,
                                           stage_capacity(hw, model, spec.precision, ctx),
                                           b_at=held_b_at(env, spec.precision))
            out.min_gpus[acc] = gpus
            out.min_layout[acc] = [[(int(tp[i, j]), int(pp[i, j])) if tp[i, j] else None for j in range(shape[1])]
                                   for i in range(shape[0])]
        if w.prefill_prompt:
            t = np.asarray(w.prefill_prompt, dtype=float)
            pv = at_prompt(base, at_layout, t)
            out.prefill[acc] = {qid: np.asarray(q[qid](pv), dtype=float) * np.ones_like(t)
                                for qid in ("interconnect_bytes_prefill", "prefill_time_comm", "prefill_time_bound",
                                            "prefill_time_compute_gpu", "prefill_time_memory_gpu",
                                            "prefill_time_compute_serial",
                                            "prefill_time_memory_serial", "prefill_time_comm_estimate",
                                            "prefill_time_overhead",
                                            "prefill_time_serial")}
            # what a prompt occupies its replica for in a steady state (every replica of a wider expert group
            # prefilling): the prompt rates and prices
            alone = {**out.prefill[acc], "prefill_pass_bound": q["prefill_pass_bound"](pv)}  # a prompt's pass
            busy = occupancy(q, tuple(OCCUPANCY.values()), base, at_layout, t, alone)
            for name, qid in OCCUPANCY.items():
                out.prefill[acc][name] = np.asarray(busy[qid], dtype=float) * np.ones_like(t)
    if w.training_tokens:
        from genreport.formulas.recipes import training_compute

        env = r.envs["seed"].one_card()
        # the recipes' GEMMs run at the training format's peak (bf16), not the spec's serving format's: an fp8 spec's
        # backward pass and overlap tokens took the fp8 peak beside the step's bf16 one (QA of stop 71)
        p_train = np.float64(spec.hardware.dense[training_compute(spec.hardware.dense, spec.precision.compute)])
        rows: list[tuple[str, dict, float | None]] = []
        for rec in w.recipes:  # the state and the gradient traffic depend on the recipe's bytes per parameter
            base = layout_values(env.values, model, par, links, spec.precision, "seed", env.pc, rec, spec.hardware.kernels)
            tv = dict(base, T=np.float64(w.training_tokens), P=p_train)
            for qid in [f"training_state_per_gpu_zero{k}" for k in range(4)] + [
                    "training_grad_comm_time", "training_zero3_comm_time", "training_overlap_tokens"]:
                value = _f(q[qid](tv))
                if qid == "training_overlap_tokens" and par.dp == 1:  # one replica: no gradient exchange to hide
                    value = None
                rows.append((qid, {"recipe": rec}, value))
        tv = dict(layout_values(env.values, model, par, links, spec.precision, "seed", env.pc, recipe, spec.hardware.kernels),
                  T=np.float64(w.training_tokens), P=p_train)
        rows.append(("training_backward_time", {"tokens": w.training_tokens}, _f(q["training_backward_time"](tv))))
        out.training["seed"] = rows
    return out


def _collective_formulas(p: ParallelResults, accounting: str | None = None, prompts=(), noun: str = "GPU") -> tuple:
    """The collective formulas the layout's bound and estimate use, printed symbolically (chapter 6); with an expert
    group wider than a replica, the prefill's compute ledger that spreads a prompt's routed experts over it (its value
    at the longest of ``prompts``, in ``accounting``)."""
    from genreport.formulas.compiled import load, render_latex
    from genreport.present import fmt

    q, ar = load(), p.all_reduce
    rows = []
    pre = p.prefill.get(accounting) if accounting else None
    if p.parallelism.ep > p.parallelism.tp and pre is not None and len(prompts):
        at = list(prompts).index(max(prompts))
        rows.append(("prefill_time_compute_gpu", f"the bound: what no schedule keeps off a {noun} of the prompt's "
                     f"replica, the larger of its attention and the rest (dense layers, shared experts, head: F less "
                     f"the routed experts' 2 T N_x k_e / E_x) over its n_TP n_PP {noun}s and the whole prompt's FLOPs "
                     f"over the expert group's max(n_TP, n_EP) n_PP (all {p.parallelism.ep}): an engine can run one "
                     f"chunk's attention while the group's other {noun}s run another chunk's experts, and routing or "
                     f"redundant experts can move the expert FLOPs off the replica; m_P = 1, one prompt alone (its "
                     f"TTFT; with all {prompt_group_of(p.parallelism):.3g} replicas of the group prefilling, m_P = "
                     f"{prompt_group_of(p.parallelism):.3g}, each {noun} runs its prompt's whole work: "
                     f"{fmt.time(float(pre['prefill_occupancy_bound'][at]))}, what prices a prompt); at "
                     f"{int(max(prompts)):,} tokens", float(pre["prefill_time_compute_gpu"][at])))
        rows.append(("prefill_time_compute_serial", f"the estimate: the engine's serial order, the attention and the "
                     f"rest on the replica's n_TP {noun}s, then their 1/n_EP of the routed experts, layer after layer"
                     + (f", the FLOPs at e_m = {p.matmul_share:.3g} of the peak" if p.matmul_share < 1 else "")
                     + f"; at {int(max(prompts)):,} tokens", float(pre["prefill_time_compute_serial"][at])))
    tp_two = p.links["tp"].inner is not None
    if p.parallelism.tp > 1 and not tp_two:
        rows += [("all_reduce_time", "the bound: the fewest bytes any algorithm sends, and one step", ar.get("bound")),
                 ("all_reduce_time_library", "the estimate: the library's ring" + _protocol_words(ar), ar.get("ring"))]
    if p.parallelism.tp > 1 and tp_two:
        rows += [("all_reduce_time_tiers", "the bound over two tiers: the fewest bytes each GPU sends over its links "
                  "and each node over its NICs", ar.get("bound")),
                 ("all_reduce_time_ring_tiers", "the estimate: the library's ring across the nodes" + _protocol_words(ar),
                  ar.get("ring")),
                 ("all_reduce_time_hierarchical", "the estimate: the library's hierarchical all-reduce (in the node, "
                  "across the nodes, in the node)", ar.get("hierarchical"))]
    if p.parallelism.tp > 1 and p.links["tp"].in_network:
        rows.append(("all_reduce_time_switch", "the estimate: the library's in-switch all-reduce (NVLS)",
                     ar.get("in_switch")))
    if p.parallelism.tp > 1 and ar.get("one_shot") is not None:
        rows.append(("all_reduce_time_oneshot", f"the estimate: the library's all-pairs all-reduce on the mesh (each "
                     f"{noun} reads its peers' bytes over its own link and sums them, one step; small messages)"
                     if ar.get("one_shot_by") == "library" else "the estimate: the engine's one-shot all-reduce",
                     ar.get("one_shot")))
    deepep = p.all_to_all == "deepep"
    if p.parallelism.ep > p.parallelism.tp and p.links["ep"].inner is None and not deepep:
        rows.append(("all_to_all_time_library", "the estimate: the experts' all-to-all", None))
    if p.parallelism.ep > p.parallelism.tp:
        rows.append(("all_to_all_time_experts", "the bound: the experts' all-to-all, each token once to each GPU (and "
                     "domain) that holds one of its experts, one byte an element", None))
    if p.parallelism.ep > p.parallelism.tp and p.links["ep"].inner is not None:
        if not deepep:
            rows.append(("all_to_all_time_library_tiers", "the estimate: the experts' all-to-all, in the node and over "
                         "the NICs", None))
    if p.parallelism.ep > p.parallelism.tp and deepep:
        rows.append(("all_to_all_time_deepep", "the estimate: the experts' all-to-all as DeepEP's kernels run it, every "
                     "peer at once (FP8 dispatch, BF16 combine; e_Dl in decode, e_Do in prefill)", None))
    slower = p.attention_slower > 1
    if (p.matmul_share < 1 or slower) and not any(x[0] == "prefill_time_compute_serial" for x in rows):
        rows.append(("prefill_time_compute_serial", f"the estimate: the FLOPs at e_m = {p.matmul_share:.3g} of the "
                     "peak, as large matmuls are measured to reach on this GPU (decode's likewise)"
                     + (f"; the attention's scores and values at P_a, {p.attention_slower:.3g}x slower than P: the "
                        "compute format's or the KV cache's, not the weights'" if slower else ""), None))
    if p.small_gemm_share < 1:
        rows.append(("prefill_time_memory_serial", f"the estimate: the weights at e_g = {p.small_gemm_share:.3g} of the "
                     "bandwidth, as GEMMs with few rows are measured to stream them on this GPU (short prompts, and "
                     "decode's rounds likewise)", None))
    if p.parallelism.ep > 1 or p.weight_efficiency < 1 or p.small_gemm_share < 1:
        rows.append(("decode_time_memory_busiest", ("the estimate: HBM of the busiest expert GPU"
                     if p.parallelism.ep > 1 else "the estimate: HBM of one GPU")
                     + _decode_weight_shares(p.weight_efficiency, p.small_gemm_share), None))
    return tuple((qid, title, f"{q[qid].symbol} = {render_latex(q[qid].latex['full'], q[qid].args)}", value)
                 for qid, title, value in rows)


def _decode_weight_shares(e_w: float, e_g: float) -> str:
    """The decode HBM row's clause on the weights' shares of the bandwidth: e_w (weight-only GEMMs), e_g (GEMMs of few
    rows), each where below 1."""
    parts = [f"e_w = {e_w:.3g} (weight-only GEMMs)" if e_w < 1 else "", f"e_g = {e_g:.3g} (GEMMs of few rows)" if e_g < 1
             else ""]
    said = " and ".join(x for x in parts if x)
    return f", the weights at {said} of the bandwidth" if said else ""


def _protocol_words(ar: dict) -> str:
    """Which protocol the ring row's value is, where the hardware file prices them apart: its tau_c, alpha and W_c
    are that protocol's (LL: tau_c, alpha, W_l; LL128: tau_c8, alpha_8, 0.92 W_c; Simple: tau_cSm, alpha_Sm, W_c)."""
    if not ar.get("protocols") or not ar.get("ring_protocol"):
        return ""
    return (f", with the protocol NCCL's tuner runs for this message, {ar['ring_protocol']} (it prices each at the "
            "link's line rate; charged here LL: tau_c, alpha at W_l, half the bus bandwidth at most; LL128: tau_c8, "
            "alpha_8 at 0.92 W_c; Simple: its measured tau_cSm, alpha_Sm at W_c)")


def _algorithm_costs(q, v: dict, z: float) -> tuple[dict, dict, dict, str]:
    """The estimate's cost of one tensor-parallel all-reduce of ``z`` bytes per GPU with each algorithm the library or
    the engine can run (None where it cannot): the ring and (across domains) the hierarchical form, each with the
    protocol NCCL's tuner runs (formulas.parallel.all_reduce_time_ring_protocols), the in-switch all-reduce, the
    one-shot one; the ring's and the hierarchical form's cost with each protocol, as the estimate charges it; and
    the protocol the tuner runs."""
    n, n_u = float(v["n_TP"]), float(v["n_uTP"])
    two = n_u < n  # the group leaves its scale-up domain
    rings, hiers = _ring_costs(q, v, z)
    run = _tuner_run(q, v, z)
    # NVLS in the node, then (across domains) the hierarchical form's step across nodes (all_reduce_time_estimate)
    m = n / n_u
    across = 2 * (m - 1) * float(v["alpha_oTP"]) + 2 * (m - 1) / m * z / (n_u * float(v["W_coTP"]))
    switch = float(q["all_reduce_time_switch"]({"n_g": n_u, "Z_g": z, "W_s": v["W_sTP"], "tau_s": v["tau_s"],
                                                "W_x": v["W_TP"]})) + (across if two else 0.0) \
        if v["s_TP"] else None
    oneshot = float(q["all_reduce_time_oneshot"]({"n_g": n, "Z_g": z, "W_c": v["W_cTP"], "tau_o": v["tau_o"]})) \
        if v.get("o_TP") else None
    costs = {"ring": rings[run], "hierarchical": hiers[run] if two else None, "in-switch": switch, "one-shot": oneshot}
    return costs, rings, hiers, run


PROTOCOLS = ("LL", "LL128", "Simple")


def _ring_costs(q, v: dict, z: float, tuner: bool = False) -> tuple[dict, dict]:
    """Each protocol's ring all-reduce of ``z`` bytes per GPU and (across domains; else empty) its hierarchical form,
    as the estimate charges them or (``tuner``) as NCCL's tuner prices them (:func:`_protocol_values`)."""
    n, n_u = float(v["n_TP"]), float(v["n_uTP"])
    tiers = {"n_g": n, "Z_g": z, "n_u": n_u, "alpha": v["alpha_TP"], "alpha_o": v["alpha_oTP"]}
    rings, hiers = {}, {}
    for name, (w, w_o, alpha, alpha_o, tau) in _protocol_values(v, tuner).items():
        lib = dict(tiers, W_c=w, W_co=w_o, alpha=alpha, alpha_o=alpha_o, tau_c=tau)
        rings[name] = float(q["all_reduce_time_ring_tiers"](lib))
        if n_u < n:  # inside one domain the hierarchical form is the ring
            hiers[name] = float(q["all_reduce_time_hierarchical"](lib))
    return rings, hiers


def _tuner_run(q, v: dict, z: float) -> str:
    """The protocol NCCL's tuner runs for ``z`` bytes per GPU: each priced at the faster of its two forms."""
    rings, hiers = _ring_costs(q, v, z, tuner=True)
    return tuner_protocol({k: min(rings[k], hiers.get(k, rings[k])) for k in PROTOCOLS})


def tuner_protocol(priced: dict) -> str:
    """The protocol NCCL's tuner runs: the cheapest as it prices them, a tie to the first of LL, LL128, Simple
    (formulas.parallel.picked_protocol)."""
    return min(PROTOCOLS, key=lambda k: (priced[k], PROTOCOLS.index(k)))


def _protocol_values(v: dict, tuner: bool = False) -> dict[str, tuple]:
    """Each protocol's (W_c, W_co, alpha, alpha_o, tau_c) on the tensor-parallel link (LL, LL128, Simple), as the
    estimate charges it, or (``tuner``) as NCCL's tuner prices it to choose one (formulas.parallel.PAID_PROTOCOLS and
    TUNER_PROTOCOLS): at the link's line rate, and Simple at the tuner's latencies rather than the measured ones."""
    share = LL128_SHARE
    w = v["W_TP"] if tuner else v["W_cTP"]
    simple = (v["alpha_STP"], v["tau_cS"]) if tuner else (v["alpha_SmTP"], v["tau_cSm"])
    return {"LL": (v["W_lTP"], v["W_loTP"], v["alpha_TP"], v["alpha_oTP"], v["tau_c"]),
            "LL128": (share * w, share * v["W_coTP"], v["alpha_8TP"], v["alpha_8oTP"], v["tau_c8"]),
            "Simple": (w, v["W_coTP"], simple[0], v["alpha_SoTP"], simple[1])}


def _one_shot_limit(q, v: dict, z: float) -> float | None:
    """The largest message (bytes per GPU) at which the one-shot all-reduce is still the estimate's fastest, where it is
    at ``z`` (a batch-1 step's): it sends (n-1) Z against the ring's 2 (n-1)/n Z, so past some size the ring wins.
    The one-shot cost less the fastest other is convex in Z (a line less a minimum of lines), so the crossing is
    one, found by halving in log space (to 1e-9). None where it does not win at ``z``, or where it wins at every size
    (two GPUs: both send Z once)."""
    def margin(x: float) -> float:
        costs, _, _, _ = _algorithm_costs(q, v, x)
        return costs["one-shot"] - min(c for k, c in costs.items() if c is not None and k != "one-shot")

    if not v.get("o_TP") or float(v["n_TP"]) <= 2 or margin(z) > 0:
        return None
    lo, hi = z, 4 * z
    while margin(hi) <= 0:
        lo, hi = hi, hi * 4
        if hi > 2**50:
            return None
    while hi / lo > 1 + 1e-9:
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if margin(mid) <= 0 else (lo, mid)
    return lo


def _batch_at(v: dict, message: float, z: float, rounding) -> int:
    """The batch per replica whose tensor-parallel all-reduce carries ``message`` bytes, a sequence's being ``z``:
    B z / m with m = min(B, n_St) micro-batches in flight (formulas.parallel.microbatches), so B = message n_St / z
    past the stages (a pipeline of p stages sends a p-th of the batch a call), ``rounding`` it to a whole batch."""
    return int(rounding(message / z * max(1.0, float(v["n_St"]))))


def _protocol_changes(q, v: dict, z: float) -> list[dict]:
    """Where NCCL's tuner changes the ring's protocol as the message grows from ``z`` (a batch-1 step's), up to 2^40
    bytes: [{"bytes", "batch", "from", "to"}], the batch the first whose message is that large (:func:`_batch_at`).
    Each protocol's price is a line in the message (a minimum of two across domains), so the run protocol changes a
    few times at most; each change is found by halving in log space (to 1e-9) between sizes that run different
    protocols, sampled four to a doubling."""
    def run(x: float) -> str:
        return _tuner_run(q, v, x)

    if float(v["n_TP"]) <= 1 or not _protocols_apart(v):
        return []
    out, lo, here = [], z, run(z)
    while lo < 2**40:
        hi = lo * 2**0.25
        there = run(hi)
        if there != here:
            a, b = lo, hi
            while b / a > 1 + 1e-9:
                mid = math.sqrt(a * b)
                a, b = (mid, b) if run(mid) == here else (a, mid)
            out.append({"bytes": b, "batch": _batch_at(v, b, z, math.ceil), "from": here, "to": run(b)})
            here = run(b)
        lo = hi
    return out


def _all_reduce_costs(q, v: dict) -> dict:
    """One tensor-parallel all-reduce of a batch-1 decode step (B d b_a bytes per GPU), per GPU: the strict bound's
    cost, each algorithm's (:func:`_algorithm_costs`), which the estimate picks, and, where the one-shot all-reduce
    wins, up to which message size (and batch) it does.  Empty without tensor parallelism."""
    n, n_u = float(v["n_TP"]), float(v["n_uTP"])
    if n <= 1:
        return {}
    z = float(v["d"] * v["b_a"])
    two = n_u < n  # the group leaves its scale-up domain
    tiers = {"n_g": n, "Z_g": z, "n_u": n_u, "alpha": v["alpha_TP"], "alpha_o": v["alpha_oTP"]}
    bound = float(q["all_reduce_time_tiers"](dict(tiers, W_x=v["W_TP"], W_o=v["W_oTP"], s_TP=v["s_TP"])))
    costs, _, _, run = _algorithm_costs(q, v, z)  # the tuner prices each protocol at the faster of its two forms
    picked = min((k for k in costs if costs[k] is not None), key=lambda k: (costs[k], k != "ring"))
    used = run if picked in ("ring", "hierarchical") else None
    call = {"one-shot": v["tau_o"], "in-switch": v["tau_s"]}.get(
        picked, _protocol_values(v)[used][4] if used else v["tau_c"])
    limit = _one_shot_limit(q, v, z) if picked == "one-shot" else None
    return {"gpus": int(n), "gpus_per_domain": int(n_u), "message_bytes": z, "bound": bound, "ring": costs["ring"],
            "hierarchical": costs["hierarchical"], "in_switch": costs["in-switch"], "one_shot": costs["one-shot"],
            "one_shot_latency": float(v["tau_o"]), "picked": picked,
            # the largest message, and batch (B d b_a bytes), the one-shot all-reduce still wins at
            "one_shot_up_to_bytes": limit,
            "one_shot_up_to_batch": None if limit is None else _batch_at(v, limit, z, math.floor),
            "protocol": used, "ring_protocol": run, "protocols": _protocols_apart(v),
            # Simple charged as nccl-tests measure it, not at the tuner's price
            "simple_measured": bool(v["tau_cSm"] != v["tau_cS"] or v["alpha_SmTP"] != v["alpha_STP"]),
            "simple_call": float(v["tau_cSm"]), "simple_step": float(v["alpha_SmTP"]),
            "simple_priced": (float(v["tau_cS"]), float(v["alpha_STP"])),
            # where the tuner changes the ring's protocol as the batch grows
            "protocol_changes": _protocol_changes(q, v, z),
            "estimate": costs[picked], "call_latency": float(call),
            "bus_bandwidth": float(v["W_cTP"]), "scale_out_bus_bandwidth": float(v["W_coTP"]) if two else None}


def _protocols_apart(v: dict) -> bool:
    """Whether the layout's values price the ring's protocols apart (the hardware file gives them)."""
    return not (v["tau_c8"] == v["tau_c"] and v["tau_cS"] == v["tau_c"] and v["W_lTP"] == v["W_cTP"])


# training_overlap_tokens at dp 1: the tokens a micro-batch needs to hide the gradient exchange behind its backward
# pass, where there is no exchange
NO_EXCHANGE = "no gradient exchange to hide: the layout has one data-parallel replica (dp 1)"


def _entries(r, out: ParallelResults) -> list:
    from genreport.formulas.compiled import render_latex
    from genreport.formulas.variants import variant_for

    w = r.spec.workloads
    dense = r.spec.model.moe is None
    entries = []

    def add(qid, params, value, acc, suffix, unit=None):
        if qid in RATES:
            symbol, tex = RATES[qid]
            stated, why = physical(qid, math.nan if value is None else value)
            entries.append(Entry(qid + suffix, dict(params), stated, "token/s", symbol, tex, acc, why))
            return
        c = r.q[OCCUPANCY.get(qid, qid)]
        variant = variant_for(acc, moe=not dense, activation=bool(w.activation_bytes))
        symbol = c.symbol + (STEADY if qid in OCCUPANCY else "")
        tex = f"{symbol} = {render_latex(c.latex.get(variant) or c.latex['full'], c.args)}"
        stated, why = physical(_LIKE.get(qid, qid), math.nan if value is None else value, c.integer)
        if value is None and qid == "kv_capacity_tokens_replica":
            why = NO_FIT
        if value is None and qid == "training_overlap_tokens" and r.spec.parallelism.dp == 1:
            why = NO_EXCHANGE  # set None by the training rows at dp 1; it read "undefined at these inputs" (review)
        entries.append(Entry(qid + suffix, dict(params), stated, unit or c.unit, symbol, tex, acc, why))

    for acc in out.scalars:
        suffix = "" if acc == "seed" else "_exact"
        for qid, value in out.scalars[acc].items():
            if acc == "exact" and qid in ("gpus", "link_ridge"):
                continue
            add(qid, {}, value, acc, suffix)
        per = out.per_context.get(acc, {})
        for qid, arr in per.items():
            if qid.endswith("_raw"):
                continue
            raw = per.get(qid + "_raw", arr)
            for j, s in enumerate(w.decode_context):
                add(qid, {"context": s}, raw[j], acc, suffix)
        for qid, grid in out.decode.get(acc, {}).items():
            for i, b in enumerate(w.decode_batch):
                for j, s in enumerate(w.decode_context):
                    add(qid, {"batch": b, "context": s}, grid[i, j], acc, suffix)
        if acc in out.min_gpus:
            for i, b in enumerate(w.decode_batch):
                for j, s in enumerate(w.decode_context):
                    g = _f(out.min_gpus[acc][i, j])
                    entries.append(Entry("min_gpus_to_fit" + suffix, {"batch": b, "context": s}, g, "1",
                                         r"n_{\mathrm{fit}}(B, S)", r"n_{\mathrm{fit}} = \min n_{\mathrm{TP}} n_{\mathrm{PP}} : M_{g}(B, S) \le C", acc,
                                         "" if g is not None else f"no layout up to 4096 {r.spec.hardware.noun}s holds it"))
        for qid, arr in out.prefill.get(acc, {}).items():
            for i, t in enumerate(w.prefill_prompt):
                add(qid, {"tokens": t}, arr[i], acc, suffix)
    for qid, params, value in out.training.get("seed", []):
        add(qid, params, value, "seed", "")
    return entries


def round_bound(r, accounting: str, batch, context, eta_p: float = 1.0, eta_w: float = 1.0) -> np.ndarray:
    """The strict bound of a decode round at the spec's layout over a (batch, context) grid (figure samples); with
    ``eta_p``, ``eta_w`` below 1 the round at those shares of the peak FLOP/s and HBM bandwidth, its links unchanged
    (the spec's ``efficiency``: measured.derated)."""
    spec, par = r.spec, r.parallel
    at_layout = r.envs[accounting]
    env = at_layout.one_card()
    recipe = spec.workloads.recipes[0] if spec.workloads.recipes else "bf16-grads"
    base = layout_values(env.values, spec.model, par.parallelism, par.links, spec.precision, accounting, env.pc, recipe,
                         spec.hardware.kernels, spec.hardware)
    batch = np.asarray(batch, dtype=float)
    context = np.asarray(context, dtype=float)
    g = env.at(batch=batch[:, None], context=context[None, :])
    v = at_batch(dict(base, S=g["S"], c=g["c"], d_h=g["d_h"]), at_layout, batch[:, None], bound=None)
    v = dict(v, P=v["P"] * eta_p, W=v["W"] * eta_w)
    v["m_b"] = fastest_schedule(v, par.parallelism.pp)  # the schedule of the achievable rates, not the peaks'
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.asarray(r.q["decode_time_bound"](v), dtype=float)
    return np.broadcast_to(t, (len(batch), len(context))).copy()


def _pp_choices(layers: int, limit: int) -> list[int]:
    """Pipeline degrees tried: the divisors of the layers (even stages) and the powers of two (stages of ceil(L/pp)
    and floor(L/pp) layers, as engines split 61 layers over 2 stages: 31 and 30), up to min(layers, limit)."""
    top = min(layers, limit)
    twos = {1 << k for k in range(top.bit_length()) if (1 << k) <= top}
    return sorted({p for p in range(1, top + 1) if layers % p == 0} | twos)


def decode_ledgers_at(spec, accounting: str, batch: float, context: float, precision: Precision | None = None,
                      bandwidth_scale: float = 1.0, peak_scale: float = 1.0) -> dict[str, float]:
    """A decode round at the spec's layout at one (batch, context): its strict bound (decode_time_bound, as the
    decode grid evaluates it: the busiest GPU's compute, HBM and interconnect ledgers through the pipeline) under
    "bound", and the three ledgers of one GPU's round under BINDS' names; with another weight format, or the HBM
    bandwidth and the peak FLOP/s ``bandwidth_scale`` and ``peak_scale`` times faster (the links unchanged)."""
    if precision is not None:
        spec = replace(spec, precision=precision)
    # at context 0 (no KV cache) a sliding window's mean cache per token, held / S, is 0/0: taken at one token, it
    # multiplies S = 0 all the same
    v = point_values(spec, accounting, "decode_time_bound", batch, context or 1.0)
    v = dict(v, W=v["W"] * bandwidth_scale, P=v["P"] * peak_scale, **({} if context else {"S": np.float64(0.0)}))
    if spec.parallelism is not None:  # the fastest schedule of the faster memory or arithmetic, not the spec's
        v["m_b"] = fastest_schedule(v, spec.parallelism.pp)
    q = load()
    ids = ("decode_time_bound", "decode_time_compute_gpu", "decode_time_memory_gpu", "decode_time_comm")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        got = [float(np.ravel(np.asarray(q[k](v), dtype=float))[0]) for k in ids]
    return dict(zip(("bound",) + BINDS, got, strict=True))


def decode_bound_at(spec, accounting: str, batch: float, context: float, precision: Precision | None = None,
                    bandwidth_scale: float = 1.0, peak_scale: float = 1.0) -> float:
    """The strict bound of a decode round at the spec's layout at one (batch, context) (:func:`decode_ledgers_at`),
    with another weight format or a faster memory or arithmetic: what a lever does to a layout's row (its KV cache,
    activations and links unchanged)."""
    return decode_ledgers_at(spec, accounting, batch, context, precision, bandwidth_scale, peak_scale)["bound"]


def prefill_bound_at(spec, accounting: str, tokens: float, precision: Precision | None = None,
                     eta_p: float = 1.0, eta_w: float = 1.0) -> float:
    """The strict bound of a prefill of ``tokens`` at the spec's layout, prefill_time_bound as the layout's prefill
    evaluates it (one GPU's compute, HBM and interconnect ledgers, through the pipeline), with another precision:
    what page 1's FP8 compute lever does to a layout's prefill row (its links unchanged); with ``eta_p``, ``eta_w``
    at those shares of the peaks (measured.derated)."""
    if precision is not None:
        spec = replace(spec, precision=precision)
    v = point_values(spec, accounting, "prefill_time_bound", tokens=float(tokens))
    v = dict(v, P=v["P"] * eta_p, W=v["W"] * eta_w)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return float(np.ravel(np.asarray(load()["prefill_time_bound"](v), dtype=float))[0])
