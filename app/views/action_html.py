"""One small browser component for every group of controls: it shows HTML drawn by a renderer in
``app.render`` and sends back what the reader asked for.

A control says what it asks for with ``data-action`` and ``data-value``: a button when activated, an
``<input>`` when its value changes. One component for a whole group (all the switches, the player, the
badges) instead of one Panel widget per button keeps the page light: Panel gives every component its own
shadow root and model, and their number is what a page load costs.

When the HTML is redrawn, focus stays on the control with the same ``data-key`` (a Play button that
becomes Pause keeps focus), and a range input being dragged is not redrawn under the pointer.
"""

from __future__ import annotations

from collections.abc import Callable

import param
from panel.custom import JSComponent


class ActionHTML(JSComponent):
    html = param.String(default="", doc="The markup to show, from one of app.render's renderers.")

    _esm = """
    export function render({ model }) {
      const root = document.createElement("div");
      root.className = "action-html";
      let dragging = false, stale = false;
      const draw = () => {
        if (dragging) { stale = true; return; }
        const active = root.getRootNode().activeElement;
        const key = active && root.contains(active) ? active.dataset.key : null;
        root.innerHTML = model.html;
        if (key) {
          const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
          if (again) again.focus();
        }
      };
      const send = (target) =>
        model.send_msg({ action: target.dataset.action, value: target.dataset.value ?? target.value ?? "" });
      // In a tablist, arrow keys, Home and End move to another tab and open it (the WAI-ARIA tabs pattern).
      root.addEventListener("keydown", (event) => {
        const tab = event.target.closest('[role="tab"]');
        const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
        if (!tab || !(event.key in moves)) return;
        const tabs = [...tab.closest('[role="tablist"]').querySelectorAll('[role="tab"]')];
        const at = tabs.indexOf(tab) + moves[event.key];
        const next = tabs[Math.max(0, Math.min(tabs.length - 1, at))];
        event.preventDefault();
        event.stopPropagation();
        next.focus();
        send(next);
      });
      root.addEventListener("click", (event) => {
        const button = event.target.closest("button[data-action]");
        if (button && root.contains(button)) send(button);
      });
      root.addEventListener("input", (event) => {
        if (event.target.matches("input[data-action]")) send(event.target);
      });
      root.addEventListener("pointerdown", (event) => {
        if (event.target.matches("input[type=range]")) dragging = true;
      });
      const release = () => { if (dragging) { dragging = false; if (stale) { stale = false; draw(); } } };
      window.addEventListener("pointerup", release);
      model.on("html", draw);
      model.on("remove", () => window.removeEventListener("pointerup", release));
      draw();
      return root;
    }
    """

    def __init__(self, on_action: Callable[[str, str], None], **params):
        super().__init__(**params)
        self._on_action = on_action

    def _handle_msg(self, msg) -> None:
        # Whatever the browser sends is checked by the receiver against what it allows; odd input is dropped.
        if isinstance(msg, dict) and isinstance(msg.get("action"), str) and isinstance(msg.get("value"), str):
            self._on_action(msg["action"], msg["value"][:200])
