// Presenter's browser side (app/views/shortcuts.py); Panel loads it as an ES module.
export function render({ model }) {
  const root = document.documentElement;
  root.classList.add("presenter");
  // Every word of presenter mode is at least this (explainer.css, :host(.present)): 18 px at 1280 wide, 24 px
  // at 1920, for the back of a room.
  root.style.fontSize = "calc(6px + 0.9375vw)";
  root.style.setProperty("--muted", "#1f1f1f");
  root.style.setProperty("--line", "#6b6b6b");
  root.style.setProperty("--ink", "#000000");
  const el = document.createElement("span");
  el.hidden = true;
  return el;
}
