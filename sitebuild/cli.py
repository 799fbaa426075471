"""The build's command line: ``python build.py`` (the design card's entry) or ``python -m sitebuild``."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from model.cli import BriefParser
from sitebuild import build
from sitebuild.common import ROOT, BuildError


def main(argv: list[str] | None = None) -> int:
    parser = BriefParser(prog="python build.py", description="Build the explainer's static site.")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "site", help="where to write the site (default: site/)"
    )
    parser.add_argument(
        "--pwa", action="store_true", help="add Panel's service worker, for use offline after one visit"
    )
    parser.add_argument(
        "--skip-app", action="store_true", help="leave out the converted app (faster; pages only)"
    )
    args = parser.parse_args(argv)
    out = args.out.resolve()
    signal.signal(signal.SIGTERM, _interrupt)  # a kill (no -9) stops as cleanly as Ctrl-C
    try:
        build(out, pwa=args.pwa, skip_app=args.skip_app)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"build interrupted; {out} is as it was", file=sys.stderr)
        return 130
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
