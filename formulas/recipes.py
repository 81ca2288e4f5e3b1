"""Training recipes: bytes per parameter by part (plain data, no SymPy).  Seed 003 section 4."""

from __future__ import annotations

# Training bytes per parameter, seed 003 section 4.
TRAINING_RECIPES: dict[str, tuple[tuple[str, int], ...]] = {
    "bf16-grads": (("bf16 weights", 2), ("bf16 gradients", 2), ("fp32 master weights", 4),
                   ("Adam m (fp32)", 4), ("Adam v (fp32)", 4)),
    "fp32-grads": (("bf16 weights", 2), ("fp32 gradients", 4), ("fp32 master weights", 4),
                   ("Adam m (fp32)", 4), ("Adam v (fp32)", 4)),
}
# Bytes per weight a training step streams: every recipe holds bf16 weights (its first part, 2 B a parameter),
# whatever format the report serves them in, so the training intensity 6 N T / (3 N b) takes b = 2.
TRAINING_WEIGHT_BYTES = 2
# The format a training step's GEMMs run in: the recipes are mixed-precision ones (bf16 weights and activations,
# fp32 master weights and optimizer state), so its compute bound takes the GPU's dense bf16 peak, whatever format the
# report serves the weights in (an fp8 serving spec does not train at the fp8 peak: no recipe here declares fp8
# GEMMs, as DeepSeek-V3's own FP8 training framework would).
TRAINING_COMPUTE = "bf16"
TRAINING_COMPUTE_SOURCE = ("mixed-precision training (Micikevicius et al., ICLR 2018): half-precision GEMMs beside fp32 "
                           "master weights; the recipes' bf16 weights (seed 003 section 4)")


def training_compute(dense: dict, compute: str) -> str:
    """The format whose dense peak a training step's compute bound takes: :data:`TRAINING_COMPUTE`, or the spec's
    compute format on a GPU whose file gives no bf16 peak (the report then says so)."""
    return TRAINING_COMPUTE if TRAINING_COMPUTE in dense else compute

RECIPE_SOURCE = {
    "bf16-grads": "ZeRO mixed-precision Adam (Rajbhandari et al. 2020), seed 003 section 4",
    "fp32-grads": "Megatron Core BF16 with fp32 gradients, seed 003 section 4",
}


def recipe_bytes_per_param(recipe: str) -> int:
    """Bytes per parameter of a training recipe: 16 or 18."""
    return sum(v for _, v in TRAINING_RECIPES[recipe])
