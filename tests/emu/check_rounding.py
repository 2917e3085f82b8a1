#!/usr/bin/env python3
"""Exact oracle for ptxrun's IEEE arithmetic in every rounding mode, and for `cvt`.

Generates one PTX kernel (WORK/rounding.ptx) in which every thread applies a fixed list of
instruction forms (add/sub/mul/fma/mad/div/rcp/sqrt of f32 and f64 in .rn .rz .rm .rp, a few
.ftz/.sat/.relu forms, f16/bf16 arithmetic including the packed x2 forms, and cvt between floats
and integers and between float formats) to operands it loads from `in` (three 8-byte slots per
form and thread), storing one 8-byte slot per form and thread in `out`. The operands
are hand-picked edge cases (signed zeros, infinities, NaNs, subnormals, max-finite, exact ties
of every rounding boundary, integer range limits) and seeded pseudo-random bit patterns, written
as raw little-endian bytes (WORK/in.bin) that the launch spec (WORK/rounding.json) names.

Every result of `ptxrun --launch WORK/rounding.json WORK/rounding.ptx --dump DIR` (once with the
fast paths and once with --no-fast-paths) is compared bit for bit with a value computed here
with exact rational arithmetic (fractions.Fraction) and an explicit rounding routine for
binary16/bfloat16/binary32/binary64. NaN payloads are not compared (any NaN is accepted where
the result is NaN), except after `.relu`, which the PTX ISA defines to give the canonical NaN
(0x7fff for f16 and bf16); signs of zeros and infinities are compared. Results the PTX ISA
leaves open accept either answer: a zero of negative sign after `.sat` or `.relu` (+0 or -0),
and a `.ftz` result whose exact value lies below the smallest normal but rounds up to it
(flushed or not).

With --ptxas (an existing path), the kernel is also assembled (`ptxas -arch=sm_90`), so it is
known to be valid PTX; otherwise that step prints SKIPPED.
Prints up to 3 mismatch lines per failing form (form, thread, inputs, ptxrun's bits, the
expected bits; at most --max-report=50 in all), a count per failing form and a summary line;
exits 1 on any mismatch.
Usage: check_rounding.py --ptxrun PATH --work DIR [--ptxas PATH]
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import time
from fractions import Fraction
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from skip import finish  # noqa: E402

N_THREADS = 256
GRID, BLOCK = [2, 1, 1], [128, 1, 1]
MODES = ["rn", "rz", "rm", "rp"]


# ----------------------------------------------------------------------------- float formats

class Fmt:
    def __init__(self, name, width, ebits, p):
        self.name, self.width, self.ebits, self.p = name, width, ebits, p
        self.mbits = p - 1
        self.bias = (1 << (ebits - 1)) - 1
        self.emin, self.emax = 1 - self.bias, self.bias
        self.expmask = (1 << ebits) - 1
        self.signbit = 1 << (width - 1)
        self.qnan = (self.expmask << self.mbits) | (1 << (self.mbits - 1))
        self.max_bits = ((self.expmask - 1) << self.mbits) | ((1 << self.mbits) - 1)
        self.min_normal_bits = 1 << self.mbits

    def inf(self, sign):
        return (self.signbit if sign else 0) | (self.expmask << self.mbits)

    def zero(self, sign):
        return self.signbit if sign else 0

    def maxf(self, sign):
        return (self.signbit if sign else 0) | self.max_bits

    def is_nan(self, bits):
        return (bits >> self.mbits) & self.expmask == self.expmask and bits & ((1 << self.mbits) - 1) != 0

    def is_subnormal(self, bits):
        return (bits >> self.mbits) & self.expmask == 0 and bits & ((1 << self.mbits) - 1) != 0

    def decode(self, bits):
        """('nan', s, None) | ('inf', s, None) | ('zero', s, 0) | ('num', s, magnitude)."""
        sign = 1 if bits & self.signbit else 0
        e = (bits >> self.mbits) & self.expmask
        m = bits & ((1 << self.mbits) - 1)
        if e == self.expmask:
            return ("nan" if m else "inf", sign, None)
        if e == 0:
            if m == 0:
                return ("zero", sign, Fraction(0))
            return ("num", sign, Fraction(m) * Fraction(2) ** (self.emin - self.mbits))
        return ("num", sign, Fraction(m | (1 << self.mbits)) * Fraction(2) ** (e - self.bias - self.mbits))


F16 = Fmt("f16", 16, 5, 11)
BF16 = Fmt("bf16", 16, 8, 8)
F32 = Fmt("f32", 32, 8, 24)
F64 = Fmt("f64", 64, 11, 53)
FMTS = {"f16": F16, "bf16": BF16, "f32": F32, "f64": F64}
INTS = {"s8": (8, True), "u8": (8, False), "s16": (16, True), "u16": (16, False),
        "s32": (32, True), "u32": (32, False), "s64": (64, True), "u64": (64, False)}
WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s16": 16, "u16": 16,
         "s32": 32, "u32": 32, "s64": 64, "u64": 64}
PACKED = {"f16x2": "f16", "bf16x2": "bf16"}     # two halves in a .b32; the first source is the upper half
WIDTH.update({"f16x2": 32, "bf16x2": 32})
CANONICAL_NAN = {"f16": 0x7fff, "bf16": 0x7fff, "f32": 0x7fffffff}


def floor_log2(a):
    """floor(log2(a)) of a positive Fraction."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if e >= 0:
        if a.numerator < a.denominator << e:
            e -= 1
    elif a.numerator << -e < a.denominator:
        e -= 1
    return e


def round_mag(fmt, sign, a, mode):
    """Bits of the value (-1)^sign * a (a > 0, exact) rounded to fmt in mode rn/rz/rm/rp."""
    assert a > 0
    e = max(floor_log2(a), fmt.emin)
    shift = e - fmt.mbits                     # the quantum of the binade is 2^shift
    num, den = a.numerator, a.denominator
    if shift >= 0:
        den <<= shift
    else:
        num <<= -shift
    n, r = divmod(num, den)
    if r:
        if mode == "rn":
            c = 2 * r - den
            up = c > 0 or (c == 0 and n & 1)
        elif mode == "rz":
            up = False
        elif mode == "rp":
            up = not sign
        elif mode == "rm":
            up = bool(sign)
        else:
            raise ValueError(mode)
        n += up
    if n == 1 << fmt.p:
        n >>= 1
        e += 1
    if e > fmt.emax:                          # overflow: inf or max-finite per direction
        if mode == "rn" or (mode == "rp" and not sign) or (mode == "rm" and sign):
            return fmt.inf(sign)
        return fmt.maxf(sign)
    s = fmt.signbit if sign else 0
    if n < 1 << fmt.mbits:                    # subnormal or zero (e == emin)
        return s | n
    return s | ((e + fmt.bias) << fmt.mbits) | (n - (1 << fmt.mbits))


def from_value(fmt, q, mode, zero_sign=0):
    q = Fraction(q)
    if q == 0:
        return fmt.zero(zero_sign)
    return round_mag(fmt, 1 if q < 0 else 0, abs(q), mode)


def enc(fmt, v, exact=True):
    """Bits of a constant: a number (float, int, Fraction) or 'inf', '-inf', '-0', 'nan'."""
    if isinstance(v, str):
        return {"inf": fmt.inf(0), "-inf": fmt.inf(1), "-0": fmt.zero(1), "0": 0, "nan": fmt.qnan}[v]
    if isinstance(v, float) and v == 0:
        return fmt.zero(1 if math.copysign(1.0, v) < 0 else 0)
    q = Fraction(v)
    b = from_value(fmt, q, "rn")
    if exact:
        d = fmt.decode(b)
        assert d[0] in ("num", "zero") and (-d[2] if d[1] else d[2]) == q, (fmt.name, v)
    return b


def value(d):
    return -d[2] if d[1] else d[2]


# ----------------------------------------------------------------------------- IEEE operations

def op_add(fmt, x, y, mode):
    X, Y = fmt.decode(x), fmt.decode(y)
    if X[0] == "nan" or Y[0] == "nan":
        return fmt.qnan
    if X[0] == "inf" and Y[0] == "inf":
        return fmt.qnan if X[1] != Y[1] else x
    if X[0] == "inf":
        return x
    if Y[0] == "inf":
        return y
    s = value(X) + value(Y)
    if s == 0:
        if X[0] == "zero" and Y[0] == "zero" and X[1] == Y[1]:
            return fmt.zero(X[1])
        return fmt.zero(1 if mode == "rm" else 0)
    return from_value(fmt, s, mode)


def op_sub(fmt, x, y, mode):
    return op_add(fmt, x, y ^ fmt.signbit, mode)


def op_mul(fmt, x, y, mode):
    X, Y = fmt.decode(x), fmt.decode(y)
    if X[0] == "nan" or Y[0] == "nan":
        return fmt.qnan
    sign = X[1] ^ Y[1]
    if (X[0] == "inf" and Y[0] == "zero") or (X[0] == "zero" and Y[0] == "inf"):
        return fmt.qnan
    if X[0] == "inf" or Y[0] == "inf":
        return fmt.inf(sign)
    if X[0] == "zero" or Y[0] == "zero":
        return fmt.zero(sign)
    return round_mag(fmt, sign, X[2] * Y[2], mode)


def op_fma(fmt, a, b, c, mode):
    A, B, C = fmt.decode(a), fmt.decode(b), fmt.decode(c)
    if "nan" in (A[0], B[0], C[0]):
        return fmt.qnan
    if (A[0] == "inf" and B[0] == "zero") or (A[0] == "zero" and B[0] == "inf"):
        return fmt.qnan
    psign = A[1] ^ B[1]
    if A[0] == "inf" or B[0] == "inf":
        if C[0] == "inf" and C[1] != psign:
            return fmt.qnan
        return fmt.inf(psign)
    if C[0] == "inf":
        return c
    p = value(A) * value(B)
    s = p + value(C)
    if s == 0:
        if p == 0 and C[0] == "zero" and psign == C[1]:
            return fmt.zero(psign)
        return fmt.zero(1 if mode == "rm" else 0)
    return from_value(fmt, s, mode)


def op_div(fmt, x, y, mode):
    X, Y = fmt.decode(x), fmt.decode(y)
    if X[0] == "nan" or Y[0] == "nan":
        return fmt.qnan
    sign = X[1] ^ Y[1]
    if (X[0] == "inf" and Y[0] == "inf") or (X[0] == "zero" and Y[0] == "zero"):
        return fmt.qnan
    if X[0] == "inf" or Y[0] == "zero":
        return fmt.inf(sign)
    if Y[0] == "inf" or X[0] == "zero":
        return fmt.zero(sign)
    return round_mag(fmt, sign, X[2] / Y[2], mode)


def op_rcp(fmt, x, mode):
    return op_div(fmt, enc(fmt, 1), x, mode)


def sqrt_proxy(a, p):
    """A rational that rounds like sqrt(a) at every precision <= p (exact when sqrt(a) is)."""
    s = (2 * (p + 3) - floor_log2(a)) // 2 + 2
    scaled = a * Fraction(4) ** s
    x = scaled.numerator // scaled.denominator
    n = math.isqrt(x)
    exact = n * n == scaled
    return Fraction(2 * n + (0 if exact else 1)) / Fraction(2) ** (s + 1)


def op_sqrt(fmt, x, mode):
    X = fmt.decode(x)
    if X[0] == "nan":
        return fmt.qnan
    if X[0] == "zero":
        return x
    if X[1]:
        return fmt.qnan
    if X[0] == "inf":
        return x
    return round_mag(fmt, 0, sqrt_proxy(X[2], fmt.p), mode)


def ftz_in(fmt, bits):
    return bits & fmt.signbit if fmt.is_subnormal(bits) else bits


def ftz_form(fmt, op, mode):
    """The .ftz variant of op(fmt, *srcs, mode): subnormal inputs and results become zeros of
    the same sign. A result whose exact value is below the smallest normal but rounds up to it
    may be flushed or not (tininess before or after rounding): both are accepted."""
    def f(*srcs):
        srcs = [ftz_in(fmt, s) for s in srcs]
        r = op(fmt, *srcs, mode)
        if fmt.is_subnormal(r):
            return r & fmt.signbit
        if r & ~fmt.signbit == fmt.min_normal_bits and mode != "rz":
            t = op(fmt, *srcs, "rz")
            if t & ~fmt.signbit != fmt.min_normal_bits:
                return (r, r & fmt.signbit)
        return r
    return f


# ----------------------------------------------------------------------------- conversions

def round_to_int(q, mode):
    if mode == "rni":
        return round(q)            # Fraction.__round__: ties to even
    if mode == "rzi":
        return math.trunc(q)
    if mode == "rmi":
        return math.floor(q)
    if mode == "rpi":
        return math.ceil(q)
    raise ValueError(mode)


def cvt_f2i(sfmt, dtype, mode):
    width, signed = INTS[dtype]
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)

    def f(x):
        X = sfmt.decode(x)
        if X[0] == "nan":
            return 0
        if X[0] == "inf":
            r = lo if X[1] else hi
        else:
            r = min(max(round_to_int(value(X), mode), lo), hi)
        return r & ((1 << width) - 1)
    return f


def int_value(stype, bits):
    width, signed = INTS[stype]
    if signed and bits >> (width - 1):
        return bits - (1 << width)
    return bits


def cvt_i2f(stype, dfmt, mode):
    return lambda x: from_value(dfmt, int_value(stype, x), mode)


def cvt_f2f(sfmt, dfmt, mode, ftz=False):
    def f(x):
        if ftz:
            x = ftz_in(sfmt, x)
        X = sfmt.decode(x)
        if X[0] == "nan":
            return dfmt.qnan
        if X[0] == "inf":
            return dfmt.inf(X[1])
        if X[0] == "zero":
            return dfmt.zero(X[1])
        r = round_mag(dfmt, X[1], X[2], mode)
        if ftz and dfmt.is_subnormal(r):
            r &= dfmt.signbit
        return r
    return f


def cvt_f2f_int(fmt, mode, ftz=False):
    """cvt.rni/.rzi/.rmi/.rpi.fX.fX: round to an integral value in the same format."""
    def f(x):
        if ftz:
            x = ftz_in(fmt, x)
        X = fmt.decode(x)
        if X[0] != "num":
            return fmt.qnan if X[0] == "nan" else x
        r = round_to_int(value(X), mode)
        return from_value(fmt, r, "rn", zero_sign=X[1])
    return f


def sat_form(fmt, op):
    """The .sat variant: the rounded result clamped to [0.0, 1.0], NaN to +0.0. A zero result
    of negative sign may give +0 or -0 (the PTX ISA does not say)."""
    one = enc(fmt, 1)

    def f(*srcs):
        r = op(*srcs)
        D = fmt.decode(r)
        if D[0] == "nan":
            return 0
        if D[0] == "zero":
            return (0, fmt.zero(1)) if D[1] else 0
        if D[1]:
            return 0
        if D[0] == "inf" or D[2] > 1:
            return one
        return r
    return f


def relu_form(fmt, op):
    """The .relu variant: negative results become +0, NaN the canonical NaN (exactly); a zero
    result of negative sign may give +0 or -0."""
    def f(*srcs):
        r = op(*srcs)
        D = fmt.decode(r)
        if D[0] == "nan":
            return (CANONICAL_NAN[fmt.name],)
        if D[0] == "zero":
            return (0, fmt.zero(1)) if D[1] else 0
        return 0 if D[1] else r
    return f


def cvt_sat(fmt):
    """cvt.sat.fX.fX: clamp to [0.0, 1.0], NaN to +0. -0.0 may give +0 or -0."""
    one = enc(fmt, 1)

    def f(x):
        X = fmt.decode(x)
        if X[0] == "nan":
            return 0
        if X[0] == "zero":
            return (0, fmt.zero(1)) if X[1] else 0
        if X[1]:
            return 0
        if X[0] == "inf" or X[2] > 1:
            return one
        return x
    return f


# ----------------------------------------------------------------------------- operand generators

def P2(k):
    return Fraction(2) ** k


def rand_float(rng, fmt, elo, ehi, neg=0.5):
    """Random sign (negative with probability neg), unbiased exponent in [elo, ehi] (below
    emin: subnormal), random significand, sometimes with few significant bits."""
    e = rng.randint(elo, ehi)
    m = rng.getrandbits(fmt.mbits)
    if rng.random() < 0.3:
        keep = rng.randint(0, fmt.mbits)
        m &= ~((1 << (fmt.mbits - keep)) - 1)
    be = e + fmt.bias
    if be <= 0:
        m = (m | (1 << fmt.mbits)) >> min(1 - be, fmt.p)
        be = 0
    be = min(be, fmt.expmask - 1)
    bits = (be << fmt.mbits) | m
    return bits | (fmt.signbit if rng.random() < neg else 0)


def rand_any(rng, fmt):
    """A random bit pattern, biased towards the interesting classes."""
    r = rng.random()
    if r < 0.55:
        return rng.getrandbits(fmt.width)
    if r < 0.85:
        return rand_float(rng, fmt, -20, 20)
    if r < 0.95:
        return rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 2)
    return rng.choice(specials(fmt))


def specials(fmt):
    return [0, fmt.zero(1), fmt.inf(0), fmt.inf(1), fmt.qnan, fmt.qnan | fmt.signbit | 5,
            (fmt.expmask << fmt.mbits) | 1,                    # a signaling NaN
            1, fmt.signbit | ((1 << fmt.mbits) - 1),            # min subnormal, -max subnormal
            fmt.min_normal_bits, fmt.maxf(0), fmt.maxf(1), enc(fmt, 1), enc(fmt, -1.5)]


def CORE(fmt):
    """The special values whose every pair a binary operation is tried on."""
    return [0, fmt.zero(1), fmt.inf(0), fmt.inf(1), fmt.qnan, 1, fmt.maxf(1), enc(fmt, 1)]


def tie_sum(rng, fmt, near=False):
    """(a, b) whose exact sum lies on a rounding midpoint (or next to one when near)."""
    while True:
        m = (1 << fmt.mbits) | rng.getrandbits(fmt.mbits)
        e = rng.randint(fmt.emin - 3, 30) if rng.random() < 0.2 else rng.randint(-12, 12)
        if e - fmt.mbits - 1 < fmt.emin - fmt.mbits:
            continue
        a = Fraction(m) * P2(e - fmt.mbits)
        b = P2(e - fmt.mbits - 1)
        if near:
            b += P2(e - fmt.mbits - 1 - rng.randint(1, fmt.mbits)) * rng.choice([1, -1])
        sa, sb = rng.choice([1, -1]), rng.choice([1, -1])
        try:
            return enc(fmt, sa * a), enc(fmt, sa * sb * b)
        except AssertionError:
            continue


def tie_product(rng, fmt, sub=False):
    """(a, b) whose exact product has p+1 significant bits ending in 1: a rounding midpoint.
    With sub, scaled so the midpoint lies in the subnormal range."""
    while True:
        kx = rng.randint(2, fmt.p - 1)
        x = rng.getrandbits(kx) | (1 << (kx - 1)) | 1
        y = rng.getrandbits(fmt.p + 1 - kx) | (1 << (fmt.p - kx)) | 1
        if (x * y).bit_length() != fmt.p + 1:
            continue
        if sub:
            total = fmt.emin - fmt.p - rng.randint(1, fmt.mbits - 1)
        else:
            total = rng.randint(-2 * fmt.p - 10, -2 * fmt.p + 10)
        ex = rng.randint(total // 2 - 3, total // 2 + 3)
        ey = total - ex
        a = Fraction(x) * P2(ex) * rng.choice([1, -1])
        b = Fraction(y) * P2(ey) * rng.choice([1, -1])
        try:
            return enc(fmt, a), enc(fmt, b)
        except AssertionError:
            continue


def gen_add(fmt, sub):
    u, h = P2(-fmt.mbits), P2(-fmt.p)
    mx = value(fmt.decode(fmt.max_bits))
    ms, mn = P2(fmt.emin - fmt.mbits), P2(fmt.emin)
    big = P2(fmt.p)
    vals = [(1, h), (1 + u, h), (1, -h / 2), (1, h + h * P2(-20)), (1, h - h * P2(-20)), (-1, -h),
            (mx, mx), (mx, P2(fmt.emax - fmt.p)), (mx, 1), (-mx, -1), (-mx, -P2(fmt.emax - fmt.p)),
            (ms, -ms), (1, -1), (-2.5, 2.5), ("-0", "-0"), (0, "-0"), ("-0", 0), (mn, -ms), (mn, ms),
            ("inf", "-inf"), ("inf", "inf"), ("-inf", 1), (big, 1), (big, 3), (big, -1), (1 + u, -1),
            (ms, ms), (-ms, 0), (-ms, "-0"), (mn, -mn), (3 * ms, ms), (1.5, 2 ** -30)]
    out = [(enc(fmt, a), enc(fmt, b)) for a, b in vals]
    if sub:      # keep the same exact sums: a - (-b)
        out = [(a, b ^ fmt.signbit) for a, b in out]
    cases = out + [(a, b) for a in CORE(fmt) for b in CORE(fmt)]

    def rand(rng):
        r = rng.random()
        if r < 0.2:
            a, b = tie_sum(rng, fmt, near=rng.random() < 0.3)
            return (a, b ^ fmt.signbit) if sub else (a, b)
        if r < 0.75:      # exponents close together: cancellation and rounding
            a = rand_float(rng, fmt, -30, 30)
            ea = (a >> fmt.mbits) & fmt.expmask
            b = rand_float(rng, fmt, ea - fmt.bias - fmt.p - 3, ea - fmt.bias + 3)
            return (a, b)
        if r < 0.85:
            return (rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 1),
                    rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 1))
        return (rand_any(rng, fmt), rand_any(rng, fmt))
    return cases, rand


def gen_mul(fmt):
    mx = value(fmt.decode(fmt.max_bits))
    ms, mn = P2(fmt.emin - fmt.mbits), P2(fmt.emin)
    vals = [(mx, 2), (mx, -2), (-mx, 1 + P2(-fmt.mbits)), (mx, 1 + P2(-fmt.p + 1)), (P2(fmt.emax), 2),
            (mn, P2(-fmt.p)), (mn, -P2(-fmt.p)), (ms, 0.75), (ms, -0.25), (ms, 0.5), (3 * ms, 0.5),
            (5 * ms, 0.5), (mn, 0.5), (1.5 * mn, 0.5), (ms, ms), (-ms, ms), (mn, 1 - P2(-fmt.p)),
            (P2(fmt.emin // 2), P2(fmt.emin // 2 - fmt.p)), ("inf", 0), ("-0", 3), ("-0", "-0"),
            ("inf", -2), (mx, 0.5), (P2(fmt.emax), P2(1 - fmt.emax)), (3, 1 / 3.0 if fmt is F64 else 0.25)]
    cases = [(enc(fmt, a, exact=False), enc(fmt, b, exact=False)) for a, b in vals]
    cases += [(a, b) for a in CORE(fmt) for b in CORE(fmt)]

    def rand(rng):
        r = rng.random()
        if r < 0.2:
            return tie_product(rng, fmt, sub=rng.random() < 0.3)
        if r < 0.6:
            return (rand_float(rng, fmt, -30, 30), rand_float(rng, fmt, -30, 30))
        if r < 0.8:       # products near overflow / underflow
            e = rng.choice([fmt.emax, fmt.emin - fmt.p // 2, fmt.emin])
            ea = rng.randint(-fmt.emax // 2, fmt.emax // 2)
            return (rand_float(rng, fmt, ea, ea), rand_float(rng, fmt, e - ea - 1, e - ea + 1))
        return (rand_any(rng, fmt), rand_any(rng, fmt))
    return cases, rand


def gen_fma(fmt):
    cases = []
    for a, b, c in [(1, 1, -1), (1, -1, 1), ("-0", 1, "-0"), (0, 1, "-0"), ("-0", "-0", "-0"),
                    (0, -1, 0), ("inf", 0, "nan"), ("inf", 1, "-inf"), ("inf", 1, "inf"), (1, 1, "-inf"),
                    (2, 3, -6), (3, 1 / 3.0, -1), (P2(fmt.emax), 2, -P2(fmt.emax)),
                    (P2(fmt.emax), 4, -P2(fmt.emax + 1) + P2(fmt.emax - fmt.p)), (1 + P2(-fmt.mbits), 1 - P2(-fmt.mbits), -1),
                    (P2(fmt.emin), P2(-fmt.p), "-0"), (P2(fmt.emin), -P2(-fmt.p), 0),
                    (1, P2(fmt.emin - fmt.mbits), -P2(fmt.emin - fmt.mbits))]:
        cases.append(tuple(enc(fmt, v, exact=False) for v in (a, b, c)))

    def rand(rng):
        r = rng.random()
        if r < 0.25:      # a*b on a midpoint, c = 0 or a tiny nudge
            a, b = tie_product(rng, fmt, sub=rng.random() < 0.2)
            pa = value(fmt.decode(a)) * value(fmt.decode(b))
            k = rng.random()
            if k < 0.3:
                c = rng.choice([0, fmt.signbit])
            else:
                c = enc(fmt, P2(floor_log2(abs(pa)) - fmt.p - rng.randint(2, 40)) * rng.choice([1, -1]), exact=False)
            return (a, b, c)
        if r < 0.45:      # c = -round(a*b): the exact error of the product
            a, b = rand_float(rng, fmt, -20, 20), rand_float(rng, fmt, -20, 20)
            return (a, b, op_mul(fmt, a, b, rng.choice(MODES)) ^ fmt.signbit)
        if r < 0.85:
            a, b = rand_float(rng, fmt, -20, 20), rand_float(rng, fmt, -20, 20)
            pe = ((a >> fmt.mbits) & fmt.expmask) + ((b >> fmt.mbits) & fmt.expmask) - 2 * fmt.bias
            return (a, b, rand_float(rng, fmt, pe - 2 * fmt.p, pe + 4))
        return (rand_any(rng, fmt), rand_any(rng, fmt), rand_any(rng, fmt))
    return cases, rand


def gen_div(fmt):
    mx = value(fmt.decode(fmt.max_bits))
    ms, mn = P2(fmt.emin - fmt.mbits), P2(fmt.emin)
    vals = [(1, 3), (-1, 3), (2, 3), (1, 0), (-1, 0), (1, "-0"), (0, 0), ("inf", "inf"), ("-0", 5), (0, "-inf"),
            ("inf", "-0"), (3 * ms, 2), (ms, 2), (ms, -2), (5 * ms, 4), (7 * ms, -4), (3 * ms, 4), (mx, 0.5),
            (mx, -0.5), (1, mx), (-1, mx), (mn, 3), (mn, 1 + P2(-fmt.mbits)), (ms, mx), (mx, ms),
            (1, ms), (1 - P2(-fmt.p), 1), (mx, 1 - P2(-fmt.p)), (9, 3), (1, 1 + P2(-fmt.mbits))]
    cases = [(enc(fmt, a, exact=False), enc(fmt, b, exact=False)) for a, b in vals]
    cases += [(a, b) for a in CORE(fmt) for b in CORE(fmt)]

    def rand(rng):
        r = rng.random()
        if r < 0.6:
            return (rand_float(rng, fmt, -30, 30), rand_float(rng, fmt, -30, 30))
        if r < 0.8:
            return (rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 5), rand_float(rng, fmt, -3, fmt.p))
        return (rand_any(rng, fmt), rand_any(rng, fmt))
    return cases, rand


def gen_unary_sqrt(fmt):
    vals = [0, "-0", "inf", "-inf", "nan", -1, 4, 9, 2.25, 2, 3, 0.5, P2(fmt.emin - fmt.mbits),
            -P2(fmt.emin - fmt.mbits), P2(fmt.emin), value(fmt.decode(fmt.max_bits)), 1 + P2(-fmt.mbits),
            1 - P2(-fmt.p), 4 * (1 + P2(-fmt.mbits)), P2(fmt.emin - 1), 3 * P2(fmt.emin - fmt.mbits)]
    cases = [(enc(fmt, v, exact=False),) for v in vals] + [(s,) for s in specials(fmt)]

    def rand(rng):
        r = rng.random()
        if r < 0.6:
            return (rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emax, neg=0.05),)
        if r < 0.8:
            return (rand_float(rng, fmt, -4, 4, neg=0),)
        return (rand_any(rng, fmt),)
    return cases, rand


def gen_rcp(fmt):
    mx = value(fmt.decode(fmt.max_bits))
    ms, mn = P2(fmt.emin - fmt.mbits), P2(fmt.emin)
    vals = [3, -3, 0, "-0", "inf", "-inf", "nan", ms, -ms, ms * 2, P2(fmt.emin - 1), 3 * P2(fmt.emin - 2),
            mn, mx, -mx, P2(fmt.emax), P2(fmt.emax) * 1.5, 1 - P2(-fmt.p), 1 + P2(-fmt.mbits), 2, 10,
            P2(-fmt.emax - 1), P2(-fmt.emax - 2) * 3]
    cases = [(enc(fmt, v, exact=False),) for v in vals] + [(s,) for s in specials(fmt)]

    def rand(rng):
        r = rng.random()
        if r < 0.7:
            return (rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emax),)
        return (rand_any(rng, fmt),)
    return cases, rand


INT_EDGES = [0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.25, -0.75, 1, -1, -0.9, 3.5, 1e10, -1e10,
             Fraction(1) - P2(-24), -(Fraction(1) - P2(-24)), Fraction(1, 2) - P2(-25), -(Fraction(1, 2) - P2(-25)),
             Fraction(1, 2) - P2(-54), -(Fraction(1, 2) - P2(-54)), 1 + P2(-23), -1 - P2(-23),
             2147483647.5, 2147483647.25, 2147483646.5, 2147483647, 2147483520.0, 2 ** 31, -2 ** 31,
             -2147483648.5, -2147483649.0, -2147483648.25, -2 ** 31 - 256, 4294967295.5, 4294967295.0,
             4294967040.0, 4294967296.0, 2 ** 32 + 2 ** 9, -2 ** 32, 2 ** 52 - 0.5, 2 ** 52 + 1, 2 ** 53 + 2,
             2 ** 23 - 0.5, 2 ** 23 + 1, 2 ** 63 - 1024, 2 ** 63 - 2 ** 39, 2 ** 63, -2 ** 63, -2 ** 63 - 2048,
             -2 ** 63 - 2 ** 40, 2 ** 64 - 2048, 2 ** 64 - 2 ** 40, 2 ** 64, 2 ** 64 + 2 ** 12, 1e30, -1e30,
             "-0", "inf", "-inf", "nan"]


def gen_f2i(sfmt):
    cases = []
    for v in INT_EDGES:
        b = enc(sfmt, v, exact=False)
        if (b,) not in cases:
            cases.append((b,))
    cases += [(s,) for s in specials(sfmt) if (s,) not in cases]

    def rand(rng):
        r = rng.random()
        if r < 0.5:
            return (rand_float(rng, sfmt, -3, 70),)
        if r < 0.7:
            return (rand_float(rng, sfmt, -2, 2),)
        if r < 0.8:       # halves and quarters near integers
            return (enc(sfmt, Fraction(rng.randint(-2 ** 20, 2 ** 20), rng.choice([2, 4])), exact=False),)
        return (rand_any(rng, sfmt),)
    return cases, rand


def gen_i2f(stype, dfmt):
    width, signed = INTS[stype]
    mask = (1 << width) - 1
    p = dfmt.p
    vals = [0, 1, -1, 2, 3, -3, 7]
    for e in [p, p + 1, p + 2, 30, 31, 62, 63, 64, 40]:
        if e < p:
            continue
        base = 1 << e
        half = 1 << (e - p)      # half an ulp of [2^e, 2^(e+1))
        for off in [0, half, half + 1, half - 1 if half > 1 else 0, 3 * half, 2 * half, half * 5,
                    (1 << (e + 1)) - half, (1 << (e + 1)) - half - 1, (1 << (e + 1)) - 1]:
            vals += [base + off, -(base + off)]
    vals += [(1 << 31) - 1, -(1 << 31), (1 << 32) - 1, (1 << 63) - 1, -(1 << 63), (1 << 64) - 1,
             0x7fffffc0, 0x7fffff80, 0x40000040, 0x400000c0, 0x80000080, 0x80000180, 0xffffff80,
             0xffffff7f, (1 << 53) + 1, (1 << 53) + 3, 0x7ffffffffffffe00, 0x7ffffffffffffc00,
             0xfffffffffffff800, 0xfffffffffffffc00, 0x8000008000000000, 65520, 65519, 65504, 2049, 2051,
             -65520, 70000, -(1 << 24) - 1]
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, mask)
    cases = []
    for v in vals:
        if lo <= v <= hi and (v & mask,) not in cases:
            cases.append((v & mask,))

    def rand(rng):
        k = rng.randint(1, width)
        v = rng.getrandbits(k) | (1 << (k - 1))
        if rng.random() < 0.3:       # a run of trailing zeros: near ties
            v &= ~((1 << rng.randint(0, k)) - 1) | 1 << (k - 1)
        if signed and rng.random() < 0.5:
            v = -v
        v = min(max(v, lo), hi)
        return (v & mask,)
    return cases, rand


def gen_narrow(sfmt, dfmt):
    """Operands for float -> narrower float: around dfmt's range limits, its midpoints,
    its subnormals."""
    d = dfmt
    mx = value(d.decode(d.max_bits))
    ulpmax = P2(d.emax - d.mbits)
    ms, mn = P2(d.emin - d.mbits), P2(d.emin)
    vals = [mx, -mx, mx + ulpmax / 2, -(mx + ulpmax / 2), mx + ulpmax / 4, mx + ulpmax * 3 / 4, P2(d.emax + 1),
            -P2(d.emax + 1), P2(d.emax + 3), mx + ulpmax / 2 - P2(d.emax - d.p - 20),
            1 + P2(-d.p), 1 + P2(-d.mbits) + P2(-d.p), 1 + P2(-d.p) + P2(-d.p - 20), 1 + P2(-d.p) - P2(-d.p - 20),
            -(1 + P2(-d.p)), ms, ms / 2, -ms / 2, ms / 2 + P2(d.emin - d.mbits - 25), 3 * ms / 2, 5 * ms / 2,
            ms / 4, -ms / 4, mn - ms / 2, mn - ms, mn + ms / 2, 1, 0.1, -0.1, 1 / 3.0, 65504, 65520, 65519,
            65536, -65520, 65519.5, 1e6, 2 ** -24, 2 ** -25, 3 * 2 ** -25, 2 ** -14 - 2 ** -25,
            P2(sfmt.emin - sfmt.mbits), -P2(sfmt.emin - sfmt.mbits), "-0", 0, "inf", "-inf", "nan"]
    cases = []
    for v in vals:
        b = enc(sfmt, v, exact=False)
        if (b,) not in cases:
            cases.append((b,))
    cases += [(s,) for s in specials(sfmt) if (s,) not in cases]

    def rand(rng):
        r = rng.random()
        if r < 0.6:
            return (rand_float(rng, sfmt, d.emin - d.p - 2, d.emax + 2),)
        if r < 0.8:      # a midpoint of dfmt, or next to one
            v = rand_float(rng, d, d.emin - d.mbits, d.emax, neg=0.5)
            D = d.decode(v)
            if D[0] != "num":
                return (rand_any(rng, sfmt),)
            e = max(floor_log2(D[2]), d.emin)
            q = D[2] + P2(e - d.mbits - 1)
            if rng.random() < 0.4:
                q += P2(e - d.mbits - 1 - rng.randint(1, sfmt.p - d.p)) * rng.choice([1, -1])
            return (enc(sfmt, -q if D[1] else q, exact=False),)
        return (rand_any(rng, sfmt),)
    return cases, rand


def gen_widen(sfmt):
    cases = [(s,) for s in specials(sfmt)]
    if sfmt.width == 16:
        cases += [(b,) for b in [0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x8001,
                                 0x3c00, 0x3c01, 0x7f80, 0xff80, 0x7fc0, 0x007f, 0x0080]]
    return cases, lambda rng: (rng.getrandbits(sfmt.width) if rng.random() < 0.7 else rand_any(rng, sfmt),)


def gen_rint(fmt):
    vals = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.3, -0.3, 0.7, -0.7, 3.5, -3.5, 2 ** 23 - 0.5, 2 ** 23 - 1.5,
            2 ** 22 + 0.25, 2 ** 23, 2 ** 23 + 1, 2 ** 24 + 2, 2 ** 52 - 0.5, 2 ** 52 + 1, 1 - P2(-fmt.p),
            -(1 - P2(-fmt.p)), Fraction(1, 2) - P2(-fmt.p - 1), -(Fraction(1, 2) - P2(-fmt.p - 1)),
            Fraction(1, 2) + P2(-fmt.mbits), P2(fmt.emin - fmt.mbits), -P2(fmt.emin - fmt.mbits),
            value(fmt.decode(fmt.max_bits)), 0, "-0", "inf", "-inf", "nan"]
    cases = []
    for v in vals:
        b = enc(fmt, v, exact=False)
        if (b,) not in cases:
            cases.append((b,))

    def rand(rng):
        r = rng.random()
        if r < 0.6:
            return (rand_float(rng, fmt, -4, fmt.p + 1),)
        if r < 0.8:
            return (enc(fmt, Fraction(rng.randint(-2 ** 12, 2 ** 12), rng.choice([2, 4, 8])), exact=False),)
        return (rand_any(rng, fmt),)
    return cases, rand


def gen_sat(fmt):
    vals = [-1, "-0", 0, 0.5, 1, 1 + P2(-fmt.mbits), 1 - P2(-fmt.p), 2, "inf", "-inf", "nan",
            P2(fmt.emin - fmt.mbits), -P2(fmt.emin - fmt.mbits), -0.5, 1e-30]
    cases = [(enc(fmt, v, exact=False),) for v in vals] + [(s,) for s in specials(fmt)]
    return cases, lambda rng: (rand_float(rng, fmt, -3, 2) if rng.random() < 0.7 else rand_any(rng, fmt),)


def gen_f2i_small(sfmt):
    vals = [127, 127.5, 126.5, 128, -128, -128.5, -129, -127.5, 255, 255.5, 254.5, 256, -0.5, -1, 300,
            -300, 32767, 32767.5, 32766.5, 32768, -32768, -32768.5, -32769, 65535, 65535.5, 65536, 0.5, 1.5,
            2.5, -2.5, 1e10, -1e10, "-0", "inf", "-inf", "nan", P2(sfmt.emin - sfmt.mbits)]
    cases = [(enc(sfmt, v, exact=False),) for v in vals]

    def rand(rng):
        r = rng.random()
        if r < 0.5:
            return (rand_float(rng, sfmt, -2, 17),)
        if r < 0.8:
            return (enc(sfmt, Fraction(rng.randint(-2 ** 17, 2 ** 17), rng.choice([1, 2, 4])), exact=False),)
        return (rand_any(rng, sfmt),)
    return cases, rand


def gen_sat2(fmt, nsrc):
    """Operands whose results fall around [0, 1]."""
    def rand(rng):
        if rng.random() < 0.8:
            return tuple(rand_float(rng, fmt, -4, 1, neg=0.3) for _ in range(nsrc))
        return tuple(rand_any(rng, fmt) for _ in range(nsrc))
    one, u = Fraction(1), P2(-fmt.mbits)
    rows = {1: [(1,), (1 + u,), (1 - u / 2,), ("-0",), (0,), (-u,), ("nan",), ("inf",), ("-inf",), (-1,),
                (P2(fmt.emin - fmt.mbits),), (-P2(fmt.emin - fmt.mbits),), (1 + u / 2,), (1 + u / 4,)],
            2: [(1, u / 2), (1, u), (1 - u / 2, u / 4), ("-0", "-0"), (1, -1), (-1, 0.5), ("nan", 1),
                ("inf", "-inf"), (0.5, 0.5), (0.5, 2), ("-0", 1), (1 + u, 1 - u / 2), (-1, "-0"), (-1, 0)],
            3: [(1, 1, u / 2), (1, 1, -1), ("-0", 1, "-0"), (0.5, 0.5, 0.5), (1, 1, "nan"), (2, 0.5, u / 4),
                (-1, 1, 0.5), ("inf", 0, 1), (1, "-0", "-0"), (1, -u, u)]}[nsrc]
    cases = [tuple(enc(fmt, v, exact=False) for v in row) for row in rows]
    return cases, rand


def gen_ftz_binop(fmt, kind):
    cases, rand0 = {"add": lambda: gen_add(fmt, False), "mul": lambda: gen_mul(fmt),
                    "div": lambda: gen_div(fmt)}[kind]()
    ms, mn = P2(fmt.emin - fmt.mbits), P2(fmt.emin)
    extra = [(ms, 1), (-ms, 1), (mn, -ms), (mn * 1.5, -mn), (-mn * 1.5, mn), (mn * 3, mn * -2.5), (ms, ms),
             (-ms, ms), (1, P2(fmt.emin)), (mn, 0.5), (-mn, 0.5), (mn, 1 - P2(-fmt.p)), (3 * ms, 0.5),
             (-ms, "-0"), (P2(fmt.emin + 1), 0.25), (-P2(fmt.emin + 1), 0.25)]
    cases = [(enc(fmt, a, exact=False), enc(fmt, b, exact=False)) for a, b in extra] + cases

    def rand(rng):
        if rng.random() < 0.4:
            return (rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 3), rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 3))
        if rng.random() < 0.5 and kind != "add":
            return (rand_float(rng, fmt, fmt.emin // 2 - 4, fmt.emin // 2 + 4), rand_float(rng, fmt, fmt.emin // 2 - 4, fmt.emin // 2 + 4))
        return rand0(rng)
    return cases, rand


def gen_half_arith(fmt, nsrc, sub=False):
    def rand(rng):
        r = rng.random()
        if sub and r < 0.3:
            return tuple(rand_float(rng, fmt, fmt.emin - fmt.p, fmt.emin + 2) for _ in range(nsrc))
        if nsrc == 2 and r < 0.2:
            return tie_product(rng, fmt, sub=rng.random() < 0.3)
        if nsrc == 3 and r < 0.3:      # exponents far apart: a*b and c overlap only partly
            a = rand_float(rng, fmt, -8, 8)
            b = rand_float(rng, fmt, -8, 8)
            pe = ((a >> fmt.mbits) & fmt.expmask) + ((b >> fmt.mbits) & fmt.expmask) - 2 * fmt.bias
            c = rand_float(rng, fmt, max(pe - 3 * fmt.p - 40, fmt.emin - fmt.mbits), pe + 3 * fmt.p + 40)
            return (a, b, c)
        if r < 0.8:
            return tuple(rand_float(rng, fmt, -10, 10) for _ in range(nsrc))
        return tuple(rand_any(rng, fmt) for _ in range(nsrc))
    cases = [tuple(s for _ in range(nsrc)) for s in specials(fmt)]
    if nsrc == 2:
        cases += [(a, b) for a in CORE(fmt) for b in CORE(fmt)]
    return cases, rand


def gen_packed(g, arity):
    """Operands for a packed (x2) form: each source packs two draws of g (upper, lower)."""
    cases, rand = g
    n = len(cases)
    out = [tuple((a << 16) | b for a, b in zip(cases[i], cases[(i * 7 + 3) % n])) for i in range(n)]

    def r(rng):
        x, y = rand(rng), rand(rng)
        return tuple((a << 16) | b for a, b in zip(x, y))
    assert all(len(c) == arity for c in out)
    return out, r


def gen_two(g):
    """Two independent operands drawn from the one-operand generator g (for cvt.*x2.f32)."""
    cases, rand = g
    n = len(cases)
    return ([(cases[i][0], cases[(i * 5 + 1) % n][0]) for i in range(n)],
            lambda rng: (rand(rng)[0], rand(rng)[0]))


def packed_op(op):
    return lambda *srcs: (op(*[s >> 16 for s in srcs]) << 16) | op(*[s & 0xffff for s in srcs])


# ----------------------------------------------------------------------------- the forms

class Form:
    def __init__(self, text, srcs, dst, oracle, gen):
        self.text, self.srcs, self.dst, self.oracle, self.gen = text, srcs, dst, oracle, gen


def build_forms():
    forms = []

    def add(text, srcs, dst, oracle, gen):
        forms.append(Form(text, srcs, dst, oracle, gen))

    for fmt in (F32, F64):
        t = fmt.name
        for m in MODES:
            add(f"add.{m}.{t}", [t, t], t, lambda x, y, f=fmt, m=m: op_add(f, x, y, m), gen_add(fmt, False))
        for m in MODES:
            add(f"sub.{m}.{t}", [t, t], t, lambda x, y, f=fmt, m=m: op_sub(f, x, y, m), gen_add(fmt, True))
        for m in MODES:
            add(f"mul.{m}.{t}", [t, t], t, lambda x, y, f=fmt, m=m: op_mul(f, x, y, m), gen_mul(fmt))
        for m in MODES:
            add(f"fma.{m}.{t}", [t, t, t], t, lambda x, y, z, f=fmt, m=m: op_fma(f, x, y, z, m), gen_fma(fmt))
        add(f"mad.rn.{t}", [t, t, t], t, lambda x, y, z, f=fmt: op_fma(f, x, y, z, "rn"), gen_fma(fmt))
        add(f"mad.rz.{t}", [t, t, t], t, lambda x, y, z, f=fmt: op_fma(f, x, y, z, "rz"), gen_fma(fmt))
        for m in MODES:
            add(f"div.{m}.{t}", [t, t], t, lambda x, y, f=fmt, m=m: op_div(f, x, y, m), gen_div(fmt))
        for m in MODES:
            add(f"sqrt.{m}.{t}", [t], t, lambda x, f=fmt, m=m: op_sqrt(f, x, m), gen_unary_sqrt(fmt))
        for m in MODES:
            add(f"rcp.{m}.{t}", [t], t, lambda x, f=fmt, m=m: op_rcp(f, x, m), gen_rcp(fmt))

    # .ftz (f32 only)
    for text, op, mode, kind in [("add.ftz.f32", op_add, "rn", "add"), ("add.rn.ftz.f32", op_add, "rn", "add"),
                                 ("add.rz.ftz.f32", op_add, "rz", "add"), ("sub.rn.ftz.f32", op_sub, "rn", "add"),
                                 ("add.rm.ftz.f32", op_add, "rm", "add"),
                                 ("mul.ftz.f32", op_mul, "rn", "mul"), ("mul.rn.ftz.f32", op_mul, "rn", "mul"),
                                 ("mul.rz.ftz.f32", op_mul, "rz", "mul"), ("mul.rp.ftz.f32", op_mul, "rp", "mul"),
                                 ("div.rn.ftz.f32", op_div, "rn", "div")]:
        add(text, ["f32", "f32"], "f32", ftz_form(F32, op, mode), gen_ftz_binop(F32, kind))
    add("fma.rn.ftz.f32", ["f32"] * 3, "f32", ftz_form(F32, op_fma, "rn"), gen_fma(F32))
    add("sqrt.rn.ftz.f32", ["f32"], "f32", ftz_form(F32, op_sqrt, "rn"), gen_unary_sqrt(F32))
    add("rcp.rn.ftz.f32", ["f32"], "f32", ftz_form(F32, op_rcp, "rn"), gen_rcp(F32))

    # f16 / bf16 arithmetic (.rn only in PTX)
    for fmt in (F16, BF16):
        t = fmt.name
        add(f"add.rn.{t}", [t, t], t, lambda x, y, f=fmt: op_add(f, x, y, "rn"), gen_half_arith(fmt, 2))
        add(f"sub.rn.{t}", [t, t], t, lambda x, y, f=fmt: op_sub(f, x, y, "rn"), gen_half_arith(fmt, 2))
        add(f"mul.rn.{t}", [t, t], t, lambda x, y, f=fmt: op_mul(f, x, y, "rn"), gen_half_arith(fmt, 2))
        add(f"fma.rn.{t}", [t, t, t], t, lambda x, y, z, f=fmt: op_fma(f, x, y, z, "rn"), gen_half_arith(fmt, 3))

    # cvt float -> int
    for d, s in [("s32", "f32"), ("u32", "f32"), ("s64", "f64"), ("u64", "f32"), ("s32", "f64"),
                 ("u32", "f64"), ("s64", "f32"), ("u64", "f64")]:
        for m in ["rni", "rzi", "rmi", "rpi"]:
            add(f"cvt.{m}.{d}.{s}", [s], d, cvt_f2i(FMTS[s], d, m), gen_f2i(FMTS[s]))
    for d in ["s32", "u32"]:
        for m in ["rni", "rzi"]:
            add(f"cvt.{m}.{d}.f16", ["f16"], d, cvt_f2i(F16, d, m), gen_widen(F16))

    # cvt int -> float
    for d, s in [("f32", "s32"), ("f32", "u32"), ("f32", "s64"), ("f32", "u64"), ("f64", "s64"),
                 ("f64", "u64"), ("f16", "s32"), ("f16", "u32")]:
        for m in MODES:
            add(f"cvt.{m}.{d}.{s}", [s], d, cvt_i2f(s, FMTS[d], m), gen_i2f(s, FMTS[d]))
    for s in ["s32", "u32"]:      # exact
        add(f"cvt.rn.f64.{s}", [s], "f64", cvt_i2f(s, F64, "rn"), gen_i2f(s, F64))

    # cvt float -> float
    for m in MODES:
        add(f"cvt.{m}.f32.f64", ["f64"], "f32", cvt_f2f(F64, F32, m), gen_narrow(F64, F32))
    add("cvt.rn.ftz.f32.f64", ["f64"], "f32", cvt_f2f(F64, F32, "rn", ftz=True), gen_narrow(F64, F32))
    add("cvt.f64.f32", ["f32"], "f64", cvt_f2f(F32, F64, "rn"), gen_widen(F32))
    add("cvt.ftz.f64.f32", ["f32"], "f64", cvt_f2f(F32, F64, "rn", ftz=True), gen_widen(F32))
    for m in MODES:
        add(f"cvt.{m}.f16.f32", ["f32"], "f16", cvt_f2f(F32, F16, m), gen_narrow(F32, F16))
    for m in MODES:
        add(f"cvt.{m}.f16.f64", ["f64"], "f16", cvt_f2f(F64, F16, m), gen_narrow(F64, F16))
    add("cvt.f32.f16", ["f16"], "f32", cvt_f2f(F16, F32, "rn"), gen_widen(F16))
    add("cvt.f64.f16", ["f16"], "f64", cvt_f2f(F16, F64, "rn"), gen_widen(F16))
    for m in ["rn", "rz"]:
        add(f"cvt.{m}.bf16.f32", ["f32"], "bf16", cvt_f2f(F32, BF16, m), gen_narrow(F32, BF16))
    add("cvt.f32.bf16", ["bf16"], "f32", cvt_f2f(BF16, F32, "rn"), gen_widen(BF16))
    for fmt in (F32, F64):
        for m in ["rni", "rzi", "rmi", "rpi"]:
            add(f"cvt.{m}.{fmt.name}.{fmt.name}", [fmt.name], fmt.name, cvt_f2f_int(fmt, m), gen_rint(fmt))
    add("cvt.rpi.ftz.f32.f32", ["f32"], "f32", cvt_f2f_int(F32, "rpi", ftz=True), gen_rint(F32))
    add("cvt.sat.f32.f32", ["f32"], "f32", cvt_sat(F32), gen_sat(F32))
    add("cvt.sat.f64.f64", ["f64"], "f64", cvt_sat(F64), gen_sat(F64))

    # bf16 conversions (sm_90), f16/bf16 round-to-integral, int -> f16/bf16
    for m in MODES:
        add(f"cvt.{m}.bf16.f64", ["f64"], "bf16", cvt_f2f(F64, BF16, m), gen_narrow(F64, BF16))
    for m in ["rm", "rp"]:
        add(f"cvt.{m}.bf16.f32", ["f32"], "bf16", cvt_f2f(F32, BF16, m), gen_narrow(F32, BF16))
    add("cvt.f64.bf16", ["bf16"], "f64", cvt_f2f(BF16, F64, "rn"), gen_widen(BF16))
    for m in ["rni", "rpi"]:
        add(f"cvt.{m}.f16.f16", ["f16"], "f16", cvt_f2f_int(F16, m), gen_rint(F16))
    for m in ["rzi", "rmi"]:
        add(f"cvt.{m}.bf16.bf16", ["bf16"], "bf16", cvt_f2f_int(BF16, m), gen_rint(BF16))
    for m in ["rn", "rz"]:
        add(f"cvt.{m}.bf16.s32", ["s32"], "bf16", cvt_i2f("s32", BF16, m), gen_i2f("s32", BF16))
    add("cvt.rn.f16.s64", ["s64"], "f16", cvt_i2f("s64", F16, "rn"), gen_i2f("s64", F16))
    add("cvt.rp.f16.u64", ["u64"], "f16", cvt_i2f("u64", F16, "rp"), gen_i2f("u64", F16))
    add("cvt.rni.s32.bf16", ["bf16"], "s32", cvt_f2i(BF16, "s32", "rni"), gen_widen(BF16))

    # float -> 8/16-bit integers (saturating to the destination's range)
    for d, s, m in [("s8", "f32", "rni"), ("u8", "f64", "rzi"), ("s16", "f32", "rni"), ("u16", "f32", "rpi"),
                    ("s8", "f64", "rmi"), ("u8", "f32", "rni")]:
        add(f"cvt.{m}.{d}.{s}", [s], d, cvt_f2i(FMTS[s], d, m), gen_f2i_small(FMTS[s]))

    # .sat and .relu
    add("add.rn.sat.f32", ["f32"] * 2, "f32", sat_form(F32, lambda x, y: op_add(F32, x, y, "rn")), gen_sat2(F32, 2))
    add("mul.rz.sat.f32", ["f32"] * 2, "f32", sat_form(F32, lambda x, y: op_mul(F32, x, y, "rz")), gen_sat2(F32, 2))
    add("fma.rn.sat.f32", ["f32"] * 3, "f32", sat_form(F32, lambda x, y, z: op_fma(F32, x, y, z, "rn")), gen_sat2(F32, 3))
    add("fma.rn.sat.f16", ["f16"] * 3, "f16", sat_form(F16, lambda x, y, z: op_fma(F16, x, y, z, "rn")), gen_sat2(F16, 3))
    add("cvt.rn.sat.f16.f32", ["f32"], "f16", sat_form(F16, cvt_f2f(F32, F16, "rn")), gen_sat2(F32, 1))
    add("cvt.rn.sat.f32.f64", ["f64"], "f32", sat_form(F32, cvt_f2f(F64, F32, "rn")), gen_sat2(F64, 1))
    add("cvt.rzi.sat.f32.f32", ["f32"], "f32", sat_form(F32, cvt_f2f_int(F32, "rzi")), gen_sat2(F32, 1))
    add("cvt.sat.f32.f16", ["f16"], "f32", sat_form(F32, cvt_f2f(F16, F32, "rn")), gen_widen(F16))
    add("cvt.sat.f16.f16", ["f16"], "f16", cvt_sat(F16), gen_widen(F16))
    add("cvt.rni.sat.f16.f16", ["f16"], "f16", sat_form(F16, cvt_f2f_int(F16, "rni")), gen_rint(F16))
    add("cvt.rn.sat.f16.f64", ["f64"], "f16", sat_form(F16, cvt_f2f(F64, F16, "rn")), gen_sat2(F64, 1))
    add("sub.rn.sat.f16", ["f16"] * 2, "f16", sat_form(F16, lambda x, y: op_sub(F16, x, y, "rn")), gen_sat2(F16, 2))
    add("cvt.rn.sat.f32.s32", ["s32"], "f32", sat_form(F32, cvt_i2f("s32", F32, "rn")), gen_i2f("s32", F32))
    add("cvt.rz.sat.f16.s32", ["s32"], "f16", sat_form(F16, cvt_i2f("s32", F16, "rz")), gen_i2f("s32", F16))
    add("cvt.rn.sat.f64.s64", ["s64"], "f64", sat_form(F64, cvt_i2f("s64", F64, "rn")), gen_i2f("s64", F64))
    add("cvt.rzi.sat.u8.f32", ["f32"], "u8", cvt_f2i(F32, "u8", "rzi"), gen_f2i_small(F32))
    add("cvt.ftz.f32.f32", ["f32"], "f32", cvt_f2f(F32, F32, "rn", ftz=True), gen_widen(F32))

    # packed forms: the first source (or its upper half) gives the upper half of the result
    for m in ["rn", "rz"]:
        add(f"cvt.{m}.f16x2.f32", ["f32", "f32"], "f16x2",
            lambda a, b, m=m: (cvt_f2f(F32, F16, m)(a) << 16) | cvt_f2f(F32, F16, m)(b), gen_two(gen_narrow(F32, F16)))
        add(f"cvt.{m}.bf16x2.f32", ["f32", "f32"], "bf16x2",
            lambda a, b, m=m: (cvt_f2f(F32, BF16, m)(a) << 16) | cvt_f2f(F32, BF16, m)(b), gen_two(gen_narrow(F32, BF16)))
    add("fma.rn.f16x2", ["f16x2"] * 3, "f16x2", packed_op(lambda x, y, z: op_fma(F16, x, y, z, "rn")),
        gen_packed(gen_half_arith(F16, 3), 3))
    add("mul.rn.f16x2", ["f16x2"] * 2, "f16x2", packed_op(lambda x, y: op_mul(F16, x, y, "rn")),
        gen_packed(gen_half_arith(F16, 2), 2))
    add("add.rn.bf16x2", ["bf16x2"] * 2, "bf16x2", packed_op(lambda x, y: op_add(BF16, x, y, "rn")),
        gen_packed(gen_half_arith(BF16, 2), 2))
    add("fma.rn.bf16x2", ["bf16x2"] * 3, "bf16x2", packed_op(lambda x, y, z: op_fma(BF16, x, y, z, "rn")),
        gen_packed(gen_half_arith(BF16, 3), 3))
    add("cvt.rn.relu.f16.f32", ["f32"], "f16", relu_form(F16, cvt_f2f(F32, F16, "rn")), gen_narrow(F32, F16))
    add("cvt.rn.relu.bf16.f32", ["f32"], "bf16", relu_form(BF16, cvt_f2f(F32, BF16, "rn")), gen_narrow(F32, BF16))
    add("fma.rn.relu.f16", ["f16"] * 3, "f16", relu_form(F16, lambda x, y, z: op_fma(F16, x, y, z, "rn")), gen_half_arith(F16, 3))
    add("fma.rn.relu.bf16", ["bf16"] * 3, "bf16", relu_form(BF16, lambda x, y, z: op_fma(BF16, x, y, z, "rn")), gen_half_arith(BF16, 3))
    add("add.rn.ftz.f16", ["f16"] * 2, "f16", ftz_form(F16, op_add, "rn"), gen_half_arith(F16, 2, sub=True))
    add("mul.rn.ftz.f16", ["f16"] * 2, "f16", ftz_form(F16, op_mul, "rn"), gen_half_arith(F16, 2, sub=True))
    return forms


# ----------------------------------------------------------------------------- PTX generation

REG = {"f32": ("f32", "%f", "f32"), "f64": ("f64", "%fd", "f64"), "f16": ("b16", "%h", "b16"),
       "f16x2": ("b32", "%r", "b32"), "bf16x2": ("b32", "%r", "b32"),
       "s8": (None, "%h", "b8"), "u8": (None, "%h", "b8"), "s16": ("b16", "%h", "b16"), "u16": ("b16", "%h", "b16"),
       "bf16": ("b16", "%h", "b16"), "s32": ("b32", "%r", "b32"), "u32": ("b32", "%r", "b32"),
       "s64": ("b64", "%q", "b64"), "u64": ("b64", "%q", "b64")}


def make_ptx(forms):
    nf = len(forms)
    body = []
    for i, f in enumerate(forms):
        body.append(f"  // form {i}: {f.text}")
        ops = []
        for k, t in enumerate(f.srcs):
            ldty, pre, _ = REG[t]
            body.append(f"  ld.global.{ldty} {pre}{k}, [%ai+{(i * 3 + k) * 8}];")
            ops.append(f"{pre}{k}")
        _, dpre, stty = REG[f.dst]
        body.append(f"  {f.text} {dpre}9, {', '.join(ops)};")
        body.append(f"  st.global.{stty} [%ao+{i * 8}], {dpre}9;")
    return f"""// Generated by tests/emu/check_rounding.py: {nf} instruction forms, one 8-byte slot per
// form and thread in `out`, three 8-byte operand slots per form and thread in `in`.
.version 8.0
.target sm_90
.address_size 64

.visible .entry rounding(.param .u64 in, .param .u64 out, .param .u32 n)
{{
  .reg .pred %p0;
  .reg .b32 %t<5>;
  .reg .b64 %ai, %ao, %aw;
  .reg .f32 %f<10>;
  .reg .f64 %fd<10>;
  .reg .b16 %h<10>;
  .reg .b32 %r<10>;
  .reg .b64 %q<10>;
  mov.u32 %t0, %ctaid.x;
  mov.u32 %t1, %ntid.x;
  mov.u32 %t2, %tid.x;
  mad.lo.u32 %t3, %t0, %t1, %t2;
  ld.param.u32 %t4, [n];
  setp.ge.u32 %p0, %t3, %t4;
  @%p0 bra DONE;
  ld.param.u64 %ai, [in];
  cvta.to.global.u64 %ai, %ai;
  mul.wide.u32 %aw, %t3, {nf * 24};
  add.s64 %ai, %ai, %aw;
  ld.param.u64 %ao, [out];
  cvta.to.global.u64 %ao, %ao;
  mul.wide.u32 %aw, %t3, {nf * 8};
  add.s64 %ao, %ao, %aw;
""" + "\n".join(body) + "\nDONE:\n  ret;\n}\n"


# ----------------------------------------------------------------------------- driver

def hexw(bits, width):
    return f"0x{bits:0{width // 4}x}"


def check(expected, got, dst):
    w = WIDTH[dst]
    if got >> w:
        return False
    if dst in PACKED:
        return (check(expected >> 16, got >> 16, PACKED[dst]) and
                check(expected & 0xffff, got & 0xffff, PACKED[dst]))
    if dst in FMTS:
        fmt = FMTS[dst]
        if isinstance(expected, tuple):
            return got in expected
        if fmt.is_nan(expected):
            return fmt.is_nan(got)
    return got == expected


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxrun", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--max-report", type=int, default=50)
    args = ap.parse_args()
    t0 = time.time()
    os.makedirs(args.work, exist_ok=True)

    forms = build_forms()
    nf = len(forms)
    rng = random.Random(1234)
    inputs = []        # inputs[f][t] = tuple of operand bits
    for f in forms:
        cases, rand = f.gen
        rows = list(cases)
        assert len(rows) <= N_THREADS, (f.text, len(rows))
        while len(rows) < N_THREADS:
            rows.append(rand(rng))
        for row in rows:
            assert len(row) == len(f.srcs), f.text
            for v, t in zip(row, f.srcs):
                assert 0 <= v < 1 << WIDTH[t], (f.text, v, t)
        inputs.append(rows)

    buf = bytearray(N_THREADS * nf * 24)
    for fi in range(nf):
        for t in range(N_THREADS):
            for k, v in enumerate(inputs[fi][t]):
                struct.pack_into("<Q", buf, ((t * nf + fi) * 3 + k) * 8, v)
    with open(os.path.join(args.work, "in.bin"), "wb") as fh:
        fh.write(buf)
    ptx_path = os.path.join(args.work, "rounding.ptx")
    with open(ptx_path, "w", encoding="utf-8") as fh:
        fh.write(make_ptx(forms))
    spec = {"grid": GRID, "block": BLOCK, "params": [
        {"name": "in", "buffer": {"type": "u64", "count": N_THREADS * nf * 3, "init": {"file": "in.bin"}}},
        {"name": "out", "buffer": {"type": "u64", "count": N_THREADS * nf, "init": "zero"}},
        {"name": "n", "value": N_THREADS, "type": "u32"}]}
    spec_path = os.path.join(args.work, "rounding.json")
    with open(spec_path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh, indent=1)

    failures, skips = [], []
    if args.ptxas and os.path.isfile(args.ptxas):
        r = subprocess.run([args.ptxas, "-arch=sm_90", ptx_path, "-o", os.devnull], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"ptxas rejects {ptx_path}:\n{r.stderr.strip()[:3000]}")
        else:
            print("ptxas -arch=sm_90: ok")
    else:
        skips.append("ptxas: " + (f"{args.ptxas} not found" if args.ptxas else "no ptxas given") + " (the other checks ran)")

    expected = [[f.oracle(*inputs[fi][t]) for t in range(N_THREADS)] for fi, f in enumerate(forms)]

    runs = [("", []), ("--no-fast-paths", ["--no-fast-paths"])]
    per_run = []       # per run: {form index: [(thread, got)]}, or None when ptxrun failed
    for label, extra in runs:
        out_dir = os.path.join(args.work, "out" + ("-slow" if extra else ""))
        os.makedirs(out_dir, exist_ok=True)
        cmd = [args.ptxrun, "--launch", spec_path, ptx_path, "--dump", out_dir] + extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"ptxrun exited {r.returncode}: {r.stderr.strip()[:3000]}\n  command: {' '.join(cmd)}")
            per_run.append(None)
            continue
        with open(os.path.join(out_dir, "out.bin"), "rb") as fh:
            data = fh.read()
        if len(data) != N_THREADS * nf * 8:
            failures.append(f"{out_dir}/out.bin: {len(data)} bytes, expected {N_THREADS * nf * 8}")
            per_run.append(None)
            continue
        got = struct.unpack(f"<{N_THREADS * nf}Q", data)
        bad = {}
        for fi, f in enumerate(forms):
            for t in range(N_THREADS):
                g = got[t * nf + fi]
                if not check(expected[fi][t], g, f.dst):
                    bad.setdefault(fi, []).append((t, g))
        per_run.append(bad)

    def describe(fi, t, g, label):
        f, e = forms[fi], expected[fi][t]
        ins = " ".join(hexw(v, WIDTH[s]) for v, s in zip(inputs[fi][t], f.srcs))
        es = "|".join(hexw(x, WIDTH[f.dst]) for x in e) if isinstance(e, tuple) else hexw(e, WIDTH[f.dst])
        if f.dst in FMTS and not isinstance(e, tuple) and FMTS[f.dst].is_nan(e):
            es += " (any NaN)"
        return (f"MISMATCH{' (' + label + ')' if label else ''}: {f.text} thread {t}: inputs {ins}: "
                f"ptxrun {hexw(g, WIDTH[f.dst])}, expected {es}")

    for line in failures:
        print("FAIL: " + line)
    # Up to 3 lines per failing form, at most --max-report in all; then a count per form.
    lines, total = [], 0
    for (label, _), bad in zip(runs, per_run):
        if not bad:
            continue
        if label and bad == per_run[0]:
            lines.append(f"(the run with {label} gives the same mismatches)")
            total += sum(len(v) for v in bad.values())
            continue
        for fi, rows in bad.items():
            total += len(rows)
            for t, g in rows[:3]:
                lines.append(describe(fi, t, g, label))
    shown = [l for l in lines if l.startswith("MISMATCH")][:args.max_report]
    for l in lines:
        if not l.startswith("MISMATCH") or l in shown:
            print(l)
    for i, ((label, _), bad) in enumerate(zip(runs, per_run)):
        if i and bad == per_run[0]:
            continue
        for fi, rows in (bad or {}).items():
            print(f"  {forms[fi].text}{' (' + label + ')' if label else ''}: {len(rows)} of {N_THREADS} threads differ")
    checks = nf * N_THREADS
    print(f"emu-rounding: {nf} forms x {N_THREADS} threads = {checks} checks, x{len(runs)} runs "
          f"(with and without --no-fast-paths): "
          + ("all exact" if not total and not failures
             else f"{total} mismatch(es) in {len(set().union(*[set(b or ()) for b in per_run]))} form(s), "
                  f"{len(failures)} failure(s)")
          + f" ({time.time() - t0:.1f} s)")
    return finish(failures or ([f"{total} mismatches"] if total else []), skips)


if __name__ == "__main__":
    sys.exit(main())
