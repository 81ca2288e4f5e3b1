"""Token counts as specs, --set and plan write them: 2048, '2k', '1.5k' and '0.5k' (k = 1024, M = 1024^2)."""

from __future__ import annotations

import json

import pytest
from shared import SPECS


@pytest.mark.parametrize("text,count", [("0.5k", 512), ("0.25k", 256), ("1.5k", 1536), ("2k", 2048), ("0.5M", 524288),
                                        ("0k", None), ("00.5k", None), ("0.0k", None), (".5k", None), ("0.5", None)])
def test_a_token_count_below_one_k_may_start_with_0(text, count):
    """'0.5k' is 512 tokens as '1.5k' is 1,536 (the hostile review of stop 88: the first was "not in the expected
    form"); a zero count, a leading 0 before digits and a fraction of a token stay refused, in the schema too."""
    import jsonschema
    from genreport.load.objects import tokens

    schema = json.loads((SPECS / "schema" / "report.schema.json").read_text())["$defs"]["tokens"]
    if count is None:
        with pytest.raises(ValueError):
            tokens(text)
        if text != "0.5":  # the schema's pattern admits a decimal; tokens() says it is no whole number
            assert not jsonschema.Draft202012Validator(schema).is_valid(text)
    else:
        assert tokens(text) == count and jsonschema.Draft202012Validator(schema).is_valid(text)
