"""The house in layers (issue 33): every dependency of ext/ and vtab/ points down the pipeline

    util  <  wire  <  source  <  model  <  formats  <  writers  <  vtab (vtab/report with it)

(docs/architecture.md; each folder's README.md says what it may include). Two graphs are checked:
  1. the sources' #include lines: a file includes headers of its own layer or lower ones;
  2. the built objects' symbols (nm on build/pic/ext/*/*.o and build/core/vtab/**/*.o): each
     object uses only symbols defined by objects of its own layer or lower ones, and no circle of
     objects exists (a header declares what its own .c defines, so the objects are the modules;
     an include-level check alone misses a header that declares another file's functions, which
     is how source.c and zipsrc.c once called each other).
Within a layer, files may use each other in one direction only (the circle check). Fails on
today's tree when any of this is broken: `make layers` runs this file alone. The object check
skips with a line when the objects are not built (make test builds them first)."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import check, done, skip_part  # noqa: E402

LAYERS = ["ext/util", "ext/wire", "ext/source", "ext/model", "ext/formats", "ext/writers", "vtab"]


def layer_of(path):
    """The layer index of a repository path (vtab/report is vtab's), or None outside ext/ and vtab/."""
    path = os.path.normpath(path)
    for k, d in enumerate(LAYERS):
        if path == d or path.startswith(d + os.sep):
            return k
    return None


def module_of(path):
    """A module: a .c and its own .h are one (ext/source/zipsrc.c and zipsrc.h)."""
    return os.path.splitext(os.path.normpath(path))[0]


# ---- 1. includes
sources = []
for root in ("ext", "vtab"):
    for d, _, names in os.walk(root):
        sources += [os.path.join(d, n) for n in sorted(names) if n.endswith((".c", ".h"))]
check(len(sources) > 40, "the sources of ext/ and vtab/ are found", len(sources))
check(not [p for p in sources if os.path.dirname(p) == "ext"], "ext/ holds folders only, no source file at its top")
bad = []
edges = set()
for p in sources:
    me = layer_of(p)
    check(me is not None, f"{p} lies in a layer", p)
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', open(p, encoding="utf-8").read(), re.M):
        target = os.path.normpath(os.path.join(os.path.dirname(p), m.group(1)))
        if not os.path.exists(target):
            continue                       # build/sql_text.h and the like: generated, not a layer
        them = layer_of(target)
        if them is not None and me is not None and them > me:
            bad.append(f"{p} includes {m.group(1)} ({LAYERS[them]} is above {LAYERS[me]})")
        if module_of(target) != module_of(p):
            edges.add((module_of(p), module_of(target)))
check(not bad, "no file includes a header of a higher layer", bad)


def circles(graph_edges):
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    succ = {}
    for a, b in graph_edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = n[0]; n[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(succ[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


check(not circles(edges), "no circle of files through #include", circles(edges))

# ---- 2. symbols of the built objects
objs = {}
for root in ("build/pic/ext", "build/core/vtab"):
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".o"):
                o = os.path.join(d, n)
                rel = os.path.relpath(o[:-2], "build/pic" if root.startswith("build/pic") else "build/core")
                if os.path.exists(rel + ".c"):
                    objs[rel] = o
if len(objs) < 30:
    skip_part("the object check: build/pic/ext and build/core/vtab are not built (make test builds them)")
else:
    defined, undefined = {}, {}
    for mod, o in objs.items():
        out = subprocess.run(["nm", o], capture_output=True, text=True).stdout
        undefined[mod] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined[mod].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDRBV":
                defined.setdefault(parts[2], mod)
    bad, oedges = [], set()
    for mod, syms in undefined.items():
        for s in syms:
            owner = defined.get(s)
            if owner is None or owner == mod:
                continue
            oedges.add((mod, owner))
            if layer_of(owner) > layer_of(mod):
                bad.append(f"{mod} uses {s} of {owner}")
    check(len(oedges) > 60, "the objects' dependencies are read", len(oedges))
    check(not bad, "no object uses a symbol of a higher layer", sorted(bad))
    check(not circles(oedges), "no circle of objects", circles(oedges))
done()
