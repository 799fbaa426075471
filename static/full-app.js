// The full explainer's page (Panel's converted app, app/explainer.html): says in words what it loads and,
// when something cannot be fetched (a CDN out of reach, offline), says so at once with a link to the
// light explainer, which needs nothing from outside this site. Loaded first, before Panel's own scripts,
// so it hears their failures too. Never a bare spinner.
(() => {
  const light = new URL("../index.html", document.currentScript.src);
  light.search = window.location.search; // the same chapter, switches and tick
  const failed = new Set();
  let stalled = false;

  function note(words, alarm) {
    if (!document.body) return;
    let box = document.getElementById("full-app-note");
    if (!box) {
      box = document.createElement("div");
      box.id = "full-app-note";
      box.style.cssText =
        "position:fixed;z-index:10000;left:1rem;right:1rem;bottom:1rem;padding:0.8em 1em;" +
        "background:#fff;border:2px solid #1f4fbf;border-radius:6px;font:16px/1.4 system-ui,sans-serif";
      document.body.appendChild(box);
    }
    box.setAttribute("role", alarm ? "alert" : "status");
    box.style.borderColor = alarm ? "#b3261e" : "#1f4fbf";
    box.textContent = `${words} `;
    const link = document.createElement("a");
    link.href = light.href;
    link.textContent = "Open the light explainer";
    box.append(link, " (the same story, nothing from outside this site).");
  }
  const report = () => {
    if (failed.size) {
      note(
        `The full explainer cannot start: ${[...failed].join(", ")} could not be reached, and it needs ` +
          "Panel's, Bokeh's and Pyodide's files from there.",
        true,
      );
    }
  };
  // A script, stylesheet or image of the page that failed to load (these events do not bubble).
  window.addEventListener(
    "error",
    (event) => {
      const url = event.target && (event.target.src || event.target.href);
      if (url && new URL(url, window.location.href).origin !== window.location.origin) {
        failed.add(new URL(url).host);
        report();
      }
    },
    true,
  );
  document.addEventListener("DOMContentLoaded", () => {
    const message = document.getElementById("loader-msg");
    if (message && !message.textContent) {
      message.textContent =
        "Loading the full explainer: Python from this site, then Panel, Bokeh, numpy and pandas " +
        "(about 30 MB, partly from their CDNs). This can take half a minute.";
    }
    // Panel's loader shows the worker's errors (a package it could not fetch); add the way out.
    const loader = window.panelLoader;
    if (loader) {
      const shown = loader.error;
      loader.error = (words) => {
        shown(words);
        stalled = true;
        note(`The full explainer stopped: ${words}.`, true);
      };
    }
    report();
  });
  setTimeout(() => {
    const loader = document.getElementById("loader");
    if (!stalled && !failed.size && loader && loader.style.display !== "none") {
      note("Still loading the full explainer (Panel in a browser can take half a minute).", false);
    }
  }, 10000);
})();
