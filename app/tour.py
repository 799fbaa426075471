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
from html import escape

from app.content import sections
from app.render.controls import card_button
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


def _button(action: str, label: str, disabled: bool = False, primary: bool = False) -> str:
    return card_button("tour", action, label, primary=primary, disabled=disabled)


class TourCard:
    """One reader's tour card: the step's question, the answer picked and, once asked, the verdict read
    from the model's trace. Plain Python, so the Panel app (``app.views.tour``) and the light explainer
    (``app.light``) draw the same card and judge answers by the same rules."""

    def __init__(self, state) -> None:
        self.state = state  # app.state.ReaderState
        self.chosen: int | None = None
        self.verdict = ""  # HTML

    def step(self) -> Step | None:
        return steps()[self.state.tour - 1] if 0 < self.state.tour <= len(steps()) else None

    def new_step(self) -> None:
        """A new step asks afresh."""
        self.chosen, self.verdict = None, ""

    def html(self) -> str:
        step = self.step()
        if step is None:
            return ""
        total = len(steps())
        answers = "".join(
            f'<label class="tour-answer"><input type="radio" name="tour-answer" data-action="answer" '
            f'data-value="{n}" data-key="answer-{n}"{" checked" if n == self.chosen else ""}> '
            f"{escape(a.text)}</label>"
            for n, a in enumerate(step.answers)
        )
        # Once checked, the verdict takes the place of what to watch and of the check: the card keeps to
        # one screen of a projector.
        watch = "" if self.verdict else f"<p>{escape(step.watch)}</p>"
        check = (
            ""
            if self.verdict
            else f"<p>{_button('check', 'Check my answer and show the tick', primary=True)}</p>"
        )
        return (
            f'<section class="tour-step" aria-label="Guided tour">'
            f"<h2>Tour, step {step.number} of {total}: {escape(step.title)}</h2>"
            f"{watch}"
            f'<fieldset class="tour-answers"><legend>{escape(step.question)}</legend>{answers}</fieldset>'
            f"{check}"
            f'<div class="tour-verdict" role="status" aria-live="polite">{self.verdict}</div>'
            f'<p class="tour-nav">{_button("back", "◀ Back a step", step.number == 1)} '
            f"{_button('next', 'Next step ▶', step.number == total)} "
            f"{_button('leave', 'Leave the tour (keep these switches)')}</p></section>"
        )

    def act(self, action: str, value: str) -> None:
        """An answer picked, the check, back, next or leave; anything else (from a browser) is ignored."""
        step = self.step()
        if step is None:
            return
        if action == "answer" and value.isdigit() and int(value) < len(step.answers):
            self.chosen = int(value)
        elif action == "check":
            self.reveal()
        elif action == "back" and step.number > 1:
            self.state.go_to_step(step.number - 1)
        elif action == "next" and step.number < len(steps()):
            self.state.go_to_step(step.number + 1)
        elif action == "leave":
            self.state.leave_tour()

    def reveal(self) -> None:
        """Step to the asked tick and say, from the trace, which answer the model bears out."""
        step = self.step()
        if step is None:
            return
        self.state.playing = False
        self.state.go(step.ask)
        right = right_answers(step, self.state.trace)
        if self.chosen is None:
            opening = "Here is what the model does."
        elif self.chosen in right:
            opening = "<b>Right.</b>"
        else:
            opening = f"<b>Not quite.</b> {escape(step.answers[self.chosen].why)}"
        answer = "; ".join(escape(step.answers[n].text) for n in right)
        happened = "".join(f"<li>{escape(line)}</li>" for line in what_happened(self.state.trace, step.ask))
        # What happened at the asked tick, listed: the diagram writes it out too (a projector's card leaves
        # the list to the diagram: explainer.css).
        self.verdict = (
            f'<p>{opening} The model\'s answer: {answer}</p><div class="verdict-tick"><p>At t{step.ask}:</p>'
            f"<ul>{happened}</ul></div>"
        )
