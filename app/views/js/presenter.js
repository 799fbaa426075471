// Presenter's browser side (app/views/shortcuts.py); Panel loads it as an ES module.
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
