"""``genreport derive`` on hostile values (issue 17 item 11): bounded numbers, bounded products, a time limit
that covers every step of a solve."""

from __future__ import annotations

import time

import pytest
import sympy as sp
from genreport.commands.cli import main
from genreport.formulas import solve as so
from genreport.formulas.glossary import sym
from genreport.formulas.quantities import BY_ID

SPEC = "specs/llama8b-h100.yaml"


@pytest.mark.parametrize("value, message", [
    ("1e400", "1e400 is too large: numbers go up to about 1.8e308"),
    ("1e100000", "1e100000 is too large"),
    ("1e999999999", "1e999999999 is too large"),  # ran past 60 s: Fraction built a billion-digit integer
    ("1e-400", "1e-400 is too small to tell from 0"),
    ("9" * 5000, "has 5,000 characters; write at most 40"),
    ("*".join(["critical_context"] * 60), "has 60 factors; write at most 16"),
])
def test_bad_values_are_refused_quickly(capsys, value, message):
    t0 = time.monotonic()
    assert main(["derive", "critical_context", "--for", "W", "--at", f"critical_context={value}", "--spec", SPEC]) == 1
    err = capsys.readouterr().err
    assert message in err and "internal error" not in err
    assert len(err.splitlines()[0]) < 400  # the value is not echoed whole
    assert time.monotonic() - t0 < 10


def test_input_symbol_overflow_is_refused(capsys):
    """1e400 for an input symbol was an internal OverflowError (float of a 401-digit integer)."""
    assert main(["derive", "critical_context", "--at", "W=1e400", "--spec", SPEC]) == 1
    assert "1e400 is too large" in capsys.readouterr().err


def test_ordinary_values_still_work():
    v = so.parse_value("0.9*ridge_point/2", set(BY_ID))
    assert so.value_expr(v, "seed") == sp.Rational(9, 20) * so.quantity_expr("ridge_point", "seed")
    assert so.parse_value("8k", set(BY_ID)).factors[0][1].number == 8192
    assert so.parse_value("1e308", set(BY_ID)).factors[0][1].number == 10**308


def test_the_time_limit_covers_cancel_and_tidying(monkeypatch):
    """The 60-factor product spent minutes in sp.cancel, which ran outside the solve's time limit."""
    slow_calls = []

    def slow_cancel(expr, *a, **k):  # stands for a cancel that never ends
        slow_calls.append(1)
        while True:
            sum(range(10_000))

    monkeypatch.setattr(so.sp, "cancel", slow_cancel)
    t0 = time.monotonic()
    sol = so.solve_quantity("critical_context", sym("W"), "seed", sym("P") ** 3, seconds=0.5)
    assert time.monotonic() - t0 < 5 and slow_calls
    assert sol.branches and "within 0.5 s" in sol.branches[0].note


def test_time_limits_nest():
    with so.time_limit(0.3) as outer:
        with pytest.raises(so.TimeLimit) as inner_exc:
            with so.time_limit(0.1) as inner:
                while True:
                    sum(range(1000))
        assert inner_exc.value.deadline == inner
        with pytest.raises(so.TimeLimit) as outer_exc:
            with so.time_limit(10.0):
                while True:
                    sum(range(1000))
        assert outer_exc.value.deadline == outer


def test_the_whole_derive_command_is_timed(monkeypatch, capsys):
    from genreport.commands import derive

    monkeypatch.setattr(derive, "DERIVE_SECONDS", 0.5)

    def forever(*a, **k):
        while True:
            sum(range(10_000))

    monkeypatch.setattr(derive, "derive_text", forever)
    assert main(["derive", "critical_context"]) == 1
    assert "took more than 0.5 s and was stopped" in capsys.readouterr().err


def test_division_by_zero_is_refused(capsys):
    """'critical_context=1/0' was an internal KeyError ('ComplexInfinity')."""
    assert main(["derive", "critical_context", "--for", "W", "--at", "critical_context=1/0", "--spec", SPEC]) == 1
    assert "'1/0' divides by zero" in capsys.readouterr().err
    assert main(["derive", "critical_context", "--for", "W", "--at", "critical_context=1/0.0e5"]) == 1


@pytest.mark.parametrize("value, message", [
    ("1e308*1e308", "multiply to about 1e616, outside a float's range"),
    ("1e-300*1e-300", "multiply to about 1e-600"),
    ("1e300/1e-10", "multiply to about 1e310"),
])
def test_products_of_numbers_stay_floats(capsys, value, message):
    """'1e308*1e308' was an internal OverflowError (int too large to convert to float)."""
    assert main(["derive", "critical_context", "--for", "W", "--at", f"critical_context={value}", "--spec", SPEC]) == 1
    assert message in capsys.readouterr().err


def test_overflow_with_symbols_is_no_value(capsys):
    """1e308 times the square of the ridge over the attention's intensity (a count: tokens, as the quantity; since stop
    75 a value of another unit is refused) overflows only when evaluated: 'no value', not an internal error."""
    assert main(["derive", "critical_context", "--for", "W", "--at",
                 "critical_context=1e308*ridge_point/attention_intensity*ridge_point/attention_intensity",
                 "--spec", SPEC]) == 0
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["W=0", "P=0.0", "n_TP=0e3", "B=0", "theta=0"])
def test_an_input_with_no_value_at_zero_is_refused(capsys, value):
    """``--at W=0`` printed 'S* = 0' without a spec and 'S* = none: the decode ceiling never falls below the ridge'
    with one (a card with no bandwidth has no ridge); a rate, a layout degree or a batch of 0 is refused at the
    option, with an example of a value."""
    name = value.split("=")[0]
    for spec in ((), ("--spec", SPEC)):
        assert main(["derive", "critical_context", "--at", value, *spec]) == 1
        err = capsys.readouterr().err
        assert f"--at {value}" in err and f"{name} (" in err and "has no physical value at 0" in err, err
        assert f"e.g. --at {name}=" in err and "internal error" not in err


@pytest.mark.parametrize(("value", "limit"), [("p_a=1.5", "below 1"), ("p_a=1", "below 1"), ("h_p=1", "below 1"),
                                            ("e_m=1.2", "at most 1"), ("eta_W=2", "at most 1")])
def test_a_share_past_its_limit_is_refused(capsys, value, limit):
    """``--at p_a=1.5`` gave B_P speculating 221.9 sequences (an acceptance probability of 1.5) and p_a=1 "none: the
    formula divides by zero"; e_m=1.2 would put the serial estimate under the strict bound.  As the spec files bound
    them (report.schema.json: acceptance and prefix_hit below 1; common.schema.json's fraction for the measured shares:
    (0, 1]), refused at the option with an example.  0.99 and 1 (a share of a peak) still evaluate."""
    name = value.split("=")[0]
    assert main(["derive", "compute_batch_speculative", "--at", value, "--spec", "specs/deepseek-v3-h200-ep8.yaml"]) == 1
    err = capsys.readouterr().err
    assert f"--at {value}" in err and f"is a share {limit}" in err and f"e.g. --at {name}=" in err, err
    assert "internal error" not in err


def test_a_share_at_its_limit_evaluates(capsys):
    assert main(["derive", "compute_batch_speculative", "--at", "p_a=0.99", "--spec",
                 "specs/deepseek-v3-h200-ep8.yaml"]) == 0
    assert "B_P,theta,spec = 207.151" in capsys.readouterr().out  # E = 1.99: 2 / 1.99 verified tokens a kept one
    assert main(["derive", "decode_time_serial", "--at", "e_m=1", "--spec", SPEC]) == 0
    assert "internal error" not in capsys.readouterr().err


def test_symbols_that_count_what_a_spec_may_lack_take_zero(capsys):
    """N_x (routed-expert parameters) and a (activation traffic) are 0 for a dense model's spec: --at takes 0."""
    assert main(["derive", "weight_bytes_per_gpu", "--at", "N_x=0", "--spec", SPEC]) == 0
    assert "w_g = 1.606e+10 B (16.06 GB)" in capsys.readouterr().out


def test_a_workload_count_takes_a_whole_number(capsys):
    """``--at B=1.5`` with a spec was evaluated at 1.5 under a header that said batch = 1 (--batch 1.5 is refused);
    ``--at B=0`` was refused as "--batch 0: '0' is not a token count", an option not given."""
    assert main(["derive", "decode_time_memory", "--at", "B=1.5", "--spec", SPEC]) == 1
    assert "--at B=1.5: B is a count" in capsys.readouterr().err
    assert main(["derive", "decode_time_memory", "--at", "B=0", "--spec", SPEC]) == 1
    err = capsys.readouterr().err
    assert "--at B=0: B (batch" in err and "--batch" not in err
    assert main(["derive", "decode_time_memory", "--at", "B=8", "--spec", SPEC]) == 0
    assert "B = 8," in capsys.readouterr().out


def test_a_symbol_outside_the_formula_is_named(capsys):
    """``--at Q=3`` printed "with Q = 3:" and the formula unchanged: Q is not one of its inputs."""
    assert main(["derive", "critical_context", "--at", "Q=3", "--spec", SPEC]) == 1
    err = capsys.readouterr().err
    assert "Q is not an input of critical_context's formula" in err and "W" in err.split("set one of its inputs")[1]


def test_a_tiny_value_raised_to_a_power_is_bracketed_in_the_substituted_formula():
    """A speculative acceptance of 0.0009 (or a prefix hit of 0.0001) printed as "9 \\times 10^{-4}" inside
    p_a^{k_d + 1}: "9 \\times 10^{-4}^{1 + 1}", a double superscript that stopped the HTML and PDF builds with an
    internal error (hostile input, round six).  A value in scientific form or negative is bracketed where it is a
    power's base; elsewhere, and integers and decimals, as before."""
    from genreport.texfill import fill
    from shared import ROOT, page, spec_file

    got = fill(r"\left(1 - \mathit{v0}^{\mathit{v1} + 1}\right) \cdot \mathit{v0} \cdot \mathit{v2}^{2}",
               ("p_a", "k_d", "T"), {}, {"p_a": r"9 \times 10^{-4}", "k_d": "1", "T": "-2"})
    assert got == (r"\left(1 - \left(9 \times 10^{-4}\right)^{1 + 1}\right) \times 9 \times 10^{-4} \times "
                   r"\left(-2\right)^{2}")
    text = (ROOT / "specs" / "deepseek-v3-h200-ep8.yaml").read_text(encoding="utf-8")
    assert "acceptance: 0.85" in text
    words = page(spec_file(text.replace("acceptance: 0.85", "acceptance: 0.0009"), "ds-lowacc.yaml"))
    assert "speculative decoding" in words and r"\left(9 \times 10^{-4}\right)" in words


@pytest.mark.parametrize("at", ["n_TP=0.5", "L=0.5", "k_e=1.5", "n_EP=1e-300", "M_s=2.5"])
def test_a_count_given_a_fraction_is_refused(at, capsys):
    """derive --at took fractions for counts (round six): "gpus --at n_TP=0.5" printed n_GPU = 0.5, where a spec's
    tp: 0.5 is refused; B and S were already counts.  Each symbol of glossary.WHOLE is one now."""
    from genreport.commands.cli import main
    from shared import ROOT

    spec = str(ROOT / "specs" / "mixtral8x22b-h100-tp8-ep8.yaml")
    assert main(["derive", "decode_time_bound", "--at", at, "--spec", spec]) == 1
    err = capsys.readouterr().err
    assert f"--at {at}: {at.split('=')[0]} is a count (" in err and "write a whole number" in err


def test_a_context_of_0_names_the_at_the_user_wrote(capsys):
    """derive capacity_batch_replica --at S=0 said "--context 0: '0' is not a token count", an option never given."""
    from genreport.commands.cli import main
    from shared import ROOT

    spec = str(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml")
    assert main(["derive", "capacity_batch_replica", "--at", "S=0", "--spec", spec]) == 1
    err = capsys.readouterr().err
    assert err.startswith("--at S=0: S (") and "--context" not in err


def test_an_audit_cell_left_open_does_not_swallow_the_rows_below(tmp_path, capsys):
    """A quote left open in one row's source cell took the two rows below into it, newlines and all, and the audit
    said "1 rows: 1 ok" (round six): both swallowed claims were impossible.  It names the cell and the lines now."""
    from genreport.commands.cli import main

    head = "id,model,hardware,gpus,tp,pp,precision,batch,input_tokens,output_tokens,metric,value,source\n"
    row = "{},mixtral-8x22b,h100-sxm,8,8,1,bf16,1,128,128,tokens_per_s,{},{}\n"
    path = tmp_path / "q.csv"
    path.write_text(head + row.format("x", 100, '"src') + row.format("y", 100000, "src") + row.format("z", 9e5, "s"))
    assert main(["audit", str(path)]) == 1
    err = capsys.readouterr().err
    assert "q.csv:2:1: the 'source' cell runs over lines 2-4: a quote opened in it is not closed" in err


def test_plan_refuses_a_gpu_priced_twice_and_says_the_prices_range(capsys):
    """--price h100-sxm=2,h100-sxm=3 took the last silently; --price h100-sxm=0 said only "is not GPU=USD per hour"
    (round six)."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--price", "h100-sxm=2,h100-sxm=3"]) == 1
    assert "h100-sxm is priced twice" in capsys.readouterr().err
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--price", "h100-sxm=0"]) == 1
    assert "is not GPU=USD per hour (above 0, at most 10,000)" in capsys.readouterr().err


def test_a_tiny_at_value_prints_as_a_number_not_300_digits(capsys):
    """derive ridge_point --for W --at ridge_point=1e-300 printed 1/1000...000 (300 digits) in the solved equation."""
    from shared import ROOT

    spec = str(ROOT / "specs" / "mixtral8x22b-h100-tp8-ep8.yaml")
    assert main(["derive", "ridge_point", "--for", "W", "--at", "ridge_point=1e-300", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert "000000000000000000000" not in out and "W = 1.0e+300 P" in out


def test_a_set_value_with_a_key_given_twice_says_so(capsys, tmp_path):
    """--set 'precision={weights: {default: bf16, default: fp8}}' said "is not allowed here (hint: use one of: fp32,
    ...)": the value, refused as data, was read as text (round six).  It names the key given twice now, as a spec
    file's does."""
    from shared import ROOT

    spec = str(ROOT / "specs" / "llama8b-h100.yaml")
    assert main([spec, "--set", "precision={weights: {default: bf16, default: fp8}}", "--format", "json",
                 "-o", str(tmp_path), "-q"]) == 1
    err = capsys.readouterr().err
    assert "duplicate key 'default'" in err and "not allowed here" not in err
    assert not any(tmp_path.iterdir())


def test_a_negative_option_value_gets_its_options_message(capsys):
    """plan --tpot -5ms stopped at argparse ("expected one argument", exit 64: "-5ms" read as an option) where
    --tpot 0ms says "must be positive" (round six).  Both are the option's own refusal now, exit 1."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--tpot", "-5ms"]) == 1
    assert "--tpot -5ms: must be positive" in capsys.readouterr().err


def test_a_quantity_set_to_a_value_of_another_unit_is_refused(capsys):
    """Hostile review, stop 75: ``derive critical_context --for W --at critical_context=ridge_point`` set tokens equal
    to FLOP/B and printed W = 2.81 TB/s.  The VALUE's unit, from its quantities' and symbols' (a number takes the
    quantity's), must be the quantity's; tokens and counts are both numbers here (kv_capacity_tokens = C / c is)."""
    from genreport.commands.cli import main

    assert main(["derive", "critical_context", "--for", "W", "--at", "critical_context=ridge_point"]) == 1
    assert "critical_context is in token, but ridge_point is in FLOP/B" in capsys.readouterr().err
    assert main(["derive", "ridge_point", "--for", "W", "--at", "ridge_point=P/weight_bytes"]) == 1
    assert "ridge_point is in FLOP/B, but P/weight_bytes is in FLOP/B s" in capsys.readouterr().err
    for ok in (["derive", "decode_intensity", "--for", "B", "--at", "decode_intensity=0.9*ridge_point"],
               ["derive", "critical_context", "--for", "W", "--at", "critical_context=1024"],
               ["derive", "kv_capacity_tokens", "--for", "C", "--at", "kv_capacity_tokens=C/kv_bytes_per_token"]):
        assert main(ok) == 0, (ok, capsys.readouterr().err)
        capsys.readouterr()


def test_an_empty_quantity_or_a_negative_value_is_named(capsys):
    """Hostile review, stop 75: ``derive ''`` listed every quantity with exit 0, and ``--at W=-1`` said "cannot read
    '-1'"; the first names no quantity, the second is below 0."""
    assert main(["derive", ""]) == 1
    assert "derive '': names no quantity" in capsys.readouterr().err
    assert main(["derive", "critical_context", "--at", "W=-1"]) == 1
    assert "'-1' is below 0" in capsys.readouterr().err


def test_an_at_item_is_named_as_it_was_written(capsys):
    """``--at context=8kb`` was answered as "--at S=8kb" (review, stop 82): derive reads batch=, context= and tokens=
    as B, S and T, and an error names the item as the user wrote it."""
    from genreport.commands.cli import main
    from shared import ROOT

    spec = str(ROOT / "specs" / "llama8b-h100.yaml")
    assert main(["derive", "decode_intensity", "--spec", spec, "--at", "context=8kb"]) == 1
    assert capsys.readouterr().err.startswith("--at context=8kb: S is a count")
    assert main(["derive", "decode_intensity", "--spec", spec, "--at", "batch=64,context=0"]) == 1
    assert capsys.readouterr().err.startswith("--at context=0: S (")
