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

// How far the search has come, under the line that says what it searches: the bar app.light drew, moved
// with the words it gives. The result is a live region: the words change fifty times a search, so they are
// the bar's value for a screen reader to ask for (the figures beside it are hidden from it), not words
// read out each time.
function showProgress(html) {
  result.insertAdjacentHTML("beforeend", html);
  const bar = result.querySelector(".wider-progress progress");
  const figures = result.querySelector(".wider-progress span");
  return (done, total, words) => {
    bar.max = total;
    bar.value = done;
    bar.setAttribute("aria-valuetext", words);
    figures.textContent = words;
  };
}

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
    const moved = showProgress(count.bar);
    const answer = await ask("wider_search", [asked], Date.now(), moved);
    if (answer.error) say(answer.error);
    else result.innerHTML = answer.html;
  } catch (error) {
    say(`The search could not run in this browser (${error}).`);
  } finally {
    button.disabled = false;
  }
});
