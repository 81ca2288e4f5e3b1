"""``genreport plan MODEL --hardware GPU[,GPU...]``: the layouts that serve a request shape under its targets.

    genreport plan llama-3.1-70b --hardware h100-sxm
    genreport plan llama-3.1-70b --hardware h100-sxm,h200,b200,mi300x --context 8k --batch 64
    genreport plan qwen2.5-72b --hardware h100-sxm --max-gpus 4 --prompt 30k --output 2k --users 16
    genreport plan deepseek-v3 --hardware h200 --weights fp8 --prompt 3k --output 1k --users 128 --tpot 50ms
    genreport plan gpt-oss-120b --hardware h100-sxm --max-gpus 1 --weights bf16,int4 --kv-cache bf16,fp8
    genreport plan specs/llama70b-h100-tp8.yaml --hardware h100-sxm,h200

MODEL may name a report spec: its model, GPU, formats, engine and serving block are the defaults, asked as its
serving chapter asks them (serving_report.plan_inputs), so the first row is the chapter's cheapest layout.

Every tensor x pipeline (x expert, x data-parallel attention) layout, weight format and KV-cache format is
tried on every GPU; a layout is listed when its replica holds the weights and at least one sequence of the
request's last context and its prefill meets --ttft.  The last context is prompt + output - 1 tokens, what the step
that makes the last token reads (the serving chapter's, serving.last_context): TPOT and the capacity are counted
there.  --context names it: alone, decode at that context, priced by $/M output tokens with no prompt (--prompt N
--output 1 is a request of its prompt alone, priced by its prefill); with
--output or --prompt, the other is what makes it (prompt = context - output + 1).  For each, the batch is the largest up to
--batch (or --users) that fits the KV capacity and whose slowest decode round (TPOT) meets --tpot; the row gives
the time to first token, TPOT, the end-to-end latency of one request (closed form over its decode rounds),
tok/s per user and per GPU, $/M tokens in and out at the GPU's price (--price h100-sxm=2.5), J/token at its
board power, the memory left per GPU, and with --users the GPUs that serve them.  Sorted by the cost of a request
(its prompt at $/M input tokens and its output - 1 decode tokens at $/M output tokens; a request of one output token
with a prompt, its prefill alone; $/M output tokens where no prompt is given) when every GPU has a price, else by
tok/s per GPU.  The evaluation is :func:`genreport.model.plan.plan`.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import math
import sys
import time
from pathlib import Path

from genreport.commands.options import Parser, add_engine_memory, add_verbosity, check_reserve, engine_memory
from genreport.errors import Finding, SpecError
from genreport.terminal import progress, progress_done


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="genreport plan", allow_abbrev=False,
        description="List the tensor/pipeline/expert-parallel layouts, weight and KV-cache formats on which MODEL "
                    "serves a request (prompt + output tokens) on each device (a GPU, a TPU or Gaudi chip) under the TTFT "
                    "and TPOT targets, with TTFT, TPOT, end-to-end latency, tok/s per user and per device, $/M tokens "
                    "and the roof that binds.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="times are the strict bound (compute, HBM and interconnect perfectly overlapped) or, with --estimate "
               "serial, the estimate with the collectives on the critical path. The bound charges int8/int4 weights "
               "no dequantization (it holds for any kernel); --estimate serial streams them at the share of the "
               "bandwidth weight-only kernels reach (int8 0.80, int4 0.53 of a bf16 GEMM's: torchao on A100). "
               "By default plan tries the checkpoint's own weight format (bf16 unless the model spec gives "
               "checkpoint_precision) and fp8 for 16-bit models of 8B parameters or more, what practitioners deploy "
               "without re-validating accuracy; int8/int4 change the model's accuracy, which a roofline does not "
               "price, and are tried only when named (--weights bf16,fp8,int8,int4). TTFT is one prompt alone on the "
               "replica (no queueing); $/M input tokens price the prompt at the time it occupies its replica (that "
               "TTFT, or, where the expert group is wider than the replica, its prefill while every replica of the "
               "group prefills one; a pipeline of pp stages admits a prompt every 1/pp of it), $/M output tokens the "
               "decode rate per device. Exit status 0 with a table; 5 where no layout fits or meets the targets "
               "(the closest said); 1 for bad input.")
    p.add_argument("model", metavar="MODEL", help="catalog name or path of a model spec, e.g. llama-3.1-70b; or a "
                   "report spec (specs/llama70b-h100-tp8.yaml): its model, device, formats, engine and serving "
                   "block (the request, targets, users, speculation) are the defaults, as its serving chapter asks")
    p.add_argument("--hardware", default=None, metavar="DEVICE[,DEVICE]",
                   help="catalog names or paths of hardware (GPUs, TPU or Gaudi chips), comma-separated, e.g. "
                        "h100-sxm,h200,b200,mi300x,tpu-v5p,gaudi3 (default: "
                        "the 'hardware' of .genreport.yaml or the user's config)")
    p.add_argument("--context", default=None, metavar="TOKENS",
                   help="the request's last context, the tokens its last decode step reads: prompt + output - 1 "
                        "(default 8k; alone: decode at that context, ranked by $/M output tokens with no prompt priced; "
                        "--prompt N --output 1 is a request of its prompt alone, priced by its prefill; k = 1024)")
    p.add_argument("--prompt", default=None, metavar="TOKENS", help="prompt tokens of one request (default: the "
                   "context - output + 1)")
    p.add_argument("--output", default=None, metavar="TOKENS", help="tokens one request generates (default 1, or "
                   "the context - prompt + 1 with --context and --prompt)")
    p.add_argument("--batch", default=None, metavar="N",
                   help="sequences per replica wanted, at most 65,536 (default --users up to that, or 64)")
    p.add_argument("--users", default=None, metavar="N", help="concurrent requests to serve: the batch per replica "
                   "is at most this, and the table adds the devices that serve them all")
    p.add_argument("--tpot", "--latency", dest="tpot", metavar="TIME",
                   help="longest time per output token (the request's slowest decode round), e.g. 50ms (--latency "
                        "is the same option)")
    p.add_argument("--ttft", metavar="TIME", help="longest time to first token, e.g. 2s")
    p.add_argument("--prefix-hit", default=None, metavar="SHARE",
                   help="the share of each prompt a prefix cache already holds, from 0 to below 1 (e.g. 0.5 or 50%%), "
                        "serving.prefix_hit's meaning: each row's TTFT, prefill and $/M in are the prompt's uncached part's, "
                        "and the compute the prompts take at the TPOT target is that part's (default: a report "
                        "spec's, else 0)")
    p.add_argument("--weights", "--precision", dest="weights", default=None, metavar="LIST",
                   help="weight formats to try (default: the checkpoint's own, 'checkpoint' where the model spec "
                        "gives checkpoint_precision, else bf16, and fp8 for a 16-bit model of 8B parameters or more; "
                        "int8/int4 change accuracy and are tried only when named, e.g. bf16,fp8,int8,int4; int8/int4, "
                        "mxfp4 and nvfp4 compute in bf16, fp8_block in fp8, fp8 on an NVIDIA GPU without an fp8 peak "
                        "in bf16 (W8A16); another format the device has no peak for is skipped). --precision is the "
                        "same option")
    p.add_argument("--kv-cache", default="auto", metavar="LIST",
                   help="KV-cache formats to try, e.g. bf16,fp8 (default auto: fp8 for fp8 weights, else bf16)")
    p.add_argument("--price", default=None, metavar="DEVICE=USD[,...]",
                   help="USD per device-hour, overriding your config's and the catalog's indicative prices, e.g. "
                        "b200=5.5,h100-sxm=2.2")
    p.add_argument("--speculative", default=None, metavar="K,P[,COST[,N]]",
                   help="speculative decoding: K draft tokens verified per round, each accepted with probability P "
                        "(given the ones before it), the drafts taking COST of a plain round (default 0.05), N tokens "
                        "of each sequence verified per round (a draft tree's nodes; default K + 1, a chain), as "
                        "serving.speculative's draft_tokens, acceptance, draft_cost and verify_tokens; e.g. 1,0.85 "
                        "for DeepSeek-V3's MTP, 5,0.7,0.2,8 for SGLang's default EAGLE tree. COST may instead name "
                        "a catalog draft model, in each row's precision (4,0.7,llama-3.2-1b) or in its own, as "
                        "serving.speculative.draft_precision (4,0.7,llama-3.2-1b@fp8), or an EAGLE/MTP head of N "
                        "target layers (1,0.85,layers:1; layers:1@bf16 in its own format). Each batch is timed with the verify round at the layout; "
                        "TPOT divides by the speed-up at the last context, tok/s by the one at the mean context; "
                        "where the batch passes the break-even the row decodes plainly and says so")
    p.add_argument("--disaggregate", action="store_true",
                   help="add prefill/decode pools of each row's layout: the balanced split, the KV transfer over the "
                        "link between replicas, and whether the pools beat one pool at the targets")
    # default: genreport.model.plan.MAX_GPUS (not imported here: it brings numpy at start-up)
    p.add_argument("--max-gpus", default=None, type=int, metavar="N",
                   help="largest replica tried, in devices (default 72, an NVL72 domain: tp x pp that fill it are tried too, "
                        "e.g. tp 8 x pp 9)")
    p.add_argument("--gpus", default=None, type=int, metavar="N",
                   help="only replicas of exactly N devices (\"on 4 x H100\": --gpus 4)")
    p.add_argument("--sort", choices=("auto", "cost", "speed", "gpus", "user"), default="auto",
                   help="order: cost ($ per request: its prompt and its output; $/M output tokens for --context alone, which prices no prompt), speed (tok/s per device), gpus (fewest devices for --users, "
                        "then cost), user (tok/s per user); auto: cost when every device has a price, else speed")
    p.add_argument("--estimate", choices=("bound", "serial"), default="bound",
                   help="what the targets and the ranking use: the strict bound (default) or the serial estimate")
    p.add_argument("--accounting", choices=("seed", "exact"), default=None,
                   help="parameter accounting (default seed, or a report spec's)")
    p.add_argument("--limit", default=30, type=int, metavar="N",
                   help="rows of the table (default 30; 0: all rows; json and csv: always all)")
    add_engine_memory(p)
    p.add_argument("--all-to-all", choices=("nccl", "deepep"), default=None, dest="all_to_all",
                   help="the experts' all-to-all the serial estimate charges where experts span replicas: nccl (the "
                        "collectives library, default) or deepep (DeepEP's kernels: FP8 dispatch, every peer at once)")
    p.add_argument("--format", choices=("table", "md", "json", "csv"), default="table",
                   help="output: table (default), md (Markdown, for a pull request or an issue), json or csv")
    add_verbosity(p)
    return p


NO_ANSWER = 5  # cli.EXIT["none"]: the search found no layout


def _fixed(x: float, places: int) -> str:
    """``x`` with ``places`` decimals, or two significant digits where those round a positive time to zero (the hostile
    review of stop 89 read "E2E s 0.00" for a 2-token request, "KV ms 0.00" for a 1-token prompt's cache)."""
    text = f"{x:,.{places}f}"
    if x > 0 and float(text.replace(",", "")) == 0:  # two significant digits, in decimals (not 7.3e-05)
        return f"{x:.{1 - math.floor(math.log10(x))}f}"
    return text


def _err(where: str, message: str, hint: str) -> SpecError:
    return SpecError([Finding(where, 0, 0, "", message, hint)])  # an argument: no line


def _report_spec(ref: str):
    """The report spec at the path ``ref``, loaded as ``genreport SPEC`` loads it (SpecError on a problem in it), or
    None where ``ref`` is a catalog name or another spec (``_load`` then reads it and says what is wrong)."""
    from genreport.load.loader import load_report
    from genreport.load.yamlread import read

    path = Path(ref)
    if not ref.endswith((".yaml", ".yml")) or not path.is_file():
        return None
    data = read(path).data  # a file that is not YAML: its problem, with its line, is the first to say
    return load_report(path) if isinstance(data, dict) and data.get("kind") == "report" else None


def _spec_inputs(spec) -> dict:
    """``plan``'s arguments from the report spec's serving block (serving_report.plan_inputs); {} without one."""
    if spec is None or spec.serving is None:
        return {}
    from genreport.model.serving_report import plan_inputs

    return plan_inputs(spec)


def _load(kind: str, ref: str, option: str, where: str | None = None):
    """The catalog's or a file's ``kind`` named ``ref`` by ``option``; an error named ``where`` (default: the option and
    the name; ``--speculative 3,0.8,nope`` names its whole value once, not "3,0.8,nope nope")."""
    from genreport.load.catalog import resolve_argument
    from genreport.load.loader import load_hardware, load_model

    path, message, hint = resolve_argument(ref, kind, Path.cwd())  # typed on the command line: read where it is
    if path is None:
        raise _err(where or f"{option} {ref}", message, hint)
    return (load_model if kind == "model" else load_hardware)(path)


def _time(option: str, text: str | None) -> float | None:
    from genreport.load import units

    if text is None:
        return None
    try:
        value = units.expect(text, units.SECONDS).value
    except units.UnitError as exc:
        raise _err(f"{option} {text}", str(exc), "write a time with its unit, e.g. 50ms") from None
    if not value > 0:
        raise _err(f"{option} {text}", "must be positive", "write e.g. 50ms")
    return value


def _count(option: str, text: str | None, hint: str, noun: str = "tokens") -> int | None:
    """A count of ``noun`` ('2k' = 2,048) from ``text``, as token counts are read (loader.tokens)."""
    from genreport.load.loader import tokens

    if text is None:
        return None
    try:
        return tokens(text, noun)
    except ValueError as exc:
        raise _err(f"{option} {text}", str(exc), hint) from None


def _share(option: str, text: str | None) -> float | None:
    """A share from 0 to below 1 from ``text``, a number ('0.5', as serving.prefix_hit takes it) or a percent ('50%')."""
    if text is None:
        return None
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value < 1:
        raise _err(f"{option} {text}", "is not a share from 0 to below 1", "write e.g. 0.5 or 50%")
    return value


def _formats(option: str, text: str, allowed) -> list[str]:
    # each once: --weights fp8,fp8 listed every row twice (hostile review, stop 75), as --hardware h100,h100 did
    out = list(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    bad = [p for p in out if p not in allowed]
    if bad or not out:
        raise _err(f"{option} {text}", f"unknown format {', '.join(bad) or '(none)'}",
                   f"use a comma-separated subset of {', '.join(allowed)}")
    return out


def _prices(text: str | None, names: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, eq, value = item.partition("=")
        try:
            price = float(value)
        except ValueError:
            price = math.nan
        if not eq or not 0 < price <= 10000:
            raise _err(f"--price {text}", f"'{item}' is not GPU=USD per hour (above 0, at most 10,000)",
                       "write e.g. --price b200=5.5")
        if name.strip() in out:  # the last one won, unsaid
            raise _err(f"--price {text}", f"{name.strip()} is priced twice", "give each GPU one price")
        if name.strip() not in names:
            raise _err(f"--price {text}", f"'{name.strip()}' is not one of the GPUs asked "
                       f"({', '.join(dict.fromkeys(names))})",
                       "name a GPU of --hardware, e.g. --price b200=5.5")
        out[name.strip()] = price
    return out


def _speculative(text: str | None) -> tuple[int, float, float | str, int] | None:
    """K,P[,COST[,N]] -> (draft tokens, acceptance, draft cost, tokens verified per sequence), checked as
    serving.speculative is; COST may name a draft model (a catalog name such as llama-3.2-1b, serving.speculative's
    draft_model), returned as that name for :func:`_draft` to load."""
    if text is None:
        return None
    parts = [x.strip() for x in text.split(",")]
    hint = ("write K,P[,COST[,N]], COST a fraction, a draft model or layers:N (an EAGLE/MTP head), e.g. "
            "--speculative 1,0.85 or 3,0.7,0.1 or 5,0.7,0.2,8 or 4,0.7,llama-3.2-1b or 4,0.7,llama-3.2-1b@fp8 "
            "or 1,0.85,layers:1")
    cost_text = parts[2] if len(parts) > 2 else ""
    if "@" in cost_text and cost_text[0] in "0123456789+-.":
        # a fraction of a plain round is a time, not a model: it has no format to run in
        raise _err(f"--speculative {text}", f"COST {cost_text.partition('@')[0]} is a fraction of a plain round, "
                   "which has no format: @FORMAT names a draft model's or a head's",
                   f"write {cost_text.partition('@')[0]} alone, or a draft with its format, e.g. llama-3.2-1b@fp8 or "
                   "layers:1@bf16")
    try:
        k = int(parts[0])
        p = float(parts[1])
        named = len(parts) > 2 and parts[2] != "" and not parts[2][0].isdigit() and parts[2][0] not in "+-."
        cost = parts[2] if named else float(parts[2]) if len(parts) > 2 else 0.05
        n = int(parts[3]) if len(parts) > 3 else k + 1
    except (ValueError, IndexError):
        raise _err(f"--speculative {text}", "is not K,P[,COST[,N]]", hint) from None
    if len(parts) > 4:
        raise _err(f"--speculative {text}", "is not K,P[,COST[,N]]", hint)
    if not 1 <= k <= 16:  # K first: N's range is K's (10000,0.8 was told N must be from K + 1 to 1024)
        raise _err(f"--speculative {text}", "K (draft tokens) must be an integer from 1 to 16", hint)
    if not k + 1 <= n <= 1024:
        raise _err(f"--speculative {text}", "N (tokens verified per sequence) must be from K + 1 to 1024", hint)
    if not 0 <= p < 1:  # 0: nothing accepted, the limit where every row decodes plainly (issue 30's check)
        raise _err(f"--speculative {text}", "P (acceptance) must be at least 0 and below 1", hint)
    if not isinstance(cost, str) and not 0 <= cost <= 10:
        raise _err(f"--speculative {text}", "COST (the drafts' time over a plain round) must be from 0 to 10", hint)
    return k, p, cost, n


def _vocab_note(speculative, model) -> list[str]:
    """The warning a draft model within one tokenizer's padding of the target's vocabulary gets (loader.draft_vocabulary),
    as a note of the table; none for another draft."""
    from genreport.load.loader import draft_vocabulary, is_head

    draft = speculative[2] if speculative is not None and hasattr(speculative[2], "vocab_size") else None
    vocab = draft_vocabulary(draft, model) if draft is not None and not is_head(draft, model) else None
    return [f"note: {vocab[1]}; {vocab[2]}"] if vocab is not None else []


def _draft(speculative, model, text: str):
    """(the tuple with --speculative's draft model loaded from the catalog, the draft's own precision or None):
    the tuple unchanged where COST is a fraction; MODEL@FORMAT runs the draft in FORMAT (serving.speculative's
    draft_precision), MODEL alone in each row's precision.  Its vocabulary must be the target's, as
    serving.speculative.draft_model's (load.loader._draft)."""
    if speculative is None or not isinstance(speculative[2], str):
        return speculative, None
    name, at, fmt = speculative[2].partition("@")
    precision = None
    if at:
        from genreport.load.spec import WEIGHT_FORMAT_BYTES
        from genreport.model.plan import plan_precision

        if not fmt.strip():
            raise _err(f"--speculative {text}", "nothing follows @: the draft's format is missing",
                       f"write {name.strip() or 'llama-3.2-1b'}@fp8 (one of {', '.join(WEIGHT_FORMAT_BYTES)}), or "
                       "leave out @ for each row's format")
        if fmt.strip() not in WEIGHT_FORMAT_BYTES:
            raise _err(f"--speculative {text}", f"unknown draft format '{fmt}' after @",
                       f"write MODEL@FORMAT, FORMAT one of {', '.join(WEIGHT_FORMAT_BYTES)}, e.g. "
                       f"{name.strip() or 'llama-3.2-1b'}@fp8")
        precision = plan_precision(fmt.strip(), model)
    if name.startswith("layers:"):  # an EAGLE / MTP head of N target-shaped layers (draft_layers), @FORMAT its own
        from genreport.load.loader import head_layers

        n = name[len("layers:"):]
        if not n.isdigit() or not 1 <= int(n) <= 16:
            raise _err(f"--speculative {text}", f"layers:{n} is not a head of 1 to 16 layers",
                       "write e.g. 1,0.85,layers:1 (an MTP or EAGLE head of one layer; layers:1@bf16 in bf16)")
        return (speculative[0], speculative[1], head_layers(model, int(n)), *speculative[3:]), precision
    draft = _load("model", name.strip(), "--speculative", where=f"--speculative {text}")
    from genreport.load.loader import draft_vocabulary

    vocab = draft_vocabulary(draft, model)  # within one tokenizer's padding: a note beside the table (_vocab_note)
    if vocab is not None and vocab[0] == "error":
        raise _err(f"--speculative {text}", vocab[1], vocab[2])
    if draft.moe:
        raise _err(f"--speculative {text}", f"the draft {draft.title} is a mixture of experts",
                   "name a dense draft model, or give COST")
    return (speculative[0], speculative[1], draft, *speculative[3:]), precision


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from genreport import config
    from genreport.load.spec import PRECISION_BYTES, WEIGHT_FORMAT_BYTES
    from genreport.model.frontier import MAX_BATCH
    from genreport.model.plan import Shape, plan

    defaults = config.load()  # the user's and the project's defaults: GPUs, prices, the memory reserve
    spec = _report_spec(args.model)  # MODEL naming a report spec: its answers are the defaults (serving_report)
    for w in spec.warnings if spec is not None else ():  # what a build of the same spec warns of, on stderr
        print(w, file=sys.stderr)
    if spec is None and args.model.endswith((".yaml", ".yml")) and not Path(args.model).is_file():
        # the path first: without --hardware a mistyped spec path was told to name a GPU (QA)
        raise _err(args.model, "no such spec file", "check the path, or name a catalog model (genreport list models)")
    if args.hardware is None and spec is None:
        if not defaults.hardware:
            raise _err("--hardware", "no GPU given", "name one or more, e.g. --hardware h100-sxm,h200 (or set "
                       "'hardware' in .genreport.yaml or ~/.config/genreport/config.yaml)")
        args.hardware = ",".join(defaults.hardware)

    hint = "write a positive integer or '8k' (k = 1024)"
    context = _count("--context", args.context, "write an integer or '8k' (k = 1024)")
    prompt = _count("--prompt", args.prompt, hint)
    output = _count("--output", args.output, hint)
    users = _count("--users", args.users, "write a positive integer, e.g. 128", "users")
    batch = _count("--batch", args.batch, "write a positive integer, e.g. 64", "sequences")
    asked = _spec_inputs(spec)  # the spec's serving block as its chapter asks plan ({} without one)
    if asked and context is None:  # the spec's request; --prompt or --output alone keeps the spec's other
        prompt = asked["shape"].prompt if prompt is None else prompt
        output = asked["shape"].output if output is None else output
    if asked and users is None:
        users = asked["shape"].users
    # --context is the request's last context, prompt + output - 1 (serving.last_context): any two of the three
    # give the third; all three must agree
    if prompt is not None and output is not None:
        if context is not None and context != prompt + output - 1:
            raise _err(f"--context {args.context}", f"is not the last context of --prompt {args.prompt} and --output "
                       f"{args.output} (prompt + output - 1 = {prompt + output - 1:,} tokens)",
                       "leave --context out, or give only two of --context, --prompt and --output")
    elif prompt is not None:
        output = context - prompt + 1 if context is not None else 1
        if output < 1:
            raise _err(f"--context {args.context}", f"is shorter than --prompt {args.prompt}: the last context "
                       "is prompt + output - 1 tokens", f"give --context {prompt} or more, or --output instead")
    elif output is not None:
        prompt = (context or 8192) - output + 1
        if prompt < 1:
            raise _err(f"--output {args.output}", f"leaves no prompt in the last context of {context or 8192:,} "
                       "tokens (prompt = context - output + 1)", "give --prompt as well, or a longer --context")
    else:
        prompt, output = context or 8192, 1
    context = prompt + output - 1
    if batch is None and users:  # the users spread over as many replicas as they need, each at most the serving
        batch = min(users, MAX_BATCH)  # chapter's 65,536 (more users than that are more replicas, not a refusal)
    if batch is None and asked:  # the batch the spec's chapter searches at (serving_report.replica_batch)
        batch = asked["batch"]
    batch = batch or 64
    if batch > MAX_BATCH:
        raise _err(f"--batch {batch}", "more than 65,536 sequences per replica", "use a smaller batch")
    tpot = _time("--latency" if "--latency" in argv else "--tpot", args.tpot)
    ttft = _time("--ttft", args.ttft)
    if asked:
        tpot = asked["latency"] if args.tpot is None else tpot
        ttft = asked["shape"].ttft if args.ttft is None else ttft
    accounting = args.accounting or (spec.accounting if spec is not None else "seed")
    weights = None if args.weights is None else _formats("--weights", args.weights, (*WEIGHT_FORMAT_BYTES, "checkpoint"))
    kvs = _formats("--kv-cache", args.kv_cache, ("auto", *PRECISION_BYTES))
    if args.limit < 0:
        raise _err(f"--limit {args.limit}", "must be 0 (all rows) or more", "e.g. --limit 30")
    if args.max_gpus is not None and not 1 <= args.max_gpus <= 4096:
        raise _err(f"--max-gpus {args.max_gpus}", "must be between 1 and 4096", "write e.g. 72")
    if args.gpus is not None:
        if not 1 <= args.gpus <= 4096:
            raise _err(f"--gpus {args.gpus}", "must be between 1 and 4096", "write e.g. 8")
        if args.max_gpus is not None and args.max_gpus < args.gpus:  # replicas of exactly N above the largest tried
            raise _err(f"--gpus {args.gpus}", f"is above --max-gpus {args.max_gpus}: no replica of {args.gpus} devices "
                       "would be tried", f"leave out --max-gpus (--gpus {args.gpus} tries only replicas of "
                       f"{args.gpus}), or ask for fewer devices")
        args.max_gpus = args.gpus
    if args.max_gpus is None:
        from genreport.model.plan import MAX_GPUS

        args.max_gpus = MAX_GPUS  # an NVL72 domain
    speculative = _speculative(args.speculative)
    if args.speculative is None and asked:
        speculative = asked["speculative"]  # the spec's draft, loaded
    if args.disaggregate and output < 2:
        raise _err("--disaggregate", "needs a request that decodes (--output 2 or more)", "add e.g. --output 512")
    if args.sort == "gpus" and users is None:
        raise _err("--sort gpus", "needs --users (the GPUs that serve them)", "add e.g. --users 128")
    from genreport.load.objects import reserve_fields

    # the user's config, else genreport's defaults (vLLM's)
    reserve, step = None if defaults.memory_reserve is None else reserve_fields(defaults.memory_reserve), None
    if spec is not None:  # the report spec's engine (engine.memory_reserve, max_batched_tokens, serving.chunk)
        reserve = {"memory_reserve": spec.hardware.memory_reserve,
                   "memory_reserve_bytes": spec.hardware.memory_reserve_bytes}
        step = {"max_batched_tokens": spec.hardware.max_batched_tokens, "max_sequences": spec.hardware.max_sequences}
    engine = engine_memory(args, reserve, step)  # the command line's over them
    model = spec.model if spec is not None else _load("model", args.model, "model")
    draft_precision = None
    if args.speculative is not None or spec is None:
        speculative, draft_precision = _draft(speculative, model, args.speculative)
    elif asked:
        draft_precision = asked["draft_precision"]
    from genreport.model.plan import formats_not_tried, plan_precisions, report_precisions

    left_out: tuple[str, ...] = ()
    if weights is None:  # the deployment default: the checkpoint's format and fp8, never a silent int8/int4
        weights = list(report_precisions(spec) if spec is not None else plan_precisions(model))
        left_out = formats_not_tried(model, weights)
    if "checkpoint" in weights and not model.checkpoint_weights:
        raise _err(f"--weights {args.weights}", f"{model.title} has no checkpoint_precision in its spec",
                   f"name the formats instead, or add checkpoint_precision to {model.file}")
    # each GPU once, in the order given (--hardware h100-sxm,h100-sxm listed every row twice)
    refs = list(dict.fromkeys(h.strip() for h in args.hardware.split(",") if h.strip())) if args.hardware is not None \
        else []
    own = spec.hardware if spec is not None else None  # the spec's device as its report has it (engine, price)
    if own is not None and not refs:
        refs = [own.name]
    if not refs:  # --hardware "" or "," names nothing (it was an internal IndexError)
        raise _err(f"--hardware {args.hardware}", "no GPU named",
                   "name one or more from 'genreport list hardware', e.g. --hardware h100-sxm,h200")
    mine = [own is not None and h == own.name for h in refs]
    all_to_all = args.all_to_all or (own.kernels.all_to_all if own is not None else "nccl")
    gpus, wrong = [], []
    for h, is_own in zip(refs, mine, strict=True):
        try:
            g = own if is_own else _load("hardware", h, "--hardware")
        except SpecError as exc:  # every name that is wrong, not the first alone (as sweep says them)
            wrong += exc.findings
            continue
        if not is_own or args.memory_reserve is not None or args.max_batched_tokens is not None or \
                args.max_sequences is not None:
            g = dataclasses.replace(g, **engine)
        if not is_own or args.all_to_all is not None:
            g = dataclasses.replace(g, kernels=dataclasses.replace(g.kernels, all_to_all=all_to_all))
        gpus.append(g)
    if wrong:
        raise SpecError(wrong)
    check_reserve(args, gpus, spec, defaults)
    given = _prices(args.price, [g.name for g in gpus] + refs)
    prices = {**defaults.prices, **given}  # a report spec's own device keeps its price unless --price names it
    gpus = [dataclasses.replace(g, price_per_hour=prices.get(g.name, prices.get(ref, g.price_per_hour)))
            if not is_own or g.name in given or ref in given else g
            for g, ref, is_own in zip(gpus, refs, mine, strict=True)]
    # a prefix cache (--prefix-hit, else a report spec's): its prompts' uncached part is prefilled, as the chapter's
    # rows and compute batch take it
    hit = _share("--prefix-hit", args.prefix_hit)
    hit = hit if hit is not None else asked["shape"].prefix_hit if asked else 0.0
    from genreport.load.objects import prefix_hit_taken

    asked_hit = f"--prefix-hit {args.prefix_hit}" if args.prefix_hit is not None else f"serving.prefix_hit {hit:.6g}"
    hit, why = prefix_hit_taken(prompt, hit)  # a prompt prefills its last token at least, as the loader takes it
    hit_note = [f"note: {asked_hit} {why.replace('the report takes', 'the plan takes')}"] if why else []
    # output 1 with a prompt given (on the command line or by the spec's serving block): the prompt alone is the
    # request, priced by its prefill (a 32k-token classification ranked by $/M output tokens named a layout of 72
    # B200s whose prompts cost 3.8x those of 16, QA); --context alone, or nothing, is decode at that context
    alone = output == 1 and (args.prompt is not None or bool(asked) and args.context is None)
    shape = Shape(prompt, output, ttft, users, hit, prefill_only=alone)
    priced = all(g.price_per_hour for g in gpus)
    order = ("cost" if priced else "speed") if args.sort == "auto" else args.sort  # the table's, for every GPU
    results = []
    started = time.perf_counter()
    try:
        for i, g in enumerate(gpus, 1):
            if time.perf_counter() - started > 1.0:  # a search past a second shows where it is, on a terminal only
                progress(f"genreport plan: {g.name} ({i}/{len(gpus)}), {time.perf_counter() - started:.1f} s")
            if spec is None:
                results.append(plan(model, g, batch, context, tpot, tuple(weights), args.max_gpus, accounting,
                                    args.estimate, tuple(kvs), shape, speculative, args.disaggregate, draft_precision))
            else:  # as the serving chapter asks: each layout with and without the speculation, the better row
                from genreport.model.serving_report import either_plan

                inputs = {"batch": batch, "context": context, "latency": tpot, "precisions": tuple(weights),
                          "max_gpus": args.max_gpus, "accounting": accounting, "estimate": args.estimate,
                          "kv_caches": tuple(kvs), "shape": shape, "speculative": speculative,
                          "draft_precision": draft_precision, "own": spec.precision}
                results.append(either_plan(model, g, inputs, args.disaggregate, order))
    finally:
        progress_done()
    if args.gpus is not None:
        for res in results:
            res.rows = [r for r in res.rows if r.gpus == args.gpus]
    result = merge(results, priced, order)
    result.notes += _vocab_note(speculative, model) + hit_note
    # no layout fits or meets the targets: the answer printed as ever, and a status a script can tell from a table
    status = 0 if result.rows else NO_ANSWER
    if args.format == "json":
        doc = {"model": model.name, "hardware": ",".join(g.name for g in gpus), "context": context, "batch": batch,
               "prompt": prompt, "output": output, "users": users, "tpot": tpot, "latency": tpot, "ttft": ttft,
               "prefix_hit": shape.prefix_hit,
               "memory_reserve": engine["memory_reserve"], "memory_reserve_bytes": engine["memory_reserve_bytes"],
               "prices": {g.name: g.price_per_hour for g in gpus},
               "board_watts": {g.name: g.power_watts for g in gpus}, "sorted_by": result.estimate,
               "estimate": args.estimate, "accounting": accounting, "max_gpus": args.max_gpus,
               "spec": spec.file if spec is not None else None,
               "speculative": None if speculative is None else dict(zip(
                   ("draft_tokens", "acceptance", "draft_model" if hasattr(speculative[2], "vocab_size") else "draft_cost",
                    "verify_tokens"),
                   (*speculative[:2], getattr(speculative[2], "name", speculative[2]), speculative[3]), strict=True))
               | ({"draft_precision": draft_precision.label()} if draft_precision is not None else {}),
               "disaggregate": args.disaggregate, "weights": list(weights), "weights_not_tried": list(left_out),
               "rows": [r.as_json() for r in result.rows], "rejected": result.rejected, "closest": result.closest,
               "skipped_precisions": [{"precision": p, "why": w} for p, w in result.skipped_precisions],
               "notes": result.notes}
        print(json.dumps(doc, indent=1, sort_keys=True))
        return status
    if args.format == "csv":
        print(render_csv(result, speculative is not None, args.disaggregate), end="")
        return status
    print(render_table(result, model, gpus, batch, context, tpot, args.limit, shape, args.estimate,
                       markdown=args.format == "md", speculative=speculative, disaggregate=args.disaggregate,
                       draft_precision=draft_precision, left_out=left_out, tried=tuple(weights),
                       spec_file=spec.file if spec is not None else None))
    return status


def merge(results, priced: bool, sort: str = "auto"):
    """One plan of several GPUs: every row in the order ``sort`` asks ("auto": the cost of a request when every GPU is
    priced, else tok/s per GPU; genreport.model.plan.ranking); the rejections added up.  ``estimate`` of the result
    names the order."""
    from genreport.model.plan import ORDERS, Plan, nearest, ranking

    rows = sorted((r for res in results for r in res.rows), key=ranking(sort, priced))
    rejected: dict[str, int] = {}
    for res in results:
        for why, n in res.rejected.items():
            rejected[why] = rejected.get(why, 0) + n
    skipped = [(p, w) for res in results for p, w in res.skipped_precisions]
    return Plan(rows, rejected, skipped, ORDERS[("cost" if priced else "speed") if sort == "auto" else sort],
                nearest(results), [n for res in results for n in res.notes])


_CSV = ("hardware", "precision", "compute", "kv_cache", "tp", "pp", "ep", "redundant_experts", "dp", "gpus", "batch", "limit", "binds", "concurrency",
        "ttft", "tpot", "e2e", "tokens_per_s_user", "tokens_per_s_gpu", "tokens_per_s_node", "usd_per_mtok_in",
        "usd_per_mtok_out", "usd_per_request", "joules_per_token", "headroom_bytes", "gpus_for_users", "weight_bytes_per_gpu", "time_bound", "time_serial",
        "time_comm", "tokens_per_s_replica", "links")


_CSV_SPEC = ("speculative", "spec_speedup", "spec_speedup_mean", "spec_breakeven_batch", "spec_resumes_batch",
             "spec_stops_again_batch", "tpot_plain")
_CSV_POOLS = ("pool_prefill_share", "pool_split", "pool_prefill_stages", "pool_prefill_pass", "pool_decode_batch",
              "kv_transfer", "kv_link", "pool_ttft", "pool_tokens_per_s_gpu",
              "one_pool_batch", "one_pool_tpot", "one_pool_tokens_per_s_gpu", "pool_beats")


def render_csv(result, speculative: bool = False, disaggregate: bool = False) -> str:
    """Every row, one line each, SI units (s, B, token/s, USD): for a spreadsheet; the speculative and pool columns
    when they were asked."""
    cols = _CSV + (_CSV_SPEC if speculative else ()) + (_CSV_POOLS if disaggregate else ())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in result.rows:
        d = r.as_json()
        w.writerow(["" if d[k] is None else d[k] for k in cols])
    return buf.getvalue()


def _why_unpriced(g) -> str:
    """' (the reason the GPU file gives; --price NAME=USD)' for a GPU without a price, '' when it gives none."""
    if not g.notes.startswith("No price:"):
        return ""
    why = " ".join(g.notes.removeprefix("No price:").split()).split(" (")[0].split(". ")[0].rstrip(".")
    return f" ({why}; --price {g.name}=USD)"


def _money(x) -> str:
    return "-" if x is None else f"{x:,.3f}" if x < 10 else f"{x:,.1f}"


def render_table(result, model, gpus, batch: int, context: int, tpot: float | None, limit: int, shape=None,
                 estimate: str = "bound", markdown: bool = False, speculative=None, disaggregate: bool = False,
                 left_out: tuple[str, ...] = (), tried: tuple[str, ...] = (), draft_precision=None,
                 spec_file: str | None = None) -> str:
    """The table of the first ``limit`` layouts (0: all of them), and how many more there are; ``markdown``: the
    same as Markdown (the notes as paragraphs, the table with its numbers right-aligned); ``left_out``: the weight
    formats the default did not try (one line says so and how to include them), ``tried`` those it did;
    ``spec_file``: the report spec whose answers were the defaults (a line says so)."""
    from genreport.commands.tables import md_cell, md_table, text_table

    table = md_table if markdown else text_table

    if limit <= 0:
        limit = len(result.rows)
    gpus = gpus if isinstance(gpus, list | tuple) else [gpus]
    shape = shape or type("S", (), {"prompt": context, "output": 1, "ttft": None, "users": None})()
    hit = getattr(shape, "prefix_hit", 0.0)  # a prefix cache's share of each prompt (Shape.prefix_hit)
    from genreport.present import fmt

    targets = [f"TTFT <= {fmt.time(shape.ttft)}" if shape.ttft else "", f"TPOT <= {fmt.time(tpot)}" if tpot else ""]
    target = ", ".join(t for t in targets if t)
    reserve = fmt.reserve(gpus[0].memory_reserve, gpus[0].memory_reserve_bytes) if gpus[0].kept < gpus[0].capacity \
        else ""
    from genreport.model.serving import round_context

    tc = round_context(model, shape.prompt, shape.output)
    where = (f"last context {context:,}: TPOT and capacity there" if tc == context else
             f"TPOT at context {tc:,}, the end of a chunk, its slowest round; capacity at its last, {context:,}")
    cached = f", {fmt.share(hit)} of each prompt in a prefix cache" if hit else ""
    lines = [f"{model.title} on {', '.join(g.title for g in gpus)}: requests of {shape.prompt:,} prompt + "
             f"{shape.output:,} generated token{'s' if shape.output != 1 else ''} ({where}{cached}), up to {batch:,} per "
             "replica"
             + (f" and at most {gpus[0].max_sequences:,} at once (the engine's max_sequences, vLLM's max_num_seqs: "
                "limit 'engine' where it stops the batch)" if 0 < gpus[0].max_sequences < batch else "")
             + (f", {shape.users:,} user{'s' if shape.users != 1 else ''}" if shape.users else "") + (f"; {target}" if target else "")
             + f"; times: {'the strict bound' if estimate == 'bound' else 'the serial estimate'}"
             + (f"; {reserve} of each GPU kept by the engine" if reserve else "")
             + (f", and one step's activations ({gpus[0].max_batched_tokens:,} tokens a rank, at each layout's tp; with "
                "data-parallel attention an MoE layer runs on the ep / tp ranks' tokens)"
                if gpus[0].max_batched_tokens else "")]
    prices = ", ".join(f"{g.name} ${g.price_per_hour:.2f}/h" if g.price_per_hour else f"{g.name} no price" + _why_unpriced(g)
                       for g in gpus)
    from genreport.model.plan import ORDERS

    unpriced = [g.name for g in gpus if not g.price_per_hour]
    why = (f" ({', '.join(unpriced)} {'has' if len(unpriced) == 1 else 'have'} no price: the cost ranks only "
           "GPUs that all have one; --price GPU=USD, or leave it out)"
           if unpriced and len(unpriced) < len(gpus) and result.estimate == ORDERS["speed"] else "")
    lines.append(f"prices per GPU-hour: {prices}; sorted by {result.estimate}{why}")
    if model.max_context and context > model.max_context:  # a report spec's loader warns the same (a review: 63k
        # prompts of Qwen3-32B, whose config stops at 40,960, were planned without a word)
        lines.append(f"note: the last context, {context:,} tokens, is past {model.title}'s max_context "
                     f"{model.max_context:,} (its model spec); the numbers are computed as if it ran there (e.g. with "
                     "a RoPE extension)")
    if spec_file:
        lines.append(f"from the report spec {spec_file}: its model, GPU, formats, engine and serving block, as its "
                     "serving chapter asks plan (its cheapest layout is the first row there); each option given "
                     "replaces its part")
    header = ["weights", "KV", "GPU", "tp", "pp", "ep", "dp", "GPUs", "batch", "limit", "binds", "max conc.",
              "TTFT ms", "TPOT ms", "E2E s", "tok/s/user", "tok/s/GPU", "$/M in", "$/M out", "$/1k req", "J/tok",
              "free GiB/GPU"]
    from genreport.present.fmt import device

    # the hardware's noun for one device (fix16's Hardware.noun: "chip" for a TPU or a Gaudi), "device" where the
    # hardware asked say different ones; GPU tables and notes unchanged
    nouns = {g.noun for g in gpus}
    noun = nouns.pop() if len(nouns) == 1 else "device"
    users = bool(shape.users)
    if users:
        header.append("GPUs for users")
    if speculative:
        header += ["spec", "spec ends"]
    if disaggregate:
        header += ["pools P:D", "prefill in", "KV ms", "pool TTFT ms", "pool tok/s/GPU", "1-pool batch", "1-pool tok/s/GPU",
                   "pools win"]
    rows = []
    for r in result.rows[:limit]:
        # a group whose collectives cross the scale-out network is marked (deployment review, stop 75: tp 16-64 over
        # InfiniBand ranked beside tp 8 with nothing in the table to say so)
        out_of_node = set(r.scale_out_groups)
        row = [r.weights_label, r.kv_cache, r.hardware, f"{r.tp}*" if "tp" in out_of_node else str(r.tp), str(r.pp),
               (f"{r.ep}+{r.redundant_experts}" if r.redundant_experts else str(r.ep))
               + ("*" if "ep" in out_of_node else ""), str(r.dp), str(r.gpus),
               str(r.batch), r.limit, r.binds, f"{r.concurrency:,}", _fixed(r.ttft * 1e3, 1), _fixed(r.tpot * 1e3, 2),
               _fixed(r.e2e, 2), f"{r.tokens_per_s_user:,.1f}", f"{r.tokens_per_s_gpu:,.1f}",
               _money(r.usd_per_mtok_in), _money(r.usd_per_mtok_out),
               _money(None if r.usd_per_request is None else r.usd_per_request * 1e3),
               "-" if r.joules_per_token is None else f"{r.joules_per_token:,.3f}", f"{r.headroom_bytes / 2**30:,.1f}"]
        if users:
            row.append(f"{r.gpus_for_users:,}")
        if speculative:
            row += ["plain" if not r.speculative else f"{r.spec_speedup:.2f}x" if r.speculative == "on"
                    else f"off ({r.spec_speedup:.2f}x)",
                    "-" if r.spec_breakeven_batch is None else f"batch {r.spec_breakeven_batch:,}"
                    if r.spec_resumes_batch is None else
                    f"off at {r.spec_breakeven_batch:,}-{r.spec_resumes_batch - 1:,}"
                    + ("" if r.spec_stops_again_batch is None else f" and from {r.spec_stops_again_batch:,}")]
        if disaggregate:
            row += [r.pool_split, f"{r.pool_prefill_stages} stages" if r.pool_prefill_stages > 1 else "replicas",
                    "-" if r.kv_transfer is None else _fixed(r.kv_transfer * 1e3, 2),
                    f"{r.pool_ttft * 1e3:,.1f}",
                    "-" if r.pool_tokens_per_s_gpu is None else f"{r.pool_tokens_per_s_gpu:,.1f}",
                    str(r.one_pool_batch) if r.one_pool_batch else "none", f"{r.one_pool_tokens_per_s_gpu:,.1f}",
                    r.pool_beats]
        rows.append(row)
    lines = device(lines, noun)
    for g in gpus:  # a product's name as its vendor writes it ("NVIDIA Blackwell GPU 186GB" read "Blackwell device")
        lines = [x.replace(device(g.title, noun), g.title) for x in lines]
    if rows:
        text_cols = {header.index(h) for h in ("pools P:D", "prefill in", "pools win", "spec", "spec ends")
                     if h in header}
        lines += table(rows, device(header, noun), (set(range(3, 10)) | set(range(11, len(header)))) - text_cols)
    else:  # which: none fits, or some fit and miss a target (it said "no layout fits" of a TPOT of 1 ns)
        missed = {k: n for k, n in result.rejected.items() if n and k.startswith("misses")}
        near = [f"{what} {fmt.time(result.closest[key])}" for key, what in (
            ("ttft", "the least TTFT of a layout that fits is"), ("tpot", "the least TPOT, at batch 1, is"))
            if key in result.closest]
        lines.append(("no layout meets the targets" + (f" ({'; '.join(near)})" if near else "")) if missed
                     else "no layout fits")
    notes = len(lines)  # the notes below say the hardware's noun too
    if len(result.rows) > limit:
        lines.append(f"... {len(result.rows) - limit} more (--limit 0 for all rows, or --format json/csv)")
    spread = next((r for r in result.rows[:limit] if r.redundant_experts), None)
    if spread is not None:  # an expert group that does not divide the experts (plan.dp_attention_layouts)
        from genreport.model.plan import redundant_note

        lines.append(redundant_note(model.moe.experts, spread.ep, spread.redundant_experts, noun)
                     + f", where {spread.ep} does not divide the experts; the bound reads the experts the batch "
                     f"touches once, the serial estimate its busiest {noun}'s")
    # counted in layouts ("22 weights do not fit" read as a count of weights; "1 weights")
    rejected = ", ".join(f"{n:,} layout{'s' if n != 1 else ''} ({why})" for why, n in result.rejected.items() if n)
    if rejected:
        lines.append(f"not listed: {rejected}")
    for p, why in result.skipped_precisions:
        lines.append(f"skipped {p}: {why}")
    lines += result.notes
    if left_out:
        lines.append(f"not tried: {', '.join(left_out)} weights (the default tries the checkpoint's format and fp8 "
                     "for 16-bit models from 8B up; narrower formats change the model's accuracy, which a roofline "
                     "does not price); to include them: --weights " + ",".join(dict.fromkeys((*tried, *left_out))))
    # the serial estimate's per-kernel costs are sourced on NVIDIA's stack, AMD's HIP graph replay but not its launch
    # (spec.no_kernel_cost)
    bare = [g for g in gpus if g.kernels.absent and not g.kernels.decode and not g.kernels.launch]
    if bare:
        lines.append("no sourced per-kernel cost on " + "; on ".join(
            f"{g.title} ({g.kernels.absent})" for g in bare) + ": the serial estimate charges "
            + ("it" if len(bare) == 1 else "them") + " no kernels' fixed costs (left out; engine.graph_kernel and "
            "engine.kernel_launch give sourced ones)" + ("" if estimate == "serial" else
                                                         ", and the bound charges none on any hardware"))
    unlaunched = [g for g in gpus if g.kernels.absent and g.kernels.decode and not g.kernels.launch]
    if unlaunched:
        lines.append("no sourced kernel launch cost on " + "; on ".join(
            f"{g.title} ({g.kernels.absent})" for g in unlaunched) + ": the serial prefill (TTFT) charges no "
            "kernels' fixed costs there, decode its graph replay's (engine.kernel_launch gives a sourced one)")
    if any(r.precision in ("int8", "int4") for r in result.rows[:limit]):
        lines.append("int8/int4 weights: the bound charges no dequantization (their rows are what the format's bytes "
                     "allow); --estimate serial streams them at the share of the bandwidth weight-only kernels reach "
                     "(engine.weight_only_efficiency: int8 0.80, int4 0.53 of a bf16 GEMM's)"
                     if estimate == "bound" else
                     "int8/int4 weights: streamed at the share of the bandwidth weight-only kernels reach "
                     "(engine.weight_only_efficiency: int8 0.80, int4 0.53 of a bf16 GEMM's)")
    if speculative:
        k, p, cost, n = speculative
        own = "the row's precision" if draft_precision is None else draft_precision.label()
        drafts = (f"drafts {cost:g} of a plain round" if isinstance(cost, (int, float)) else
                  f"drafts by {cost.title} in {own}, " + (f"{k} passes, each" if k > 1 else "one pass,")
                  + " at least its roofline step on the "
                  "replica's GPUs, its weights and KV cache taken from the capacity")
        lines.append(f"speculative decoding: {k} draft token{'s' if k > 1 else ''} a round, each accepted with "
                     f"p = {p:g}, {drafts}; TPOT and the rates use the verify round at the "
                     f"layout ({n} tokens of each sequence through the weights and collectives, the caches read once): "
                     "TPOT over the speed-up at the last context, tok/s and $/M with the one at the mean context; "
                     "spec: the speed-up at the chosen batch and the last context, 'off' where it does not pass 1 "
                     "(the row decodes plainly)" + ("; by the strict bound, whose rounds have no fixed cost: an engine "
                                                    "pays its kernels' and collectives' once for all of a verify round's "
                                                    "tokens, so speculation can pay where this says 'off' (--estimate "
                                                    "serial decides by what engines pay)" if estimate == "bound" else "")
                     + "; spec ends: the first batch up to --batch where it stops paying, "
                     "or the batches where it does not pay where it pays again past them (a mixture of experts), and the "
                     "first where it stops again" + ("; plain: the layout without speculation ranks first (a report "
                                                     "spec's plan tries each layout with and without it, as its "
                                                     "serving chapter does)" if any(not r.speculative for r in
                                                                                    result.rows[:limit]) else ""))
    if disaggregate:
        lines.append("pools: prefill and decode copies of the row's layout (its tp x pp x dp GPUs, so an expert group "
                     "is never split), the smallest split (up to 16 copies) "
                     "with the most tok/s per GPU near the balanced share; prefill in: whole replicas, one prompt at a "
                     "time, or, where the layout has pipeline stages and it serves more, each replica a pipeline "
                     "admitting a prompt every pass / pp (its pass through the stages, each stage's ledger in turn; DistServe, section 3.1); KV: one prompt's cache between replicas "
                     "over the link named in json/csv; pool TTFT adds it; 1-pool: one pool prefilling whole prompts "
                     "between decode rounds (TPOT + batch x TTFT / (output - 1)) at the largest batch meeting --tpot; "
                     "both tok/s per GPU and the pools' balance at the steady state's mean round ((output - 1) / "
                     "tok/s per user), --tpot checking the last context's round, all GPUs counted; pools win: yes where "
                     "the pools serve more tok/s per GPU at the targets")
    lines.append("batch: sequences per replica (tp x pp GPUs; with data-parallel attention each of the dp replicas "
                 "of the expert group runs its own); TTFT: one prompt alone on the replica"
                 + (f" (the {fmt.share(1 - hit)} of it a prefix cache leaves, attending to the cached "
                    f"{fmt.share(hit)}; $/M in and the prompts' compute likewise)" if hit else "")
                 + "; TPOT: the request's "
                 "slowest decode round; E2E: TTFT + the decode rounds (closed form); tok/s/GPU: output tokens over "
                 "the decode rounds, the prompts' prefills apart ($/1k req adds them); max "
                 "conc.: sequences of the last context all replicas hold; $/1k req: a thousand requests, their prompts "
                 "at $/M in and their output - 1 decode tokens at $/M out (what 'cost' ranks); free GiB/GPU: what each GPU has left beside "
                 "the engine's reserve and workspace, the weights and the batch's KV cache"
                 + ("; limit users: the users spread over the copies of the layout they take, each row at the busiest "
                    "replica's batch (its TPOT, rates and $/M)" if any(r.limit == "users" for r in result.rows[:limit])
                    else "")
                 + ("; *: the group's collectives cross the scale-out network between nodes (json/csv: links); "
                    "engines keep tp within a node and lay pipeline stages across"
                    if any({"tp", "ep"} & set(r.scale_out_groups) for r in result.rows[:limit]) else "")
                 + ("; limit prompts: the most sequences the replica's compute keeps at the TPOT target with their "
                    "prompts' prefills, n P (output - 1) TPOT / (the request's FLOPs), its n GPUs' peak (derive "
                    "compute_batch)" + (", a speculating row's with each output token n_v / E verified tokens and k_d / "
                                        "E draft passes (derive compute_batch_speculative)"
                                        if any(r.limit == "prompts" and r.speculative == "on"
                                               for r in result.rows[:limit]) else "")
                    + "; the TPOT column is the decode round alone"
                    if any(r.limit == "prompts" for r in result.rows[:limit]) else ""))
    lines[notes:] = device(lines[notes:], noun)
    if markdown:  # the notes around the table as paragraphs, escaped
        return "\n".join(line if line.startswith("|") else "\n" + md_cell(line) for line in lines).strip()
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
