"""Chapter 4's KV capacity in words for a model whose windowed layers keep only their window (QA of stop 71): the
chapter counted tokens at every layer's bytes (39,031 for Gemma 2 27B int4 on one L4) and the summary the tokens one
sequence can reach (73,967), two counts of one memory with nothing to say which is which."""

from __future__ import annotations

from genreport.model.catalog import kv_facts
from genreport.present import prose
from shared import evaluated, rendered

GEMMA_L4 = ("hardware=l4", "model=gemma-2-27b", "precision.weights=int4", "precision.kv_cache=fp8")


def test_a_windowed_models_capacity_says_what_it_counts_and_what_one_sequence_holds():
    r = evaluated("llama8b-h100.yaml", GEMMA_L4)
    sc = r.scalars[r.lead]
    facts = kv_facts(r.spec.model, r.spec.precision.kv_bytes, sc["capacity"] - sc["weight_bytes"], ())
    assert facts["bounded"] and facts["windowed_layers"] == 23  # Gemma 2: every other of its 46 layers
    one = facts["tokens_one_sequence"]
    assert one > sc["kv_capacity_tokens"]  # the windowed layers hold only their window
    words = prose.bounded_fact(r)
    assert f"one sequence can reach {one:,} tokens" in words and "23 windowed layers keep only their window" in words
    # it named "the summary's count", which is the command line's summary, not in the report (a review)
    assert "summary" not in words and "the sequences that fit at each context are counted with what each" in words
    page = rendered(r, "sections/s4_batching.html.j2")
    assert f"<p data-static>{words.replace(chr(39), '&#39;')}</p>" in page


def test_a_sequence_past_the_models_context_says_so():
    """Gemma 3 27B (google/gemma-3-27b-it config.json: 62 layers, 52 sliding over 1,024 tokens, max_position_embeddings
    131,072) in bf16 with an int4 cache on one H100: the room beside its weights holds 1,058,629 tokens of one
    sequence, past the 131,072 the model reads; chapter 4 said "can reach 1,058,629 tokens" alone (review, stop 78)."""
    r = evaluated("llama8b-h100.yaml", ("model=gemma-3-27b", "precision.kv_cache=int4"))
    sc = r.scalars[r.lead]
    one = kv_facts(r.spec.model, r.spec.precision.kv_bytes, sc["capacity"] - sc["weight_bytes"], ())["tokens_one_sequence"]
    assert r.spec.model.max_context == 131072 and one > 131072
    assert f"one sequence can reach {one:,} tokens, past the model's 131,072," in prose.bounded_fact(r)


def test_a_model_with_every_layer_global_says_nothing_more():
    r = evaluated("llama8b-h100.yaml")
    assert prose.bounded_fact(r) == ""
    assert "That count has every layer" not in rendered(r, "sections/s4_batching.html.j2")


def test_a_what_if_whose_weights_no_longer_fit_says_what_lost_its_value():
    """A what-if that leaves no KV cache room (Llama 3.1 8B on an H100 of 8 GiB) turns the capacities into "no
    physical value"; the what-if story compared only quantities with a value on both sides and could say "No
    headline quantity moved" beside a card that no longer holds the weights (QA of stop 71)."""
    r = evaluated("llama8b-h100.yaml", ("hardware.memory.capacity=8 GiB",))
    story = prose.whatif_story(r, evaluated("llama8b-h100.yaml"), ("hardware.memory.capacity=8 GiB",))
    lost = next(x for x in story if x.startswith("No longer stated"))
    assert "kv_capacity_tokens" in lost and "capacity_batch" in lost
    assert "No headline quantity moved." not in story


def test_a_crossover_past_the_engines_batch_is_not_reached():
    """Llama 3.1 70B at tp 8 (its spec's engine runs at most 256 sequences, vLLM's max_num_seqs): chapter 4 said
    "the batch crosses it at 931, and 1,408 sequences fit, so it can get there" while page 1, figure 6 and the
    serving chapter stop the batch at 256.  Python and the live page (prose.js) say the engine stops it."""
    from shared import page

    text = page("llama70b-h100-tp8.yaml")
    assert ("the batch crosses it at 931; 1,408 sequences fit, but the engine runs at most 256 at once (its "
            "max_sequences), so it does not get there") in text
    assert "so it can get there" not in text.split("At context 1,024")[1].split(".")[0]


def test_derive_says_what_the_windowed_count_counts(capsys):
    """``derive kv_capacity_tokens --spec`` for Gemma 3 27B with an int4 cache on one H100 gave 171,606 tokens alone,
    every layer's count (review, stop 78): it notes, as chapter 4 does, that the windowed layers keep only their window
    and one sequence can reach 1,058,629 tokens, past the model's 131,072."""
    from genreport.commands.cli import main
    from shared import SPECS

    argv = ["derive", "kv_capacity_tokens", "--spec", str(SPECS / "llama8b-h100.yaml"), "--set", "model=gemma-3-27b",
            "--set", "precision.kv_cache=int4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    r = evaluated("llama8b-h100.yaml", ("model=gemma-3-27b", "precision.kv_cache=int4"))
    sc = r.scalars[r.lead]
    one = kv_facts(r.spec.model, r.spec.precision.kv_bytes, sc["capacity"] - sc["weight_bytes"], ())["tokens_one_sequence"]
    assert (f"(c counts every layer caching every token; the 52 windowed layers keep only their window, so one sequence "
            f"can reach {one:,} tokens, past the model's 131,072)") in out
    assert main(["derive", "kv_capacity_tokens", "--spec", str(SPECS / "llama8b-h100.yaml")]) == 0
    assert "windowed" not in capsys.readouterr().out
