// Helpers's browser side (app/views/shortcuts.py): what every layout does in the browser and draws
// nothing for. Panel loads it as an ES module, with the files it imports composed in front.
import { printHandout } from "./print_handout.js";
import { listen } from "./shortcuts.js";

export function render({ model }) {
  listen(model);
  printHandout(model);
  const el = document.createElement("span");
  el.className = "helpers-ready";
  el.hidden = true;
  return el;
}
