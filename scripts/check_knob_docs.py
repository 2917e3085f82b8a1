#!/usr/bin/env python3
"""Every knob of every pass that `ptxopt --list-passes` prints has a row in the pass's page
(docs/passes/PASS.md) that names it (`knob` or `pass.knob`) and gives its default. Testing aids
(passes described as such) need no page. Usage: check_knob_docs.py LIST_PASSES_OUTPUT DOCS_DIR"""
import os
import re
import sys


def main():
    listing, docs = sys.argv[1], sys.argv[2]
    passes = {}
    current = None
    for line in open(listing):
        if line.startswith("pipelines:"):
            break
        m = re.match(r"^  (\S+)\s+(.*)$", line)
        if m and not line.startswith("   "):
            current = m.group(1)
            passes[current] = {"aid": m.group(2).startswith("testing aid"), "knobs": []}
            continue
        k = re.search(r"--knob (\S+?)\.(\S+?)=<\w+> \(default ([^)]*)\)", line)
        if k and current:
            passes[current]["knobs"].append((k.group(2), k.group(3)))
    problems = []
    for name, p in sorted(passes.items()):
        # The model of ptxas the passes share takes knobs too; its page is docs/PTXAS_MODEL.md.
        page = os.path.join(docs, "..", "PTXAS_MODEL.md") if name == "ptxas" else os.path.join(docs, name + ".md")
        if p["aid"]:
            continue
        if not os.path.exists(page):
            problems.append(f"{name}: no page {page}")
            continue
        rows = [l for l in open(page) if l.startswith("|")]
        for knob, default in p["knobs"]:
            hits = [r for r in rows if f"| `{knob}` |" in r or f"| `{name}.{knob}` |" in r]
            if not hits:
                problems.append(f"{name}: knob `{knob}` has no row in {page}")
            elif default and not any(f"| {default} |" in r or f"| `{default}` |" in r for r in hits):
                problems.append(f"{name}: the row of `{knob}` in {page} does not give its default {default}")
    for p in problems:
        print("error: " + p)
    print(f"{sum(len(p['knobs']) for p in passes.values())} knobs of {len(passes)} passes checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
