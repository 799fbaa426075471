"""How long the explore page's search of wider ranges takes: in CPython, and in Pyodide as the reader's
browser runs it (Node with the vendored Pyodide of a built site, the model's wheel installed from it).

    .venv/bin/python benchmarks/wider_bench.py [--site DIR] [--repeat N]

The search is the one the page runs (``app.light.wider_search``): the main trace's protections against
the widest ranges its menus offer (33,696 schedules), and the default ranges (5,184). Builds the site
into a temporary folder unless ``--site`` names one that is built. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from model.explore import PROTECTIONS, WIDER, explore_setting, schedule_list, space_with  # noqa: E402
from model.switches import MAIN_TRACE  # noqa: E402

THE_ARTICLES = {k: getattr(MAIN_TRACE, k).value for k in PROTECTIONS}  # where the page's form starts
RANGES = {"default": {}, "widest": {field: list(choices)[-1] for field, choices in WIDER.items()}}

NODE = """
import { pathToFileURL } from "node:url";
import { join } from "node:path";
const [dir, request, repeat] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(dir, "pyodide.mjs")).href);
const lockFileURL = join(dir, "pyodide-lock.json");
const pyodide = await loadPyodide({ indexURL: dir + "/", lockFileURL, stdout: () => {} });
await pyodide.loadPackage("durable-work-model", { messageCallback: () => {} });
pyodide.globals.set("request", request);
const best = pyodide.runPython(`
import json, time
from model.explore import explore_setting, space_with
asked = json.loads(request)
best = float("inf")
for _ in range(${repeat}):
    start = time.perf_counter()
    explore_setting(asked["protections"], space=space_with(asked["ranges"]))
    best = min(best, time.perf_counter() - start)
best
`);
process.stdout.write(String(best));
"""


def cpython(request: dict, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        explore_setting(request["protections"], space=space_with(request["ranges"]))
        best = min(best, time.perf_counter() - start)
    return best


def pyodide(site: Path, request: dict, repeat: int) -> float | None:
    node = shutil.which("node")
    if node is None:
        print("  (no node on PATH: Pyodide not timed)")
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", dir=ROOT / "benchmarks", delete=False) as script:
        script.write(NODE)
    try:
        done = subprocess.run(
            [node, script.name, str(site / "pyodide"), json.dumps(request), str(repeat)],
            capture_output=True,
            text=True,
            timeout=1200,
        )
    finally:
        Path(script.name).unlink()
    if done.returncode:
        print(f"  Pyodide failed: {done.stderr.strip()[-400:]}")
        return None
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one in a temporary folder)")
    parser.add_argument("--repeat", type=int, default=3, choices=range(1, 21), metavar="1..20")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wider-bench-") as scratch:
        site = args.site
        if site is None or not (site / "pyodide" / "pyodide.mjs").exists():
            import sitebuild

            site = sitebuild.build(Path(scratch) / "site", skip_app=True)
        measure(site, args.repeat)


def measure(site: Path, repeat: int) -> None:
    for name, ranges in RANGES.items():
        request = {"protections": THE_ARTICLES, "ranges": ranges}
        n = len(schedule_list(space_with(ranges)))
        in_cpython = cpython(request, repeat)
        in_pyodide = pyodide(site, request, repeat)
        said = "" if in_pyodide is None else f", Pyodide {in_pyodide:6.2f} s ({in_pyodide / in_cpython:.1f}x)"
        aim = "  (aim in Pyodide: <= 2 s)" if name == "widest" else ""
        print(f"{name:>7} ranges, {n:6,} schedules: CPython {in_cpython:6.2f} s{said}{aim}")


if __name__ == "__main__":
    main()
