#!/usr/bin/env python3
"""`record --nonblocking` at a rate the machine cannot keep: each sample
follows the last at once, so the last check's call also reads the next
sample's pages, and the next sample walks that reading and checks it
against fresh ones (cli_target_read_carrying). On cli.torn's target,
whose chain changes all the time, no more recorded stacks may be
impossible than cli.torn allows at a rate kept with sleeps between
samples, and torn chains are counted.

Usage: test_cli_torn_behind.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli_torn import TARGET, check_mode, each_mode  # noqa: E402

UNKEPT_HZ = 1000000


def main():
    # As cli.torn's block-cache mode, the reader kept on one CPU in every
    # other run, at a rate no run keeps.
    return each_mode(__doc__, TARGET, (([], 3, UNKEPT_HZ, 3, True),), check_mode)


if __name__ == "__main__":
    sys.exit(main())
