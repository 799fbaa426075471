// Shows the pre-rendered main trace at once, loads the live explainer beside it, and swaps them when
// the live app says it is ready. Also tells a parent page (the article) this page's height.
(() => {
  const script = document.currentScript;
  const embed = script.dataset.embed === "1";
  const status = document.getElementById("status");
  const slot = document.getElementById("live-slot");
  const prerender = document.getElementById("prerender");
  const query = new URLSearchParams(window.location.search);
  if (embed) query.set("embed", "1");
  const frame = document.createElement("iframe");
  frame.src = script.dataset.live + (query.toString() ? "?" + query : "");
  frame.title = "The live explainer";
  frame.className = "live";
  frame.hidden = true;
  slot.appendChild(frame);

  const reportHeight = () => {
    if (window.parent !== window) {
      window.parent.postMessage(
        { type: "durable-work-explainer:height", height: document.documentElement.scrollHeight }, "*");
    }
  };
  new ResizeObserver(reportHeight).observe(document.body);

  let ready = false;
  window.addEventListener("message", (event) => {
    // Only the live app, served from this very site, may speak. A page that frames this one can navigate
    // the inner frame to a page of its own; its messages come from another origin and are ignored.
    if (event.source !== frame.contentWindow || event.origin !== window.location.origin) return;
    if (!event.data || typeof event.data !== "object") return;
    const { type } = event.data;
    if (type === "durable-work-explainer:ready" && !ready) {
      ready = true;
      frame.hidden = false;
      prerender.hidden = true;
      status.hidden = true;
    } else if (type === "durable-work-explainer:height" && Number.isFinite(event.data.height)) {
      frame.style.height = `${Math.max(0, Math.min(event.data.height, 100000))}px`;
    } else if (type === "durable-work-explainer:url" && typeof event.data.search === "string") {
      // Mirror the live app's state in this page's address, so the link can be shared.
      const inner = new URLSearchParams(event.data.search);
      if (embed) inner.delete("embed");
      const search = inner.toString();
      window.history.replaceState(null, "", window.location.pathname + (search ? "?" + search : ""));
    }
  });
  setTimeout(() => {
    if (!ready) {
      status.classList.add("stalled");
      status.textContent = "The live explainer has not loaded (it needs Pyodide and Panel from their " +
        "CDNs). The complete main trace is shown below.";
    }
  }, 90000);
})();
