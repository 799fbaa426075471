// FRAME: what every page of the explainer does in the browser, the served app's components and the light
// page alike (the components get this module composed in front of their own code by
// app/views/action_html.py's ``composed``; static/light.js imports it): keep a sideways strip's current
// tick in view, tell the host page (an article's iframe) the content's height, and follow the ticks of
// the other frames of a ?group=.

// A strip that scrolls sideways (the diagram on a phone) keeps its current tick in view: as little
// scrolling as it takes, the current column whole and as much of the past as fits before it. The past
// starts with a whole column (its width is the strip's data-column, in the drawing's units): a column cut
// at the strip's edge shows half a label ("t5" as ":5").
export function follow(root) {
  for (const room of root.querySelectorAll(".diagram-room")) fitRoom(room);
  for (const strip of root.querySelectorAll(".follow-now")) {
    const now = strip.querySelector(".now-column");
    if (!now || strip.scrollWidth <= strip.clientWidth) continue;
    const box = now.getBoundingClientRect(), frame = strip.getBoundingClientRect();
    let move = 0;
    if (box.right > frame.right) move = Math.min(box.right - frame.right + 4, box.left - frame.left);
    else if (box.left < frame.left) move = -(frame.left - box.left + 4);
    if (move === 0) continue; // where the reader scrolled it, it stays
    strip.scrollLeft = wholeColumns(strip, strip.scrollLeft + move, box.left - frame.left - move);
  }
}

// A tall tick is drawn to fit the first screen: a diagram whose room starts on the first screen is drawn no
// taller than what is left of it (``--fit``, which diagrams.css scales the drawing to), so the axis is in
// view at every tick. The room's top does not move as the reader steps, so neither does the drawing's size.
// A room that starts lower, or would have to shrink to less than half, is left as it is.
function fitRoom(room) {
  const top = room.getBoundingClientRect().top + window.scrollY;
  const left = Math.floor(window.innerHeight - top - 8); // the room holds the axis
  const tallest = Number(getComputedStyle(room).getPropertyValue("--tallest")) || 0;
  if (top < window.innerHeight && left >= tallest / 2) room.style.setProperty("--fit", String(left));
  else room.style.removeProperty("--fit");
}

// ``wanted`` moved to a column's edge: the next one, unless that would hide some of the current column
// (``room``: how far its left edge is from the strip's after ``wanted``), then the one before. Past the
// strip's end (the last tick's column is the last thing in it) the strip gets the room at its end.
function wholeColumns(strip, wanted, room) {
  const svg = strip.querySelector("svg.diagram");
  const units = svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width;
  const column = units ? Number(strip.dataset.column) * (svg.getBoundingClientRect().width / units) : 0;
  if (!(column > 0)) return wanted;
  const next = Math.ceil(wanted / column) * column;
  if (next - wanted > room) return Math.floor(wanted / column) * column;
  const short = next - (strip.scrollWidth - strip.clientWidth);
  if (short > 0) strip.style.paddingRight = `${Math.ceil(short)}px`;
  return next;
}

// A row's name in the diagram is a switch: while the page redraws after a click on one (the run, the
// captions, the comparison under it), the same row stays where the pointer is, so a second click at the
// same spot flips the same switch back. For a second and a half, or until the reader scrolls.
export function holdStill(root, element, top = element.getBoundingClientRect().top) {
  const key = element.dataset.key;
  if (!key) return;
  const until = performance.now() + 1500;
  let stopped = false;
  const stop = () => { stopped = true; };
  window.addEventListener("wheel", stop, { once: true, passive: true });
  window.addEventListener("touchmove", stop, { once: true, passive: true });
  const keep = () => {
    if (stopped) return;
    const now = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (now) {
      const moved = now.getBoundingClientRect().top - top;
      if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
    }
    if (performance.now() < until) requestAnimationFrame(keep);
  };
  requestAnimationFrame(keep);
}

// Inside a host page (an iframe), a message of ``kind`` to it; nothing when the page is on its own.
export function tellHost(kind, data = {}) {
  if (window.parent === window) return;
  window.parent.postMessage({ type: `durable-work-explainer:${kind}`, ...data }, "*");
}

// The content's height, told to the host whenever it changes, so the frame fits it. The content root is
// observed, not the body: the body is at least as tall as the frame, so a frame sized to it could grow
// but never shrink. A frame off screen may not be laid out or observed until it is scrolled to, so the
// height is also measured once a second (measuring lays it out); only a change is told.
export function watchHeight(root) {
  let told = 0;
  const height = () => {
    const now = Math.ceil(root.getBoundingClientRect().height) + 16;
    if (now === told) return;
    told = now;
    tellHost("height", { height: now });
  };
  new ResizeObserver(height).observe(root);
  if (window.parent !== window) setInterval(height, 1000);
  height();
  return height;
}

// The rule for told ticks, on both pages: a newer move wins. ``at`` is when a move was made, by
// Date.now() (the clock every frame of a browser shares), in whichever frame the reader made it; a move
// told by another frame (or pushed by the light page's worker) is news only if it was made after the
// move that put the tick shown here. Equal is not news: it is the same move coming back.
export function isNews(at, shownAt) {
  return at > shownAt;
}

// When a teller says its move was made: a time this browser's clock could have given (finite, and not
// ahead of it by more than a minute: frames share the clock). Anything else (1e308, Infinity, from a
// hostile page of the origin) is taken as not said, or one move would be newer than every later one.
export function toldAt(value, clock = Date.now()) {
  const at = Number(value);
  return Number.isFinite(at) && at > 0 && at <= clock + 60000 ? at : 0;
}

// The origin of the page a frame is shown in: the top page's where the browser says it (ancestorOrigins),
// else the referrer's; a page on its own (or outside a browser) is its own host.
export function hostOf(win = globalThis.window) {
  if (!win) return "";
  if (win.top === win) return win.location.origin;
  const ancestors = win.location.ancestorOrigins;
  if (ancestors && ancestors.length) return ancestors[ancestors.length - 1];
  try {
    return new URL(win.document.referrer).origin;
  } catch {
    return "";
  }
}

// A group is one article's. A host of the site's own origin shares the group's name (its script may tell
// the group a tick, README); a host of another origin gets the name within it, so another site's page
// that frames these figures under the same name is another group (it joined and drove the article's).
// Still a group's name (letters, digits, - and _, at most 40): NAME's first 31 characters, then a digest
// of the host's origin (FNV-1a, 32 bits).
export function scopedGroup(name, host = hostOf(), own = globalThis.location?.origin ?? "") {
  if (host === own) return name;
  let hash = 0x811c9dc5;
  for (const c of host) hash = Math.imul(hash ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return `${name.slice(0, 31)}-${hash.toString(16).padStart(8, "0")}`;
}

// ?group=NAME: the frames of one host page share a tick over a BroadcastChannel (same origin only). A
// page tells the group only the moves its reader made: a move that a told tick causes is never told
// back (a shorter chapter clamps a tick, and its echo would pull back the frame that is playing), and
// the page, not a clock, knows which moves those are, however late its Python answers. A told tick that
// is no news (``isNews``) is declined: a frame that loaded late cannot pull the group back. ``isTick``
// says whether a value is a tick a run can have, ``now`` gives the page's own tick, ``go(tick, at)``
// moves there without telling (``at``: when the teller moved). The page calls ``moved(tick, at)`` after
// each move its reader made (``at``: when; now, if not given); ``shownAt``, if given, says when the move
// shown was made where the page learns of moves the group does not carry (the light page's worker).
// Where each page has its own Python (no shared worker), the page also calls ``acted([action, value,
// part])`` after a change of the story (a switch, a chapter), and the others do it too (``acted``).
export function joinGroup(name, { isTick, now, go, acted = () => {}, shownAt = null }) {
  if (!name || typeof BroadcastChannel === "undefined") return null;
  const channel = new BroadcastChannel(`durable-work-explainer:${scopedGroup(name)}`);
  let lastAt = 0; // when the move shown here was made, as far as the group has told or been told
  const shown = shownAt || (() => lastAt);
  channel.onmessage = (event) => {
    const entry = event.data && event.data.act;
    if (Array.isArray(entry) && entry.length === 3 && entry.every((x) => typeof x === "string")) {
      acted(entry);
      return;
    }
    const tick = event.data && event.data.tick;
    if (!Number.isInteger(tick) || !isTick(tick) || tick === now()) return;
    // A teller that does not say when (a host page's script) is news now, however fast it tells.
    const at = toldAt(event.data.at);
    if (at && !isNews(at, shown())) return;
    lastAt = at || Date.now();
    go(tick, lastAt);
  };
  return {
    moved(tick, at = Date.now()) {
      lastAt = at;
      channel.postMessage({ tick, at });
    },
    acted(entry) { channel.postMessage({ act: entry }); },
    close() { channel.close(); },
  };
}

// Whether the focused control ``target`` needs ``key`` itself, so the page's shortcut leaves it alone (a
// button's Space, a slider's arrows). A row's name in the diagram is a switch: Space and Enter flip it,
// and the arrows, Home and End move the tick there as they do anywhere else.
export function controlKeeps(target, key, interactive) {
  if (!target || !target.closest || !target.closest(interactive)) return false;
  return !(target.closest(".row-switch") && key !== " " && key !== "Enter");
}
