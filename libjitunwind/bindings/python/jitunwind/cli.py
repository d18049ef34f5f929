"""The `jitunwind` console script of the wheel: runs the jitunwind program
installed beside the binding (jitunwind/bin/jitunwind, which finds
jitunwind/libjitunwind.so.0 through its RPATH) with the same arguments."""

import os
import sys


def program():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "jitunwind")


def main():
    path = program()
    if not os.access(path, os.X_OK):
        sys.stderr.write("jitunwind: the jitunwind program is not installed at %s "
                         "(this installation has the binding only)\n" % path)
        return 2
    os.execv(path, [path] + sys.argv[1:])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
