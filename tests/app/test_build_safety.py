"""The build never leaves a half site: it writes beside ``site/`` and swaps the whole in at the end; one
build at a time per folder; Ctrl-C or SIGTERM is one line and leaves the old site as it was."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import sitebuild
from sitebuild import BuildError, BuildLock
from tests.conftest import ROOT


@pytest.fixture
def quick_steps(monkeypatch):
    """Every step of the build as a quick stand-in that writes one file; ``fail_at`` makes one raise."""
    steps = {
        "build_model_wheel": lambda wheels: wheels / "model.whl",
        "write_explored": lambda: None,
        "build_app_wheel": lambda wheels, version: wheels / "app.whl",
        "vendor_pyodide": lambda out, wheel: (out / "pyodide").mkdir(),
        "write_light": lambda out, wheel: (out / "light.json").write_text("{}"),
        "write_pages": lambda out: (out / "index.html").write_text("new site"),
    }
    failing = {}

    def stand_in(name, step):
        def run(*args):
            if failing.get("at") == name:
                raise BuildError(f"{name} failed")
            return step(*args)

        return run

    for name, step in steps.items():
        monkeypatch.setattr(sitebuild, name, stand_in(name, step))
    return failing


def old_site(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("old site")
    return out


def test_a_whole_build_replaces_the_site_and_leaves_nothing_beside_it(tmp_path, quick_steps):
    out = old_site(tmp_path)
    sitebuild.build(out, skip_app=True)
    assert (out / "index.html").read_text() == "new site" and (out / "light.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_the_site_is_published_readable_by_a_web_server_of_another_user(tmp_path, quick_steps):
    """The staging folder is made private (``mkdtemp``), and a strict umask makes files private too: a
    web server running as another user, or a copy with ``cp -a`` into a web root, answered 403."""
    out = old_site(tmp_path)
    umask = os.umask(0o077)
    try:
        sitebuild.build(out, skip_app=True)
    finally:
        os.umask(umask)
    for path in [out, *out.rglob("*")]:
        needed = 0o555 if path.is_dir() else 0o444
        assert path.stat().st_mode & needed == needed, f"{path} is {oct(path.stat().st_mode & 0o777)}"


@pytest.mark.parametrize("step", ["build_model_wheel", "write_light", "write_pages"])
def test_a_build_that_fails_at_any_step_leaves_the_old_site_whole(tmp_path, quick_steps, step):
    out = old_site(tmp_path)
    quick_steps["at"] = step
    with pytest.raises(BuildError):
        sitebuild.build(out, skip_app=True)
    assert sorted(p.name for p in out.iterdir()) == ["index.html"]
    assert (out / "index.html").read_text() == "old site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging folder, no lock


def test_a_second_build_of_the_same_folder_is_refused_naming_the_first(tmp_path, quick_steps):
    out = old_site(tmp_path)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".site.lock").write_text(f"{other.pid}\n")
        with pytest.raises(BuildError, match=f"another build \\(process {other.pid}\\) is writing"):
            sitebuild.build(out, skip_app=True)
        assert (out / "index.html").read_text() == "old site"
    finally:
        other.kill()
        other.wait()


def test_a_lock_left_by_a_build_that_died_is_taken_over(tmp_path, quick_steps):
    out = old_site(tmp_path)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (tmp_path / ".site.lock").write_text(gone.stdout)
    (tmp_path / ".site.building-left").mkdir()  # and its half-written staging folder
    sitebuild.build(out, skip_app=True)
    assert (out / "index.html").read_text() == "new site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize(
    "left", ["", "0\n", "-1\n", "not a pid\n"], ids=["empty", "zero", "negative", "garbled"]
)
def test_an_empty_or_garbled_lock_is_taken_over(tmp_path, quick_steps, left):
    """A lock that names no process (a build killed between creating it and writing its pid) is taken
    over: 0 or a negative number must not be read as a process group that is always there."""
    out = old_site(tmp_path)
    (tmp_path / ".site.lock").write_text(left)
    sitebuild.build(out, skip_app=True)
    assert (out / "index.html").read_text() == "new site"


def test_the_lock_is_released_when_the_build_fails(tmp_path):
    out = tmp_path / "site"
    with pytest.raises(RuntimeError), BuildLock(out):
        raise RuntimeError("a step failed")
    with BuildLock(out):
        pass


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.slow
def test_stopping_a_real_build_is_one_line_and_leaves_the_old_site(tmp_path, stop):
    out = old_site(tmp_path)
    build = subprocess.Popen(
        [sys.executable, "build.py", "--out", str(out), "--skip-app"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = build.stdout.readline()  # "[build] building the model wheel": inside its first step
        assert first.startswith("[build]")
        time.sleep(0.5)
        build.send_signal(stop)
        _, err = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 130
    assert err.strip() == f"build interrupted; {out} is as it was"
    assert sorted(p.name for p in out.iterdir()) == ["index.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize(
    "command",
    [["build.py", "--bogus"], ["-m", "app.shared", "--refesh"], ["-m", "engines", "run", "--engine", "x"]],
)
def test_a_wrong_flag_is_one_line_of_error_and_one_pointing_to_help(command):
    done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 2, done.stderr
    assert ": error: " in lines[0] and lines[1].endswith("--help' for every flag and value")


def test_the_pid_in_a_lock_is_this_process_while_it_builds(tmp_path):
    with BuildLock(tmp_path / "site") as lock:
        assert lock.path.read_text().strip() == str(os.getpid())


def test_npm_installs_into_tools_take_turns_and_the_second_finds_the_first_s(tmp_path, monkeypatch):
    """Issue 48, item 9: two checkouts sharing .tools installing at once failed with ENOTEMPTY and left
    packages missing. The build's install waits for another's, then finds the package there."""
    import json as json_module
    import threading

    from sitebuild import pyodide

    tools = tmp_path / ".tools"
    package = tools / "node_modules" / "pyodide"
    monkeypatch.setattr(pyodide, "TOOLS", tools)
    monkeypatch.setattr(pyodide, "NPM_PYODIDE", package)
    running, overlaps, installs = [], [], []

    def fake_npm(*command):
        running.append(1)
        overlaps.append(len(running) > 1)
        time.sleep(0.3)
        package.mkdir(parents=True, exist_ok=True)
        (package / "package.json").write_text(json_module.dumps({"version": pyodide.PYODIDE_VERSION}))
        installs.append(command)
        running.pop()

    monkeypatch.setattr(pyodide, "sh", fake_npm)
    builds = [threading.Thread(target=pyodide.ensure_npm_pyodide) for _ in range(2)]
    for build in builds:
        build.start()
    for build in builds:
        build.join()
    assert len(installs) == 1 and overlaps == [False]


def test_dev_s_npm_installs_take_the_same_lock(tmp_path):
    """./dev's installs (axe-core, restate-server) wait for one another and for the build's."""
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "log"
    (fake / "npm").write_text(f'#!/bin/sh\necho "start $$" >> {log}\nsleep 0.3\necho "end $$" >> {log}\n')
    (fake / "npm").chmod(0o755)
    function = subprocess.run(
        ["sed", "-n", "/^tools_npm()/,/^}/p", str(ROOT / "dev")], capture_output=True, text=True, check=True
    ).stdout
    assert "flock" in function
    script = f"{function}\nTOOLS={tmp_path / '.tools'}\ntools_npm a & tools_npm b & wait\n"
    path = f"{fake}:{os.environ['PATH']}"
    subprocess.run(["bash", "-c", script], env={**os.environ, "PATH": path}, check=True)
    said = [line.split()[0] for line in log.read_text().splitlines()]
    assert said == ["start", "end", "start", "end"], said
