"""What the live page's port of the evaluation needs besides the spec: the loader's and the formulas' constants."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def tables() -> dict:
    """Constants of the loader and the formulas the browser needs (precision bytes, recipes, units of quantities)."""
    from genreport.formulas.compiled import load
    from genreport.formulas.recipes import (
        TRAINING_COMPUTE,
        TRAINING_RECIPES,
        TRAINING_WEIGHT_BYTES,
        recipe_bytes_per_param,
    )
    from genreport.load.spec import (
        DEFAULT_MAX_BATCHED_TOKENS,
        DEFAULT_MAX_SEQUENCES,
        DEFAULT_MEMORY_RESERVE,
        INTEGER_FORMATS,
        NATIVE_FP4,
        PRECISION_BYTES,
        WEIGHT_COMPUTE,
        WEIGHT_FORMAT_BYTES,
    )
    from genreport.model.layout import TRAINING_SPLIT

    return {
        "precision_bytes": dict(PRECISION_BYTES), "integer_formats": list(INTEGER_FORMATS),
        "weight_format_bytes": {k: v for k, v in WEIGHT_FORMAT_BYTES.items() if k not in PRECISION_BYTES},
        "weight_compute": dict(WEIGHT_COMPUTE), "native_fp4": list(NATIVE_FP4),
        "recipes": {name: recipe_bytes_per_param(name) for name in sorted(TRAINING_RECIPES)},
        "training_weight_bytes": TRAINING_WEIGHT_BYTES, "training_compute": TRAINING_COMPUTE,
        "meta": {qid: [c.unit, c.integer] for qid, c in sorted(load().items())},
        "training_split": {name: list(parts) for name, parts in sorted(TRAINING_SPLIT.items())},
        # the engine's defaults (vLLM's): what a reserve or a step too large is measured against (loader)
        "engine_defaults": {"memory_reserve": DEFAULT_MEMORY_RESERVE, "max_batched_tokens": DEFAULT_MAX_BATCHED_TOKENS,
                            "max_sequences": DEFAULT_MAX_SEQUENCES},
    }
