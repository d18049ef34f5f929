"""The decoders load layout fields only through the field table.

Every offset or size member of struct ju_py_layout (src/python/layout.h)
must be listed in JU_PY_LAYOUT_FIELDS, where its width is, so that
ju_py_layout_check covers it; and no decoder in src/python/ may load from
`<buffer or address> + L->field` with a width of its own (ju_load_u*,
ju_read_u*) instead of ju_py_get / ju_py_fetch. Exits 1 naming each
offender."""
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1]) / "python"
header = (src / "layout.h").read_text()
struct = re.search(r"struct ju_py_layout \{(.*?)\n\};", header, re.S).group(1)
members = re.findall(r"^\s*uint32_t ([a-z0-9_]+);", struct, re.M)
members = [m for m in members if m != "version"]  # PY_VERSION_HEX, not an offset
members += [m for line in re.findall(r"^\s*uint32_t ([a-z0-9_, ]+);", struct, re.M)
            for m in line.replace(" ", "").split(",")[1:]]
listed = set(re.findall(r"X\(([a-z0-9_]+), [A-Z]+, \d+, [A-Z]+\)", header))
problems = ["struct ju_py_layout.%s is not in JU_PY_LAYOUT_FIELDS (its width is unknown, "
            "so no check covers it)" % m for m in members if m not in listed]
raw_load = re.compile(r"ju_(load|read)_u(8|16|32|64)\([^;]*?(\bL|layout)->([a-z0-9_]+)", re.S)
for path in sorted(src.glob("*.c")):
    text = path.read_text()
    for m in raw_load.finditer(text):
        if m.group(4) in listed:
            line = text.count("\n", 0, m.start()) + 1
            problems.append("%s:%d: %s loaded with a width of its own; use ju_py_get/ju_py_fetch"
                            % (path.name, line, m.group(4)))
for p in problems:
    print(p)
print("%d layout fields, all listed and loaded through the table" % len(members)
      if not problems else "%d problem(s)" % len(problems))
sys.exit(1 if problems else 0)
