import sys

from wlansec_lab.cli import main

sys.exit(main())
