"""The build's command line: ``python build.py`` (the design card's entry) or ``python -m sitebuild``."""

from __future__ import annotations

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
    try:
        build(args.out.resolve(), pwa=args.pwa, skip_app=args.skip_app)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    return 0
