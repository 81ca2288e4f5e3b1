"""Figure 10 (reports with a ``serving`` block): output tokens/s per GPU against tokens/s per user, one curve per
layout ``plan`` tries at the spec's precision over its batch, the serial estimate; the estimate's Pareto frontier,
the bound's frontier, the spec's layout highlighted, the TPOT target shaded and $/M output tokens on the right
(generator/model/frontier.py computes every number)."""

from __future__ import annotations

from genreport.model.evaluate import Results
from genreport.present import fmt
from genreport.present.figures.style import (
    BLACK,
    BLUE,
    GREEN,
    GREY,
    PURPLE,
    SKY,
    VERMILION,
    _figure,
    _join,
    _log_axis,
    _pad,
    fit_left,
    legends_below,
    narrow,
    num,
    pick,
    renderer,
)

LAYOUT_COLOURS = (BLUE, GREEN, PURPLE, SKY, "#882255", "#999933")  # vermilion is the spec's own layout
# the second three dashed as well as coloured, so that no two named curves differ by their hue alone (a review could
# not tell the pink, maroon, olive and teal ones apart at print size)
LAYOUT_DASHES = ("-", "-", "-", (0, (4.0, 1.6)), (0, (4.0, 1.6)), (0, (4.0, 1.6)))
SHOWN = len(LAYOUT_COLOURS)  # frontier layouts drawn in colour; the others in grey
SPEC_LS = (0, (1.0, 1.3))  # a layout's curve with serving.speculative: dotted in the layout's colour


def _coloured(f: dict) -> list[str]:
    """The frontier layouts drawn in colour (the spec's own apart): the ones the caption names as the best inside
    the TPOT target (with speculation and without) first, then those with the most frontier points."""
    counts: dict[str, int] = {}
    for p in f["pareto"]["serial"]:
        counts[p["layout"]] = counts.get(p["layout"], 0) + 1
    own = next((x["label"] for x in f["layouts"] if x["titled"]), None)
    named = [b["layout"] for b in ((f.get("best_at_target") or {}).get("serial"),
                                   (f.get("best_at_target_plain") or {}).get("serial") if f.get("speculative") else None)
             if b is not None and b["layout"] != own]
    ranked = sorted((lab for lab in counts if lab != own), key=lambda lab: (-counts[lab], f["frontier_layouts"].index(lab)))
    keep = list(dict.fromkeys(named + ranked))[:max(SHOWN, len(set(named)))]
    return [lab for lab in f["frontier_layouts"] if lab in keep] + [lab for lab in keep if lab not in f["frontier_layouts"]]


def fig10_frontier(r: Results, baseline: Results | None = None):
    fig = _figure()
    ax = fig.add_axes(pick((0.095, 0.14, 0.53, 0.8), (0.19, 0.43, 0.6, 0.54)))
    f = (r.serving or {}).get("frontier")
    if not f or not f["layouts"]:
        ax.axis("off")
        ax.text(0.5, 0.5, "No layout holds one request of the serving shape.", ha="center", va="center",
                transform=ax.transAxes, fontsize=8)
        return fig
    colours = dict(zip(_coloured(f), LAYOUT_COLOURS, strict=False))
    dashes = dict(zip(_coloured(f), LAYOUT_DASHES, strict=False))
    xs_all, ys_all = [], []  # the coloured curves and the frontiers: the axes' range
    grey_label = "other layouts"
    for row in f["layouts"]:
        x, y = row["serial"]["tokens_per_s_user"], row["serial"]["tokens_per_s_gpu"]
        if row["titled"] or row["label"] in colours:
            xs_all += x
            ys_all += y
        if row["titled"]:
            ax.plot(x, y, color=VERMILION, lw=2.2, zorder=6, label=f"{row['label']} (this report)")
        elif row["label"] in colours:
            ax.plot(x, y, color=colours[row["label"]], lw=1.6, ls=dashes[row["label"]], zorder=4, label=row["label"])
        else:  # behind the named curves, fainter than they are
            ax.plot(x, y, color=GREY, lw=0.5, alpha=0.4, zorder=2, label=grey_label)
            grey_label = None
    spec_ = f.get("speculative")  # serving.speculative: each drawn layout's curve with it, dotted
    if spec_:
        for row in f["layouts"]:
            sp = row["speculative"]
            if not sp["batch"] or not (row["titled"] or row["label"] in colours):
                continue
            x, y = sp["serial"]["tokens_per_s_user"], sp["serial"]["tokens_per_s_gpu"]
            xs_all += x
            ys_all += y
            if row["titled"]:
                ax.plot(x, y, color=VERMILION, lw=1.8, ls=SPEC_LS, zorder=6,
                        label=f"{row['label']} with speculation")
            else:
                ax.plot(x, y, color=colours[row["label"]], lw=1.1, ls=SPEC_LS, zorder=4)
    own = next((row for row in f["layouts"] if row["titled"]), None)  # None: it holds no sequence of the shape
    if own is not None:
        ks = [own["batch"].index(b) for b in (row["batch"] for row in r.serving["rows"]) if b in own["batch"]]
        ax.plot([own["serial"]["tokens_per_s_user"][k] for k in ks],
                [own["serial"]["tokens_per_s_gpu"][k] for k in ks],
                ls="none", marker="o", ms=4.5, mfc="white", mec=VERMILION, mew=1.3, zorder=7, label="table's batches")
    fronts = [("pareto", "serial", "frontier, estimate",
               {"color": BLACK, "lw": 5.0, "alpha": 0.18, "solid_capstyle": "round"}),
              ("pareto", "bound", "frontier, bound", {"color": BLACK, "lw": 1.0, "ls": (0, (4, 2))})]
    if spec_:
        fronts[1:1] = [("pareto_speculative", "serial", "spec. frontier, estimate",
                        {"color": BLACK, "lw": 4.0, "alpha": 0.35, "ls": (0, (0.1, 1.7)), "dash_capstyle": "round"})]
        fronts.append(("pareto_speculative", "bound", "spec. frontier, bound",
                       {"color": BLACK, "lw": 1.0, "ls": (0, (5, 1.5, 1, 1.5))}))
    for key, est, label, style_ in fronts:
        pts = f[key][est]
        px, py = [p["tokens_per_s_user"] for p in pts], [p["tokens_per_s_gpu"] for p in pts]
        xs_all += px
        ys_all += py
        ax.plot(px, py, zorder=3 if est == "serial" else 5, label=label, **style_)
    ax.set_xscale("log")
    ax.set_yscale("log")
    x_lo, x_hi = _pad(min(xs_all), max(xs_all), 0.08, 0.08)
    y_lo, y_hi = _pad(min(ys_all), max(ys_all), 0.1, 0.15)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    theta = f["tpot_target"]
    if theta and 1.0 / theta < x_hi:
        ax.axvspan(max(1.0 / theta, x_lo), x_hi, color=GREEN, alpha=0.09, lw=0, zorder=0,
                   label=f"TPOT ≤ {fmt.time(theta)}")
    _log_axis(ax.xaxis, minor=(2.0, 5.0))
    _log_axis(ax.yaxis, minor=(2.0, 5.0))
    ax.set_xlabel("tokens/s per user (1 / TPOT), the serial estimate")
    ax.set_ylabel("output tokens/s per GPU")
    ax.grid(True, which="major")
    fit_left(fig, ax)
    price = f["price_per_hour"]
    if price:
        def per_mtok(t):  # its own inverse: $/M tokens = k / (tokens/s)
            import numpy as np

            return price / (np.maximum(t, 1e-12) * 3600.0) * 1e6

        sec = ax.secondary_yaxis("right", functions=(per_mtok, per_mtok))
        sec.set_ylabel(pick(f"\\$ per million output tokens at \\${price:.2f}/GPU-h", "\\$ per million output tokens"))
        _log_axis(sec.yaxis, minor=(2.0, 5.0))
    handles, names = ax.get_legend_handles_labels()
    order = sorted(range(len(names)), key=lambda i: (names[i] != f"{f['titled']} (this report)",
                                                     names[i] == "other layouts", i))
    handles, names = [handles[i] for i in order], [names[i] for i in order]
    if narrow():
        legends_below(fig, [{"handles": handles, "labels": names, "fontsize": 7}], 0.32)
    else:
        x = 0.745 if price else 0.66
        legend = fig.legend(handles, names, loc="upper left", bbox_to_anchor=(x, 0.97), fontsize=7,
                            handlelength=1.6)
        # a long layout name (a two-node layout "with speculation") would push the key off the canvas: the axes
        # give up the width the key lacks, and the key moves left by as much
        over = (legend.get_window_extent(renderer(fig)).x1 + 4) / fig.bbox.width - 1
        if over > 0:
            box = ax.get_position()
            ax.set_position((box.x0, box.y0, box.width - over, box.height))
            legend.set_bbox_to_anchor((x - over, 0.97), transform=fig.transFigure)
    return fig


def caption10(r: Results, baseline: Results | None = None) -> str:
    """The figure's caption: what is drawn and its key; what the curves show is the chapter's (:func:`frontier_text`),
    so that the figure and its caption fit on a page."""
    f = (r.serving or {}).get("frontier")
    if not f or not f["layouts"]:
        return "No layout holds one request of the serving shape: no throughput-interactivity view."
    spec, sv = r.spec, r.serving
    n = len(f["layouts"])
    runs = f", or the {f['max_sequences']:,} its engine runs at once" if f.get("max_sequences") else ""
    left = []
    if f["left_out_fit"]:
        left.append(f"{f['left_out_fit']} that hold{'s' if f['left_out_fit'] == 1 else ''} no such sequence")
    if f["left_out_ttft"]:
        left.append(f"{f['left_out_ttft']} whose prefill alone misses the TTFT target")
    text = (f"Output tokens/s per GPU against tokens/s per user under the serial estimate for {n} layout"
            f"{'s' if n > 1 else ''} that plan tries for {spec.model.title} on {spec.hardware.title} "
            f"({'left out: ' + _join(left) + '; ' if left else ''}up to {f['max_gpus']} GPUs), all at this report's "
            f"precision ({f['precision']}), each a curve over its batch per replica from 1 (right) to the "
            f"{num(sv['last_context'])}-token sequences it holds{runs} (left). Thick grey: the estimate's Pareto "
            "frontier; dashed: the bound's. ")
    # "ep72+32" among the layouts: said where the key or the caption names one, else as one of the grey curves (the
    # caption explained a name the figure nowhere showed)
    named = set(_coloured(f)) | set(f["frontier_layouts"]) | {x["label"] for x in f["layouts"] if x["titled"]}
    spreads = [x for x in f["layouts"] if x.get("redundant_experts")]
    spread = next((x for x in spreads if x["label"] in named), spreads[0] if spreads else None)
    if spread is not None and spec.model.moe is not None:
        if spread["label"] not in named:
            text += f"Among the grey curves, {len(spreads)} {'fill' if len(spreads) > 1 else 'fills'} a domain: "
        from genreport.model.plan import redundant_note

        text += redundant_note(spec.model.moe.experts, spread["ep"], spread["redundant_experts"]) + ". "
    text += (f"Vermilion: this report's {f['titled']}, the serving table's batches circled. " if f["titled_holds"]
             else f"This report's layout, {f['titled']}, holds no such sequence. ")
    if f.get("speculative"):
        text += ("Dotted, in each drawn layout's colour: the same layout with speculative decoding; grey dots and "
                 "dash-dot: its frontiers. ")
    if f["tpot_target"]:
        text += f"Shaded: TPOT ≤ {fmt.time(f['tpot_target'])}. "
    if f["price_per_hour"]:
        text += f"Right axis: $ per million output tokens at ${f['price_per_hour']:.2f} per GPU-hour."
    else:
        text += "No price in the GPU's file or the spec: no $ scale (set serving.price)."
    return text


def _running(r: Results, f: dict, best: dict) -> str:
    """How many sequences the best point runs where a layout has several replicas, and against the spec's users: a
    review read "ep8 dp8 at batch 256" as one batch beside the chapter's cheapest layout for 128 users, where it is
    256 on each of 8 replicas, 2,048 sequences."""
    lay = next((x for x in f["layouts"] if x["label"] == best["layout"]), None)
    if lay is None or lay["dp"] <= 1:
        return ""
    total = best["batch"] * lay["dp"]
    users = r.spec.serving.users if r.spec.serving is not None else None
    than = (f", {total / users:.3g}× the spec's {users:,} users" if users and total > users else
            f", the spec's {users:,} users" if users and total == users else "")
    return f" on each of its {lay['dp']} replicas ({total:,} sequences{than})"


def frontier_text(r: Results) -> str:
    """The chapter's words on the figure (what its caption used to say at length): what a point is, the frontiers,
    the engine's limit and speculative decoding's curves, and first the best point inside the TPOT target ("" without
    the figure)."""
    f = (r.serving or {}).get("frontier")
    if not f or not f["layouts"]:
        return ""
    text = ""
    best, theta = f["best_at_target"]["serial"], f["tpot_target"]
    if theta:
        if best is not None:
            usd = f", ${fmt.sig3(best['usd_per_mtok_out'])} per million output tokens" if best["usd_per_mtok_out"] else ""
            which, plain = "", None
            if f.get("speculative"):
                which = " with speculative decoding" if best["speculative"] else " without speculative decoding"
                plain = f["best_at_target_plain"]["serial"]
            text += (f"Inside the TPOT target of {fmt.time(theta)} the frontier's best per GPU"
                     f"{', with speculation or without,' if f.get('speculative') else ''} is "
                     f"{best['layout']} at batch {best['batch']:,}{_running(r, f, best)}{which}: "
                     f"{num(best['tokens_per_s_gpu'])} tok/s per GPU at {num(best['tokens_per_s_user'])} tok/s per "
                     f"user{usd}")
            if plain is not None and best["speculative"]:
                text += (f" (without it {plain['layout']} at batch {plain['batch']:,}: {num(plain['tokens_per_s_gpu'])} "
                         "tok/s per GPU)")
            text += ". "
        else:
            text += (f"No point{', with speculative decoding or without,' if f.get('speculative') else ''} meets the "
                     f"TPOT target of {fmt.time(theta)}. ")
    else:
        text += f"The frontier runs through {_join(f['frontier_layouts'])}. "
    text += ("Each point is one request of the serving shape under the serial estimate (the collectives as "
             "libraries run them: what engines pay); x is 1 / TPOT, the request's slowest round. ")
    front = f["frontier_layouts"]
    text += (f"The estimate's Pareto frontier (no point of another layout beats it on both axes) runs "
             f"through {_join(front[:8]) if len(front) <= 8 else ', '.join(front[:8]) + ' and others'}. The bound's "
             "frontier is what no implementation passes: it overlaps compute, memory and the collectives "
             "perfectly. ")
    if f.get("max_sequences"):
        text += (f"No curve runs past the {f['max_sequences']:,} sequences the engine runs at once (max_sequences, "
                 f"vLLM's max_num_seqs), which stops "
                 f"{_join(f['engine_binds']) if len(f['engine_binds']) <= 4 else ', '.join(f['engine_binds'][:4]) + ' and others'}"
                 " before the memory does. ")
    if f.get("speculative"):
        text += _speculation(r, f)
    return text.strip()


def _speculation(r: Results, f: dict) -> str:
    """The caption's sentences on serving.speculative's curves (frontier.py's ``speculative`` numbers)."""
    sp = f["speculative"]
    k, p = sp["draft_tokens"], sp["acceptance"]
    drafts = (f"drafted by {sp['draft']}" if sp["draft"] else f"the drafts {fmt.share(sp['draft_cost'])} of a plain round")
    tree = f", {sp['verify_tokens']} tokens verified per sequence" if sp["verify_tokens"] != k + 1 else ""
    text = (f"Dotted: each drawn layout with this spec's speculative decoding at every "
            f"batch ({k} draft token{'s' if k > 1 else ''}, each accepted {fmt.share(p)}, {drafts}{tree}), timed as "
            "plan --speculative times a round that speculates: the expected tokens of a verify round over the verify "
            "round and the drafts; where the verify round stays memory-bound the curve lies right of the plain one, "
            "past the break-even batch below it (plan then decodes plainly)")
    own = next((x for x in f["layouts"] if x["titled"]), None)
    if own is not None and own["speculative"]["capacity_batch"] != own["capacity_batch"]:
        cap = own["speculative"]["capacity_batch"]
        text += (f"; beside the draft a replica of {own['label']} holds {cap:,} sequences, not "
                 f"{own['capacity_batch']:,}" if cap >= 1 else
                 f"; beside the draft a replica of {own['label']} holds no sequence ({own['capacity_batch']:,} "
                 "without it)")
    numbers = ((r.serving or {}).get("techniques") or {}).get("numbers") or {}
    if "speedup_last" in numbers and own is not None:
        be, again, stops = (numbers.get("breakeven_batch"), numbers.get("resumes_batch"),
                            numbers.get("stops_again_batch"))
        paid = " again" if be is not None and be > 1 else ""  # it paid below the break-even
        text += (f"; at {own['label']} speculating does not pay from batch {be:,} to {again - 1:,} per replica and pays"
                 f"{paid} from {again:,} (the lever row's)" if be is not None and again is not None and stops is None
                 else f"; at {own['label']} speculating does not pay from batch {be:,} to {again - 1:,} per replica, "
                 f"pays{paid} from {again:,} to {stops - 1:,} and stops paying again at {stops:,} (the lever row's)"
                 if be is not None and again is not None else
                 f"; at {own['label']} speculating stops paying at batch {be:,} per replica (the lever row's)"
                 if be is not None else f"; at {own['label']} it pays at every batch a replica "
                 f"{'runs' if own['speculative']['batch_limit'] < own['speculative']['capacity_batch'] else 'holds'} "
                 "(the lever row's)")
    front = f["frontier_layouts_speculative"]
    if not front:
        return text + ". No layout holds a sequence of the serving shape beside the draft: no frontier with speculation. "
    text += (f". The estimate's frontier with speculation (grey dots) runs through "
             f"{_join(front[:8]) if len(front) <= 8 else ', '.join(front[:8]) + ' and others'}; the bound's "
             "(dash-dot) is a bound given the acceptance: each verify round's and the drafts' strict bounds over "
             "the expected tokens. ")
    return text
