// What the page listens for (Helpers, app/views/shortcuts.py): the keys, the back button, the page being
// hidden, the host frame and the group. The keys and the tick's pattern come from the link's grammar
// (app.url.browser_table), as the light page's do.
import { controlKeeps, joinGroup, tellHost, watchHeight } from "./frame.js";

const INTERACTIVE = "input, textarea, select, button, [contenteditable], [role=slider], [role=button], .bk-input";
export function listen(model) {
  const KEYS = model.table.keys;
  const TICK = new RegExp(model.table.tick);
  const onKey = (event) => {
    const action = KEYS[event.key];
    if (!action || event.altKey || event.ctrlKey || event.metaKey) return;
    // Leave keys alone where a control needs them (a focused button, slider or list).
    if (controlKeeps(event.composedPath()[0], event.key, INTERACTIVE)) return;
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
  if (window.parent !== window) {
    const push = window.history.pushState.bind(window.history);
    window.history.pushState = (state, title, url) => {
      push(state, title, url);
      tellHost("url", { search: window.location.search });
    };
    tellHost("ready");
    watchHeight(page || document.body);
  }
  // ?group=NAME: the frames of one host page share a tick (frame.js says how).
  let group = null;
  const join = () => {
    if (group) group.close();
    group = joinGroup(model.group, {
      isTick: (tick) => TICK.test(String(tick)),
      now: () => model.tick,
      go: (tick) => model.send_msg({ action: "go", value: String(tick), told: true }),
    });
  };
  join();
  model.on("group", join);
  // Python says which moves are the reader's (Helpers.announce): only those are told.
  model.on("msg:custom", (msg) => group && Number.isInteger(msg.tick) && group.moved(msg.tick));
  model.on("remove", () => group && group.close());
}
