// The explore page's search of wider ranges: the model runs in the reader's browser (app/light.py's
// wider_count and wider_search, on the vendored Pyodide in a worker), started on the first search.
import { startPython } from "./python.js";

const form = document.getElementById("wider-form");
const result = document.getElementById("wider-result");
const button = form.querySelector("button");
let ask = null;

const say = (text) => {
  result.textContent = text;
};

function request() {
  const asked = { protections: {}, ranges: {} };
  for (const menu of form.querySelectorAll("select")) {
    const [kind, id] = menu.name.split(/-(.*)/s);
    asked[kind === "protection" ? "protections" : "ranges"][id] = menu.value;
  }
  return JSON.stringify(asked);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  button.disabled = true;
  try {
    if (!ask) {
      say("Loading Python in your browser…");
      // Its own worker: a search takes seconds, and the explainer's frames must not wait behind it.
      ({ ask } = startPython({
        shared: false,
        onFailure: (error) => say(`Python could not start here (${error}).`),
      }));
    }
    const asked = request();
    const count = await ask("wider_count", [asked]);
    if (count.error) return say(count.error);
    say(count.said);
    const answer = await ask("wider_search", [asked]);
    if (answer.error) say(answer.error);
    else result.innerHTML = answer.html;
  } catch (error) {
    say(`The search could not run in this browser (${error}).`);
  } finally {
    button.disabled = false;
  }
});
