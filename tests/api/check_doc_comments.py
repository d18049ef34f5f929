#!/usr/bin/env python3
"""Every function the library exports (libjitunwind/libjitunwind.symbols) is
declared in a public header (libjitunwind/include/jitunwind/*.h) under a
comment in the house style: the comment on the lines directly above the
declaration (or above the declarations it heads, when several follow it with
no blank line between) names each parameter in CAPS, says what NULL means
when a parameter is a pointer, states the return convention of a non-void
function, and for a returned pointer or a `**` out parameter also says
whether it may be NULL and how long it lives (valid until, freed by, static).

Usage: check_doc_comments.py SOURCE_DIR     Exit 0 when every function
passes, 1 otherwise (each failure on a line of its own)."""

import glob
import os
import re
import sys

# GDB's JIT interface names, defined by the library for GDB and declared by
# GDB's protocol rather than by a header of ours.
NOT_IN_HEADERS = {"__jit_debug_descriptor", "__jit_debug_register_code"}

STATUS_NAME = re.compile(r"\bE(INVAL|NOMEM|READ|OVERLAP|NOTFOUND|CORRUPT|LOOP|LIMIT|VERSION|BUSY|IO|ELF"
                         r"|UNSUPPORTED)\b")
RETURNS = re.compile(r"\b[Rr]eturn(s|ed|ing)?\b")
LIFETIME = re.compile(r"\b(valid|invalid|free[sd]?|static|outlive[sd]?|owned|owns|lives?|until|"
                      r"copied|copy|borrow(s|ed)?)\b", re.I)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def exported_names(symbols_path):
    with open(symbols_path) as f:
        names = [line.split("@@")[0].strip() for line in f if "@@" in line]
    return [n for n in names if n not in NOT_IN_HEADERS]


def split_params(text):
    """Top-level comma split of a parameter list."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def param_name(param):
    """The name declared by one parameter, or None (void, `...`, unnamed)."""
    if param in ("void", "..."):
        return None
    m = re.search(r"\(\s*\*\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)", param)
    if m:  # a function pointer: int (*name)(...)
        return m.group(1)
    param = re.sub(r"\[[^\]]*\]", "", param)
    words = IDENT.findall(param)
    if len(words) < 2:
        return None
    return words[-1]


class Decl:
    def __init__(self, header, line, name, ret, params, comment):
        self.header, self.line, self.name = header, line, name
        self.ret, self.params, self.comment = ret, params, comment


def strip_comment(lines):
    """The comment's words, without its delimiters and leading stars."""
    text = [re.sub(r"^\s*(/\*+|\*(?!/))", "", line).replace("*/", "") for line in lines]
    return " ".join(text)


def comment_above(lines, index, decl_ends):
    """The comment ending on the line above LINES[INDEX]; when that line ends
    another exported declaration (a group with one comment), that one's."""
    i = index - 1
    while i >= 0 and i in decl_ends:
        i = decl_ends[i] - 1
    if i < 0 or not lines[i].rstrip().endswith("*/"):
        return None
    end = i
    while i >= 0 and "/*" not in lines[i]:
        i -= 1
    if i < 0 or lines[i].strip().startswith("#") or not lines[i].lstrip().startswith("/*"):
        return None
    return strip_comment(lines[i:end + 1])


def declarations(header):
    with open(header) as f:
        lines = f.read().split("\n")
    found, decl_ends = [], {}
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("JITUNWIND_API"):
            i += 1
            continue
        j = i
        text = lines[i]
        while ";" not in text and j + 1 < len(lines):
            j += 1
            text += " " + lines[j]
        decl_ends[j] = i
        found.append((i, text[:text.index(";")]))
        i = j + 1
    result = []
    for start, text in found:
        text = re.sub(r"\bJITUNWIND_API\b", "", text).strip()
        if "(" not in text:  # data: extern T name
            name = IDENT.findall(text)[-1]
            result.append(Decl(header, start + 1, name, None, [],
                               comment_above(lines, start, decl_ends)))
            continue
        head = text[:text.index("(")]
        name = IDENT.findall(head)[-1]
        ret = head[:head.rindex(name)].strip()
        depth, k = 0, text.index("(")
        for k in range(text.index("("), len(text)):
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 0:
                break
        params = split_params(text[text.index("(") + 1:k])
        result.append(Decl(header, start + 1, name, ret, params,
                           comment_above(lines, start, decl_ends)))
    return result


def problems(decl):
    c = decl.comment
    if c is None:
        return ["no comment directly above"]
    out = []
    if decl.ret is None:
        return out
    pointers = False
    for p in decl.params:
        name = param_name(p)
        if name is None:
            continue
        if not re.search(r"\b%s\b" % re.escape(name.upper()), c):
            out.append("parameter %s not named in CAPS" % name.upper())
        if "*" in p:
            pointers = True
        if "**" in p and not LIFETIME.search(c):
            out.append("out parameter %s: no lifetime or owner of what it gets" % name.upper())
    if pointers and "NULL" not in c:
        out.append("pointer parameters but nothing says what NULL means")
    ret = decl.ret.replace("extern", "").strip()
    if ret != "void":
        if "*" in ret:
            if "NULL" not in c:
                out.append("returns a pointer but does not say whether it may be NULL")
            if not LIFETIME.search(c):
                out.append("returns a pointer but says nothing of its lifetime or owner")
        elif not (RETURNS.search(c) or STATUS_NAME.search(c)):
            out.append("no return convention (say what it returns, or name the statuses)")
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    source = sys.argv[1]
    exported = exported_names(os.path.join(source, "libjitunwind", "libjitunwind.symbols"))
    decls = {}
    for header in sorted(glob.glob(os.path.join(source, "libjitunwind", "include", "jitunwind", "*.h"))):
        for d in declarations(header):
            decls.setdefault(d.name, d)
    failures = 0
    for name in exported:
        d = decls.get(name)
        if d is None:
            print("FAIL: %s is exported but declared in no public header" % name)
            failures += 1
            continue
        found = problems(d)
        if found:
            failures += 1
            print("FAIL: %s:%d %s: %s" % (os.path.relpath(d.header, source), d.line, name,
                                          "; ".join(found)))
    if failures:
        print("FAIL: %d of %d exported names lack a comment in the house style" % (failures, len(exported)))
        return 1
    print("ok: the %d exported names have comments in the house style" % len(exported))
    return 0


if __name__ == "__main__":
    sys.exit(main())
