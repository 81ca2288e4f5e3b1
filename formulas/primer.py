"""The GPU primer of seed 000 as SymPy: warps, issue width, on-chip memory, and intensities of simple kernels.

Seed 000 ("arithmetic is cheap, moving data is expensive") explains the GPU before the roofline: threads are
grouped into warps, an SM keeps many warps resident and its schedulers issue a few of them per cycle, on-chip
memory is small, and the intensity of a kernel decides whether it waits on memory.  Each function here is a
pure SymPy expression of its arguments (numbers or symbols); the inputs come from the hardware spec's
``architecture`` block (counts, and sizes in bytes) and the precision's bytes per element.

The symbols below are local to the primer (they are not roofline symbols and do not appear in
:mod:`formulas.glossary`):

======  =========  ==========================================================
symbol  unit       meaning
======  =========  ==========================================================
t       thread     threads in a block
w       thread     threads per warp (warp size)
n_SM    1          streaming multiprocessors on the chip
n_s     1          warp schedulers per SM (each issues one warp per cycle)
r_SM    B          register file per SM
L2      B          L2 cache
k       1          elementwise kernels fused into one
W_SM    warp       resident warps per SM
s       B          DRAM sector: the smallest transfer the memory system makes
e       B          bytes of the element an access wants
I       FLOP/B     intensity of a kernel
======  =========  ==========================================================
"""

from __future__ import annotations

import sympy as sp

from . import gemm, roofline
from .glossary import sym


def _num(x):
    """A number as a SymPy number (symbols and expressions pass through); never parses text."""
    if isinstance(x, str):
        raise TypeError("formulas take numbers or SymPy expressions, not text")
    if isinstance(x, bool):
        raise TypeError("not a number")
    if isinstance(x, int):
        return sp.Integer(x)
    if isinstance(x, float):
        return sp.Float(x) if x != int(x) else sp.Integer(int(x))
    return x

# The smallest unit of global-memory traffic on NVIDIA GPUs since Volta: a 32-byte sector
# (CUDA C++ Best Practices Guide, "Coalesced access to global memory").  Seed 000 does not state it;
# the hardware schema has no field for it yet.
SECTOR_BYTES = 32

# One multiply-add is two FLOPs (the convention of formulas.gemm.gemm_flops).
FLOPS_PER_MAC = gemm.gemm_flops(sp.Integer(1), 1, 1)

t, w, n_SM, n_s, r_SM, L2, k, s, e, W_SM = sp.symbols("t w n_SM n_s r_SM L2 k s e W_SM", positive=True)
b, R, n = sym("b"), sym("R"), sym("n")
INTENSITY = sp.Symbol("I", positive=True)  # intensity of a kernel [FLOP/B]


def warps_per_block(t=t, w=w):
    """Warps the hardware launches for a block of t threads [warp]: ceiling(t / w).

    Seed 000, "SM" section: a 256-thread block becomes 8 warps, and 250 threads still need 8.

    >>> warps_per_block(256, 32), warps_per_block(250, 32), warps_per_block(1024, 32)
    (8, 8, 32)
    """
    return sp.ceiling(_num(t) / w)


def last_warp_active_lanes(t=t, w=w):
    """Lanes of the last warp that have work [thread]: t - (ceiling(t / w) - 1) w.

    Seed 000, "SM" section: with 250 threads the last warp has 26 active lanes.

    >>> last_warp_active_lanes(250, 32)
    26
    """
    return t - (warps_per_block(t, w) - 1) * w


def wasted_lanes(t=t, w=w):
    """Idle lanes of a block [thread]: ceiling(t / w) w - t.

    Seed 000, "SM" section: 250 threads waste 6 lanes of the last warp.

    >>> wasted_lanes(250, 32), wasted_lanes(256, 32)
    (6, 0)
    """
    return warps_per_block(t, w) * w - t


def warps_issued_per_cycle(n_SM=n_SM, n_s=n_s):
    """Warps that issue an instruction in one cycle [warp/cycle]: n_SM n_s (one per scheduler).

    Seed 000, "latency" section says "each cycle only one of them executes": true per scheduler;
    an H100 SM has 4 schedulers, so 4 warps issue per SM per cycle.

    >>> warps_issued_per_cycle(1, 4)
    4
    """
    return _num(n_SM) * n_s


def threads_issued_per_cycle(n_SM=n_SM, n_s=n_s, w=w):
    """Threads advanced in one cycle by the whole chip [thread/cycle]: n_SM n_s w.

    Seed 000, "GPU design" section ("tens of thousands of threads per cycle"): H100 SXM
    132 SMs x 4 schedulers x 32 lanes = 16,896.

    >>> threads_issued_per_cycle(132, 4, 32)
    16896
    """
    return warps_issued_per_cycle(n_SM, n_s) * w


def resident_threads(n_SM=n_SM, warps_per_sm=W_SM, w=w):
    """Threads resident on the chip at once [thread]: n_SM W_SM w (W_SM resident warps per SM).

    Seed 000, "latency" section (64 resident warps per SM): H100 SXM 132 x 64 x 32 = 270,336.

    >>> resident_threads(132, 64, 32)
    270336
    """
    return _num(n_SM) * warps_per_sm * w


def register_file_total(n_SM=n_SM, r_SM=r_SM):
    """Registers of the whole chip [B]: n_SM r_SM.

    Seed 000, "SM" section.

    >>> register_file_total(132, 256 * 1024)
    34603008
    """
    return _num(n_SM) * r_SM


def register_file_to_l2(n_SM=n_SM, r_SM=r_SM, L2=L2):
    """Total register file over L2 [1]: n_SM r_SM / L2.

    Seed 000, "SM" section ("all registers together are about as large as L2"): H100 SXM
    132 x 256 KiB / 50 MB = 0.69.

    >>> round(float(register_file_to_l2(132, 256 * 1024, 50e6)), 2)
    0.69
    """
    return register_file_total(n_SM, r_SM) / L2


def elementwise_intensity(b=b):
    """Intensity of an elementwise kernel (x -> 2x) [FLOP/B]: 1 / (2 b).

    One FLOP per element over b bytes read plus b bytes written.  Seed 000, "intensity" section says
    "about 1 operation per byte"; that is 1 per element: per byte it is 0.25 in bf16, 0.125 in fp32.

    >>> elementwise_intensity(2), elementwise_intensity(4)
    (1/4, 1/8)
    """
    return sp.Integer(1) / (2 * _num(b))


def unfused_traffic(k=k, b=b):
    """Bytes per element moved by k separate elementwise kernels [B]: 2 k b (each reads and writes once)."""
    return 2 * k * b


def fused_traffic(b=b):
    """Bytes per element moved by the same k kernels fused into one [B]: 2 b (one read, one write)."""
    return 2 * _num(b)


def fused_traffic_saving(k=k):
    """Fraction of HBM traffic removed by fusing k elementwise kernels [1]: 1 - 2b/(2kb) = 1 - 1/k.

    Seed 000, "fusion" section: fusing 3 kernels cuts the traffic by two thirds.

    >>> fused_traffic_saving(3)
    2/3
    """
    return sp.simplify(1 - fused_traffic(b) / unfused_traffic(k, b))


def coalescing_amplification(s=s, element=e):
    """Bytes moved per byte used when every access touches its own sector [1]: s / e.

    Seed 000, "access pattern" section: scattered 4-byte reads each pull a 32-byte sector, so 1 GB
    of useful data moves 8 GB.

    >>> coalescing_amplification(SECTOR_BYTES, 4)
    8
    """
    return _num(s) / element


def square_matmul_reuse(n=n):
    """Multiplications each value of A takes part in, for an n x n by n x n product [1]: n.

    The product does n^3 multiply-adds over n^2 values of A.  Seed 000, "intensity" section: in a
    1024 x 1024 matmul each value is multiplied by 1024 values of the other matrix.

    >>> square_matmul_reuse(1024)
    1024
    """
    n = _num(n)
    return gemm.gemm_flops(n, n, n) / FLOPS_PER_MAC / n**2


def square_matmul_intensity(n=n, b=b):
    """Full intensity of an n x n by n x n product [FLOP/B]: 2 n^3 / (3 n^2 b) = 2n / (3b).

    Reads both inputs and writes the output once (:func:`formulas.gemm.gemm_intensity` with m = T = n).
    Seed 000, "intensity" section: 1024 in bf16 gives 341 FLOP/B, right of the H100 ridge.

    >>> square_matmul_intensity(1024, 2)
    1024/3
    """
    n, b = _num(n), _num(b)
    return sp.simplify(gemm.gemm_intensity(n, n, n, b))


def orders_of_magnitude(x, y):
    """How many decades x is above y [1]: log10(x / y).  Seed 000 ("three orders of magnitude")."""
    return sp.log(_num(x) / y, 10)


def alu_idle_fraction(intensity=INTENSITY, R=R):
    """Fraction of time the arithmetic units must idle at intensity I [1]: max(0, 1 - I / R).

    Below the ridge the attainable rate is W I = P I / R (:func:`formulas.roofline.utilisation_at`).
    Seed 000, "ridge" section: at 100 FLOP/B on an H100 (R = 295) about two thirds of the time.

    >>> alu_idle_fraction(100, 300)
    2/3
    >>> alu_idle_fraction(400, 300)
    0
    """
    W = sym("W")
    return sp.Max(0, 1 - roofline.utilisation_at(_num(intensity), P=R * W, W=W))
