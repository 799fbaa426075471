"""The record of a class, as the teacher downloads it: one row per question, round and answer, with the
question's words, the answer's letter and words as the screen shows them, whether the model bears that
answer out, and how many chose it. Nothing personal: no student, no time, no address."""

from __future__ import annotations

import csv
import io

from classroom.phone import LETTERS, right, step_of

COLUMNS = ("step", "question", "round", "answer", "answer text", "right", "count")


def csv_text(counts: dict[int, dict[int, dict[str, int]]]) -> str:
    """``counts`` (``ClassStore.all_counts``: step → round → choice → how many) as CSV; every answer of
    every round asked has its row, those nobody chose too (a zero is a finding)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for number in sorted(counts):
        step = step_of(number)
        if step is None:
            continue
        good = right(number)
        for round_ in sorted(counts[number]):
            chosen = counts[number][round_]
            for n, answer in enumerate(step.answers):
                yes = "yes" if n in good else "no"
                writer.writerow(
                    [number, step.question, round_, LETTERS[n], answer.text, yes, chosen.get(str(n), 0)]
                )
    return out.getvalue()
