"""A small browser-side helper: keyboard shortcuts, the back button and page visibility.

It draws nothing visible. It listens on the document for Space (play / pause), ← / → (step), Home / End
(first / last tick), for the browser's back and forward buttons (popstate), and for the page being hidden
(so playback pauses and burns no CPU nobody watches), and sends each to Python as a message.
"""

from __future__ import annotations

import param
from panel.custom import JSComponent


class Shortcuts(JSComponent):
    _esm = """
    const KEYS = {
      " ": "toggle", "ArrowLeft": "back", "ArrowRight": "forward", "Home": "first", "End": "last",
    };
    const INTERACTIVE = "input, textarea, select, button, [contenteditable], [role=slider], .bk-input";
    export function render({ model }) {
      const onKey = (event) => {
        const action = KEYS[event.key];
        if (!action || event.altKey || event.ctrlKey || event.metaKey) return;
        // Leave keys alone where a control needs them (a focused button, slider or list).
        const target = event.composedPath()[0];
        if (target && target.closest && target.closest(INTERACTIVE)) return;
        event.preventDefault();
        model.send_msg({action});
      };
      const onPop = () => model.send_msg({action: "url", search: window.location.search});
      const onVisibility = () => { if (document.hidden) model.send_msg({action: "hidden"}); };
      document.addEventListener("keydown", onKey);
      window.addEventListener("popstate", onPop);
      document.addEventListener("visibilitychange", onVisibility);
      model.on("remove", () => {
        document.removeEventListener("keydown", onKey);
        window.removeEventListener("popstate", onPop);
        document.removeEventListener("visibilitychange", onVisibility);
      });
      // A phone shows the page at its own width (Panel's page has no viewport meta of its own).
      if (!document.querySelector('meta[name="viewport"]')) {
        const meta = document.createElement("meta");
        meta.name = "viewport";
        meta.content = "width=device-width, initial-scale=1";
        document.head.appendChild(meta);
      }
      // The page's content is one main landmark (Panel draws the layout; this names it).
      const page = document.querySelector(".explainer");
      if (page && !page.getAttribute("role")) page.setAttribute("role", "main");
      // Inside a host page (an iframe), say when ready, how tall the content is, and where the URL went.
      // The content root is observed, not the body: the body is at least as tall as the frame, so a frame
      // sized to it could grow but never shrink when a reader closes "Switches".
      if (window.parent !== window) {
        const tell = (data) =>
          window.parent.postMessage({ type: `durable-work-explainer:${data.kind}`, ...data }, "*");
        const root = page || document.body;
        const height = () =>
          tell({ kind: "height", height: Math.ceil(root.getBoundingClientRect().height) + 16 });
        new ResizeObserver(height).observe(root);
        const push = window.history.pushState.bind(window.history);
        window.history.pushState = (state, title, url) => {
          push(state, title, url);
          tell({ kind: "url", search: window.location.search });
        };
        tell({ kind: "ready" });
        height();
      }
      const el = document.createElement("span");
      el.className = "shortcuts-ready";
      el.hidden = true;
      return el;
    }
    """

    def __init__(self, on_action, **params):
        super().__init__(**params)
        self._on_action = on_action

    def _handle_msg(self, msg) -> None:
        if isinstance(msg, dict) and isinstance(msg.get("action"), str):
            self._on_action(msg["action"], msg)


class Presenter(JSComponent):
    """Presenter mode's page-wide settings, which styles inside the components' shadow roots cannot set:
    type that grows with the screen (every size in the page's CSS is in rem) and higher contrast (the
    palette's variables are inherited into every shadow root)."""

    _esm = """
    export function render({ model }) {
      const root = document.documentElement;
      root.classList.add("presenter");
      root.style.fontSize = "calc(9.5px + 0.62vw)";  // 17.4 px at 1280 wide, 21.4 px at 1920
      root.style.setProperty("--muted", "#1f1f1f");
      root.style.setProperty("--line", "#6b6b6b");
      root.style.setProperty("--ink", "#000000");
      const el = document.createElement("span");
      el.hidden = true;
      return el;
    }
    """


class PrintHandout(JSComponent):
    """What the browser prints from any view: the handout (``app.render.handout``), kept in a plain
    element at the top of the document, where a print stylesheet can show it alone (rules cannot reach
    into the components' shadow roots, so they hide the page's top-level elements instead). Its content
    sits in a closed shadow root with its own styles: on screen it is not there for anyone, readers,
    assistive technology or scripts looking for the page's controls."""

    html = param.String(default="", doc="The handout for the run on show.")
    css = param.String(default="", doc="The styles the handout needs (it has its own shadow root).")

    _esm = """
    const STYLE = `
      @media screen { .print-handout { display: none !important; } }
      @media print {
        body > *:not(.print-handout) { display: none !important; }
        .print-handout { display: block !important; }
      }`;
    export function render({ model }) {
      let sheet = document.getElementById("print-handout-style");
      if (!sheet) {
        sheet = document.createElement("style");
        sheet.id = "print-handout-style";
        sheet.textContent = STYLE;
        document.head.appendChild(sheet);
      }
      document.querySelectorAll("body > .print-handout").forEach((old) => old.remove());
      const host = document.createElement("div");
      host.className = "print-handout";
      document.body.appendChild(host);
      const inside = host.attachShadow({ mode: "closed" });
      const show = () => {
        inside.innerHTML = `<style>${model.css}</style><div class="explainer">${model.html}</div>`;
      };
      show();
      model.on("html", show);
      const el = document.createElement("span");
      el.hidden = true;
      return el;
    }
    """
