"""What a student's phone shows of a class, drawn once for every phone of it.

The phone follows the teacher's run at the teacher's tick, with the question of the round asked. While
a question waits for its reveal, nothing a phone is sent tells what comes after the question's tick:
the frame is the one at the question's tick at most (the teacher's, if earlier), the tick's sentence
keeps its room without the later sentences' words, and there is no scrubber with the run's key moments
nor an ending. The verdicts, each answer's "why", travel only with the reveal.

The drawing is the page's own (``app.page.PageModel`` over ``app.state.ReaderState``, and the renderers
of ``app.render``), asked through ``app.light.LightPage``, which needs neither Panel nor Bokeh.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from functools import cache
from html import escape
from urllib.parse import parse_qsl, urlencode

from app.content import sections
from app.light import LightPage
from app.render.before_after import change_list
from app.render.diagram import diagram_html
from app.state import ReaderState
from app.tour import Step, TourCard, right_answers, steps
from app.url import DEFAULTS
from classroom.store import ClassState

LETTERS = "ABCDEFGH"
FRAMES_KEPT = 512  # (run, tick) drawings: a class's run at every tick, and a few runs besides


def words(name: str, **values: object) -> str:
    """A sentence of ``content/classroom.md``, filled."""
    return " ".join(sections("classroom")[name].format(**values).split())


# --- the teacher's page as a link --------------------------------------------------------------------


def shared_link(values: dict[str, str], schedule: dict[str, str], tick: int, step: int = 0) -> str:
    """What phones follow: the teacher's switches and schedule in full (in the tour too, where the page's
    own link names only the step: a switch flipped during a step reaches the phones), the tick, and the
    tour's step as ``step`` (a phone holds back only on the run of the question's own step)."""
    pairs = [*((k, v) for k, v in values.items() if v != DEFAULTS.get(k)), *schedule.items()]
    pairs.append(("tick", str(tick)))
    if step:
        pairs.append(("step", str(step)))
    return "?" + urlencode(pairs)


def split_link(link: str) -> tuple[str, int, int]:
    """A shared link's run (a query the page reads), its tick and its tour step (0: none)."""
    pairs = parse_qsl(link.lstrip("?"))
    number = {k: int(v) for k, v in pairs if k in ("tick", "step") and v.isdigit() and len(v) <= 6}
    run = [(k, v) for k, v in pairs if k not in ("tick", "step")]
    return ("?" + urlencode(run)) if run else "", number.get("tick", 0), number.get("step", 0)


def step_of(number: int | None) -> Step | None:
    return steps()[number - 1] if number and 0 < number <= len(steps()) else None


@cache
def question_tick(number: int) -> int:
    """The tick a tour step's question is asked at: where its own link stops (the asked tick is the next)."""
    state = ReaderState()
    state.go_to_step(number)
    return state.tick


@cache
def step_run(number: int) -> str:
    """A tour step's run as a shared link's run (its switches and schedule)."""
    state = ReaderState()
    state.go_to_step(number)
    return split_link(shared_link(state.values(), state.schedule_overrides(), 0))[0]


@cache
def verdict(number: int, chosen: str | None) -> str:
    """What the tour's own judge says to a student who chose ``chosen`` (None: no answer), as HTML."""
    state = ReaderState()
    state.go_to_step(number)
    card = TourCard(state)
    card.chosen = int(chosen) if chosen is not None else None
    card.reveal()
    return card.verdict


@cache
def right(number: int) -> tuple[int, ...]:
    state = ReaderState()
    state.go_to_step(number)
    return tuple(right_answers(steps()[number - 1], state.trace))


def held_at(state: ClassState) -> int | None:
    """The last tick a phone may show while the class's question waits for its reveal, or None. Held only
    on the question's own step: once the teacher has moved on, the phones follow."""
    _, _, on_step = split_link(state.link)
    step = step_of(state.question)
    if step is None or state.revealed or on_step != step.number:
        return None
    return question_tick(step.number)


# --- the drawing, once a (run, tick) ------------------------------------------------------------------

_PAGES: OrderedDict[str, LightPage] = OrderedDict()
_FRAMES: OrderedDict[tuple, dict] = OrderedDict()


def _page(run: str) -> LightPage:
    page = _PAGES.get(run)
    if page is None:
        page = _PAGES[run] = LightPage(run)
        if len(_PAGES) > 16:
            _PAGES.popitem(last=False)
    _PAGES.move_to_end(run)
    return page


def frame(run: str, tick: int, held: bool) -> dict:
    """The run at ``tick`` as a phone draws it: the tick, the run's last tick, the figure (the tick's
    sentence and the diagram, without the rows' switches) and the badges. ``held``: a question waits,
    so the tick's sentence keeps its room without the words of the ticks after it."""
    key = (run, tick, held)
    found = _FRAMES.get(key)
    if found is not None:
        _FRAMES.move_to_end(key)
        return found
    page = _page(run)
    s = page.state
    s.go(max(0, min(tick, s.end_tick)))
    figure = diagram_html(s.trace, s.tick, legend=False, reserve=True, toggles=False, later_hidden=held)
    made = {"tick": s.tick, "end": s.end_tick, "figure": figure, "badges": page.page.badges_html()}
    _FRAMES[key] = made
    if len(_FRAMES) > FRAMES_KEPT:
        _FRAMES.popitem(last=False)
    return made


# --- what every phone of a class is sent ------------------------------------------------------------


def question(state: ClassState) -> dict | None:
    """The question asked and its round, as a phone shows it: its words, its answers, the phase (open,
    closed for discussion, revealed) and, once revealed, which answer is right and each answer's verdict."""
    step = step_of(state.question)
    if step is None:
        return None
    phase = "revealed" if state.revealed else "open" if state.open else "closed"
    asked = {
        "step": step.number,
        "round": state.round,
        "phase": phase,
        "text": step.question,
        "answers": [a.text for a in step.answers],
    }
    if state.revealed:
        asked["right"] = list(right(step.number))
        asked["verdicts"] = {str(n): verdict(step.number, str(n)) for n in range(len(step.answers))} | {
            "": verdict(step.number, None)
        }
    return asked


def view(state: ClassState, before: ClassState | None = None) -> dict:
    """Everything every phone of the class is sent after a change: the class, the question, the frame
    (none while paused: a blank phone gives nothing away), how far a phone exploring may step, and what
    the teacher changed since ``before`` (in words)."""
    run, tick, _ = split_link(state.link)
    held = held_at(state)
    shown = tick if held is None else min(tick, held)
    made = {
        "class": {"code": state.code, "pacing": state.pacing, "paused": state.paused, "recall": state.recall},
        "question": question(state),
        "frame": None if state.paused else {**frame(run, shown, held is not None), "run": run},
        "last": shown if held is not None else None,  # exploring stops here while the question waits
        "changed": "",
    }
    if before is not None and before.link != state.link:
        was, _, _ = split_link(before.link)
        if was != run:
            a, b = _page(was).state, _page(run).state
            changes = change_list(a.values(), b.values(), a.schedule_overrides() != b.schedule_overrides())
            made["changed"] = words("teacher changed", changes=changes) if changes else ""
    return made


def view_bytes(state: ClassState, before: ClassState | None = None) -> bytes:
    """``view`` as the websocket message every phone gets: the same bytes for all of them."""
    return json.dumps({"t": "view", **view(state, before)}, separators=(",", ":")).encode("utf-8")


def frame_bytes(run: str, tick: int, held: bool) -> bytes:
    """A tick a phone exploring asked for."""
    return json.dumps({"t": "frame", "frame": {**frame(run, tick, held), "run": run}},
                      separators=(",", ":")).encode("utf-8")  # fmt: skip


def page_words() -> dict[str, str]:
    """Every sentence the phone's page says by itself (its browser code fills the braces)."""
    return {k: " ".join(v.split()) for k, v in sections("classroom").items()}


def escaped(text: str) -> str:
    return escape(text)
