// ClassClient's browser side (app/views/classroom.py); Panel loads it as an ES module.
//
// A phone (or the teacher's screen) in a class: it names this browser to the class with a random id kept
// in the browser (no name, nothing else), and it comes back by itself when the server went away: at once
// when its websocket closes (the server killed or restarted), and when the network silently dropped it,
// after two pings unanswered (one every ten seconds). The page then says it is reconnecting and asks the
// server for the page until it answers, then loads it again at its link, which keeps the class, the
// student's id and where the page was.
const ID_KEY = "durable-work-class-student";
// Each ping is a message through the page's session: 300 phones pinging every 2 s took a whole core of
// the server (benchmarks/class_bench.py --class); every 10 s they take about a third of one.
const BEAT_MS = 10000;

function studentId() {
  let id = null;
  try {
    id = window.localStorage.getItem(ID_KEY);
  } catch {
    // no storage here (a private window that refuses it): an id for this page only
  }
  if (!id || !/^[A-Za-z0-9-]{8,64}$/.test(id)) {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try {
      window.localStorage.setItem(ID_KEY, id);
    } catch {
      // kept in this page only
    }
  }
  return id;
}

// An answer tapped is kept in the tab until Python says it is recorded: if the server dies first, the
// page sends it again once it is back (the class's key makes a second send the same answer).
const PENDING_KEY = "durable-work-class-pending";
const kept = () => {
  try {
    return JSON.parse(window.sessionStorage.getItem(PENDING_KEY) || "null");
  } catch {
    return null;
  }
};
const keep = (value) => {
  try {
    if (value) window.sessionStorage.setItem(PENDING_KEY, JSON.stringify(value));
    else window.sessionStorage.removeItem(PENDING_KEY);
  } catch {
    // no storage: nothing is sent again
  }
};

export function render({ model }) {
  const el = document.createElement("p");
  el.className = "class-connection";
  el.setAttribute("role", "status");
  model.send_msg({ hello: studentId(), pending: kept() });
  // The answers are in another component's shadow root: a tap is seen on its way out (a click is
  // composed; a change is not).
  const onTap = (event) => {
    const input = event.composedPath()[0];
    if (input && input.dataset && /^class-answer-\d+$/.test(input.dataset.key || "") && model.asked) {
      keep({ asked: model.asked, choice: input.dataset.value });
    }
  };
  document.addEventListener("click", onTap, true);
  const settle = () => {
    const pending = kept();
    if (pending && model.acknowledged === `${pending.asked}:${pending.choice}`) keep(null);
  };
  model.on("acknowledged", settle);
  settle();
  let unanswered = 0;
  let reconnecting = false;
  const comeBack = async () => {
    try {
      const answer = await fetch(window.location.href, { cache: "no-store" });
      if (answer.ok) {
        window.location.reload();
        return;
      }
    } catch {
      // the server is not there yet
    }
    setTimeout(comeBack, 1500);
  };
  const goBack = () => {
    if (reconnecting) return;
    reconnecting = true;
    el.textContent = model.reconnecting;
    comeBack();
  };
  const beat = setInterval(() => {
    if (reconnecting) return;
    unanswered += 1;
    if (unanswered > 2) {
      goBack();
      return;
    }
    model.send_msg({ ping: true });
  }, BEAT_MS);
  model.document?.on_event("connection_lost", goBack);
  model.on("msg:custom", (msg) => {
    if (msg && msg.pong) unanswered = 0;
  });
  model.on("remove", () => {
    clearInterval(beat);
    document.removeEventListener("click", onTap, true);
  });
  return el;
}
