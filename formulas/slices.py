"""How the report prints one GPU's slice of the model (no SymPy: the build reads it; formulas.layout holds
the expressions, and a test checks these texts against them)."""

# The per-GPU symbols the report prints in place of the seeds' at a layout (glossary name -> LaTeX).
SLICE_LATEX = {
    "N": r"N_{g}", "N_a": r"N_{a,g}", "N_e": r"N_{e,g}", "N_p": r"N_{p,g}", "V": r"V_{g}", "a": r"a_{g}",
    "L": r"L_{g}", "H_q": r"H_{q,g}", "H_kv": r"H_{kv,g}", "c": r"c_{g}",
}

SLICE_MEANING = {
    "N": "parameters one GPU holds", "N_a": "parameters one GPU computes with per token",
    "N_e": "input-embedding parameters on one GPU", "N_p": "transformer-block parameters one GPU computes with",
    "V": "vocabulary rows of the output head on one GPU", "a": "activation bytes per sequence on one GPU",
    "L": "layers on one GPU (one pipeline stage)", "H_q": "query heads on one GPU",
    "H_kv": "KV heads on one GPU", "c": "KV bytes per token on one GPU",
}


# N_R, the parameters tensor parallelism holds whole on every GPU beyond one copy (formulas.parallel.N_R), as the
# slice table prints it where it is not 0 (its words: genreport.model.frame.copies_meaning, the model's own parts).
SLICE_COPIES = r"N_{R} = N_{u} \left(n_{\mathrm{TP}} - 1\right) + N_{k} \left(\frac{n_{\mathrm{TP}}}{s_{\mathrm{kv}}} - 1\right)"


# With pipeline stages the memory a GPU holds is that of the stage that holds the fewest tokens (its layers, the
# first stage's embedding, the last stage's head: genreport.model.stages), not the even split the time formulas
# take: the capacity's blocks print it under these names (plain name -> (LaTeX, definition dense / MoE, meaning)).
SLICE_HELD = {
    "N": ("N_{b,g}", (r"N_{b,g} = \frac{N + N_{R}}{n_{\mathrm{TP}} \, n_{\mathrm{PW}}}",
                      r"N_{b,g} = \frac{N + N_{R} - N_{x} \left(1 - \frac{n_{\mathrm{TP}}}{\max(n_{\mathrm{TP}}, n_{\mathrm{EP}})}"
                      r"\right)}{n_{\mathrm{TP}} \, n_{\mathrm{PW}}}"),
          "parameters held by one GPU of the stage that holds the fewest tokens"),
    "c": ("c_{b,g}", (r"c_{b,g} = \frac{c}{n_{\mathrm{PK}} \, s_{\mathrm{kv}}}",) * 2,
          "KV bytes per token on that GPU"),
}


# What the report prints for each per-GPU symbol: its definition in the layout's symbols (the expressions of
# slice_inputs; a test checks each against them), dense and with routed experts.
SLICE_DEFINITION = {
    "N": (r"N_{g} = \frac{N + N_{R}}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",
          r"N_{g} = \frac{N + N_{R} - N_{x} \left(1 - \frac{n_{\mathrm{TP}}}{\max(n_{\mathrm{TP}}, n_{\mathrm{EP}})}\right)}"
          r"{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}"),
    "N_a": (r"N_{a,g} = \frac{N_{a} + N_{R}}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",) * 2,
    "N_e": (r"N_{e,g} = \frac{N_{e}}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",) * 2,
    "N_p": (r"N_{p,g} = \frac{N_{p} + N_{R}}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",) * 2,
    "V": (r"V_{g} = \frac{V}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",) * 2,
    "a": (r"a_{g} = \frac{a}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",) * 2,
    "L": (r"L_{g} = \frac{L}{n_{\mathrm{PP}}}",) * 2,
    "H_q": (r"H_{q,g} = \frac{H_{q}}{n_{\mathrm{TP}}}",) * 2,
    "H_kv": (r"H_{kv,g} = \frac{H_{kv}}{s_{\mathrm{kv}}}",) * 2,
    "c": (r"c_{g} = \frac{c}{n_{\mathrm{PP}} \, s_{\mathrm{kv}}}",) * 2,
}


# With pipeline stages the slice is a GPU of the busiest stage before the last: the output head (V d) is the last
# stage's (formulas.layout.slice_inputs at n_st > 1), so these three print without it (dense / MoE, meaning).
SLICE_STAGED = {
    "N": ((r"N_{g} = \frac{N + N_{R} - V d}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",
           r"N_{g} = \frac{N + N_{R} - V d - N_{x} \left(1 - \frac{n_{\mathrm{TP}}}{\max(n_{\mathrm{TP}}, n_{\mathrm{EP}})}"
           r"\right)}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}"),
          "parameters one GPU holds with the layers split evenly over the stages and the output head on the last "
          "(the time formulas' slice; the capacity takes what each stage's GPU holds)"),
    "N_a": ((r"N_{a,g} = \frac{N_{a} + N_{R} - V d}{n_{\mathrm{TP}} \, n_{\mathrm{PP}}}",) * 2,
            "parameters one GPU of the busiest stage computes with per token (the head's are the last stage's)"),
    "V": ((r"V_{g} = 0",) * 2, "vocabulary rows of the output head on a GPU of the busiest stage: none, the head is "
          "the last stage's"),
}
