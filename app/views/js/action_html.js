// ActionHTML's browser side (app/views/action_html.py): one part (part.js). Panel loads it as an ES
// module, with the files it imports composed in front.
import { modelPart } from "./part.js";

export function render({ model }) {
  return modelPart(model, "html", "action-html");
}
