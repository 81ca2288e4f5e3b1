"""Sweep stage: catalog models x GPUs x precisions x batches x contexts, evaluated at once.  No disk.

Every (model, GPU, precision) is one configuration; its inputs come from
:func:`genreport.model.evaluate.make_env`, are stacked along a first axis, and the compiled formulas
(:func:`formulas.compiled.load`) are called once per quantity on a (configurations, batch,
context) grid by numpy broadcasting -- no Python loop over points.

* The batch axis carries the parameters read by a mixture of experts (N grows with the batch);
  the context axis carries the KV bytes per token and the attention width of sliding-window models
  (c and d_h shrink with S, see :func:`formulas.architecture.attended_fraction`).
* ``capacity_batch`` counts every weight in memory (all experts), at each context, in what the engine leaves of
  the card (its reserve and one step's activations: ``env.usable_at`` at one GPU, as ``plan`` counts it); a point
  ``fits`` when its batch is at most that.  ``binds`` is what limits the step: ``capacity`` when
  the batch does not fit, else the larger of the two lower bounds (``bandwidth`` or ``compute``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
from genreport.formulas import portable
from genreport.formulas.compiled import load
from genreport.load.loader import _precision
from genreport.load.spec import Hardware, Model, Precision, on_hardware, weight_only_fp8
from genreport.model.env import make_env, usable_at
from genreport.present.textcols import format_g6, format_int, join_rows

GRID_QUANTITIES = ("decode_time_memory", "decode_time_compute", "decode_tokens_per_s", "decode_intensity")
BINDS = ("bandwidth", "compute", "capacity")
UNITS = {"batch": "1", "context": "token", "decode_time_memory": "s", "decode_time_compute": "s",
         "decode_tokens_per_s": "token/s", "decode_intensity": "FLOP/B", "capacity_batch": "1"}
HEADERS = {"context": "context_tokens", "decode_time_memory": "decode_time_memory_s",
           "decode_time_compute": "decode_time_compute_s", "decode_tokens_per_s": "decode_tokens_per_s",
           "decode_intensity": "decode_intensity_flop_per_byte"}
COLUMNS = tuple(HEADERS.get(c, c) for c in ("model", "hardware", "precision", "batch", "context", *GRID_QUANTITIES,
                                            "capacity_batch", "fits", "within_max_context", "binds"))
"""Column headers, with their unit where they have one.  ``decode_tokens_per_s`` is empty (null in JSON) where the
batch does not fit (``fits`` false); ``within_max_context`` is false past the model's maximum context."""
DEFAULT_PRECISIONS = ("bf16", "fp8", "int4")


def log_integers(lo: int, hi: int, count: int) -> np.ndarray:
    """``count`` distinct integers from ``lo`` to ``hi``, as evenly spaced in log as integers allow.

    >>> log_integers(1, 8192, 64)[:6].tolist(), len(log_integers(1, 8192, 64))
    ([1, 2, 3, 4, 5, 6], 64)
    >>> log_integers(128, 131072, 16)[[0, -1]].tolist()
    [128, 131072]
    """
    if count <= 1 or hi <= lo:
        return np.array([lo], dtype=np.int64)
    count = min(count, hi - lo + 1)
    out: list[int] = []
    for i in range(count):
        remaining = count - i  # values still to place, the last is hi
        nxt = (out[-1] + 1) if out else lo
        target = round(lo * (hi / lo) ** (i / (count - 1)))
        out.append(min(max(nxt, target), hi - remaining + 1))
    return np.asarray(out, dtype=np.int64)


DEFAULT_BATCH = log_integers(1, 8192, 64)
DEFAULT_CONTEXT = log_integers(128, 131072, 16)


@dataclass(frozen=True)
class Config:
    model: Model
    hardware: Hardware
    precision: str  # the name asked for: bf16, fp8, int4
    spec: Precision
    weight_only: bool = False  # fp8 weights computed in bf16 on an NVIDIA GPU without an fp8 peak (W8A16)


@dataclass
class Sweep:
    configs: list[Config]
    batch: np.ndarray  # (nb,)
    context: np.ndarray  # (ns,)
    accounting: str
    columns: dict[str, np.ndarray]  # GRID_QUANTITIES: (K, nb, ns) float64
    capacity_batch: np.ndarray  # (K, ns) float64, >= 0
    fits: np.ndarray  # (K, nb, ns) bool
    within_max_context: np.ndarray  # (K, ns) bool: the context is at most the model's max_context (or it has none)
    binds: np.ndarray  # (K, nb, ns) int8 index into BINDS
    weights_fit: np.ndarray  # (K,) bool
    skipped: list[tuple[str, str, str, str]] = field(default_factory=list)  # model, hardware, precision, why
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def points(self) -> int:
        return len(self.configs) * len(self.batch) * len(self.context)


def configurations(models, hardware, precisions=DEFAULT_PRECISIONS) -> tuple[list[Config], list[tuple]]:
    """Every (model, GPU, precision) whose compute format the GPU has; the others, with the reason."""
    configs, skipped = [], []
    for m in models:
        for hw in hardware:
            for name in precisions:
                # 'checkpoint': the model's weights as its checkpoint stores them, per tensor class (plan's name)
                if name == "checkpoint":
                    from genreport.model.plan import plan_precision

                    p = plan_precision(name, m)
                else:
                    p = _precision(name)
                p = on_hardware(p, hw.dense)  # NVFP4/MXFP4 weights in fp4 where the GPU has it
                if p.compute not in hw.dense:
                    weight_only = weight_only_fp8(p, hw)  # fp8 on an A100: W8A16, as plan runs it
                    if weight_only is None:
                        skipped.append((m.name, hw.name, name, f"no dense {p.compute} peak"))
                        continue
                    configs.append(Config(m, hw, name, weight_only, weight_only=True))
                    continue
                configs.append(Config(m, hw, name, p))
    return configs, skipped


def _stack(configs: list[Config], batch: np.ndarray, context: np.ndarray, accounting: str, names) -> tuple[dict, dict]:
    """Inputs of every configuration stacked on axis 0: grid inputs (K, nb|1, ns|1), capacity inputs."""
    envs = [make_env(c.hardware, c.model, c.spec, accounting) for c in configs]
    k = len(configs)
    grid: dict[str, np.ndarray] = {}
    for name in names:
        if name in ("B", "S", "c", "N", "d_h", "b"):
            continue
        grid[name] = np.array([e.values[name] for e in envs], dtype=float).reshape(k, 1, 1)
    total_n = np.array([e.values["N"] for e in envs], dtype=float).reshape(k, 1, 1)
    held_b = np.array([e.values["b"] for e in envs], dtype=float).reshape(k, 1, 1)
    n = np.empty((k, len(batch), 1))
    b = np.empty((k, len(batch), 1))
    c = np.empty((k, 1, len(context)))
    d_h = np.empty((k, 1, len(context)))
    for i, e in enumerate(envs):
        at = e.at(batch=batch, context=context)
        n[i, :, 0] = np.broadcast_to(at["N"], batch.shape)
        # the bytes a weight the step streams: per tensor class where the formats differ (a checkpoint's mxfp4
        # experts beside bf16 attention: a small batch streams mostly the attention), the held mean otherwise
        b[i, :, 0] = np.broadcast_to(at["b"], batch.shape)
        c[i, 0, :] = at["c"]
        d_h[i, 0, :] = np.broadcast_to(at["d_h"], context.shape)
    grid.update(B=batch.astype(float).reshape(1, -1, 1), S=context.astype(float).reshape(1, 1, -1), N=n, c=c, b=b)
    if "d_h" in names:
        grid["d_h"] = d_h
    # what the model may use of one card: the engine's reserve and one step's activations kept (env.usable_at, as
    # plan counts a one-GPU layout; the device's engine fields, genreport sweep's --memory-reserve)
    usable = np.array([usable_at(cf.hardware, cf.model, 1) for cf in configs], dtype=float).reshape(k, 1, 1)
    cap = {**grid, "N": total_n, "b": held_b, "C": usable}  # the capacity holds every weight at its held bytes
    return grid, cap


def evaluate_sweep(configs: list[Config], batch=DEFAULT_BATCH, context=DEFAULT_CONTEXT, accounting: str = "seed",
                   chunk: int = 128, progress: Callable[[int, int], None] | None = None,
                   skipped=()) -> Sweep:
    """Evaluate the grid for every configuration, ``chunk`` configurations per numpy call."""
    import time

    q = load()
    batch = np.asarray(batch, dtype=np.int64)
    context = np.asarray(context, dtype=np.int64)
    k, nb, ns = len(configs), len(batch), len(context)
    names = sorted({a for qid in (*GRID_QUANTITIES, "capacity_batch") for a in q[qid].fn_args})
    cols = {qid: np.empty((k, nb, ns)) for qid in GRID_QUANTITIES}
    cap = np.empty((k, ns))
    weights_fit = np.empty(k, dtype=bool)
    timings = {"setup": 0.0, "evaluate": 0.0}
    for start in range(0, k, chunk):
        part = configs[start:start + chunk]
        t0 = time.perf_counter()
        grid, capin = _stack(part, batch, context, accounting, names)
        t1 = time.perf_counter()
        sl = slice(start, start + len(part))
        with np.errstate(divide="ignore", invalid="ignore"):
            for qid in GRID_QUANTITIES:
                cols[qid][sl] = q[qid](grid)
            cap[sl] = np.maximum(np.asarray(q["capacity_batch"](capin), dtype=float)[:, 0, :], 0.0)
        weights_fit[sl] = (capin["N"] * capin["b"]).ravel() <= capin["C"].ravel()
        timings["setup"] += t1 - t0
        timings["evaluate"] += time.perf_counter() - t1
        if progress:
            progress(min(start + chunk, k), k)
    t1 = time.perf_counter()
    fits = batch[None, :, None] <= cap[:, None, :]
    binds = np.where(cols["decode_time_memory"] >= cols["decode_time_compute"], 0, 1).astype(np.int8)
    binds[~fits] = 2
    within = np.array([context <= (c.model.max_context or context.max()) for c in configs], dtype=bool).reshape(k, ns)
    timings["evaluate"] += time.perf_counter() - t1
    return Sweep(configs, batch, context, accounting, cols, cap, fits, within, binds, weights_fit, list(skipped),
                 timings)


# ----------------------------------------------------------------------------------------------- tables

def _rows(sw: Sweep, head: list[bytes], sep: bytes, fits_text: tuple[bytes, bytes], binds_text: tuple[bytes, ...],
          end: bytes, nonfinite: bytes | None, chunk: int, progress, missing: bytes = b"") -> Iterator[bytes]:
    """The table's rows, joined by numpy (see :mod:`genreport.present.textcols`), ``chunk`` configurations at a time."""
    nb, ns = len(sw.batch), len(sw.context)
    per = nb * ns
    sep_s = sep.decode()
    bs_fields = np.array([f"{b}{sep_s}{s}{sep_s}".encode() for b in sw.batch.tolist() for s in sw.context.tolist()])
    fits_lut = np.array(fits_text)
    binds_lut = np.array(binds_text)
    k = len(sw.configs)
    for start in range(0, k, chunk):
        stop = min(start + chunk, k)
        n = stop - start
        prefix = np.repeat(np.array(head[start:stop]), per)
        fields = [prefix, np.tile(bs_fields, n)]
        fits = sw.fits[start:stop]
        for qid in GRID_QUANTITIES:
            if qid == "decode_tokens_per_s":  # no rate for a batch that does not fit: empty, not a number to misuse
                values = format_g6(sw.columns[qid][start:stop], nonfinite)
                fields += [np.where(fits.ravel(), values, missing), sep]
            else:
                fields += [format_g6(sw.columns[qid][start:stop], nonfinite), sep]
        cap = np.broadcast_to(sw.capacity_batch[start:stop, None, :], (n, nb, ns))
        within = np.broadcast_to(sw.within_max_context[start:stop, None, :], (n, nb, ns))
        fields += [format_int(cap.astype(np.int64)), sep, fits_lut[fits.ravel().astype(np.int8)], sep,
                   fits_lut[within.ravel().astype(np.int8)], sep, binds_lut[sw.binds[start:stop].ravel()], end]
        yield join_rows(fields)
        if progress:
            progress(stop, k)


def csv_chunks(sw: Sweep, chunk: int = 64, progress: Callable[[int, int], None] | None = None) -> Iterator[bytes]:
    """The CSV in pieces: a header, then one row a point; numbers as ``%.6g``; ``fits`` and ``within_max_context``
    as false/true; ``decode_tokens_per_s`` empty where the batch does not fit."""
    yield (",".join(COLUMNS) + "\n").encode()
    head = [f"{_csv(c.model.name)},{_csv(c.hardware.name)},{_csv(c.precision)},".encode() for c in sw.configs]
    yield from _rows(sw, head, b",", (b"false", b"true"), tuple(b.encode() for b in BINDS), b"\n", None, chunk,
                     progress)


def _csv(text: str) -> str:
    return f'"{text}"' if any(ch in text for ch in ',"\n') else text


def json_chunks(sw: Sweep, extra: dict | None = None, chunk: int = 64,
                progress: Callable[[int, int], None] | None = None) -> Iterator[bytes]:
    """``{"meta": ..., "columns": [...], "rows": [[...], ...]}`` in pieces: one row a point, like the CSV."""
    import json

    meta = {
        "accounting": sw.accounting, "batch": sw.batch.tolist(), "context": sw.context.tolist(),
        "configurations": len(sw.configs), "points": sw.points,
        "skipped": [{"model": m, "hardware": h, "precision": p, "why": w} for m, h, p, w in sw.skipped],
        # the configurations whose fp8 weights compute in bf16 (no fp8 peak on the GPU: W8A16, plan's weight-only)
        "weight_only": [{"model": c.model.name, "hardware": c.hardware.name, "precision": c.precision}
                        for c in sw.configs if c.weight_only],
        "units": {HEADERS.get(k, k): v for k, v in UNITS.items()},
        **(extra or {}),
    }
    yield ('{"meta": ' + json.dumps(meta, sort_keys=True) + ',\n "columns": ' + json.dumps(list(COLUMNS))
           + ',\n "rows": [\n').encode()
    head = [("[" + json.dumps([c.model.name, c.hardware.name, c.precision])[1:-1] + ",").encode() for c in sw.configs]
    first = True
    for block in _rows(sw, head, b",", (b"false", b"true"), tuple(f'"{b}"'.encode() for b in BINDS), b"],\n",
                       b"null", chunk, progress, missing=b"null"):
        if not first:
            yield b",\n"
        yield block[:-2]  # no comma after a block's last row
        first = False
    yield b"\n]}\n"


def csv_bytes(sw: Sweep, chunk: int = 64) -> bytes:
    return b"".join(csv_chunks(sw, chunk))


def json_bytes(sw: Sweep, extra: dict | None = None, chunk: int = 64) -> bytes:
    return b"".join(json_chunks(sw, extra, chunk))


# ----------------------------------------------------------------------------------------------- summary

def nearest(values: np.ndarray, want: float) -> int:
    """Index of the grid value nearest to ``want`` in log."""
    return int(np.argmin(np.abs(portable.log(values) - math.log(want))))


def best_per_pair(sw: Sweep, context: float = 8192) -> dict:
    """Best decode tokens/s per (model, GPU) at the grid context nearest ``context``, over
    precisions and the batches that fit; with the precision and batch that reach it."""
    j = nearest(sw.context, context)
    models = list(dict.fromkeys(c.model.name for c in sw.configs))
    gpus = list(dict.fromkeys(c.hardware.name for c in sw.configs))
    value = np.full((len(models), len(gpus)), np.nan)
    where: dict[tuple[int, int], tuple[str, int]] = {}
    tps = sw.columns["decode_tokens_per_s"][:, :, j]
    ok = sw.fits[:, :, j]
    masked = np.where(ok, tps, -np.inf)
    arg = np.argmax(masked, axis=1)
    top = masked[np.arange(len(sw.configs)), arg]
    for i, c in enumerate(sw.configs):
        if not np.isfinite(top[i]):
            continue
        r, col = models.index(c.model.name), gpus.index(c.hardware.name)
        if not np.isfinite(value[r, col]) or top[i] > value[r, col]:
            value[r, col] = top[i]
            where[(r, col)] = (c.precision, int(sw.batch[arg[i]]))
    return {"context": int(sw.context[j]), "models": models, "hardware": gpus, "value": value, "where": where}
