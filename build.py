"""Build the static site into ``site/``: ``python build.py [--out site] [--pwa] [--skip-app]``.

The build itself is the ``sitebuild`` package (one module a job; its docstring says what is written).
This file is only the entry point, kept at the top level where the design card puts it; nothing imports
it, so it cannot stand in for pypa/build.
"""

import sys

from sitebuild.cli import main

if __name__ == "__main__":
    sys.exit(main())
