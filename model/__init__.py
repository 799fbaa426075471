"""The worked example of "Saved, Accepted, Safe to Use", as a deterministic simulation.

Pure standard-library Python; it knows nothing of any UI. Start with ``run(Switches())`` (the main
trace), ``trace_dict``, and ``Run.outcome()``.
"""

from .lifecycles import MACHINES, TransitionNotAllowed
from .simulation import Run, run
from .switches import MAIN_TRACE, SwitchError, Switches, all_switches
from .trace import TraceError, dumps, load_trace, trace_dict

__all__ = [
    "MACHINES",
    "MAIN_TRACE",
    "Run",
    "SwitchError",
    "Switches",
    "TraceError",
    "TransitionNotAllowed",
    "all_switches",
    "dumps",
    "load_trace",
    "run",
    "trace_dict",
]
