// The teacher's page in a class (classroom/teacher.py's Reconnect): when its server goes away (restarted,
// killed), the page says so in one line and loads itself again as soon as the server answers, at its own
// link, which names the class and its key. The server is asked every 300 ms with the phones' page, which
// costs it nothing to send (asking for this page would start a session each time).
export function render({ model }) {
  const said = document.createElement("p");
  said.className = "class-connection";
  said.setAttribute("role", "status");
  let waiting = false;
  const back = async () => {
    try {
      const answer = await fetch("/join", { cache: "no-store" });
      if (answer.ok) {
        window.location.reload();
        return;
      }
    } catch {
      // not listening yet
    }
    setTimeout(back, 300);
  };
  const lost = () => {
    if (waiting) return;
    waiting = true;
    said.textContent = model.reconnecting;
    // Panel's own notice ("Reload the page") would say a second thing: this page reloads by itself.
    const hush = document.createElement("style");
    hush.textContent = ".notyf, .notyf-announcer { display: none !important; }";
    document.head.append(hush);
    back();
  };
  model.document?.on_event("connection_lost", lost);
  return said;
}
