"""The guided tour's panel: what to watch, a question asked before the answer is shown, and the verdict
read from the model's trace. Every control is a button or a radio group, so the keyboard reaches all."""

from __future__ import annotations

from html import escape

import panel as pn
import param

from app.tour import right_answers, steps, what_happened


class TourPanel(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.Explainer).")

    def __init__(self, **params):
        super().__init__(**params)
        self.intro = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["tour-intro"])
        self.choices = pn.widgets.RadioBoxGroup(
            options={}, value=None, inline=False, css_classes=["tour-choices"]
        )
        self.check = pn.widgets.Button(label="Check my answer and show the tick", color="primary")
        self.verdict = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["tour-verdict"])
        self.back = pn.widgets.Button(label="◀ Back a step", css_classes=["tour-back"])
        self.next = pn.widgets.Button(label="Next step ▶", css_classes=["tour-next"])
        leave = pn.widgets.Button(label="Leave the tour (keep these switches)", css_classes=["tour-leave"])
        self.check.on_click(lambda event: self.reveal())
        self.back.on_click(lambda event: self.state.go_to_step(self.state.tour - 1))
        self.next.on_click(lambda event: self.state.go_to_step(self.state.tour + 1))
        leave.on_click(lambda event: self.state.leave_tour())
        self.state.param.watch(self._redraw, ["tour"])
        self._redraw()
        self._layout = pn.Column(
            self.intro,
            self.choices,
            self.check,
            self.verdict,
            pn.Row(self.back, self.next, leave, css_classes=["tour-nav"]),
            sizing_mode="stretch_width",
            css_classes=["tour"],
        )

    def step(self):
        return steps()[self.state.tour - 1] if self.state.tour else None

    def _redraw(self, *events) -> None:
        step = self.step()
        if step is None:
            return
        total = len(steps())
        self.intro.object = (
            f'<section aria-label="Guided tour"><h2>Tour, step {step.number} of {total}:'
            f" {escape(step.title)}</h2>"
            f"<p>{escape(step.watch)}</p><p><b>{escape(step.question)}</b></p></section>"
        )
        self.choices.options = {a.text: n for n, a in enumerate(step.answers)}
        self.choices.value = None
        self.choices.name = step.question
        self.verdict.object = ""
        self.check.disabled = False
        self.back.disabled = step.number == 1
        self.next.disabled = step.number == total

    def reveal(self) -> None:
        """Step to the asked tick and say, from the trace, which answer the model bears out."""
        step = self.step()
        if step is None:
            return
        self.state.playing = False
        self.state.go(step.ask)
        right = right_answers(step, self.state.trace)
        chosen = self.choices.value
        if chosen is None:
            opening = "Here is what the model does."
        elif chosen in right:
            opening = "<b>Right.</b>"
        else:
            opening = "<b>Not quite.</b>"
        answer = "; ".join(escape(step.answers[n].text) for n in right)
        happened = "".join(f"<li>{escape(line)}</li>" for line in what_happened(self.state.trace, step.ask))
        self.verdict.object = (
            f'<div role="status" aria-live="polite"><p>{opening} The model\'s answer: {answer}</p>'
            f"<p>At t{step.ask}:</p><ul>{happened}</ul></div>"
        )

    def __panel__(self):
        return self._layout
