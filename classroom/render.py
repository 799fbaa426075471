"""The teacher's class card as HTML: how to join, the question of the tour step on show, the buttons that
run Peer Instruction's sequence (ask, close, discuss, ask again, reveal), the room's answers round by
round with the shift between them, and the record to download. Every word is in
``content/classroom.md``; every count comes from the class's records (``classroom.store``), every
verdict from the tour's own judge (``app.tour``)."""

from __future__ import annotations

from html import escape

from app.render.controls import card_button
from app.tour import Step
from classroom.phone import LETTERS, words
from classroom.store import ClassState


def _button(action: str, label: str, value: str = "", primary: bool = False, disabled: bool = False) -> str:
    return card_button("class", action, label, value, primary=primary, disabled=disabled)


def start_html(message: str = "") -> str:
    """Before a class exists: the teacher makes it with a click (a link alone never makes one)."""
    said = f'<p class="class-message" role="alert">{escape(message)}</p>' if message else ""
    return (
        f'<section class="class-card" aria-label="Class">{said}<p>{escape(words("start words"))}</p>'
        f"<p>{_button('start', words('start'), primary=True)}</p></section>"
    )


def join_html(state: ClassState, join_url: str, qr_svg: str, large: bool = False) -> str:
    """How to join, for the room to read off the screen: the link in full (never broken inside), its QR
    code, the code and how many have joined. ``large``: the join screen, for the start of a class, over
    the whole page; else a corner of the card for those who come late."""
    css = "class-join large" if large else "class-join"
    close = _button("join-screen", words("join screen close"), "off", primary=True) if large else ""
    if not large:  # the code and the count: the join screen has the QR code and the link
        return (
            f'<p class="{css}"><span class="class-join-code">{escape(words("join code"))}</span> '
            f'<strong class="class-code">{escape(state.code)}</strong> · <span class="class-joined" '
            f'role="status">{escape(words("joined", n=state.joined))}</span></p>'
        )
    return (
        f'<div class="{css}"><div class="class-qr" role="img" aria-label="{escape(words("qr"))}">'
        f"{qr_svg}</div>"
        f'<div class="class-join-words"><p class="class-join-code">{escape(words("join code"))} '
        f'<strong class="class-code">{escape(state.code)}</strong></p>'
        f'<p class="class-link"><span class="nowrap">{escape(join_url)}</span></p>'
        f'<p class="class-joined" role="status">{escape(words("joined", n=state.joined))}</p>'
        f"{close}</div></div>"
    )


def _answers(step: Step, counts: dict[int, dict[str, int]], right: list[int] | None) -> str:
    """The question's answers in full, by the letters the phones show, one row each, with a column a round
    shown (how many chose it: a bar and a number) and, only once revealed, which is right (a word and a
    mark, not a colour alone). One table, so the card keeps to a 720 px projector."""
    rounds = sorted(counts)
    heads = "".join(f'<th scope="col">{escape(words("round", n=r))}</th>' for r in rounds)
    rows = []
    for n, answer in enumerate(step.answers):
        mark = ""
        if right is not None and n in right:
            mark = f' <strong class="class-right">{escape(words("right"))}</strong>'
        cells = []
        for r in rounds:
            total = sum(counts[r].values()) or 1
            chose = counts[r].get(str(n), 0)
            cells.append(
                f'<td><span class="class-bar" style="width: {100 * chose / total:.0f}%"></span>'
                f'<span class="class-count">{chose}</span></td>'
            )
        said = f"<strong>{LETTERS[n]}.</strong> {escape(answer.text)}{mark}"
        rows.append(f'<tr><th scope="row">{said}</th>{"".join(cells)}</tr>')
    head = f"<tr><td></td>{heads}</tr>" if rounds else ""
    return (
        f'<table class="class-counts"><caption class="sr-only">{escape(words("counts caption"))}</caption>'
        f"{head}{''.join(rows)}</table>"
    )


def why_html(step: Step, right: list[int]) -> str:
    """Once revealed, the explanation: why each other answer is not the model's."""
    told = "".join(
        f"<li><strong>{LETTERS[n]}</strong>: {escape(a.why)}</li>"
        for n, a in enumerate(step.answers)
        if n not in right and a.why
    )
    return f'<ul class="class-why">{told}</ul>' if told else ""


def shift_html(
    moves: dict[tuple[str | None, str | None], int], right: list[int], before: int, after: int
) -> str:
    """Peer Instruction's measure, in words: how many moved to the right answer between two rounds, and
    from which answers (a student who did not answer the first round counts as from no answer)."""
    good = {str(n) for n in right}
    came = {was: n for (was, now), n in moves.items() if now in good and was not in good}
    left = sum(n for (was, now), n in moves.items() if was in good and now is not None and now not in good)
    if not came and not left:
        return f'<p class="class-shift">{escape(words("shift none", before=before, after=after))}</p>'
    origins = ", ".join(
        f"{n} {words('from letter', letter=LETTERS[int(was)]) if was is not None else words('from none')}"
        for was, n in sorted(came.items(), key=lambda item: (item[0] is None, item[0] or ""))
    )
    said = words("shift", n=sum(came.values()), before=before, after=after, origins=origins or "—")
    if left:
        said += " " + words("shift away", n=left)
    return f'<p class="class-shift">{escape(said)}</p>'


def teacher_html(
    state: ClassState,
    step: Step | None,
    counts: dict[int, dict[str, int]],
    right: list[int],
    *,
    message: str = "",
    total: int = 0,
    shift: str = "",
) -> str:
    """The teacher's card for the tour step on show: its question, the buttons of the sequence for where
    the room is in it, the answers so far (which is right only after the reveal), the shift between the
    last two rounds and why the other answers are not the model's, once revealed."""
    said = f'<p class="class-message" role="alert">{escape(message)}</p>' if message else ""
    if step is None:
        start = f"<p>{escape(words('no step'))} {_button('step', words('start tour'), '1', primary=True)}</p>"
        return f'<section class="class-card" aria-label="Class">{said}{start}{_room(state)}</section>'
    asked = state.question == step.number
    buttons = []
    if not asked or not state.open:
        again = asked and state.round is not None
        label = words("ask again", n=(state.round or 0) + 1) if again else words("ask")
        buttons.append(_button("open", label, str(step.number), primary=not again or state.round == 1))
    if asked and state.open:
        buttons.append(_button("close", words("close"), primary=True))
    if asked and not state.revealed:
        buttons.append(_button("reveal", words("reveal"), primary=not state.open and (state.round or 0) > 1))
    status = ""
    if asked:
        answered = sum(counts.get(state.round, {}).values())
        key = "open" if state.open else "revealed" if state.revealed else f"closed {min(state.round or 1, 2)}"
        counted = words(f"status {key}", n=answered, round=state.round, joined=state.joined)
        status = f'<p class="class-status" role="status">{escape(counted)}</p>'
    # The room votes alone: while a round is open its counts stay off the screen (how many have answered
    # is said); once it closes, its spread is shown, the answer only once revealed.
    shown = {r: c for r, c in counts.items() if not (state.open and r == state.round)} if asked else {}
    table = _answers(step, shown, right if asked and state.revealed else None)
    on_screen = words("question on screen", n=step.number, total=total)
    explained = why_html(step, right) if asked and state.revealed else ""
    if asked and state.revealed:
        status = ""  # the mark and the explanation say it
    # The buttons of the sequence right under where the room is in it, in view on a 720 px projector; the
    # shift and the explanation under them.
    return (
        f'<section class="class-card" aria-label="Class">{said}'
        f'<p class="class-question"><span class="class-on-screen">{escape(on_screen)}</span> '
        f"{escape(step.question)}</p>{table}{status}"
        f'<p class="class-buttons">{"".join(buttons)}</p>{shift if asked else ""}{explained}'
        f"{_steps(step, total)}{_room(state)}</section>"
    )


def _room(state: ClassState) -> str:
    """The room's own buttons: the phones paused or not, following or exploring, all brought back, and
    the join screen."""
    paused = _button("pause", words("resume" if state.paused else "pause"), "off" if state.paused else "on")
    follow = state.pacing == "follow"
    pace = _button("pace", words("pace free" if follow else "pace follow"), "free" if follow else "follow")
    return (
        f'<p class="class-pacing">{paused}{pace}{_button("recall", words("recall"))}'
        f"{_button('join-screen', words('join screen'), 'on')}</p>"
    )


def _steps(step: Step, total: int) -> str:
    """The tour's steps, as the teacher moves through them (the tour's own card is the class's here)."""
    back = _button("step-back", words("step back"), str(step.number - 1), disabled=step.number == 1)
    ahead = _button("step-next", words("step next"), str(step.number + 1), disabled=step.number == total)
    return f'<p class="tour-nav">{back} {ahead}</p>'
