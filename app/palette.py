"""The explainer's colours, once. CSS reads them as custom properties (``css_variables``); a drawing that
needs literal colours reads the same dict. Colour never carries meaning alone: every state also has a
word, a mark or a shape."""

from __future__ import annotations

PALETTE: dict[str, str] = {
    "ink": "#1f1f1f",
    "muted": "#555555",
    "line": "#c9c9c9",
    "ok": "#1b6e20",  # held, accepted, confirmed
    "bad": "#b3261e",  # broken, rejected, stale
    "warn": "#8a4b00",  # suspected, refused, corrected
    "accent": "#0b57d0",  # the current tick, the move just taken, calls and posts
    "dependant": "#6b2fa0",  # the newsletter
    "quiet": "#333333",  # the controller's bookkeeping
    "dead": "#5f3b00",  # a worker that died
    "new": "#fff4c2",  # rows written at this tick
}


def css_variables() -> str:
    """``:root { --ink: …; … }`` for every colour."""
    return ":root { " + " ".join(f"--{name}: {value};" for name, value in PALETTE.items()) + " }\n"
