"""The reader's words (issue 35): the Compare view says switches and values as the switches panel says
them, never a value's id or a hash, and a run with every protection on says why every row reads "same";
the records say an admission's purpose and an acceptance's contract in words."""

from __future__ import annotations

import re
from html import unescape

from app.content import sections
from app.state import ReaderState
from app.views.compare import CompareView

#: The ids of content/values.md's left column that are not plain words ("during-outage", "per-operation").
VALUE_IDS = sorted(
    {
        line.split(": ", 1)[0]
        for body in sections("values").values()
        for line in body.splitlines()
        if ": " in line
    }
    - {"on", "off", "never", "paused", "crashed", "dies", "survives", "none", "completed", "literal"}
)


def compare_text(query: str) -> str:
    state = ReaderState()
    state.apply_query(query)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", CompareView(state=state).body.object)).split())


def test_a_changed_switch_is_said_in_words():
    said = compare_text("?preset=all-off")
    assert "Against every protection on, your run changes fencing from on to off" in said
    assert (
        "newsletter rule from only a digest accepted for the current report to the latest finished digest"
        in said
    )
    assert "checkpoints from after every step to only at the end" in said


def test_no_value_id_or_hash_in_the_compare_view():
    for query in (
        "?preset=all-off",
        "?preset=pins-off",
        "?preset=no-key",
        "?preset=main",
        "?post_key=per-work",
    ):
        said = compare_text(query)
        assert not [i for i in VALUE_IDS if re.search(rf"\b{re.escape(i)}\b", said)], (query, said)
        assert not re.search(r"\b[0-9a-f]{8}\b", said), (query, said)


def test_every_row_the_same_is_said_to_be_the_finding():
    assert 'every row below reads "same"' in compare_text("?preset=main")
    assert "every row below reads" not in compare_text("?preset=no-key")


def test_the_records_say_purpose_and_contract_in_words():
    from app.render.records import records_html
    from model import Switches, run, trace_dict

    tables = records_html(trace_dict(run(Switches())), 14)
    assert "finish the post" in tables and "the digest contract, version 1" in tables
    assert "finish-effect" not in tables and "digest-contract/1" not in tables
