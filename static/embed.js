// Include once in a page that embeds the explainer's frames (the "Put this figure in your article" code):
// every frame of the explainer's site on the page takes the height its content asks for. Only messages
// from this script's own origin are heeded, and only a height a page could have.
(() => {
  const origin = new URL(document.currentScript.src).origin;
  window.addEventListener("message", (event) => {
    const { type, height } = event.data || {};
    if (event.origin !== origin || type !== "durable-work-explainer:height") return;
    if (!Number.isFinite(height) || height <= 0 || height > 100000) return;
    for (const frame of document.querySelectorAll("iframe")) {
      if (frame.contentWindow === event.source) frame.style.height = `${Math.ceil(height)}px`;
    }
  });
})();
