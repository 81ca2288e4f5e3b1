"""Figure 11 (reports with a ``serving`` block): time to first token and time per output token against the arrival
rate of one replica, with chunked prefill and without, the goodput points marked and where each curve stops
(generator/model/techniques.py's ``rate_curves`` computes every number, from formulas/techniques.py)."""

from __future__ import annotations

import math

from genreport.model.evaluate import Results
from genreport.present.figures.style import (
    BLUE,
    GREEN,
    VERMILION,
    _figure,
    _log_axis,
    _pad,
    fit_left,
    legends_below,
    narrow,
    num,
    tick,
)

STOPS = {"compute": "the compute roof", "memory": "the bandwidth (the step grows without end)",
         "prefills": "the prefills back to back (one prompt every t_p)",
         "chunk budget": "the chunk budget (prompts queue without end)",
         "capacity": "the KV cache room (the caches fill at the mean context)",
         "engine": "the engine's max_sequences (it runs no more sequences at once; the arrivals past it wait)"}


def _stop(kind: str, said: set) -> str:
    """A limit in the caption's words, its parenthesis only the first time the caption names it."""
    text = STOPS.get(kind, "the " + kind)
    if kind in said:
        return text.split(" (")[0]
    said.add(kind)
    return text


def _rates(r: Results) -> dict | None:
    tech = (r.serving or {}).get("techniques")
    return tech.get("rates") if tech else None


def _set_ylim(ax, ys: list[float]) -> None:
    """A log axis over ``ys``, padded; a curve nearly flat gets a span of 4x, so that its ticks stay distinct."""
    lo, hi = min(ys), max(ys)
    if hi < 2 * lo:
        mid = math.sqrt(lo * hi)
        lo, hi = mid / 2, mid * 2
    ax.set_ylim(*_pad(lo, hi, 0.12, 0.12))
    _log_axis(ax.yaxis, minor=(2.0, 5.0))
    if max(ys) / min(ys) < 30:  # less than a decade and a half: the 2s and 5s labelled too
        from matplotlib.ticker import FuncFormatter  # here: a build whose figures are kept loads no Matplotlib

        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _pos: tick(v)))


def _one_token(fig, ra: dict, styles: dict) -> None:
    """A one-token request's rates: it has no decode round, so no time per output token, no time between tokens and
    no step a user waits on; the TTFT with chunked prefill and with each prompt prefilled alone, steady and at P90
    with the prompts queued, the goodput points and the TTFT target, in one panel."""
    ax = fig.add_axes((0.17, 0.43, 0.78, 0.52) if narrow() else (0.08, 0.14, 0.84, 0.68))
    ys = []
    for kind, (colour, label) in styles.items():
        c = ra[kind]
        rate = c["rate"]
        ax.plot(rate, [t * 1e3 for t in c["ttft"]], color=colour, label=label)
        queued = [(x, t * 1e3) for x, t in zip(rate, c.get("ttft_p90", []), strict=False) if math.isfinite(t)]
        if queued:
            ax.plot([x for x, _ in queued], [y for _, y in queued], color=colour, lw=1.0, ls=(0, (1, 1.5)),
                    label="P90 TTFT, prompts queued" if kind == "chunked" else None)
        if c.get("ttft_tail_binds") == "P90 TTFT target" and c.get("ttft_tail_rate"):
            ax.plot([c["ttft_tail_rate"]], [ra["ttft_target"] * 1e3], marker="D", ms=6, color=colour, mec="black",
                    mew=0.6, ls="none", zorder=6, label="P90 TTFT capacity" if kind == "chunked" else None)
        ax.plot([rate[-1]], [c["ttft"][-1] * 1e3], marker="|", ms=9, mew=1.6, color=colour, ls="none", zorder=5)
        if c["goodput"] > 0:
            ax.plot([c["goodput"]], [c["goodput_ttft"] * 1e3], marker="*", ms=10, color=colour, mec="black", mew=0.6,
                    ls="none", zorder=6, label="goodput" if kind == "chunked" else None)
        ys += [t * 1e3 for key in ("ttft", "ttft_p90") for t in c.get(key, []) if math.isfinite(t)]
    if ra["ttft_target"]:
        ax.axhline(ra["ttft_target"] * 1e3, color=GREEN, lw=1.0, ls=(0, (4, 2)), zorder=1, label="TTFT target")
        ys.append(ra["ttft_target"] * 1e3)
    ax.set_yscale("log")
    _set_ylim(ax, ys)
    ax.set_xlim(left=0)
    ax.grid(True, which="major")
    ax.set_ylabel("TTFT (ms), at least")
    ax.set_xlabel("requests/s arriving at one replica")
    fit_left(fig, ax)
    _legend(fig, ax)


def _legend(fig, ax) -> None:
    """The figure's legend of ``ax``'s labelled lines: below the panels on a phone, above them otherwise."""
    handles, names = ax.get_legend_handles_labels()
    if narrow():
        legends_below(fig, [{"handles": handles, "labels": names, "fontsize": 7}], 0.28)
    else:
        fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 1.0), ncols=3, fontsize=7,
                   handlelength=1.8, columnspacing=1.2)


def fig11_rates(r: Results, baseline: Results | None = None):
    fig = _figure()
    ra = _rates(r)
    if narrow():
        top = fig.add_axes((0.17, 0.71, 0.78, 0.26))
        bottom = fig.add_axes((0.17, 0.37, 0.78, 0.26))
    else:
        top = fig.add_axes((0.08, 0.14, 0.36, 0.68))
        bottom = fig.add_axes((0.56, 0.14, 0.36, 0.68))
    ttft_ax, tpot_ax = top, bottom
    if ra is None or max(ra["chunked"]["stop"], ra["unchunked"]["stop"]) <= 0:
        for ax in (ttft_ax, tpot_ax):
            ax.axis("off")
        if ra is not None:
            fig.text(0.5, 0.5, "A GPU of this layout holds no request's cache beside its weights: no rate is served.",
                     ha="center", va="center", fontsize=8, wrap=True)
        return fig
    styles = {"chunked": (BLUE, f"chunked prefill ({ra['chunk']:,}-token step budget)"),
              "unchunked": (VERMILION, "prompts prefilled alone")}
    if ra.get("one_token"):  # no decode round: the TTFT alone, one panel
        for ax in (ttft_ax, tpot_ax):
            fig.delaxes(ax)
        _one_token(fig, ra, styles)
        return fig
    for kind, (colour, label) in styles.items():
        c = ra[kind]
        rate = c["rate"]
        ttft_ax.plot(rate, [t * 1e3 for t in c["ttft"]], color=colour, label=label)
        tpot_ax.plot(rate, [t * 1e3 for t in c["tpot"]], color=colour, label=label)
        # the P90 TTFT with the prompts queued for their prefills (Poisson arrivals), where it is finite
        queued = [(x, t * 1e3) for x, t in zip(rate, c.get("ttft_p90", []), strict=False) if math.isfinite(t)]
        if queued:
            ttft_ax.plot([x for x, _ in queued], [y for _, y in queued], color=colour, lw=1.0, ls=(0, (1, 1.5)))
        if c.get("ttft_tail_binds") == "P90 TTFT target" and c.get("ttft_tail_rate"):
            ttft_ax.plot([c["ttft_tail_rate"]], [ra["ttft_target"] * 1e3], marker="D", ms=6, color=colour,
                         mec="black", mew=0.6, ls="none", zorder=6)
        # the P99 time between tokens (a staircase without chunks: whole prefills in the gap), where it is finite
        tail = [(x, t * 1e3) for x, t in zip(rate, c["p99"], strict=True) if math.isfinite(t)]
        if tail:
            tpot_ax.plot([x for x, _ in tail], [y for _, y in tail], color=colour, lw=1.0, ls=(0, (1, 1.5)),
                         drawstyle="steps-post" if kind == "unchunked" else "default",
                         label="P99 TBT, P90 TTFT" if kind == "chunked" else None)
        if c.get("p99_rate"):
            tpot_ax.plot([c["p99_rate"]], [ra["tpot_target"] * 1e3], marker="D", ms=6, color=colour, mec="black",
                         mew=0.6, ls="none", zorder=6, label="P99 capacity" if kind == "chunked" else None)
        for ax, y in ((ttft_ax, c["ttft"][-1]), (tpot_ax, c["tpot"][-1])):
            ax.plot([rate[-1]], [y * 1e3], marker="|", ms=9, mew=1.6, color=colour, ls="none", zorder=5)
        if c["goodput"] > 0:
            for ax, y in ((ttft_ax, c["goodput_ttft"]), (tpot_ax, c["goodput_tpot"])):
                ax.plot([c["goodput"]], [y * 1e3], marker="*", ms=10, color=colour, mec="black", mew=0.6, ls="none",
                        zorder=6, label="goodput" if kind == "chunked" and ax is tpot_ax else None)
    for ax, target, what, keys in ((ttft_ax, ra["ttft_target"], "TTFT", ("ttft", "ttft_p90")),
                                   (tpot_ax, ra["tpot_target"], "TPOT", ("tpot", "p99"))):
        if target:
            ax.axhline(target * 1e3, color=GREEN, lw=1.0, ls=(0, (4, 2)), zorder=1,
                       label="targets" if ax is tpot_ax else None)
        ys = [y * 1e3 for k in ("chunked", "unchunked") for key in keys for y in ra[k].get(key, [])
              if math.isfinite(y)] + ([target * 1e3] if target else [])
        ax.set_yscale("log")
        _set_ylim(ax, ys)
        ax.set_xlim(left=0)
        ax.grid(True, which="major")
        ax.set_ylabel(f"{what} (ms), at least" if ax is ttft_ax else "TPOT and P99 TBT (ms), at least")
        fit_left(fig, ax)
    tpot_ax.set_xlabel("requests/s arriving at one replica")
    if not narrow():
        ttft_ax.set_xlabel("requests/s arriving at one replica")
    _legend(fig, tpot_ax)
    return fig


def caption11(r: Results, baseline: Results | None = None) -> str:
    ra = _rates(r)
    if ra is None:
        if (r.serving or {}).get("holds") is False:
            return ("This layout holds no sequence of the serving shape beside its weights: no request is served, so "
                    "there is no rate view.")
        return "No serving techniques at this layout: no rate view."
    ch, un = ra["chunked"], ra["unchunked"]
    if ra.get("one_token"):  # no decode round: the second panel is the chunks' step, no time between tokens
        text = ("Time to first token against the requests per second arriving at one replica, at the serving shape, "
                "with chunked prefill (blue: every step carries up to "
                f"{ra['chunk']:,} prompt token{'' if ra['chunk'] == 1 else 's'}) and with each prompt prefilled alone "
                "(vermilion). A one-token request has no decode round: no sequence runs beside the prompts, so it has "
                "no time per output token and no TPOT target, cache or max_sequences limits the rate. Solid: the "
                "steady state. Dotted: the P90 TTFT with the prompts queued for their prefills, each prompt served in "
                "turn; diamonds: the P90 TTFT capacity where it binds. From one GPU's ledgers at the layout, no "
                "collectives counted. ")
        sv = r.spec.serving
        longest = max(ra.get("prompt_classes") or [float(sv.prompt)]) * (1 - sv.prefix_hit)
        if ra["chunk"] >= longest:  # every prompt whole in one step: chunked prefill is the prefill alone
            text += ("The budget holds a whole prompt, so a step with chunks is a whole prefill and the two curves "
                     "coincide (the blue under the vermilion). ")
    else:
        text = ("Time to first token (the first panel) and time per output token (the second) against the "
                "requests per second arriving at one replica, at the serving shape, with chunked prefill (blue: every "
                f"step carries up to {ra['chunk']:,} token{'' if ra['chunk'] == 1 else 's'}, the running sequences' decode tokens and a prompt chunk in "
                "what they leave) and with each prompt "
                "prefilled alone (vermilion: the running sequences wait for it). Solid: the steady state. Dotted: the P99 "
                "time between tokens (without chunks a staircase of whole prefills, Poisson arrivals, prefills first as "
                "vLLM v0 schedules them) and, in the first panel, the P90 TTFT with the prompts queued for their "
                "prefills; diamonds: the P99 capacity (and, in the first panel, the P90 TTFT capacity where it binds). "
                "From one GPU's ledgers at the layout, no collectives counted. ")
    said: set = set()  # the limits named so far: "(the caches fill at the mean context)" once, not at each
    for name, c in (("With chunked prefill", ch), ("Prefilled alone", un)):
        if c["stop"] <= 0:
            text += f"{name} no request is served: {_stop(c['stops_at'], said)} holds none. "
            continue
        text += f"{name} the curve stops at {num(c['stop'])} requests/s, {_stop(c['stops_at'], said)}; "
        if c["goodput"] > 0:
            text += (f"its goodput (star) is {num(c['goodput'])} requests/s, set by "
                     f"{_stop(c['goodput_binds'], said)}. ")
        else:
            text += f"no rate meets the {c['goodput_binds']}. "
    rounds = r.spec.serving.output - 1
    if rounds < 1:
        return text + "Rates are per replica."
    text += (f"Rates are per replica (Little's law: the sequences running are the rate times the "
             f"{rounds:,} round{'s' if rounds != 1 else ''} times the step).")
    return text
