#!/usr/bin/env python3
"""Imports run one way in the Python binding and the two plugins, read from
their source (no import is run):
  - no circle: the graph of module imports, those inside functions
    included, has no cycle;
  - the binding (jitunwind) never imports its debugger layer (jitunwind.ui),
    and neither imports a plugin;
  - no private name crosses modules: `from M import _name` only where
    _name is a module (the binding's _ffi).

Usage: test_imports.py REPO_DIR      Exit 0 when all hold, 1 otherwise."""

import ast
import os
import sys

PACKAGES = [("jitunwind", os.path.join("libjitunwind", "bindings", "python", "jitunwind")),
            ("jitunwind_gdb", os.path.join("gdb-plugin", "jitunwind_gdb")),
            ("jitunwind_lldb", os.path.join("lldb-plugin", "jitunwind_lldb"))]


def modules(repo):
    """{module name: (path, is a package __init__)} of every package file."""
    found = {}
    for package, folder in PACKAGES:
        root = os.path.join(repo, folder)
        for where, _dirs, files in os.walk(root):
            rel = os.path.relpath(where, root)
            parts = [package] + ([] if rel == "." else rel.split(os.sep))
            for name in files:
                if not name.endswith(".py"):
                    continue
                if name == "__init__.py":
                    found[".".join(parts)] = (os.path.join(where, name), True)
                else:
                    found[".".join(parts + [name[:-3]])] = (os.path.join(where, name), False)
    return found


def resolve(module, is_package, node):
    """The absolute module a `from ... import` names."""
    if node.level == 0:
        return node.module
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def edges(found):
    """{module: {imported module}} and [(module, line, text)] of private
    names imported across modules."""
    graph, private = {}, []
    for module, (path, is_package) in found.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        out = graph.setdefault(module, set())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name in found)
            elif isinstance(node, ast.ImportFrom):
                source = resolve(module, is_package, node)
                for alias in node.names:
                    sub = "%s.%s" % (source, alias.name)
                    if sub in found:  # a module of the package
                        out.add(sub)
                        continue
                    if source in found:
                        out.add(source)
                    if alias.name.startswith("_") and source in found:
                        private.append((module, node.lineno, "from %s import %s"
                                        % (source, alias.name)))
        out.discard(module)
    return graph, private


def cycles(graph):
    """Every strongly connected component of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # Iterative Tarjan: (node, iterator over its successors).
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, successors = work[-1]
            advanced = False
            for w in successors:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def upward(graph):
    """Imports against the floors: binding -> ui, binding or ui -> a plugin."""
    bad = []
    for module, targets in sorted(graph.items()):
        for t in sorted(targets):
            if module.startswith("jitunwind.") and not module.startswith("jitunwind.ui") and \
                    t.startswith("jitunwind.ui"):
                bad.append((module, t))
            if module.split(".")[0] == "jitunwind" and t.split(".")[0] != "jitunwind":
                bad.append((module, t))
    return bad


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = modules(sys.argv[1])
    if len(found) < 30:
        print("FAIL: only %d modules found under %s" % (len(found), sys.argv[1]))
        return 1
    graph, private = edges(found)
    failed = False
    for component in cycles(graph):
        print("FAIL: import circle among %s" % ", ".join(component))
        failed = True
    for module, target in upward(graph):
        print("FAIL: %s imports %s (a higher floor)" % (module, target))
        failed = True
    for module, line, text in private:
        print("FAIL: %s:%d: %s (a private name of another module)" % (module, line, text))
        failed = True
    if failed:
        return 1
    print("ok: %d modules, %d imports, no circle, none upward, no private name across modules"
          % (len(found), sum(len(t) for t in graph.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
