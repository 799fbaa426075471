// One part of a page drawn from HTML a renderer in app.render made: ``root`` shows what ``html()`` gives,
// again at each ``draw()``, and a control the reader uses goes to ``send`` as {action, value} (its
// data-action, and its data-value or value). ``modelPart`` draws one from a component's parameter:
// ActionHTML (app/views/action_html.py) is one part on its own; Screen (app/views/screen.py) is the
// reader's first screen, several parts in one component.
import { follow, holdStill } from "./frame.js";

export function part(root, html, send) {
  let dragging = false, stale = false;
  const draw = () => {
    if (dragging) { stale = true; return; }
    const active = root.getRootNode().activeElement;
    const key = active && root.contains(active) ? active.dataset.key : null;
    // A fold the reader opened stays open through a redraw (each <details> has a data-key).
    const open = [...root.querySelectorAll("details[open][data-key]")].map((d) => d.dataset.key);
    root.innerHTML = html();
    for (const k of open) root.querySelector(`details[data-key="${CSS.escape(k)}"]`)?.setAttribute("open", "");
    requestAnimationFrame(() => follow(root));  // once laid out: the first draw comes before the root is attached
    if (key) {
      const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (again) again.focus();
    }
  };
  const ask = (target) => send({ action: target.dataset.action, value: target.dataset.value ?? target.value ?? "" });
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
    ask(next);
  });
  // A button, or a part of a picture acting as one (role="button"): a row's name in the diagram.
  const ACTIVE = 'button[data-action], [role="button"][data-action]';
  root.addEventListener("click", (event) => {
    const button = event.target.closest(ACTIVE);
    if (!button || !root.contains(button)) return;
    if (button.matches(".row-switch")) holdStill(root, button);
    ask(button);
  });
  root.addEventListener("keydown", (event) => {
    const control = event.target.closest('[role="button"][data-action]');
    if (!control || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    event.stopPropagation();
    if (control.matches(".row-switch")) holdStill(root, control);
    ask(control);
  });
  // A long run of buttons (the 864's matrix and list) is one tab stop: arrow keys move within it, by a
  // row of data-columns in a grid (the WAI-ARIA roving tabindex).
  root.addEventListener("keydown", (event) => {
    const group = event.target.closest("[data-roving]");
    if (!group || !event.target.matches("button[data-action]")) return;
    const columns = group.dataset.roving === "grid" ? Number(group.dataset.columns) : 1;
    const moves = { ArrowDown: columns, ArrowUp: -columns, Home: -Infinity, End: Infinity };
    if (columns > 1) Object.assign(moves, { ArrowRight: 1, ArrowLeft: -1 });
    if (!(event.key in moves)) return;
    const buttons = [...group.querySelectorAll("button[data-action]")];
    const at = buttons.indexOf(event.target) + moves[event.key];
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, at))];
    event.preventDefault();
    event.target.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
  // A square's words are its aria-label; a pointer gets them as a tooltip, made when first pointed at.
  root.addEventListener("pointerover", (event) => {
    const square = event.target.closest("[data-roving] button[aria-label]");
    if (square && !square.title) square.title = square.getAttribute("aria-label");
  });
  root.addEventListener("input", (event) => {
    if (event.target.matches("input[data-action]")) ask(event.target);
  });
  // A menu (the chapters, the speed) asks when the reader has chosen, not while browsing its options.
  root.addEventListener("change", (event) => {
    if (event.target.matches("select[data-action]")) ask(event.target);
  });
  root.addEventListener("pointerdown", (event) => {
    if (event.target.matches("input[type=range]")) dragging = true;
  });
  const release = () => { if (dragging) { dragging = false; if (stale) { stale = false; draw(); } } };
  window.addEventListener("pointerup", release);
  new ResizeObserver(() => follow(root)).observe(root);
  draw();
  return { draw, remove: () => window.removeEventListener("pointerup", release) };
}

// A part drawn from the component's parameter ``name`` (its HTML), redrawn when the parameter changes; a
// control's action goes to Python as the component's message, with ``also`` added (a screen names the part).
export function modelPart(model, name, className, also = {}) {
  const root = document.createElement("div");
  root.className = className;
  const drawn = part(root, () => model[name], (msg) => model.send_msg({ ...msg, ...also }));
  model.on(name, drawn.draw);
  model.on("remove", drawn.remove);
  return root;
}
