"""Launch specs and comparison rules as the test scripts read them (tests/emu/*.py and
scripts/gpu_compare.py). The element types and their sizes are those of ptxopt::emu::ElemType."""
import json
import os

ELEM_BYTES = {"s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
              "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8}
# struct format characters, to print an element (bf16 as its bits)
ELEM_FORMAT = {"s8": "b", "u8": "B", "s16": "h", "u16": "H", "f16": "e", "bf16": "H",
               "s32": "i", "u32": "I", "f32": "f", "s64": "q", "u64": "Q", "f64": "d"}


def spec_stems(directory):
    """The stems S of the launch specs S.json of a folder (not the S.compare.json rules)."""
    return sorted(f[:-len(".json")] for f in os.listdir(directory)
                  if f.endswith(".json") and not f.endswith(".compare.json"))


def kernel_file(stem, prefix=""):
    """The PTX file stem of a spec: its stem up to the first dot, less a group's prefix."""
    name = stem.split(".")[0]
    return name[len(prefix):] if prefix and name.startswith(prefix) else name


def buffer_params(spec):
    """{name: (element type, element count)} of the spec's buffer and surface parameters, in order."""
    out = {}
    for p in spec.get("params", []):
        if "buffer" in p:
            b = p["buffer"]
            count = b.get("count")
            if count is None:
                init = b.get("init")
                count = len(init["values"]) if isinstance(init, dict) and "values" in init else 0
            out[p["name"]] = (b["type"], count)
        elif "surface" in p:  # its texels are a result too: channels x extent elements
            sf = p["surface"]
            count = sf.get("channels", 1)
            extent = sf["extent"] if isinstance(sf["extent"], list) else [sf["extent"]]
            for e in extent:
                count *= e
            out[p["name"]] = (sf["type"], count)
    return out


def load_rules(specs_dir, stem):
    """The spec's S.compare.json, or {} when it has none."""
    path = os.path.join(specs_dir, stem + ".compare.json")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ignored(rules, name):
    """The element indices of buffer `name` that the rules leave out of the comparison."""
    out = set()
    for first, last in rules.get("ignore", {}).get(name, []):
        out.update(range(first, last + 1))
    return out


def first_difference(got, want, typ, skip=()):
    """(index, got bytes, want bytes) of the first element that differs, or None."""
    size = ELEM_BYTES[typ]
    if len(got) != len(want):
        return (None, got, want)
    for i in range(len(want) // size):
        a, b = got[i * size:(i + 1) * size], want[i * size:(i + 1) * size]
        if a != b and i not in skip:
            return (i, a, b)
    return None
