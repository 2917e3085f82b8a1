"""Feeds ptxopt broken versions of a valid PTX file and random bytes.

Every run must end with exit code 0 (the input happened to be valid) or 1 with a
`file:line:col: error:` diagnostic -- never a signal, a hang or another exit code.
Usage: malformed.py PTXOPT VALID.ptx WORKDIR
"""
import os
import random
import re
import subprocess
import sys

ptxopt, valid, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
rng = random.Random(20261122)
data = open(valid, "rb").read()
error_re = re.compile(rb"^[^:\n]+:\d+:\d+: error: ", re.M)

cases = []
# 1. truncations at 150 positions
for k in range(150):
    cut = rng.randrange(len(data))
    cases.append(("trunc%d" % k, data[:cut]))
# 2. one byte replaced, deleted or duplicated
for k in range(150):
    pos = rng.randrange(len(data))
    op = k % 3
    if op == 0:
        mutated = data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1:]
    elif op == 1:
        mutated = data[:pos] + data[pos + 1:]
    else:
        mutated = data[:pos] + data[pos:pos + 1] * 2 + data[pos + 1:]
    cases.append(("mut%d" % k, mutated))
# 3. lines shuffled
lines = data.split(b"\n")
for k in range(20):
    shuffled = lines[:]
    rng.shuffle(shuffled)
    cases.append(("shuf%d" % k, b"\n".join(shuffled)))
# 4. unbalanced braces
cases.append(("extra_open", data.replace(b"{", b"{{", 1)))
cases.append(("extra_close", data + b"\n}\n"))
cases.append(("no_close", data[: data.rfind(b"}")]))
# 5. one megabyte of random bytes, and random bytes after a valid header
cases.append(("random1mb", bytes(rng.randrange(256) for _ in range(1 << 20))))
cases.append(("header_random", b".version 9.0\n.target sm_90\n.address_size 64\n" + bytes(rng.randrange(256) for _ in range(4096))))

failures = 0
for name, content in cases:
    path = os.path.join(work, name + ".ptx")
    with open(path, "wb") as f:
        f.write(content)
    try:
        r = subprocess.run([ptxopt, path, "-o", os.path.join(work, name + ".out.ptx")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    except subprocess.TimeoutExpired:
        print("HANG on", path)
        failures += 1
        continue
    if r.returncode == 0:
        continue
    if r.returncode != 1 or not error_re.search(r.stderr):
        print("BAD RESULT on %s: exit %d, stderr: %r" % (path, r.returncode, r.stderr[-300:]))
        failures += 1
print("%d malformed inputs, %d bad results" % (len(cases), failures))
sys.exit(1 if failures else 0)
