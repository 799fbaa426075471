"""The worked example of "Saved, Accepted, Safe to Use", as a deterministic simulation.

Pure standard-library Python; it knows nothing of any UI. Start with ``run(Switches())`` (the main
trace), ``trace_dict``, and ``Run.outcome()``.

The names below are imported when first asked for, so importing one module of the model (say
``model.attempt``) loads only what that module needs.
"""

from __future__ import annotations

from importlib import import_module

_HOME = {
    "MACHINES": "lifecycles",
    "TransitionNotAllowed": "lifecycles",
    "Run": "simulation",
    "run": "simulation",
    "MAIN_TRACE": "switches",
    "SwitchError": "switches",
    "Switches": "switches",
    "all_switches": "switches",
    "TraceError": "trace",
    "dumps": "trace",
    "load_trace": "trace",
    "trace_dict": "trace",
}
__all__ = sorted(_HOME, key=str.lower)


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'model' has no attribute {name!r}")
    value = getattr(import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])
