"""--set with one value where the spec takes a list: a one-element list (issue 18), in the CLI and the API."""

from __future__ import annotations

import pytest
from genreport import load_spec
from genreport.errors import SpecError
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-h100.yaml"


@pytest.mark.parametrize(("override", "field", "want"), [
    ("workloads.decode.batch=64", "decode_batch", (64,)),
    ("workloads.decode.context=4k", "decode_context", (4096,)),
    ("workloads.prefill.prompt=512", "prefill_prompt", (512,)),
    ("workloads.decode.batch=[1, 64]", "decode_batch", (1, 64)),
])
def test_single_value_is_a_one_element_list(override, field, want):
    assert getattr(load_spec(SPEC, [override]).workloads, field) == want


def test_a_list_path_the_spec_lacks_is_read_from_the_schema():
    spec = load_spec(ROOT / "specs" / "seed000-70b-h100.yaml",
                     ["workloads.training.recipes=fp32-grads", "workloads.training.micro_batch_tokens=4k"])
    assert spec.workloads.recipes == ("fp32-grads",)


def test_a_scalar_field_stays_scalar():
    assert load_spec(SPEC, ["model.kv_heads=4"]).model.kv_heads == 4
    with pytest.raises(SpecError, match="kv_heads"):
        load_spec(SPEC, ["model.kv_heads=[4]"])
