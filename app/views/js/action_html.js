// ActionHTML's browser side (app/views/action_html.py): one part (part.js). Panel loads it as an ES
// module, with the files it imports composed in front.
import { part } from "./part.js";

export function render({ model }) {
  const root = document.createElement("div");
  root.className = "action-html";
  const drawn = part(root, () => model.html, (msg) => model.send_msg(msg));
  model.on("html", drawn.draw);
  model.on("remove", drawn.remove);
  return root;
}
