"""What the C compiler sees of the installed headers: a generated program
built against libjitunwind/include and run."""

import os
import subprocess


def run(repo, cc, work, name, source):
    """(stdout lines, None) of the program `source` built as WORK/NAME, or
    (None, the compiler's output) when it does not build."""
    os.makedirs(work, exist_ok=True)
    src, exe = os.path.join(work, name + ".c"), os.path.join(work, name)
    with open(src, "w") as f:
        f.write(source)
    build = subprocess.run([cc, "-std=c11", "-I", os.path.join(repo, "libjitunwind", "include"),
                            "-o", exe, src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    if build.returncode != 0:
        return None, build.stdout
    out = subprocess.run([exe], stdout=subprocess.PIPE, text=True, check=True).stdout
    return out.split("\n"), None
