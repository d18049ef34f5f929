"""The layout tables against the real headers, for x86-64 and AArch64.

For each interpreter (the arguments, then $JITUNWIND_EXTRA_PYTHONS), the
installed headers (Python.h and Include/internal) are compiled with clang-19
for both architectures, with one offsetof/sizeof per field the library's
table gives (dump_py_layout lists them, the value renderer's as
"values.NAME"); each value must equal the table's for that version, build
kind and architecture. Build-specific fields (the
trampoline arenas' and executor lists' places) are reported, not asserted.

Exit 77 (skip) when clang-19 or the AArch64 C library headers are missing,
or when no interpreter with headers is found.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
CLANG = "clang-19"
AARCH64_SYSROOT = "/usr/aarch64-linux-gnu/include"
ARCH_FLAGS = {
    "x86_64": ["--target=x86_64-linux-gnu"],
    # clang's own headers (stddef.h), then Debian's AArch64 C library; the
    # resource directory is added in main().
    "aarch64": ["--target=aarch64-linux-gnu", "-nostdinc", "-isystem", AARCH64_SYSROOT],
}
# Headers that declare what the decoder reads; absent ones are skipped.
HEADERS = ["internal/pycore_runtime.h", "internal/pycore_interp.h", "internal/pycore_frame.h",
           "internal/pycore_interpframe.h", "internal/pycore_optimizer.h",
           "internal/pycore_dict.h", "internal/pycore_moduleobject.h", "internal/pycore_gil.h"]
MIN_FIELDS = 25  # fewer compared means the probe itself failed


def interpreter_facts(python):
    """(hexversion, free_threaded, include dir) of an interpreter, or None."""
    code = ("import sys, sysconfig; print(sys.hexversion, "
            "int(bool(sysconfig.get_config_var('Py_GIL_DISABLED'))), "
            "int(bool(sysconfig.get_config_var('Py_TRACE_REFS'))), "
            "sysconfig.get_paths()['include'])")
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    if out.returncode != 0:
        return None
    version, free_threaded, trace_refs, include = out.stdout.split(None, 3)
    include = include.strip()
    if not os.path.isfile(os.path.join(include, "internal", "pycore_interp.h")):
        return None
    return int(version), int(free_threaded), int(trace_refs), include


def table(dump, version, free_threaded, arch):
    """{field: (kind, type, paths, value)} of the library's table."""
    out = subprocess.run([dump, hex(version), str(free_threaded), arch],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    fields = {}
    for line in out.stdout.splitlines():
        if line.startswith("#"):
            continue
        name, kind, ctype, paths, value = line.split()
        fields[name] = (kind, ctype, None if paths == "-" else paths, int(value))
    return fields


def multiarch_dirs(workdir, include, arch):
    """Debian's pyconfig.h only picks <TRIPLET/pythonX.Y/pyconfig.h> by the
    target's architecture, found under the include root beside `include`
    (an unpacked package's usr/include) or the system's. The directories
    the compile for `arch` needs: that root, and for AArch64 one where the
    AArch64 name finds the host's file (the configuration it holds, not the
    layout, is what matters). [] for other installations."""
    try:
        with open(os.path.join(include, "pyconfig.h")) as f:
            choices = re.findall(r"#\s*include <([^/>]+)/([^/>]+)/pyconfig\.h>", f.read())
    except OSError:
        return []
    roots = [os.path.dirname(os.path.abspath(include)), "/usr/include"]
    host = [(root, os.path.join(root, t, n, "pyconfig.h")) for root in roots for t, n in choices]
    host = [(root, h) for root, h in host if os.path.isfile(h)]
    if not host:
        return []
    root, found = host[0]
    dirs = [root] if root != "/usr/include" else []
    if arch != "aarch64":
        return dirs
    target = os.path.join(workdir, "multiarch", "aarch64-linux-gnu", os.path.basename(include))
    os.makedirs(target, exist_ok=True)
    link = os.path.join(target, "pyconfig.h")
    if not os.path.exists(link):
        os.symlink(found, link)
    return [os.path.join(workdir, "multiarch")] + dirs


def probe(workdir, include, arch, fields, extra_includes=()):
    """{field: value} from the headers compiled for `arch`."""
    candidates = []  # (field, C expression), several per field
    for name, (kind, ctype, paths, _) in sorted(fields.items()):
        for spelled in (ctype, "struct " + ctype):
            if paths is None:
                candidates.append((name, "sizeof(%s)" % spelled))
            else:
                for path in paths.split("|"):
                    candidates.append((name, "offsetof(%s, %s)" % (spelled, path)))
    lines = ["#define Py_BUILD_CORE 1", "#include <stddef.h>", '#include "Python.h"']
    for h in HEADERS:
        lines += ['#if __has_include("%s")' % h, '#include "%s"' % h, "#endif"]
    lines.append("const unsigned long long probes[] = {")
    first = len(lines) + 1  # line number of the first candidate
    alive = list(range(len(candidates)))
    source = os.path.join(workdir, "probe_%s.c" % arch)
    for _ in range(8):  # each round drops the candidates the compiler rejected
        text = "\n".join(lines + ["    %s," % candidates[i][1] for i in alive] + ["};", ""])
        with open(source, "w") as f:
            f.write(text)
        out = subprocess.run([CLANG] + ARCH_FLAGS[arch] +
                             ["-I", include, "-I", os.path.join(include, "internal")] +
                             [flag for d in extra_includes for flag in ("-I", d)] +
                             ["-S", "-o", "-", source], capture_output=True, text=True)
        if out.returncode == 0:
            break
        bad = {int(m.group(1)) - first
               for m in re.finditer(r"probe_%s\.c:(\d+):\d+: error" % arch, out.stderr)}
        bad = {b for b in bad if 0 <= b < len(alive)}
        if not bad:
            raise RuntimeError("the probe does not compile for %s:\n%s" % (arch, out.stderr[:2000]))
        alive = [c for k, c in enumerate(alive) if k not in bad]
    else:
        raise RuntimeError("the probe kept failing for %s" % arch)
    values = [int(v) for v in re.findall(r"^\s*\.(?:quad|xword)\s+(\d+)\b", out.stdout, re.M)]
    if len(values) != len(alive):
        raise RuntimeError("%d values for %d probes on %s" % (len(values), len(alive), arch))
    found = {}
    for i, value in zip(alive, values):
        found.setdefault(candidates[i][0], value)  # the first spelling that compiled
    return found


def main():
    dump, pythons = sys.argv[1], sys.argv[2:]
    pythons += [p for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":") if p]
    if not shutil.which(CLANG):
        print("skip: %s is not installed" % CLANG)
        return SKIP
    if not os.path.isfile(os.path.join(AARCH64_SYSROOT, "pthread.h")):
        print("skip: no AArch64 C library headers (libc6-dev-arm64-cross)")
        return SKIP
    resource = subprocess.run([CLANG, "-print-resource-dir"], capture_output=True,
                              text=True).stdout.strip()
    ARCH_FLAGS["aarch64"][2:2] = ["-isystem", os.path.join(resource, "include")]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as workdir:
        for python in pythons:
            facts = interpreter_facts(python)
            if not facts:
                print("skip: %s: not found or no internal headers" % python)
                continue
            version, free_threaded, trace_refs, include = facts
            label = "%s (%x%s)" % (python, version, ", free-threaded" if free_threaded else "")
            if trace_refs:
                # Two more pointers in every object header: the tables are not
                # for such builds by design; the reader takes their offsets from
                # DWARF (gdb.real.extra runs them end to end).
                print("skip: %s: a --with-trace-refs build, read through its DWARF" % label)
                continue
            for arch in ARCH_FLAGS:
                fields = table(dump, version, free_threaded, arch)
                if fields is None:
                    print("skip: %s: the library has no table for it" % label)
                    break
                extra = multiarch_dirs(workdir, include, arch)
                try:
                    found = probe(workdir, include, arch, fields, extra)
                except RuntimeError as e:
                    failures.append("%s %s: %s" % (label, arch, e))
                    continue
                compared = 0
                for name, (kind, ctype, paths, value) in sorted(fields.items()):
                    if name not in found:
                        continue
                    if found[name] == value:
                        compared += 1
                    elif kind == "build-specific":
                        print("note: %s %s: %s is %d in these headers, %d in the table "
                              "(build-specific: DWARF gives it)" %
                              (label, arch, name, found[name], value))
                    else:
                        failures.append("%s %s: %s.%s = %d in the headers, %d in the table" %
                                        (label, arch, ctype, paths or "sizeof", found[name],
                                         value))
                missing = sorted(set(fields) - set(found))
                if missing:
                    print("note: %s %s: not in these headers: %s" % (label, arch, " ".join(missing)))
                if compared < MIN_FIELDS:
                    failures.append("%s %s: only %d fields compared" % (label, arch, compared))
                checked += compared
                print("ok: %s %s: %d table fields equal the headers' offsets" %
                      (label, arch, compared))
    for f in failures:
        print("FAIL: " + f)
    if not checked and not failures:
        print("skip: no interpreter with headers found")
        return SKIP
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
