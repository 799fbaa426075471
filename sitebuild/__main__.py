import sys

from sitebuild.cli import main

sys.exit(main())
