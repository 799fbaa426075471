"""The guided tour's panel: what to watch, a question asked before the answer is shown, and the verdict
read from the model's trace. One ActionHTML draws it all: the answers are real radio buttons in a
fieldset, the rest are buttons, so the keyboard reaches everything and long answers wrap in a narrow
column."""

from __future__ import annotations

from html import escape

import panel as pn
import param

from app.tour import right_answers, steps, what_happened
from app.views.action_html import ActionHTML


def _button(action: str, label: str, disabled: bool = False, primary: bool = False) -> str:
    return (
        f'<button type="button" class="tour-{action}{" chosen" if primary else ""}" data-action="{action}" '
        f'data-key="tour-{action}"{" disabled" if disabled else ""}>{escape(label)}</button>'
    )


class TourPanel(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
    chosen = param.Integer(default=None, allow_None=True, doc="The answer the reader picked, if any.")
    verdict = param.String(default="", doc="What the model says, once the reader asked to see (HTML).")

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["tour"])
        self.state.param.watch(self._new_step, ["tour"])
        self.param.watch(self._redraw, ["chosen", "verdict"])
        self._new_step()

    def step(self):
        return steps()[self.state.tour - 1] if self.state.tour else None

    def _new_step(self, *events) -> None:
        with param.parameterized.batch_call_watchers(self):
            self.chosen, self.verdict = None, ""
        self._redraw()

    def _redraw(self, *events) -> None:
        step = self.step()
        if step is None:
            self.html.html = ""
            return
        total = len(steps())
        answers = "".join(
            f'<label class="tour-answer"><input type="radio" name="tour-answer" data-action="answer" '
            f'data-value="{n}" data-key="answer-{n}"{" checked" if n == self.chosen else ""}> '
            f"{escape(a.text)}</label>"
            for n, a in enumerate(step.answers)
        )
        self.html.html = (
            f'<section class="tour-step" aria-label="Guided tour">'
            f"<h2>Tour, step {step.number} of {total}: {escape(step.title)}</h2>"
            f"<p>{escape(step.watch)}</p>"
            f'<fieldset class="tour-answers"><legend>{escape(step.question)}</legend>{answers}</fieldset>'
            f"<p>{_button('check', 'Check my answer and show the tick', primary=True)}</p>"
            f'<div class="tour-verdict" role="status" aria-live="polite">{self.verdict}</div>'
            f'<p class="tour-nav">{_button("back", "◀ Back a step", step.number == 1)} '
            f"{_button('next', 'Next step ▶', step.number == total)} "
            f"{_button('leave', 'Leave the tour (keep these switches)')}</p></section>"
        )

    def _act(self, action: str, value: str) -> None:
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
        self.verdict = (
            f"<p>{opening} The model's answer: {answer}</p><p>At t{step.ask}:</p><ul>{happened}</ul>"
        )

    def __panel__(self):
        return self.html
