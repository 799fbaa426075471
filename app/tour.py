"""The guided tour: steps read from ``content/tour.md``, each answer judged against the model's trace.

A step has a link (switches, schedule and the tick to stop at), the tick its question is about
(``ask``), a few sentences on what to watch, a question, and two to four answers. Each answer carries a
claim about the trace after ``|``; the tour never stores which answer is right, it asks the trace:

- ``event KIND``: an event of that kind happens at the asked tick;
- ``no event KIND``: none does;
- ``never KIND``: none happens at any tick of the run.

A step is well posed when exactly one answer's claim holds, and each wrong answer says why not in a
sentence whose own claim holds (tests/app/test_tour.py checks every step).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from app.content import sections
from app.render.diagram import tick_lines


class TourError(ValueError):
    """A step of content/tour.md that cannot be read."""


@dataclass(frozen=True)
class Answer:
    text: str
    claim: str
    why: str = ""  # for a wrong answer: why not, in a sentence
    why_claim: str = ""  # what in the trace bears that sentence out


@dataclass(frozen=True)
class Step:
    number: int
    title: str
    link: str
    ask: int
    watch: str
    question: str
    answers: tuple[Answer, ...]


def _step(heading: str, body: str) -> Step:
    number, _, title = heading.partition(" ")
    link = ask = question = None
    watch: list[str] = []
    answers: list[Answer] = []
    for line in body.splitlines():
        if line.startswith("link: "):
            link = line.removeprefix("link: ").strip()
        elif line.startswith("ask: "):
            ask = int(line.removeprefix("ask: "))
        elif line.startswith("? "):
            question = line[2:].strip()
        elif line.startswith("- "):
            text, sep, claim = line[2:].rpartition(" | ")
            if not sep:
                raise TourError(f"tour step {heading!r}: an answer needs ' | claim': {line!r}")
            answers.append(Answer(text.strip(), claim.strip()))
        elif line.lstrip().startswith("why: "):
            why, sep, claim = line.lstrip().removeprefix("why: ").rpartition(" | ")
            if not (sep and answers):
                raise TourError(
                    f"tour step {heading!r}: 'why:' follows an answer and ends '| claim': {line!r}"
                )
            answers[-1] = Answer(answers[-1].text, answers[-1].claim, why.strip(), claim.strip())
        elif line.strip():
            watch.append(line.strip())
    if not (number.isdigit() and link and link.startswith("?") and ask is not None and question):
        raise TourError(f"tour step {heading!r} needs a number, link: ?…, ask: N and a ? question")
    if not 2 <= len(answers) <= 4:
        raise TourError(f"tour step {heading!r} has {len(answers)} answers; a step has two to four")
    return Step(int(number), title, link, ask, " ".join(watch), question, tuple(answers))


@cache
def steps() -> tuple[Step, ...]:
    """Every step, in order; numbered 1, 2, … without gaps."""
    found = tuple(_step(heading, body) for heading, body in sections("tour").items())
    if [s.number for s in found] != list(range(1, len(found) + 1)):
        raise TourError("tour steps must be numbered 1, 2, 3, … in order")
    return found


def _kinds(trace: dict, tick: int) -> set[str]:
    if tick >= len(trace["ticks"]):
        return set()
    return {e["kind"] for e in trace["ticks"][tick]["events"]}


def holds(claim: str, trace: dict, tick: int) -> bool:
    """Whether the claim is true of the trace (``tick`` is the step's asked tick)."""
    words = claim.split()
    if len(words) == 2 and words[0] == "event":
        return words[1] in _kinds(trace, tick)
    if len(words) == 3 and words[:2] == ["no", "event"]:
        return words[2] not in _kinds(trace, tick)
    if len(words) == 2 and words[0] == "never":
        return all(words[1] not in _kinds(trace, t) for t in range(len(trace["ticks"])))
    raise TourError(f"a tour claim is 'event KIND', 'no event KIND' or 'never KIND'; got {claim!r}")


def right_answers(step: Step, trace: dict) -> list[int]:
    """The indices of the answers whose claims the trace bears out."""
    return [n for n, a in enumerate(step.answers) if holds(a.claim, trace, step.ask)]


def what_happened(trace: dict, tick: int) -> list[str]:
    """The asked tick in words, from the trace: who did what, as the page's "At tN" list says it."""
    if tick >= len(trace["ticks"]):
        return [f"the run ended at t{trace['end_tick']}"]
    return tick_lines(trace, tick)
