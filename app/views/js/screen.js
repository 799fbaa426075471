// Screen's browser side (app/views/screen.py): the reader's first screen, its parts (part.js) laid out
// as the page was, in one component. Panel loads it as an ES module, with the files it imports composed
// in front.
import { part } from "./part.js";

export function render({ model }) {
  const div = (className, ...children) => {
    const element = document.createElement("div");
    element.className = className;
    element.append(...children.filter(Boolean));
    return element;
  };
  const removals = [];
  const slot = (name) => {
    const root = div(`action-html part-${name} ${model.classes[name] ?? ""}`.trim());
    const drawn = part(root, () => model[name], (msg) => model.send_msg({ ...msg, part: name }));
    model.on(name, drawn.draw);
    removals.push(drawn.remove);
    return root;
  };
  // The header over two columns: the player and the diagram, and beside them the tour's (or a class's)
  // card and the badges; then the outcome and the tabs, whose views are Panel's (model.below).
  const screen = div(
    "screen",
    slot("header"),
    div(
      "columns",
      div("main", slot("player"), slot("diagram")),
      div("side", model.get_child("tour"), slot("badges")),
    ),
    slot("outcome"),
    slot("tabs"),
    model.get_child("below"),
  );
  model.on("remove", () => removals.forEach((remove) => remove()));
  return screen;
}
