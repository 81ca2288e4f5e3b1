"""``genreport sweep`` and ``genreport list`` (issue 5): the vectorised grid agrees with the report's own
evaluation, the tables hold one row a point, the figure is byte-stable."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from genreport.commands.cli import main as cli_main
from genreport.load.loader import load_hardware, load_model
from genreport.model import sweep as sw
from genreport.present.textcols import format_g6, format_int, join_rows, text
from shared import ROOT, evaluated

SPEC = ROOT / "specs" / "llama8b-h100.yaml"


def test_log_integers():
    b = sw.log_integers(1, 8192, 64)
    assert len(b) == 64 and b[0] == 1 and b[-1] == 8192 and np.all(np.diff(b) > 0)
    s = sw.log_integers(128, 131072, 16)
    assert len(s) == 16 and s[0] == 128 and s[-1] == 131072 and 8192 in s
    assert sw.log_integers(1, 4, 10).tolist() == [1, 2, 3, 4]


def test_format_g6_is_percent_g():
    rng = np.random.default_rng(5)
    x = rng.random(20000) * 10.0 ** rng.integers(-12, 14, 20000)
    x[::3] *= -1
    x[:12] = [0.0, 1.0, 10.0, 100.0, 1e5, 1e6, 999999.5, 9999995.0, 1e-4, 0.00099999, 123456.0, 1234567.0]
    got = text(format_g6(x))
    want = [f"{v:.6g}" for v in x.tolist()]
    exact = sum(a == b for a, b in zip(got, want, strict=True))
    assert exact >= len(x) - 2  # binary rounding may differ at a decimal half-way point
    assert all(float(a) == pytest.approx(float(b), rel=2e-6) for a, b in zip(got, want, strict=True))
    assert text(format_g6(np.array([np.nan, np.inf, -np.inf]))) == ["nan", "inf", "-inf"]
    assert text(format_g6(np.array([np.nan]), nonfinite=b"null")) == ["null"]
    ints = np.array([0, 7, -12, 8192, 131072, -10**12])
    assert text(format_int(ints)) == [str(i) for i in ints.tolist()]
    assert join_rows([np.array([b"a", b"bc"]), b",", format_int(np.array([1, 22])), b"\n"]) == b"a,1\nbc,22\n"


@pytest.fixture(scope="module")
def small():
    models = [load_model(ROOT / "specs" / "models" / "llama-3.1-8b.yaml")]
    gpus = [load_hardware(ROOT / "specs" / "hardware" / f"{n}.yaml") for n in ("h100-sxm", "a100-sxm-80gb")]
    configs, skipped = sw.configurations(models, gpus, ("bf16", "fp8", "int4"))
    return sw.evaluate_sweep(configs, [1, 2, 64, 512, 8192], [128, 1024, 8192], skipped=skipped)


def test_gpus_without_the_compute_format_compute_fp8_weights_in_bf16(small):
    """fp8 weights on the A100 (no fp8 peak) compute in bf16, as plan runs them (W8A16, tests/test_weight_only_fp8.py);
    int4 computes in bf16 everywhere; a TPU v5p still skips fp8 (tests/test_weight_only_fp8.py)."""
    configs = {(c.hardware.name, c.precision): c for c in small.configs}
    assert configs["a100-sxm-80gb", "fp8"].weight_only and configs["a100-sxm-80gb", "fp8"].spec.compute == "bf16"
    assert not configs["h100-sxm", "fp8"].weight_only and configs["h100-sxm", "fp8"].spec.compute == "fp8"
    assert ("a100-sxm-80gb", "int4") in configs and small.skipped == []


def test_grid_agrees_with_the_report_evaluation(small):
    """The sweep's point (llama-3.1-8b, h100-sxm, bf16) equals evaluate() of specs/llama8b-h100.yaml."""
    r = evaluated(SPEC)
    k = next(i for i, c in enumerate(small.configs) if (c.hardware.name, c.precision) == ("h100-sxm", "bf16"))
    batch, ctx = list(r.spec.workloads.decode_batch), list(r.spec.workloads.decode_context)
    for i, b in enumerate(small.batch.tolist()):
        for j, s in enumerate(small.context.tolist()):
            if b in batch and s in ctx:
                for qid in sw.GRID_QUANTITIES:
                    assert small.columns[qid][k, i, j] == pytest.approx(
                        r.decode["seed"][qid][batch.index(b), ctx.index(s)], rel=1e-12), (qid, b, s)
    cap = r.per_context["seed"]["capacity_batch"]
    for j, s in enumerate(small.context.tolist()):
        assert small.capacity_batch[k, j] == cap[ctx.index(s)]
    assert np.array_equal(small.fits[k], small.batch[:, None] <= small.capacity_batch[k][None, :])
    binds = np.asarray(sw.BINDS)[small.binds[k]]
    assert binds[0, 0] == "bandwidth" and binds[-1, -1] == "capacity"  # 8192 sequences of 8k do not fit


def test_sliding_window_grid_agrees_with_the_report_evaluation():
    """Mistral 7B v0.1 (every layer windowed at 4096) and Gemma 2 9B (half of them): the sweep scales c and d_h
    along the context axis exactly as a report does, so both give the same times, token rates and intensities."""
    from genreport.formulas.compiled import load
    from genreport.load.spec import Precision
    from genreport.model.evaluate import make_env

    q = load()
    hw = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
    batch, ctx = [1, 64, 1024], [1024, 4096, 16384, 65536]
    for name in ("mistral-7b", "gemma-2-9b"):
        m = load_model(ROOT / "specs" / "models" / f"{name}.yaml")
        res = sw.evaluate_sweep(sw.configurations([m], [hw], ("bf16",))[0], batch, ctx)
        env = make_env(hw, m, Precision("bf16", "bf16", "bf16"), "seed")
        for i, b in enumerate(batch):
            for j, s in enumerate(ctx):
                e = env.at(batch=float(b), context=float(s))
                for qid in sw.GRID_QUANTITIES:
                    assert res.columns[qid][0, i, j] == pytest.approx(float(q[qid](e)), rel=1e-12), (name, qid, b, s)
        t_comp = res.columns["decode_time_compute"][0, 0]  # batch 1: past the window attention stops growing
        if name == "mistral-7b":
            assert t_comp[1] == pytest.approx(t_comp[2], rel=1e-12) and t_comp[2] == pytest.approx(t_comp[3], rel=1e-12)
        else:
            assert t_comp[1] < t_comp[2] < t_comp[3]  # the global layers still attend to everything


def test_a_sweep_at_each_models_checkpoint_formats_agrees_with_a_reports_evaluation():
    """``--precision checkpoint``: each model's weights as its checkpoint stores them (gpt-oss-120b: mxfp4 experts, bf16
    attention; specs/models/gpt-oss-120b.yaml quantization_config), as ``plan`` names them; the sweep refused the
    name.  Its grid equals a report's evaluation at plan's checkpoint precision, and a model without a stored format
    (Llama 3.1 8B) sweeps in bf16."""
    from genreport.formulas.compiled import load
    from genreport.model.evaluate import make_env
    from genreport.model.plan import plan_precision

    q = load()
    hw = load_hardware(ROOT / "specs" / "hardware" / "h200.yaml")
    batch, ctx = [1, 64], [1024, 32768]
    for name in ("gpt-oss-120b", "llama-3.1-8b"):
        m = load_model(ROOT / "specs" / "models" / f"{name}.yaml")
        (config,), _ = sw.configurations([m], [hw], ("checkpoint",))
        res = sw.evaluate_sweep([config], batch, ctx)
        env = make_env(hw, m, plan_precision("checkpoint", m), "seed")
        for i, b in enumerate(batch):
            for j, s in enumerate(ctx):
                e = env.at(batch=float(b), context=float(s))
                for qid in sw.GRID_QUANTITIES:
                    assert res.columns[qid][0, i, j] == pytest.approx(float(q[qid](e)), rel=1e-12), (name, qid, b, s)
        assert config.spec.classes if name == "gpt-oss-120b" else config.spec.weights == "bf16"


def test_mixture_of_experts_reads_experts_but_stores_all():
    path = ROOT / "specs" / "models" / "mixtral-8x7b.yaml"
    if not path.is_file():
        pytest.skip("no mixtral-8x7b in the catalog")
    m = load_model(path)
    hw = load_hardware(ROOT / "specs" / "hardware" / "h200.yaml")
    configs, _ = sw.configurations([m], [hw], ("bf16",))
    res = sw.evaluate_sweep(configs, [1, 4096], [1024])
    t1, t4096 = res.columns["decode_time_memory"][0, :, 0]
    assert t4096 > t1  # more experts touched at a larger batch
    from genreport.formulas import architecture as arch

    total = m.declared_parameters or arch.parameter_count(m).total
    want = np.floor((hw.capacity - total * 2.0) / (1024 * arch.kv_bytes_per_token(m, 2.0)))
    assert res.capacity_batch[0, 0] == want


def test_tables_hold_one_row_a_point(small):
    rows = list(csv.reader(io.StringIO(sw.csv_bytes(small).decode())))
    assert rows[0] == list(sw.COLUMNS)
    assert len(rows) - 1 == small.points == len(small.configs) * 5 * 3
    doc = json.loads(sw.json_bytes(small))
    assert doc["columns"] == list(sw.COLUMNS) and len(doc["rows"]) == small.points
    nb, ns = len(small.batch), len(small.context)
    for n, (row, jrow) in enumerate(zip(rows[1:], doc["rows"], strict=True)):
        k, rest = divmod(n, nb * ns)
        i, j = divmod(rest, ns)
        c = small.configs[k]
        assert row[:5] == [c.model.name, c.hardware.name, c.precision, str(small.batch[i]), str(small.context[j])]
        assert jrow[:5] == [c.model.name, c.hardware.name, c.precision, int(small.batch[i]), int(small.context[j])]
        fits = bool(small.fits[k, i, j])
        for col, qid in enumerate(sw.GRID_QUANTITIES, start=5):
            v = small.columns[qid][k, i, j]
            if qid == "decode_tokens_per_s" and not fits:  # no rate where the batch does not fit
                assert row[col] == "" and jrow[col] is None
                continue
            assert float(row[col]) == pytest.approx(v, rel=1e-5) and jrow[col] == float(row[col])
        within = bool(small.context[j] <= (c.model.max_context or small.context[j]))
        assert row[-4:] == [str(int(small.capacity_batch[k, j])), str(fits).lower(), str(within).lower(),
                            sw.BINDS[small.binds[k, i, j]]]
        assert jrow[-3] is fits and jrow[-2] is within


def test_cli_writes_deterministic_files(tmp_path, capsys):
    argv = ["sweep", "--models", "llama-3.1-8b,llama-3.1-70b", "--hardware", "h100-sxm,a100-sxm-80gb",
            "--precision", "bf16,fp8", "--batch", "1,64,1k", "--context", "1k,8k", "-o"]
    assert cli_main([*argv, str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "8 configurations" in out and "48 points" in out and "2 with fp8 weights computed in bf16 (W8A16)" in out
    assert cli_main([*argv, str(tmp_path / "b"), "-q"]) == 0
    for name in ("sweep.csv", "sweep.json", "heatmap.svg"):
        a, b = (tmp_path / "a" / name).read_bytes(), (tmp_path / "b" / name).read_bytes()
        assert a == b, name
    svg = (tmp_path / "a" / "heatmap.svg").read_text()
    assert svg.startswith("<?xml") and "llama-3.1-70b" in svg and "<dc:date>" not in svg
    assert len((tmp_path / "a" / "sweep.csv").read_text().splitlines()) == 49  # a header and the 48 points


def test_the_summary_line_counts_one_of_each_in_the_singular(tmp_path, capsys):
    """One model on one GPU in one precision at one batch and one context is 1 configuration and 1 point, not "1
    configurations (1 models x 1 GPUs x 1 precisions) x 1 batches x 1 contexts = 1 points"."""
    assert cli_main(["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--precision", "bf16",
                     "--batch", "1", "--context", "1k", "--format", "csv", "-o", str(tmp_path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "1 configuration (1 model x 1 GPU x 1 precision) x 1 batch x 1 context = 1 point", first
    assert len((tmp_path / "sweep.csv").read_text().splitlines()) == 2  # a header and the one point


def test_cli_bad_input(tmp_path, capsys):
    assert cli_main(["sweep", "--models", "llama-3.1-8", "-o", str(tmp_path)]) == 1
    assert "did you mean 'llama-3.1-8b'" in capsys.readouterr().err
    assert cli_main(["sweep", "--batch", "0,2", "-o", str(tmp_path)]) == 1
    assert cli_main(["sweep", "--precision", "fp7", "-o", str(tmp_path)]) == 1
    assert cli_main(["sweep", "--format", "xls", "-o", str(tmp_path)]) == 1
    assert not any(tmp_path.iterdir())


def test_list(capsys):
    assert cli_main(["list"]) == 0
    out = capsys.readouterr().out
    assert "h100-sxm" in out and "llama-3.1-8b" in out and "3.35" in out
    assert cli_main(["list", "models"]) == 0
    out = capsys.readouterr().out
    assert "llama-3.1-8b" in out and "h100-sxm" not in out


def test_rows_past_the_model_maximum_or_not_fitting_are_flagged():
    """Issue 16 item 8: Llama 2 7B holds 4,096 tokens (config.json max_position_embeddings); 8,192 is past it.
    At batch 8,192 and context 8,192 its KV cache (0.5 MiB a token in bf16) cannot fit 80 GiB: no tokens/s."""
    models = [load_model(ROOT / "specs" / "models" / "llama-2-7b.yaml")]
    gpus = [load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")]
    configs, _ = sw.configurations(models, gpus, ("bf16",))
    res = sw.evaluate_sweep(configs, [1, 8192], [1024, 8192])
    assert res.within_max_context.tolist() == [[True, False]]
    rows = list(csv.DictReader(io.StringIO(sw.csv_bytes(res).decode())))
    by = {(r["batch"], r["context_tokens"]): r for r in rows}
    assert by["1", "8192"]["within_max_context"] == "false" and by["1", "1024"]["within_max_context"] == "true"
    assert by["8192", "8192"]["fits"] == "false" and by["8192", "8192"]["decode_tokens_per_s"] == ""
    assert by["8192", "8192"]["decode_time_memory_s"] != ""  # the step bound is still stated
    assert float(by["1", "1024"]["decode_tokens_per_s"]) > 0
    assert {"decode_time_memory_s", "decode_intensity_flop_per_byte", "context_tokens"} <= set(rows[0])


def test_default_sweep_folder_is_ignored_by_git():
    assert "/out/sweep/" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_command_keeps_what_plan_keeps_of_each_gpu(tmp_path, capsys):
    """``genreport sweep`` counts a point's capacity in what the engine leaves of the card, as ``plan --gpus 1`` does
    (vLLM's 10% reserve, gpu_memory_utilization 0.9, and one 8,192-token step's activations: env.usable_at); it gave
    the KV cache the whole card, so Llama 3.1 8B bf16 on H100 held 65 sequences of 8k in the sweep and 56 in plan.
    An MoE (Mixtral 8x7B fp8, every expert resident), a sliding-window model (Gemma 2 27B: half its layers keep 4,096
    tokens) and a 235B MoE in int4 on H200, at 1k and 8k.  --memory-reserve 0 --max-batched-tokens 0 gives the card
    back, seed 003's ledger (the committed spec's engine block says the same)."""
    import dataclasses

    from genreport.load.spec import Parallelism
    from genreport.model.plan import plan_precision, point

    cases = [("llama-3.1-8b", "h100-sxm", "bf16"), ("mixtral-8x7b", "h100-sxm", "fp8"),
             ("gemma-2-27b", "h100-sxm", "bf16"), ("qwen3-235b-a22b", "h200", "int4")]
    out = tmp_path / "sweep"

    def swept(*extra):
        for m, h, p in cases:
            assert cli_main(["sweep", "--models", m, "--hardware", h, "--precision", p, "--batch", "1",
                             "--context", "1k,8k", "-o", str(out), "--format", "json", "-q", *extra]) == 0
            doc = json.loads((out / "sweep.json").read_text())
            yield (m, h, p), doc["meta"], [row[-4] for row in doc["rows"]]

    for (m, h, p), meta, caps in swept():
        assert (meta["memory_reserve"], meta["max_batched_tokens"]) == (0.1, 8192)
        model = load_model(ROOT / "specs" / "models" / f"{m}.yaml")
        hw = load_hardware(ROOT / "specs" / "hardware" / f"{h}.yaml")
        hw = dataclasses.replace(hw, memory_reserve=0.1, max_batched_tokens=8192, max_sequences=256)
        prec = plan_precision(p, model)
        want = [int(point(model, hw, prec, Parallelism(1), 1.0, s).capacity_batch) for s in (1024.0, 8192.0)]
        assert caps == want, (m, h, p)
        assert caps[1] > 0 and (m != "llama-3.1-8b" or caps[1] == 56)
    _, meta, caps = next(swept("--memory-reserve", "0", "--max-batched-tokens", "0"))
    assert meta["memory_reserve"] == 0 and "all of each GPU's memory" in meta["memory"]
    r = evaluated(SPEC)  # seed 003: 80 GiB less 16.06 GB of weights over 1 GiB a sequence of 8k
    assert caps[1] == r.per_context["seed"]["capacity_batch"][list(r.spec.workloads.decode_context).index(8192)] == 65
    assert cli_main(["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--precision", "bf16",
                     "--batch", "1", "--context", "8k", "-o", str(out), "--format", "csv"]) == 0
    assert ("capacity: 10% of each GPU kept by the engine and one 8,192-token step's activations left out"
            in capsys.readouterr().out)
    assert cli_main(["sweep", "--models", "llama-3.1-8b", "--memory-reserve", "95%", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "--memory-reserve 95%" in err and "hint:" in err and "Traceback" not in err


@pytest.mark.parametrize("rows,cols", [(1, 1), (2, 3), (3, 1), (1, 17), (27, 17)])
def test_the_heatmap_keeps_every_text_on_its_canvas(rows, cols):
    """The heatmap's size follows its grid, the longest model name and its title, which wraps to the width: two
    models on three GPUs cut the title ("...largest batch that fits (seed accounting; ..." ran off the right edge)
    and the colour bar's label at the top; with the capacity line (stop 64) the title is two sentences long."""
    import numpy as np
    from genreport.present.figures import style
    from genreport.present.sweepfig import heatmap_figure

    models = [("deepseek-r1-distill-qwen-7b" if r % 2 else f"m{r}") for r in range(rows)]
    gpus = [f"gpu-{c}" for c in range(cols)]
    value = np.array([[np.nan if (r + c) % 3 == 0 else 10.0 ** (1 + (r * cols + c) % 5) for c in range(cols)]
                      for r in range(rows)])
    where = {(r, c): ("fp8", 64) for r in range(rows) for c in range(cols) if np.isfinite(value[r, c])}
    kept = ("10% of each GPU kept by the engine and one 8,192-token step's activations left out "
            "(--memory-reserve, --max-batched-tokens)")
    fig = heatmap_figure({"context": 8192, "models": models, "hardware": gpus, "value": value, "where": where},
                         "seed", kept)
    boxes = style.text_boxes(fig)
    titles = [bb for label, bb in boxes if label.startswith("Best decode")]
    assert len(titles) == 1
    for label, bb in boxes:
        assert bb.x0 >= -1 and bb.x1 <= fig.bbox.x1 + 1 and bb.y0 >= -1 and bb.y1 <= fig.bbox.y1 + 1, label
        if not label.startswith("Best decode"):
            assert not bb.overlaps(titles[0]), label


def test_a_sweep_with_nothing_to_evaluate_says_why(capsys):
    """``sweep --precision fp4 --hardware h100-sxm`` (review, stop 78): "no configuration to evaluate" alone; the H100's
    file gives no fp4 peak (NVIDIA's H100 datasheet: FP8 the narrowest tensor-core format), which it now says."""
    from genreport.commands.cli import main

    assert main(["sweep", "--precision", "fp4", "--hardware", "h100-sxm"]) == 1
    err = capsys.readouterr().err
    assert "no configuration to evaluate: h100-sxm has no dense fp4 peak" in err, err


def test_a_spec_named_on_the_command_line_is_read_where_it_is(tmp_path, capsys, monkeypatch):
    """``sweep --models /elsewhere/mine.yaml`` from the project folder refused the path as outside the project (review,
    stop 81), where ``audit`` and ``plan`` read the files they are given: the fence is for paths inside specs. A name
    that is no file is still said so."""
    import shutil

    own = tmp_path / "mine" / "my-8b.yaml"
    own.parent.mkdir()
    shutil.copy(ROOT / "specs" / "models" / "llama-3.1-8b.yaml", own)
    monkeypatch.chdir(ROOT)
    argv = ["sweep", "--hardware", "h100-sxm", "--precision", "bf16", "--batch", "1", "--context", "1k",
            "--format", "csv", "-o", str(tmp_path / "out")]
    assert cli_main([*argv, "--models", str(own)]) == 0
    assert "llama-3.1-8b,h100-sxm,bf16,1,1024," in (tmp_path / "out" / "sweep.csv").read_text()
    capsys.readouterr()
    assert cli_main([*argv, "--models", str(tmp_path / "none.yaml")]) == 1
    assert "--models: no model spec at" in capsys.readouterr().err
    # plan reads the model and the GPU it is given the same way (catalog.resolve_argument)
    gpu = tmp_path / "mine" / "my-gpu.yaml"
    shutil.copy(ROOT / "specs" / "hardware" / "h100-sxm.yaml", gpu)
    assert cli_main(["plan", str(own), "--hardware", str(gpu), "--gpus", "1", "--format", "csv"]) == 0
    assert "points outside" not in capsys.readouterr().err


def test_the_block_formats_plan_takes_sweep_too(tmp_path, capsys):
    """``sweep --precision nvfp4`` was an unknown precision where ``plan --weights nvfp4`` and a spec take it (review,
    stop 82): NVFP4 weights on a B200 (fp4 compute there), at 4.5 bits a weight with their block scales."""
    assert cli_main(["sweep", "--models", "llama-3.1-8b", "--hardware", "b200", "--precision", "nvfp4,mxfp4",
                     "--batch", "1", "--context", "1k", "--format", "csv", "-o", str(tmp_path)]) == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "sweep.csv").read_text())))
    assert [r["precision"] for r in rows] == ["nvfp4", "mxfp4"] and all(r["fits"] == "true" for r in rows)
    assert float(rows[0]["decode_time_memory_s"]) > float(rows[1]["decode_time_memory_s"])  # 4.5 bits > 4.25
