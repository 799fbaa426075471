"""The receive recipe, under any sequence of repeats (Hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from model.feed import Feed

keys = st.sampled_from(["k1", "k2", "k3", None])
params = st.sampled_from([("d1",), ("d2",)])


@given(st.lists(st.tuples(keys, params), max_size=40))
def test_a_keyed_operation_applies_once_and_a_reused_key_with_other_params_is_rejected(requests):
    feed = Feed()
    first: dict[str, tuple] = {}
    unkeyed = 0
    for tick, (key, p) in enumerate(requests):
        answer = feed.receive(key, p, attempt=1, tick=tick)
        if key is None:
            unkeyed += 1
            assert answer.status == "applied"
        elif key not in first:
            first[key] = (p, answer.post_number)
            assert answer.status == "applied"
        elif first[key][0] == p:
            assert answer.status == "repeat" and answer.post_number == first[key][1]
        else:
            assert answer.status == "rejected" and answer.post_number is None
    assert len(feed.posts) == len(first) + unkeyed
    keyed_posts = [post.key for post in feed.posts if post.key is not None]
    assert sorted(keyed_posts) == sorted(first)
