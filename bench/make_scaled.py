#!/usr/bin/env python3
"""Writes a PTX module that holds N renamed copies of another module's functions and variables.

Every module-scope name (entries, functions, variables) gets the suffix _cK in copy K, so the
copies do not collide; the header (.version/.target/.address_size) appears once.
Usage: make_scaled.py IN.ptx N OUT.ptx
"""
import re
import sys

src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(src).read()
header_end = 0
for m in re.finditer(r"^\.(version|target|address_size)[^\n]*\n", text, re.M):
    header_end = m.end()
header, body = text[:header_end], text[header_end:]

names = set()
for m in re.finditer(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)", body):
    names.add(m.group(1))
for m in re.finditer(r"^\s*(?:\.(?:visible|extern|weak|common)\s+)*\.(?:global|const|shared)\b[^;=]*?([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])*\s*(?:=|;)", body, re.M):
    names.add(m.group(1))
names.discard("vprintf")
pattern = re.compile(r"(?<![\w$%])(" + "|".join(re.escape(x) for x in sorted(names, key=len, reverse=True)) + r")(?![\w$])")

with open(dst, "w") as out:
    out.write(header)
    for k in range(n):
        out.write(pattern.sub(lambda m: m.group(1) + "_c%d" % k, body) if names else body)
        if k == 0:
            # keep one copy of the extern declarations that were not renamed
            body = re.sub(r"\.extern\s+\.func[^;]*vprintf[^;]*;", "", body)
