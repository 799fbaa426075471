// The print handout (Helpers, app/views/shortcuts.py): what the browser prints from any view.
const STYLE = `
  @media screen { .print-handout { display: none !important; } }
  @media print {
    body > *:not(.print-handout) { display: none !important; }
    .print-handout { display: block !important; }
  }`;
export function printHandout(model) {
  let sheet = document.getElementById("print-handout-style");
  if (!sheet) {
    sheet = document.createElement("style");
    sheet.id = "print-handout-style";
    sheet.textContent = STYLE;
    document.head.appendChild(sheet);
  }
  document.querySelectorAll("body > .print-handout").forEach((old) => old.remove());
  const host = document.createElement("div");
  host.className = "print-handout";
  document.body.appendChild(host);
  const inside = host.attachShadow({ mode: "closed" });
  const show = () => {
    inside.innerHTML = `<style>${model.css}</style><div class="explainer">${model.html}</div>`;
  };
  show();
  model.on("html", show);
}
