"""The model is standard-library Python 3.11+: every CPython found here gives the same bytes."""

from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

from model import Switches, dumps, run, trace_dict
from model.analyses import fingerprint
from tests.conftest import ROOT

PROGRAM = (
    "from model import Switches, dumps, run, trace_dict; from model.analyses import fingerprint; "
    "print(dumps(fingerprint())); print(dumps(trace_dict(run(Switches()))))"
)


def interpreters() -> list[str]:
    found = {}
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for path in sorted(glob.glob(f"{root}/versions/3.1[1-9]*/bin/python3")) + ["/usr/bin/python3"]:
        if os.path.exists(path) and os.path.realpath(path) != os.path.realpath(sys.executable):
            done = subprocess.run(
                [path, "-c", "import sys; print(sys.version_info >= (3, 11), sys.version.split()[0])"],
                capture_output=True,
                text=True,
            )
            ok, _, version = done.stdout.strip().partition(" ")
            if ok == "True":
                found.setdefault(version, path)
    return list(found.values())


OTHERS = interpreters()


@pytest.mark.skipif(not OTHERS, reason="no other CPython 3.11+ on this machine")
@pytest.mark.parametrize("python", OTHERS)
def test_other_cpythons_give_the_same_bytes(python):
    done = subprocess.run(
        [python, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {PROGRAM}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    their_fingerprint, main_trace = done.stdout.rstrip("\n").split("\n", 1)
    assert their_fingerprint == dumps(fingerprint())
    assert main_trace == dumps(trace_dict(run(Switches())))
