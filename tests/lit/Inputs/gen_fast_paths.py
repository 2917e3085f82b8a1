#!/usr/bin/env python3
"""Writes the kernel of tests/lit/ptxrun/fast-paths.test to the path in argv[1]: every
instruction form that ptxrun runs through a specialized loop (src/emu/FastPath.cpp), applied to
random bit patterns (each thread reads 24 bytes of `in` and writes 640 bytes of `out`)."""
import sys
ops32 = ["add.s32", "sub.u32", "mul.lo.s32", "mul.lo.u32", "and.b32", "or.b32", "xor.b32", "shl.b32", "shr.u32", "shr.s32"]
lines = []
out = []  # (reg, width) to store
r = [0]
def newreg(kind):
    r[0] += 1
    return f"%{kind}{r[0]}"
body = []
def emit(s): body.append("  " + s)
# inputs: %a, %b, %c (u32) ; %A, %B, %C (u64 from two u32 words); %fa.. f32 bit patterns; %da.. f64
for op in ops32:
    d = newreg("r"); emit(f"{op} {d}, %a, %b;"); out.append((d, 32))
    d = newreg("r"); emit(f"{op} {d}, %a, %c;"); out.append((d, 32))   # %c is small: shift amounts 0..63
for op in ["mad.lo.s32", "mad.lo.u32"]:
    d = newreg("r"); emit(f"{op} {d}, %a, %b, %c;"); out.append((d, 32))
d = newreg("r"); emit(f"not.b32 {d}, %a;"); out.append((d, 32))
for op in ["mul.wide.s32", "mul.wide.u32"]:
    d = newreg("rd"); emit(f"{op} {d}, %a, %b;"); out.append((d, 64))
for op in ["add.s64", "sub.s64", "mul.lo.u64", "and.b64", "or.b64", "xor.b64"]:
    d = newreg("rd"); emit(f"{op} {d}, %A, %B;"); out.append((d, 64))
for op in ["shl.b64", "shr.s64", "shr.u64"]:
    d = newreg("rd"); emit(f"{op} {d}, %A, %c;"); out.append((d, 64))
d = newreg("rd"); emit(f"mad.lo.s64 {d}, %A, %B, %C;"); out.append((d, 64))
d = newreg("rd"); emit(f"not.b64 {d}, %A;"); out.append((d, 64))
# 16-bit
emit("cvt.u16.u32 %h1, %a;"); emit("cvt.u16.u32 %h2, %b;")
for op, y in [("add.u16", "%h2"), ("mul.lo.s16", "%h2"), ("sub.s16", "%h2"), ("shr.s16", "%c"), ("shl.b16", "%c")]:
    d = newreg("h"); emit(f"{op} {d}, %h1, {y};"); w = newreg("r"); emit(f"cvt.u32.u16 {w}, {d};"); out.append((w, 32))
for cv in ["cvt.s32.s16", "cvt.u32.u16", "cvt.s64.s16"]:
    d = newreg("rd" if "64" in cv.split(".")[1] else "r"); emit(f"{cv} {d}, %h1;"); out.append((d, 64 if d.startswith("%rd") else 32))
for cv in ["cvt.s64.s32", "cvt.u64.u32", "cvt.u32.u64", "cvt.s32.s64", "cvt.s8.s32", "cvt.u64.u8"]:
    dst64 = cv.split(".")[1][1:] == "64"
    src = "%A" if cv.endswith("64") else ("%h1" if cv.endswith("16") else "%a")
    if cv == "cvt.u64.u8": src = "%a"
    kind = "rd" if dst64 else ("h" if cv.split(".")[1] in ("s8","u8") else "r")
    if kind == "h":
        d = newreg("h"); emit(f"cvt.s8.s32 {d}, %a;"); w = newreg("r"); emit(f"cvt.u32.u16 {w}, {d};"); out.append((w, 32)); continue
    if cv == "cvt.u64.u8":
        emit(f"cvt.u16.u32 %h3, %a;"); d = newreg("rd"); emit(f"cvt.u64.u8 {d}, %h3;"); out.append((d, 64)); continue
    d = newreg(kind); emit(f"{cv} {d}, {src};"); out.append((d, 64 if dst64 else 32))
# setp -> selp
def setp(cmp, typ, x, y):
    p = newreg("p"); emit(f"setp.{cmp}.{typ} {p}, {x}, {y};")
    d = newreg("r"); emit(f"selp.b32 {d}, 1, 0, {p};"); out.append((d, 32))
for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
    setp(cmp, "s32", "%a", "%b"); setp(cmp, "s64", "%A", "%B")
for cmp in ["lo", "ls", "hi", "hs", "lt", "ge"]:
    setp(cmp, "u32", "%a", "%b"); setp(cmp, "u64", "%A", "%B")
setp("lt", "s16", "%h1", "%h2"); setp("hi", "u16", "%h1", "%h2"); setp("eq", "u32", "%a", "%a")
# floats: f32 bit patterns, and small exact values
emit("mov.b32 %fa, %a;"); emit("mov.b32 %fb, %b;"); emit("mov.b32 %fc, %c;")
emit("cvt.rn.f32.s32 %fs, %a;"); emit("cvt.rn.f32.s32 %ft, %b;")
for op in ["add.rn.f32", "sub.rn.f32", "mul.rn.f32", "add.f32", "mul.f32"]:
    for x, y in [("%fa", "%fb"), ("%fs", "%ft"), ("%fa", "%fs")]:
        f = newreg("f"); emit(f"{op} {f}, {x}, {y};"); d = newreg("r"); emit(f"mov.b32 {d}, {f};"); out.append((d, 32))
for op in ["fma.rn.f32", "mad.rn.f32"]:
    for x, y, z in [("%fa", "%fb", "%fc"), ("%fs", "%ft", "%fa"), ("%fa", "%fs", "%ft")]:
        f = newreg("f"); emit(f"{op} {f}, {x}, {y}, {z};"); d = newreg("r"); emit(f"mov.b32 {d}, {f};"); out.append((d, 32))
for cmp in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]:
    setp(cmp, "f32", "%fa", "%fb"); setp(cmp, "f32", "%fs", "%ft")
emit("mov.b64 %da, %A;"); emit("mov.b64 %db, %B;"); emit("mov.b64 %dc, %C;")
for op in ["add.rn.f64", "sub.rn.f64", "mul.rn.f64", "fma.rn.f64"]:
    f = newreg("fd")
    emit(f"{op} {f}, %da, %db{', %dc' if op.startswith('fma') else ''};"); d = newreg("rd"); emit(f"mov.b64 {d}, {f};"); out.append((d, 64))
for cmp in ["lt", "ne", "gtu", "nan"]:
    setp(cmp, "f64", "%da", "%db")
# A partly guarded instruction: only the lanes where %pg holds write; the others keep 7.
emit("mov.u32 %g, 7;"); emit("@%pg add.s32 %g, %a, %b;"); out.append(("%g", 32))
emit("mov.u32 %g2, 7;"); emit("@!%pg fma.rn.f32 %fg, %fa, %fb, %fc;"); emit("@%pg mov.f32 %fg, 0f3F800000;"); emit("mov.b32 %g2, %fg;"); out.append(("%g2", 32))

nr = r[0] + 1
stores = []
off = 0
for reg, w in out:
    if w == 32:
        stores.append(f"  st.global.u32 [%rdo+{off}], {reg};"); off += 4
    else:
        off = (off + 7) // 8 * 8
        stores.append(f"  st.global.u64 [%rdo+{off}], {reg};"); off += 8
per = (off + 7) // 8 * 8
ptx = f""".version 8.0
.target sm_90
.address_size 64

// Every form the emulator runs through a specialized loop (src/emu/FastPath.cpp), on random
// bit patterns: ptxrun --no-fast-paths must give the same bits.
.visible .entry fast(.param .u64 in, .param .u64 out)
{{
  .reg .pred %p<{nr}>;
  .reg .pred %pg;
  .reg .b32 %r<{nr}>;
  .reg .b32 %a, %b, %c, %g, %g2, %t0;
  .reg .b64 %rd<{nr}>;
  .reg .b64 %A, %B, %C, %rdi, %rdo, %rdt;
  .reg .b16 %h<{nr}>;
  .reg .f32 %f<{nr}>;
  .reg .f32 %fa, %fb, %fc, %fs, %ft, %fg;
  .reg .f64 %fd<{nr}>;
  .reg .f64 %da, %db, %dc;
  ld.param.u64 %rdi, [in];
  cvta.to.global.u64 %rdi, %rdi;
  ld.param.u64 %rdo, [out];
  cvta.to.global.u64 %rdo, %rdo;
  mov.u32 %t0, %tid.x;
  mul.wide.u32 %rdt, %t0, 24;
  add.s64 %rdi, %rdi, %rdt;
  mul.wide.u32 %rdt, %t0, {per};
  add.s64 %rdo, %rdo, %rdt;
  ld.global.u32 %a, [%rdi];
  ld.global.u32 %b, [%rdi+4];
  ld.global.u32 %c, [%rdi+8];
  and.b32 %c, %c, 63;
  ld.global.u64 %A, [%rdi+8];
  ld.global.u64 %B, [%rdi+16];
  ld.global.u64 %C, [%rdi];
  and.b32 %t0, %t0, 5;
  setp.ne.u32 %pg, %t0, 0;
""" + "\n".join(body) + "\n" + "\n".join(stores) + "\n  ret;\n}\n"
assert per == 640, per
open(sys.argv[1], "w").write(ptx)
