// Screen's browser side (app/views/screen.py): the reader's first screen, its parts (part.js) laid out
// as the page was, in one component. Panel loads it as an ES module, with the files it imports composed
// in front.
import { modelPart } from "./part.js";

export function render({ model }) {
  const div = (className, ...children) => {
    const element = document.createElement("div");
    element.className = className;
    element.append(...children.filter(Boolean));
    return element;
  };
  const slot = (name) => modelPart(model, name, `action-html ${model.classes[name] ?? ""}`.trim(), { part: name });
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
  return screen;
}
