"""A real debuginfod (Debian's package `debuginfod`) on 127.0.0.1 serving
the separate debug file of a stripped interpreter, for the tests that find
debug files through DEBUGINFOD_URLS (the CLI and both plugins)."""

import contextlib
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

from demo_stack import fail

WHY_NONE = "Debian's debuginfod is not installed (apt-get install debuginfod)"


def available():
    return shutil.which("debuginfod") is not None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _served(url, proc, timeout=120):
    """Wait until `url` answers 200 (the server has indexed the file)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            fail("debuginfod exited with %d" % proc.returncode)
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    fail("debuginfod did not serve %s within %d s" % (url, timeout))


@contextlib.contextmanager
def serving(root, work):
    """Serve the one debug file under debug root `root`
    (.build-id/xx/rest.debug) from a copy in `work`: yields (url, build id
    in hex) once the server answers for it; stops the server after."""
    build_id = os.path.join(root, ".build-id")
    sub = os.listdir(build_id)[0]
    name = os.listdir(os.path.join(build_id, sub))[0]
    hexid = sub + name[:-len(".debug")]
    serve = os.path.join(work, "serve")
    os.makedirs(serve)
    shutil.copy(os.path.join(build_id, sub, name), serve)
    port = _free_port()
    log = open(os.path.join(work, "debuginfod.log"), "w")
    daemon = subprocess.Popen([shutil.which("debuginfod"), "-p", str(port), "-F", "-t", "0",
                               "-g", "0", "-c", "1", "-d", os.path.join(work, "index.sqlite"),
                               serve], stdout=log, stderr=subprocess.STDOUT)
    try:
        url = "http://127.0.0.1:%d" % port
        _served("%s/buildid/%s/debuginfo" % (url, hexid), daemon)
        yield url, hexid
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)
        log.close()
