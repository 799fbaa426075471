from __future__ import annotations

import pickle

import pytest

from model.switches import (
    SWITCH_IDS,
    SwitchError,
    Switches,
    all_switches,
    allowed_values,
    article_values,
    event_combinations,
)


def test_ids_and_values_are_the_spec_ones():
    assert SWITCH_IDS == (
        "silent",
        "fencing",
        "checkpoints",
        "change",
        "pins",
        "newsletter",
        "poster",
        "post_key",
    )
    assert allowed_values("change") == ("during-outage", "never", "after-acceptance")
    assert article_values("post_key") == ("per-operation", "per-attempt", "none")
    assert allowed_values("post_key") == (*article_values("post_key"), "per-work")
    assert allowed_values("checkpoints") == (*article_values("checkpoints"), "none")
    assert allowed_values("unversioned") == ("fail-open", "fail-closed")


def test_default_is_the_main_trace_and_the_first_of_864():
    combos = list(all_switches())
    assert len(combos) == 864 == len(set(combos))
    assert combos[0] == Switches()
    assert Switches().to_dict() == {k: allowed_values(k)[0] for k in SWITCH_IDS}
    # post_key varies fastest, silent slowest
    assert combos[1].post_key.value == "per-attempt" and combos[432].silent.value == "crashed"


def test_twelve_event_combinations():
    combos = list(event_combinations())
    assert len(combos) == 12
    assert {c.fencing.value for c in combos} == {"on"}


@pytest.mark.parametrize(
    "mapping,words",
    [
        ({"fencing": "maybe"}, ["fencing", "on", "off", "maybe"]),
        ({"pin": "on"}, ["unknown switch", "pins", "post_key"]),
        ({"newsletter": "latest"}, ["current-accepted", "any-accepted", "latest-finished"]),
    ],
)
def test_bad_values_name_the_allowed_ones(mapping, words):
    with pytest.raises(SwitchError) as error:
        Switches.from_mapping(mapping)
    for word in words:
        assert word in str(error.value)


def test_string_values_and_replace():
    s = Switches(fencing="off")
    assert s.fencing.value == "off"
    assert s.replace(fencing="on") == Switches()
    assert Switches().differences(s) == {"fencing": ("on", "off")}
    with pytest.raises(SwitchError):
        s.replace(colour="red")


def test_switches_hash_once_and_a_copy_hashes_anew():
    """Switches keep their hash (every state holds them); a pickled copy, as another process receives it,
    must hash with that process's string hashes, not carry the sender's."""
    switches = Switches(fencing="off")
    assert hash(switches) == hash(Switches(fencing="off")) and {switches: 1}[Switches(fencing="off")] == 1
    object.__setattr__(switches, "_hash", 12345)  # what another process's hash would look like here
    copy = pickle.loads(pickle.dumps(switches))
    assert copy == switches and hash(copy) == hash(Switches(fencing="off")) != 12345
