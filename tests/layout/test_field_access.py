"""The decoders load layout fields only through the field table.

Every offset or size member of struct ju_py_layout (src/python/layout/layout.h)
must be listed in JU_PY_LAYOUT_FIELDS (fields.h), where its width is, so that
ju_py_layout_check covers it; and no decoder in src/python/ may load from
`<buffer or address> + L->field` with a width of its own (ju_load_u*,
ju_read_u*) instead of ju_py_get / ju_py_fetch. The value layout likewise:
each member listed in JU_PY_VALUE_FIELDS, and each load of one of the width
listed there. Exits 1 naming each offender."""
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1]) / "python"
header = (src / "layout" / "layout.h").read_text()
fields = (src / "layout" / "fields.h").read_text()


def rows(macro):
    """The rows of one field list of fields.h: (name, width)."""
    body = re.search(r"#define %s\(X\)(.*?)\n\n" % macro, fields, re.S).group(1)
    return re.findall(r"X\(([a-z0-9_]+), [A-Z]+, (\d+), [A-Z]+, [A-Z_]+, [A-Z_]+, ", body)


struct = re.search(r"struct ju_py_layout \{(.*?)\n\};", header, re.S).group(1)
members = re.findall(r"^\s*uint32_t ([a-z0-9_]+);", struct, re.M)
members = [m for m in members if m != "version"]  # PY_VERSION_HEX, not an offset
members += [m for line in re.findall(r"^\s*uint32_t ([a-z0-9_, ]+);", struct, re.M)
            for m in line.replace(" ", "").split(",")[1:]]
listed = {name for name, _ in rows("JU_PY_LAYOUT_FIELDS")}
problems = ["struct ju_py_layout.%s is not in JU_PY_LAYOUT_FIELDS (its width is unknown, "
            "so no check covers it)" % m for m in members if m not in listed]
raw_load = re.compile(r"ju_(load|read)_u(8|16|32|64)\([^;]*?(\bL|layout)->([a-z0-9_]+)", re.S)
for path in sorted(src.rglob("*.c")):
    text = path.read_text()
    for m in raw_load.finditer(text):
        if m.group(4) in listed:
            line = text.count("\n", 0, m.start()) + 1
            problems.append("%s:%d: %s loaded with a width of its own; use ju_py_get/ju_py_fetch"
                            % (path.name, line, m.group(4)))

# The value layout (value_layout.h): every uint32 member listed in
# JU_PY_VALUE_FIELDS, and every load of one with a fixed width (ju_read_u*,
# ju_load_u*, the renderer's 8-byte field()/read_field(), a byte from the
# copied keys header) of the width listed there, which ju_py_values_check
# holds each layout to.
vheader = (src / "layout" / "value_layout.h").read_text()
vstruct = re.search(r"struct ju_py_value_layout \{(.*?)\n\};", vheader, re.S).group(1)
vmembers = [m for line in re.findall(r"^\s*uint32_t ([a-z0-9_, ]+);", vstruct, re.M)
            for m in line.replace(" ", "").split(",")]
vmembers = [m for m in vmembers if m != "version"]
vwidth = {name: int(width) for name, width in rows("JU_PY_VALUE_FIELDS")}
problems += ["struct ju_py_value_layout.%s is not in JU_PY_VALUE_FIELDS" % m
             for m in vmembers if m not in vwidth]
loads = [(re.compile(r"ju_(?:load|read)_u(8|16|32|64)\([^;]*?\bV->([a-z0-9_]+)", re.S),
          lambda m: int(m.group(1)) // 8),
         (re.compile(r"\b(?:read_)?field\(g, [^,;]+, (?:g->o\.)?V->([a-z0-9_]+)"), lambda m: 8),
         (re.compile(r"keys_head\[V->([a-z0-9_]+)\]"), lambda m: 1)]
checked = 0
for path in sorted(src.rglob("*.c")):
    text = path.read_text()
    for pattern, width in loads:
        for m in pattern.finditer(text):
            name = m.group(m.lastindex)
            if name not in vwidth:
                continue
            checked += 1
            if vwidth[name] not in (0, width(m)):
                line = text.count("\n", 0, m.start()) + 1
                problems.append("%s:%d: %s loaded as %d bytes, listed as %d in "
                                "JU_PY_VALUE_FIELDS" % (path.name, line, name, width(m),
                                                        vwidth[name]))
if checked < 30:
    problems.append("only %d loads of value fields found: the patterns above are stale" % checked)
for p in problems:
    print(p)
print("%d layout fields, all listed and loaded through the table; %d value fields, %d loads "
      "of the listed width" % (len(members), len(vmembers), checked)
      if not problems else "%d problem(s)" % len(problems))
sys.exit(1 if problems else 0)
