"""results.json: every quantity the report states, in SI units, sorted and stable."""

from __future__ import annotations

import json

import numpy as np
from genreport import __version__
from genreport.model.evaluate import Results

SCHEMA_VERSION = 1


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if np.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def document(r: Results, baseline: Results | None = None, overrides=()) -> dict:
    """``baseline``: the spec's own evaluation, where ``r`` is a what-if of it made by ``overrides`` (``--set``)."""
    spec = r.spec
    doc = {
        "genreport": {"version": __version__, "schema": SCHEMA_VERSION},
        "spec": {"name": spec.name, "title": spec.title, "sha256": spec.digest, "accounting": spec.accounting},
        "inputs": {
            "hardware": {"name": spec.hardware.name, "title": spec.hardware.title,
                         "peak_flops": float(r.scalars[r.lead]["peak_flops"]),  # P (env.peak_of: per-class formats' rate)
                         "bandwidth": spec.hardware.bandwidth, "capacity": spec.hardware.capacity,
                         # the engine's reserve as the spec wrote it: a share, or the bytes each GPU keeps
                         "memory_reserve": spec.hardware.memory_reserve,
                         "memory_reserve_bytes": spec.hardware.memory_reserve_bytes},
            "model": {"name": spec.model.name, "title": spec.model.title,
                      "parameters_declared": spec.model.declared_parameters,
                      "parameters_computed": r.params.total, "active_parameters": r.params.active,
                      "active_parameters_declared": spec.model.declared_active,
                      "active_parameters_non_embedding": r.params.active - r.params.embedding - r.params.lm_head,
                      # the whole model's, as its siblings (at a layout the env's values are one GPU's slice)
                      "active_parameters_without_input_embedding": r.envs["exact"].one_card().values["N_a"],
                      "embeddings_counted": True},
            "precision": {"weights": spec.precision.weights, "kv_cache": spec.precision.kv_cache,
                          "compute": spec.precision.compute, "bytes_per_weight": spec.precision.weight_bytes,
                          "bytes_per_kv_element": spec.precision.kv_bytes,
                          **_weight_classes(spec.precision, r.params, spec.hardware.dense)},
            "workloads": {"decode_batch": list(spec.workloads.decode_batch),
                          "decode_context": list(spec.workloads.decode_context),
                          "prefill_prompt": list(spec.workloads.prefill_prompt),
                          "training_tokens": spec.workloads.training_tokens or None},
        },
        "quantities": sorted((e.as_json() for e in r.entries),
                             key=lambda e: (e["id"], json.dumps(e["params"], sort_keys=True))),
        "verdicts": r.verdicts,
        "compare": [{k: v for k, v in c.items()} for c in r.compare],
        "training": [{k: v for k, v in t.items()} for t in r.training],
        "compare_models": r.compare_models,
    }
    for block, notes in ((doc["spec"], spec.notes), (doc["inputs"]["hardware"], spec.hardware.notes),
                         (doc["inputs"]["model"], spec.model.notes)):
        if notes:  # free text from the specs, kept as data (the report does not print it)
            block["notes"] = notes
    if r.spec.workloads.measured:
        doc["measured"] = list(r.measured)
        if r.measured_not_compared:  # a what-if of another GPU, model, precision or layout: none compared, and why
            doc["measured_not_compared"] = r.measured_not_compared
            doc["measured_rechecked"] = list(r.measured_rechecked)
    if r.spec.efficiency:
        doc["derated"] = r.derated
    if r.parallel is not None:
        doc["parallel"] = r.parallel.as_json()
    if r.serving is not None:
        doc["serving"] = r.serving
    if baseline is not None:
        doc["baseline"] = {e.id + json.dumps(e.params, sort_keys=True): e.value for e in baseline.entries}
        # what made it, and its title as the report's heading reads (the spec's title is the baseline's)
        doc["what_if"] = {"title": r.what_if_title, "overrides": list(overrides)}
    return _plain(doc)


def results_json(r: Results, baseline: Results | None = None, overrides=()) -> str:
    return json.dumps(document(r, baseline, overrides), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def _weight_classes(precision, pc, dense) -> dict:
    """With weights per tensor class: each class's format, bytes per weight (block scales included), parameters
    (from the shapes) and the format its GEMMs compute in (Precision.class_compute); bytes_per_weight is then the
    mean the whole model holds.  Nothing for one format."""
    if not precision.classes:
        return {}
    from genreport.model.env import class_parameters

    params = class_parameters(pc)
    return {"weights_by_class": {c: {"format": precision.format_of(c), "bytes_per_weight": precision.class_bytes(c),
                                     "parameters": params[c], "compute": precision.class_compute(c, dense)}
                             for c, _ in precision.classes}}
