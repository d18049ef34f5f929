"""A stripped copy of Debian's python3.15d with its separate debug file
under a debug root of its own. Debian ships the pydebug interpreter with
its symbols and DWARF inside, so nothing the library reads for it comes
from a debug file; the tests of debug roots and debuginfod make this copy
(same build id, same code) to check on the pydebug build what a user of
the stripped release build has."""

import os
import re
import shutil
import subprocess

from demo_stack import fail


def stripped_copy(python, work):
    """(the copy at WORK/usr/bin/NAME, a debug root holding its debug file
    at .build-id/xx/rest.debug), made with elfutils' eu-strip. The copy's
    PREFIX/lib/python3.15 is a link to the original's standard library;
    nothing else of the original prefix is reachable from it (no debug
    root beside it). Fails the test when eu-strip is missing or fails."""
    strip = shutil.which("eu-strip")
    if not strip:
        fail("eu-strip is not installed (apt-get install elfutils)")
    notes = subprocess.run(["readelf", "-n", python], stdout=subprocess.PIPE, text=True,
                           timeout=60).stdout
    m = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", notes)
    if not m:
        fail("%s has no build id" % python)
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(python)))
    copy = os.path.join(work, "usr", "bin", os.path.basename(python))
    root = os.path.join(work, "debug-root")
    debug = os.path.join(root, ".build-id", m.group(1), m.group(2) + ".debug")
    os.makedirs(os.path.dirname(copy))
    os.makedirs(os.path.dirname(debug))
    os.makedirs(os.path.join(work, "usr", "lib"))
    os.symlink(os.path.join(prefix, "lib", "python3.15"),
               os.path.join(work, "usr", "lib", "python3.15"))
    done = subprocess.run([strip, "-o", copy, "-f", debug, python], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    if done.returncode != 0 or not os.path.isfile(copy) or not os.path.isfile(debug):
        fail("eu-strip of %s failed:\n%s" % (python, done.stdout))
    return copy, root
