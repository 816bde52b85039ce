"""Import cycles between the top-level modules of src/ (a file's module is its first path part under
src/), from `crate::NAME` references outside #[cfg(test)] code. Usage: python3 tests/tools/module-cycles.py src
Prints each cycle, then "cycles: N"."""
import os, re, sys
src = sys.argv[1]
mods = {os.path.splitext(n)[0] for n in os.listdir(src) if n.endswith(".rs") or os.path.isdir(os.path.join(src, n))}
edges = {}
for dp, _, fns in os.walk(src):
    for f in fns:
        if not f.endswith(".rs"):
            continue
        path = os.path.join(dp, f)
        rel = os.path.relpath(path, src).split(os.sep)
        me = os.path.splitext(rel[0])[0]
        if me in ("lib", "main"):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        text = text.split("#[cfg(test)]")[0]
        text = re.sub(r"//[^\n]*", "", text)
        for m in re.finditer(r"crate::([a-z_][a-z0-9_]*)", text):
            t = m.group(1)
            if t in mods and t != me:
                edges.setdefault(me, set()).add(t)
        # `use crate::{a, b::c}` groups
        for g in re.finditer(r"crate::\{([^}]*)\}", text):
            for t in re.findall(r"(?:^|[\s,{])([a-z_][a-z0-9_]*)", g.group(1)):
                if t in mods and t != me:
                    edges.setdefault(me, set()).add(t)
# strongly connected components (Tarjan)
index, low, stack, on, comps, i = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted(mods):
    if v not in index:
        strong(v)
for c in comps:
    print("cycle:", " ↔ ".join(c))
print(f"cycles: {len(comps)}")
