"""benchmarks/class_rounds.py runs, small: its figures come from real rounds (nothing about speed here)."""

from __future__ import annotations


def test_a_small_class_bench_counts_every_answer_once_and_every_phone_follows(fresh_classes):
    from benchmarks.class_rounds import answers_round, follow_tick

    delay, lost, doubled = answers_round(12, seed=1, window=0.3)  # with every choice, refused or not
    assert (lost, doubled) == (0, 0) and 0 <= delay < 5
    assert 0 < follow_tick(4, seed=1) < 5
