// Shortcuts's browser side (app/views/shortcuts.py); Panel loads it as an ES module. The keys and the
// tick's pattern come from the link's grammar (app.url.browser_table), as the light page's do.
const INTERACTIVE = "input, textarea, select, button, [contenteditable], [role=slider], [role=button], .bk-input";
export function render({ model }) {
  const KEYS = model.table.keys;
  const TICK = new RegExp(model.table.tick);
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
  // ?group=NAME: the frames of one host page share a tick. The steps told ticks cause here are not told
  // back (a shorter chapter clamps a tick, and its echo would pull the frame that is playing back). Told
  // ticks can arrive faster than Python answers, so each is owed one step that stays quiet; a told tick
  // that changes nothing here never comes, so what is owed is forgotten a second after the last one.
  let channel = null;
  let owed = 0;
  let forget = null;
  const joinGroup = () => {
    if (channel) channel.close();
    channel = null;
    if (!model.group || typeof BroadcastChannel === "undefined") return;
    channel = new BroadcastChannel(`durable-work-explainer:${model.group}`);
    channel.onmessage = (event) => {
      const tick = event.data && event.data.tick;
      if (!Number.isInteger(tick) || !TICK.test(String(tick)) || tick === model.tick) return;
      owed += 1;
      clearTimeout(forget);
      forget = setTimeout(() => { owed = 0; }, 1000);
      model.send_msg({ action: "go", value: String(tick) });
    };
  };
  joinGroup();
  model.on("group", joinGroup);
  model.on("tick", () => {
    if (owed > 0) owed -= 1;
    else if (channel) channel.postMessage({ tick: model.tick });
  });
  model.on("remove", () => channel && channel.close());
  const el = document.createElement("span");
  el.className = "shortcuts-ready";
  el.hidden = true;
  return el;
}
