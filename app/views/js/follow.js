// A strip that scrolls sideways (the diagram on a phone) keeps its current tick in view, scrolling as
// little as it takes: the current column whole, and as much of the past as fits before it. Shared by the
// served app (prepended to action_html.js) and the static site's light page (copied to static/).
export function followNow(root) {
  for (const strip of root.querySelectorAll(".follow-now")) {
    const now = strip.querySelector(".now-column");
    if (!now || strip.scrollWidth <= strip.clientWidth) continue;
    const box = now.getBoundingClientRect(), frame = strip.getBoundingClientRect();
    if (box.right > frame.right) strip.scrollLeft += Math.min(box.right - frame.right + 4, box.left - frame.left);
    else if (box.left < frame.left) strip.scrollLeft -= frame.left - box.left + 4;
  }
}
