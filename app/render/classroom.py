"""Class mode's cards as HTML: the teacher's (how to join, who has joined, the question asked and how the
room answered it, round by round) and a student's (the question, the answer sent, and once revealed the
verdict read from the model's trace). Every word is in ``content/classroom.md``; every count comes from
the class's records (``app.classroom``), every verdict from the tour's own judge (``app.tour``)."""

from __future__ import annotations

from html import escape

from app.classroom import ClassState
from app.content import sections
from app.render.controls import card_button
from app.tour import Step

LETTERS = "ABCDEFGH"


def _words(name: str, **values: object) -> str:
    return " ".join(sections("classroom")[name].format(**values).split())


def _button(action: str, label: str, value: str = "", primary: bool = False, disabled: bool = False) -> str:
    return card_button("class", action, label, value, primary=primary, disabled=disabled)


def pacing_html(state: ClassState) -> str:
    """The teacher's pacing: phones follow the screen, or explore; and everyone brought back."""
    follow = state.pacing == "follow"
    label = _words("pace free" if follow else "pace follow")
    return (
        f'<p class="class-pacing">{_button("pace", label, "free" if follow else "follow")}'
        f"{_button('recall', _words('recall'))}</p>"
    )


def join_html(state: ClassState, join_url: str, qr_svg: str) -> str:
    """How to join, for the room to read off the screen: the link in full, its QR code and the code."""
    return (
        f'<div class="class-join"><div class="class-qr" role="img" aria-label="{escape(_words("qr"))}">'
        f"{qr_svg}</div><div><p>{_words('join', url=escape(join_url), code=escape(state.code))}</p>"
        f'<p class="class-joined" role="status">{escape(_words("joined", n=state.joined))}</p></div></div>'
    )


def _bars(step: Step, counts: dict[int, dict[str, int]], right: list[int] | None) -> str:
    """The answers, each in full, then a table, one row an answer (by its letter) and one column a round:
    how many chose it (a bar and a number), and, only once revealed, which is right (a word and a mark,
    not a colour alone). Listed apart from the table, the answers' words keep the card's width however
    many rounds there are: the card, its buttons and its export stay on a 720-pixel projector."""
    rounds = sorted(counts)
    heads = "".join(f'<th scope="col">{escape(_words("round", n=r))}</th>' for r in rounds)
    rows = []
    for n in range(len(step.answers)):
        mark = ""
        if right is not None:
            mark = f' <strong class="class-right">{escape(_words("right"))}</strong>' if n in right else ""
        cells = []
        for r in rounds:
            total = sum(counts[r].values()) or 1
            chose = counts[r].get(str(n), 0)
            cells.append(
                f'<td><span class="class-bar" style="width: {100 * chose / total:.0f}%"></span>'
                f'<span class="class-count">{chose}</span></td>'
            )
        name = f"{LETTERS[n]}{mark}"  # the answer's words are listed once above, full width
        rows.append(f'<tr><th scope="row">{name}</th>{"".join(cells)}</tr>')
    caption = escape(_words("counts caption"))
    listed = "".join(
        f"<li><strong>{LETTERS[n]}.</strong> {escape(a.text)}</li>" for n, a in enumerate(step.answers)
    )
    return (
        f'<ul class="class-answers">{listed}</ul><table class="class-counts">'
        f'<caption class="sr-only">{caption}</caption><tr><td></td>{heads}</tr>{"".join(rows)}</table>'
    )


def teacher_html(state: ClassState, step: Step | None, counts: dict[int, dict[str, int]],
                 right: list[int], message: str = "", total: int = 0) -> str:  # fmt: skip
    """The teacher's card: the question of the tour step on show, the buttons that run its rounds, and
    the answers so far (live; which is right only after the reveal)."""
    said = f'<p class="class-message" role="status">{escape(message)}</p>' if message else ""
    if step is None:
        start = f"<p>{_words('no step')} {_button('step', _words('start tour'), '1', primary=True)}</p>"
        return f'<section class="class-card" aria-label="Class">{said}{start}</section>'
    asked = state.question == step.number
    buttons = []
    if not asked or not state.open:
        again = asked and state.round is not None
        label = _words("ask again", n=(state.round or 0) + 1) if again else _words("ask")
        buttons.append(_button("open", label, str(step.number), primary=True))
    if asked and state.open:
        buttons.append(_button("close", _words("close")))
    if asked and not state.revealed:
        buttons.append(_button("reveal", _words("reveal")))
    status = ""
    if asked:
        answered = sum(counts.get(state.round, {}).values())
        key = "open" if state.open else "revealed" if state.revealed else "closed"
        counted = _words(f"status {key}", n=answered, round=state.round)
        status = f'<p class="class-status" role="status">{escape(counted)}</p>'
    table = _bars(step, counts, right if asked and state.revealed else None) if counts else ""
    on_screen = _words("question on screen", n=step.number)
    return (
        f'<section class="class-card" aria-label="Class">{said}'
        f'<p class="class-question"><span class="class-step">{escape(on_screen)}</span> '
        f"{escape(step.question)}</p>{status}{table}"
        f'<p class="class-buttons">{"".join(buttons)}</p>{_steps(step, total)}</section>'
    )


def _steps(step: Step, total: int) -> str:
    """The tour's steps, as the teacher moves through them (the tour's own card is the class's here)."""
    back = _button("step", _words("step back"), str(step.number - 1), disabled=step.number == 1)
    ahead = _button("step", _words("step next"), str(step.number + 1), disabled=step.number == total)
    return f'<p class="tour-nav">{back} {ahead}</p>'


def student_html(state: ClassState | None, step: Step | None, mine: str | None, verdict: str,
                 message: str = "") -> str:  # fmt: skip
    """A student's card: the question while its round is open (an answer is a radio button; the card
    says when the answer is recorded), the answer sent once it closes, and the verdict once revealed."""
    said = f'<p class="class-message" role="alert">{escape(message)}</p>' if message else ""
    if state is None:  # an unknown or expired code, or not joined yet
        return f'<section class="class-card" aria-label="Class">{said}</section>'
    if step is None or state.question != step.number:
        waiting = _words("following" if state.pacing == "follow" else "exploring")
        return f'<section class="class-card" aria-label="Class">{said}<p>{escape(waiting)}</p></section>'
    answers = "".join(
        f'<label class="tour-answer"><input type="radio" name="class-answer" data-action="answer" '
        f'data-value="{n}" data-key="class-answer-{n}"{" checked" if mine == str(n) else ""}'
        f"{'' if state.open else ' disabled'}> {LETTERS[n]}. {escape(a.text)}</label>"
        for n, a in enumerate(step.answers)
    )
    if mine is not None:
        key = "in" if state.open else "in closed"
        note = _words(key, letter=LETTERS[int(mine)])
    else:
        note = _words("choose" if state.open else "missed")
    return (
        f'<section class="class-card" aria-label="Class">{said}'
        f"<h2>{escape(_words('question', n=step.number))}</h2>"
        f'<fieldset class="tour-answers"><legend>{escape(step.question)}</legend>{answers}</fieldset>'
        f'<p class="class-sent" role="status">{escape(note)}</p>'
        f'<div class="tour-verdict" role="status" aria-live="polite">{verdict if state.revealed else ""}'
        "</div>"
        "</section>"
    )
