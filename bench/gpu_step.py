"""Measure what a decode or prefill step pays beside its bytes and FLOPs on one CUDA GPU (needs PyTorch and a GPU).

    python bench/gpu_step.py --out step.json [--model llama-3.1-8b] [--quick]

Three measurements, written as one JSON file (tests/data/gpu_step_h200.json is one such file):

* ``kernels``: the fixed cost of one kernel.  An empty CUDA C++ kernel (built with nvcc when it is on the PATH)
  launched N times from a stream, and the same kernels captured in a CUDA graph and replayed; then PyTorch's
  smallest op (``torch.add(x, 1, out=y)`` on one element) issued from Python, and the same ops captured in a
  ``torch.cuda.CUDAGraph``.  Each cost is the wall time over the kernels, after a synchronize: what a step of tiny
  kernels pays per kernel when the host issues them one by one (the launch, tau_l) or replays them (tau_k).
* ``decode``: one decode step of the model's shape (random bf16 weights; Llama-style: RMSNorm, fused QKV, rotary,
  KV-cache write, attention over S cached tokens, O, RMSNorm, fused gate-up, SiLU-and-mul, down, then the final
  norm, the LM head and argmax) for batch B at context S, captured in a CUDA graph and replayed (as engines run
  decode), and issued op by op (eager).  The PyTorch profiler counts the kernels of one eager step and sums their
  GPU time, so that (graph step - kernel time) / kernels is the graph's cost per kernel in a real step.
* ``prefill``: one prompt of P tokens (batch 1, causal attention), eager, the LM head at the last position only.

Times are medians of CUDA-event timings after warm-up.  Only the shape is the model's: the weights are random, so
the numbers say what the kernels cost, not what the model says.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

DEVICE = "cuda"  # "cpu" checks the shapes on a machine without a GPU (tests do not run this script)
SHAPES = {  # the model files' numbers (specs/models/*.yaml)
    "llama-3.1-8b": dict(layers=32, d=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256),
}

CUDA_SOURCE = r"""
#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>
__global__ void empty_kernel() {}
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main() {
  const int n = 20000, in_graph = 1000, replays = 50;
  cudaStream_t s; cudaStreamCreate(&s);
  for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  double best_launch = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 32, 0, s>>>();
    cudaStreamSynchronize(s);
    double t = (now() - t0) / n; if (t < best_launch) best_launch = t;
  }
  cudaGraph_t g; cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < in_graph; ++i) empty_kernel<<<1, 32, 0, s>>>();
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&ge, g, 0);
  cudaGraphLaunch(ge, s); cudaStreamSynchronize(s);
  double best_graph = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    for (int r = 0; r < replays; ++r) cudaGraphLaunch(ge, s);
    cudaStreamSynchronize(s);
    double t = (now() - t0) / (replays * (double)in_graph); if (t < best_graph) best_graph = t;
  }
  printf("{\"launch_s\": %.9e, \"graph_kernel_s\": %.9e, \"launches\": %d, \"kernels_in_graph\": %d}\n",
         best_launch, best_graph, n, in_graph);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : 1;
}
"""


def cuda_cpp_kernels() -> dict:
    """The empty kernel's launch and graph-replay costs, from a CUDA C++ program (nvcc), or why they are absent."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        return {"absent": "nvcc is not on the PATH"}
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "k.cu"), os.path.join(tmp, "k")
        with open(src, "w") as fh:
            fh.write(CUDA_SOURCE)
        built = subprocess.run([nvcc, "-O2", "-o", exe, src], capture_output=True, text=True)
        if built.returncode:
            return {"absent": f"nvcc failed: {built.stderr[-400:]}"}
        ran = subprocess.run([exe], capture_output=True, text=True, timeout=120)
        if ran.returncode:
            return {"absent": f"the program failed: {ran.stdout[-200:]} {ran.stderr[-200:]}"}
        return json.loads(ran.stdout)


def torch_kernels(torch) -> dict:
    """PyTorch's smallest op issued from Python, one by one and replayed from a CUDA graph [s per kernel]."""
    x = torch.zeros(1, device=DEVICE)
    y = torch.empty_like(x)
    n, in_graph, replays = 20000, 1000, 50
    for _ in range(1000):
        torch.add(x, 1, out=y)
    torch.cuda.synchronize()
    eager = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            torch.add(x, 1, out=y)
        torch.cuda.synchronize()
        eager.append((time.perf_counter() - t0) / n)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        torch.add(x, 1, out=y)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(in_graph):
            torch.add(x, 1, out=y)
    g.replay()
    torch.cuda.synchronize()
    replay = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(replays):
            g.replay()
        torch.cuda.synchronize()
        replay.append((time.perf_counter() - t0) / (replays * in_graph))
    return {"eager_op_s": min(eager), "graph_kernel_s": min(replay), "ops": n, "kernels_in_graph": in_graph}


class Model:
    """A Llama-shaped stack with random bf16 weights and a static KV cache of ``context`` tokens per sequence."""

    def __init__(self, torch, shape: dict, batch: int, context: int):
        self.t, self.s = torch, shape
        dev, bf = DEVICE, torch.bfloat16
        d, hq, hk, dh, f = shape["d"], shape["heads"], shape["kv_heads"], shape["head_dim"], shape["ffn"]
        L = shape["layers"]
        g = torch.Generator(device=dev).manual_seed(0)

        def w(*size):
            return (torch.randn(*size, device=dev, dtype=bf, generator=g) * 0.02)

        self.emb = w(shape["vocab"], d)
        self.lm = w(shape["vocab"], d)
        self.qkv = [w((hq + 2 * hk) * dh, d) for _ in range(L)]
        self.o = [w(d, hq * dh) for _ in range(L)]
        self.gu = [w(2 * f, d) for _ in range(L)]
        self.down = [w(d, f) for _ in range(L)]
        self.n1 = [torch.ones(d, device=dev, dtype=bf) for _ in range(L)]
        self.n2 = [torch.ones(d, device=dev, dtype=bf) for _ in range(L)]
        self.nf = torch.ones(d, device=dev, dtype=bf)
        self.batch, self.context = batch, context
        self.kc = [torch.zeros(batch, hk, context, dh, device=dev, dtype=bf) for _ in range(L)] if context else []
        self.vc = [torch.zeros(batch, hk, context, dh, device=dev, dtype=bf) for _ in range(L)] if context else []
        half = dh // 2
        inv = 1.0 / (500000.0 ** (torch.arange(half, device=dev, dtype=torch.float32) / half))
        self.inv_freq = inv

    def rms(self, x, weight):
        t = self.t
        var = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * t.rsqrt(var + 1e-5)).to(x.dtype) * weight

    def rope(self, x, cos, sin):
        half = x.shape[-1] // 2
        x1, x2 = x[..., :half], x[..., half:]
        return self.t.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)

    def mlp(self, h, layer):
        t = self.t
        gu = h @ self.gu[layer].t()
        g, u = gu.chunk(2, dim=-1)
        return (t.nn.functional.silu(g) * u) @ self.down[layer].t()

    def decode(self, tokens, slot):
        """One decode step: tokens (B,), the new K/V written at cache position ``slot`` (a 1-element tensor)."""
        t, s = self.t, self.s
        B, hq, hk, dh = self.batch, s["heads"], s["kv_heads"], s["head_dim"]
        pos = slot.float()
        freqs = pos[:, None] * self.inv_freq[None, :]
        cos, sin = freqs.cos().to(t.bfloat16), freqs.sin().to(t.bfloat16)
        x = self.emb[tokens]
        for layer in range(s["layers"]):
            h = self.rms(x, self.n1[layer])
            qkv = h @ self.qkv[layer].t()
            q, k, v = qkv.split([hq * dh, hk * dh, hk * dh], dim=-1)
            q = self.rope(q.view(B, hq, dh), cos, sin)
            k = self.rope(k.view(B, hk, dh), cos, sin)
            self.kc[layer].index_copy_(2, slot, k.view(B, hk, 1, dh))
            self.vc[layer].index_copy_(2, slot, v.view(B, hk, 1, dh))
            # the hq/hk query heads of a group attend to the same cached keys: one query block per KV head
            a = t.nn.functional.scaled_dot_product_attention(q.view(B, hk, hq // hk, dh), self.kc[layer],
                                                              self.vc[layer])
            x = x + a.reshape(B, hq * dh) @ self.o[layer].t()
            x = x + self.mlp(self.rms(x, self.n2[layer]), layer)
        logits = self.rms(x, self.nf) @ self.lm.t()
        return logits.argmax(-1)

    def prefill(self, tokens):
        """One prompt of P tokens (batch 1), causal attention, the LM head at the last position."""
        t, s = self.t, self.s
        P, hq, hk, dh = tokens.shape[0], s["heads"], s["kv_heads"], s["head_dim"]
        pos = t.arange(P, device=DEVICE, dtype=t.float32)
        freqs = pos[:, None] * self.inv_freq[None, :]
        cos, sin = freqs.cos().to(t.bfloat16)[:, None, :], freqs.sin().to(t.bfloat16)[:, None, :]
        x = self.emb[tokens]
        for layer in range(s["layers"]):
            h = self.rms(x, self.n1[layer])
            qkv = h @ self.qkv[layer].t()
            q, k, v = qkv.split([hq * dh, hk * dh, hk * dh], dim=-1)
            q = self.rope(q.view(P, hq, dh), cos, sin).transpose(0, 1)[None]
            k = self.rope(k.view(P, hk, dh), cos, sin).transpose(0, 1)[None]
            v = v.view(P, hk, dh).transpose(0, 1)[None]
            a = t.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            x = x + a[0].transpose(0, 1).reshape(P, hq * dh) @ self.o[layer].t()
            x = x + self.mlp(self.rms(x, self.n2[layer]), layer)
        logits = self.rms(x[-1:], self.nf) @ self.lm.t()
        return logits.argmax(-1)


def timed(torch, fn, reps: int) -> float:
    """Median of ``reps`` CUDA-event timings of fn() [s], after two warm-up calls."""
    fn()
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    return times[len(times) // 2]


def profiled(torch, fn) -> tuple[int, float]:
    """Kernels one call of fn() launches and their summed GPU time [s] (PyTorch profiler, read from its Chrome
    trace: events of category "kernel")."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as fh:
            events = json.load(fh)
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
    return len(kernels), sum(float(e.get("dur", 0)) for e in kernels) / 1e6


def decode_point(torch, shape: dict, batch: int, context: int, reps: int, compiled: bool = False) -> dict:
    """One decode point: eager and graph-replayed step times, the kernels of a step and their GPU time.  With
    ``compiled`` the step is torch.compile'd first (Inductor fuses the element-wise ops into Triton kernels; the
    GEMMs stay cuBLAS's), then captured and replayed as the eager one is."""
    m = Model(torch, shape, batch, context)
    tokens = torch.randint(0, shape["vocab"], (batch,), device=DEVICE)
    slot = torch.tensor([context - 1], device=DEVICE)
    step = m.decode
    started = time.perf_counter()
    if compiled:
        step = torch.compile(m.decode, fullgraph=True, dynamic=False)
    with torch.no_grad():
        step(tokens, slot)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - started
        eager = timed(torch, lambda: step(tokens, slot), reps)
        kernels, busy = profiled(torch, lambda: step(tokens, slot))
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            step(tokens, slot)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step(tokens, slot)
        graph = timed(torch, g.replay, reps)
    row = {"batch": batch, "context": context, "graph_s": graph, "eager_s": eager, "kernels": kernels,
           "kernel_time_s": busy}
    if compiled:
        row["compile_s"] = compile_s
    return row


def prefill_point(torch, shape: dict, tokens_n: int, reps: int, model=None) -> dict:
    m = model or Model(torch, shape, 1, 0)
    tokens = torch.randint(0, shape["vocab"], (tokens_n,), device=DEVICE)
    with torch.no_grad():
        eager = timed(torch, lambda: m.prefill(tokens), reps)
        kernels, busy = profiled(torch, lambda: m.prefill(tokens))
    return {"batch": 1, "prompt": tokens_n, "eager_s": eager, "kernels": kernels, "kernel_time_s": busy}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--model", default="llama-3.1-8b", choices=sorted(SHAPES))
    p.add_argument("--quick", action="store_true", help="two decode points and one prompt (a check of the script)")
    p.add_argument("--compiled", action="store_true",
                   help="after the kernel costs, only torch.compile'd decode steps (decode_compiled)")
    args = p.parse_args(argv)
    import torch

    shape = SHAPES[args.model]
    props = torch.cuda.get_device_properties(0)
    result = {"device": props.name, "multiprocessors": props.multi_processor_count,
              "memory_bytes": int(props.total_memory), "torch": torch.__version__, "cuda": torch.version.cuda,
              "model": args.model, "shape": shape, "dtype": "bf16", "method": __doc__.strip().split("\n\n", 1)[1],
              "date": time.strftime("%Y-%m-%d")}

    def save():
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1)

    result["kernels"] = {"cuda_cpp": cuda_cpp_kernels(), "torch": torch_kernels(torch)}
    print(json.dumps(result["kernels"]), flush=True)
    save()
    if args.compiled:
        points = []
    else:
        points = ([(1, 1024), (64, 1024)] if args.quick else
                  [(1, 1024), (1, 8192), (8, 1024), (8, 8192), (32, 1024), (32, 8192), (64, 4096), (128, 1024),
                   (128, 4096), (256, 1024), (512, 512)])
    result["decode"] = []
    for batch, context in points:
        try:
            row = decode_point(torch, shape, batch, context, 10 if args.quick else 20)
        except Exception as exc:  # noqa: BLE001 - a point that fails is recorded, the others still run
            row = {"batch": batch, "context": context, "error": f"{type(exc).__name__}: {exc}"[:300]}
            torch.cuda.empty_cache()
        torch.cuda.empty_cache()  # the point's weights and cache are freed once decode_point returns
        result["decode"].append(row)
        print(json.dumps(row), flush=True)
        save()
    if args.compiled:
        result["decode_compiled"] = []
        for batch, context in ([(1, 1024)] if args.quick else [(1, 1024), (16, 4096), (64, 1024), (256, 1024)]):
            try:
                row = decode_point(torch, shape, batch, context, 20, compiled=True)
            except Exception as exc:  # noqa: BLE001
                row = {"batch": batch, "context": context, "error": f"{type(exc).__name__}: {exc}"[:300]}
            torch.cuda.empty_cache()
            result["decode_compiled"].append(row)
            print(json.dumps(row), flush=True)
            save()
        return 0
    result["prefill"] = []
    model = Model(torch, shape, 1, 0)
    for n in ([512] if args.quick else [16, 128, 512, 2048, 8192]):
        try:
            row = prefill_point(torch, shape, n, 5 if args.quick else 10, model)
        except Exception as exc:  # noqa: BLE001
            row = {"batch": 1, "prompt": n, "error": f"{type(exc).__name__}: {exc}"[:300]}
        result["prefill"].append(row)
        print(json.dumps(row), flush=True)
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
