"""Run every PTX module that numba-cuda links through ptxopt.

    import ptxopt_numba
    ptxopt_numba.enable()          # or enable(ptxopt="/path/to/ptxopt")
    ...                            # @cuda.jit kernels compile and launch as usual
    ptxopt_numba.disable()         # numba's own behaviour again

numba-cuda does not run ptxas: a kernel's PTX (or, with ``lto=True``, its LTO-IR) goes to
``numba.cuda.cudadrv.driver._Linker``, which nvJitLink (cuda.core's ``Linker``) turns into a
cubin. ``enable()`` wraps three of its methods:

* ``add_ptx`` (and ``add_cu`` where NVRTC gives PTX): the PTX is run through the ``ptxopt``
  executable (``ptxopt [flags] - -o -``) before it joins the link;
* ``complete``, where the link holds LTO-IR: the LTO-IR objects are first linked into one PTX
  module (nvJitLink ``-ptx``, as numba's ``get_lto_ptx`` does), ptxopt optimizes it, and a link
  without LTO of that PTX and of every other object of the link makes the cubin. Should anything
  on that path fail, numba's own LTO link runs instead, after one warning;
* ``complete`` without LTO: should nvJitLink reject the link with the optimized PTX, it is done
  again with the PTX numba produced, after one warning, and both are kept for a report.

The environment is that of ptxopt-ptxas, read at each link:

  PTXOPT              the ptxopt executable, where enable() is given none
  PTXOPT_FLAGS        ptxopt options, split as a shell would (default none: -O2). -O0 turns the
                      hook off; --optimize-debug also optimizes debug PTX (numba's debug=True,
                      `.target ..., debug`), which is left alone otherwise; --remarks=FILE and
                      --profile-use=FILE act as the two variables below when those are unset
  PTXOPT_PROFILE_USE  FILE: ptxopt --profile-use=FILE
  PTXOPT_REMARKS      FILE: ptxopt's remarks (JSON lines) are appended to FILE
  PTXOPT_KEEP_DIR     DIR: DIR/<kernel>-<hash>.in.ptx and .opt.ptx for each module
  PTXOPT_FINDINGS_DIR where modules whose optimized PTX nvJitLink rejects are kept (default
                      $XDG_CACHE_HOME or ~/.cache, then /ptxopt/findings)
  PTXOPT_STRICT       1: a failure raises PtxoptError instead of falling back
  PTXOPT_VERBOSE      1: ptxopt's diagnostics and one line per optimized module on stderr
  PTXOPT_TIMEOUT      seconds one ptxopt run may take, 1-86400 (default 300)

Without PTXOPT_STRICT a failure on ptxopt's side (nonzero exit, crash, timeout, no output, PTX
that nvJitLink rejects) never fails the compile: one line
``ptxopt_numba: warning: <name>: <reason>; using the original PTX`` goes to stderr and the PTX
numba produced is linked.
"""

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

__all__ = ["enable", "disable", "is_enabled", "optimize_ptx", "find_ptxopt",
           "PtxoptError", "PtxoptNotFoundError"]

_WRAPPED = ("add_ptx", "add_cu", "complete")
_DEFAULT_TIMEOUT = 300
_SWAPS = "_ptxopt_numba_swaps"      # on a _Linker: the PTX objects it links in optimized form


class PtxoptError(RuntimeError):
    """ptxopt (or a link of its output) failed and PTXOPT_STRICT asked for an error."""


class PtxoptNotFoundError(FileNotFoundError):
    """enable() found no ptxopt executable."""


class _State:
    exe = None          # the ptxopt executable in use
    originals = None    # method name -> numba's function, while enabled


_state = _State()


# --------------------------------------------------------------------------------------------
# Finding the executable


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _resolve(candidate):
    """A path (with a separator, or an existing file) or a name looked up on PATH."""
    if os.sep in candidate or (os.altsep and os.altsep in candidate) or os.path.exists(candidate):
        return os.path.abspath(candidate) if _executable(candidate) else None
    return shutil.which(candidate)


def find_ptxopt(ptxopt=None):
    """The ptxopt executable: the argument, else $PTXOPT, else next to this module (installed:
    <prefix>/share/ptxopt/python -> <prefix>/bin/ptxopt; source tree: python/ ->
    build/ptxopt), else PATH. Raises PtxoptNotFoundError saying what was tried."""
    if ptxopt is not None:
        found = _resolve(os.fspath(ptxopt))
        if not found:
            raise PtxoptNotFoundError(f"ptxopt_numba: {os.fspath(ptxopt)!r} is not an executable file")
        return found
    env = os.environ.get("PTXOPT")
    if env:
        found = _resolve(env)
        if not found:
            raise PtxoptNotFoundError(f"ptxopt_numba: PTXOPT={env!r} is not an executable file")
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    tried = [os.path.normpath(os.path.join(here, "..", "..", "..", "bin", "ptxopt")),
             os.path.normpath(os.path.join(here, "..", "build", "ptxopt"))]
    for path in tried:
        if _executable(path):
            return path
    found = shutil.which("ptxopt")
    if found:
        return os.path.abspath(found)
    raise PtxoptNotFoundError(
        "ptxopt_numba: no ptxopt executable found; pass enable(ptxopt=PATH) or set PTXOPT "
        f"(tried {', '.join(tried)} and PATH)")


# --------------------------------------------------------------------------------------------
# Settings (the environment, read at each use)


class _Settings:
    def __init__(self):
        self.words = []             # options for ptxopt
        self.off = False            # PTXOPT_FLAGS=-O0
        self.optimize_debug = False
        self.remarks = None
        self.profile = None
        self.strict = _flag("PTXOPT_STRICT")
        self.verbose = _flag("PTXOPT_VERBOSE")
        self.keep = os.environ.get("PTXOPT_KEEP_DIR") or None
        self.timeout = _DEFAULT_TIMEOUT
        self.error = None           # a malformed setting

        try:
            words = shlex.split(os.environ.get("PTXOPT_FLAGS", ""))
        except ValueError as e:
            self.error = f"PTXOPT_FLAGS: {e}"
            words = []
        opt_level, passes = 2, False
        i = 0
        while i < len(words):
            w = words[i]
            name, eq, value = w.partition("=")
            if w == "--optimize-debug":
                self.optimize_debug = True
            elif name in ("--remarks", "--profile-use"):
                if not eq:
                    if i + 1 == len(words):
                        self.error = f"PTXOPT_FLAGS: {w} needs a file"
                        break
                    i += 1
                    value = words[i]
                setattr(self, "remarks" if name == "--remarks" else "profile", value)
            else:
                if name == "--passes":
                    passes = True
                m = re.fullmatch(r"-O(\d*)", w)
                if m:
                    level = m.group(1) or (words[i + 1] if i + 1 < len(words) else "")
                    if level.isdigit():
                        opt_level = int(level)
                self.words.append(w)
            i += 1
        self.off = opt_level == 0 and not passes
        self.remarks = os.environ.get("PTXOPT_REMARKS") or self.remarks
        self.profile = os.environ.get("PTXOPT_PROFILE_USE") or self.profile
        t = os.environ.get("PTXOPT_TIMEOUT", "")
        if t:
            if t.isdigit() and 1 <= int(t) <= 86400:
                self.timeout = int(t)
            else:
                self.error = f"PTXOPT_TIMEOUT={t} is not a number of seconds (1-86400)"

    def findings_dir(self):
        d = os.environ.get("PTXOPT_FINDINGS_DIR")
        if d:
            return d
        cache = os.environ.get("XDG_CACHE_HOME")
        if not cache and os.environ.get("HOME"):
            cache = os.path.join(os.environ["HOME"], ".cache")
        return os.path.join(cache or "/tmp", "ptxopt", "findings")


def _flag(name):
    return os.environ.get(name, "") not in ("", "0")


# --------------------------------------------------------------------------------------------
# Names, files and messages

_NAME_CHARS = re.compile(rb"[A-Za-z0-9_$]*")
_DEBUG_TARGET = re.compile(rb"^[ \t]*\.target[ \t]+[^\n/]*\bdebug\b", re.MULTILINE)


def _module_name(ptx):
    """The first kernel's name (else the first function's), at most 64 characters: the name
    ptxopt-ptxas gives a module's files."""
    for word in (b".entry ", b".func "):
        at = ptx.find(word)
        if at < 0:
            continue
        at += len(word)
        while at < len(ptx) and ptx[at:at + 1] in (b" ", b"("):
            if ptx[at:at + 1] == b"(":          # a .func's return parameters come first
                close = ptx.find(b")", at)
                if close < 0:
                    break
                at = close + 1
            else:
                at += 1
        name = _NAME_CHARS.match(ptx, at).group(0)
        if name:
            return name[:64].decode("ascii")
    return "module"


def _fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def _stem(ptx):
    return f"{_module_name(ptx)}-{_fnv1a64(ptx):016x}"


def _one_line(text, limit=300):
    for line in text.splitlines():
        line = line.strip().strip("\0")
        if line:
            return line if len(line) <= limit else line[:limit] + "..."
    return ""


def _link_complaint(exc):
    """The line of an nvJitLink error that says what is wrong."""
    text = str(exc)
    for line in text.splitlines():
        line = line.replace("nvJitLink error log:", "").strip()
        if "error" in line and not line.startswith("ERROR"):
            return _one_line(line)
    return _one_line(text) or type(exc).__name__


def _warn(name, reason):
    sys.stderr.write(f"ptxopt_numba: warning: {name}: {reason}; using the original PTX\n")
    sys.stderr.flush()


def _note(text):
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _append(path, data):
    # One write with O_APPEND, so that compiles side by side do not interleave lines.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def _keep(directory, original, optimized, info=None):
    """DIR/STEM.in.ptx (and .opt.ptx, .json); returns DIR/STEM."""
    os.makedirs(directory, exist_ok=True)
    stem = os.path.join(directory, _stem(original))
    _write(stem + ".in.ptx", original)
    if optimized is not None:
        _write(stem + ".opt.ptx", optimized)
    if info is not None:
        _write(stem + ".json", (json.dumps(info, indent=1) + "\n").encode())
    return stem


# --------------------------------------------------------------------------------------------
# Running ptxopt on one module


def _run(exe, ptx, s, remarks_file):
    """ptxopt on ptx (passed as it is, trailing NULs included). (output, stderr text, None) or
    (None, stderr text, reason)."""
    cmd = [exe, *s.words]
    if s.profile:
        cmd.append("--profile-use=" + s.profile)
    if remarks_file:
        cmd.append("--remarks=" + remarks_file)
    cmd += ["-", "-o", "-"]
    try:
        # Its own process group, so that a timeout ends whatever a wrapper script started too.
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return None, "", f"cannot run {exe}: {e.strerror or e}"
    try:
        out, err = proc.communicate(ptx, timeout=s.timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.communicate()
        return None, "", f"ptxopt took longer than {s.timeout} s (PTXOPT_TIMEOUT)"
    err = err.decode("utf-8", "replace")
    detail = _one_line(err)
    if proc.returncode < 0:
        try:
            sig = signal.Signals(-proc.returncode).name
        except ValueError:
            sig = f"signal {-proc.returncode}"
        return None, err, f"ptxopt crashed: {sig}" + (f" ({detail})" if detail else "")
    if proc.returncode != 0:
        return None, err, f"ptxopt exited with status {proc.returncode}" + (f": {detail}" if detail else "")
    if not out.strip(b"\0 \t\r\n"):
        return None, err, "ptxopt wrote no PTX"
    return out, err, None


def _optimize(ptx, fallback_name=None, exe=None, settings=None):
    """(PTX to link, True when it is ptxopt's output). A failure prints one warning (raises
    PtxoptError under PTXOPT_STRICT) and gives the input back."""
    s = settings or _Settings()
    ptx = bytes(ptx)
    name = _module_name(ptx)
    if name == "module" and fallback_name:
        name = fallback_name
    if s.off:
        return ptx, False
    if _DEBUG_TARGET.search(ptx) and not s.optimize_debug:
        if s.verbose:
            _note(f"ptxopt_numba: {name}: debug PTX, not optimized (--optimize-debug in PTXOPT_FLAGS does)")
        return ptx, False
    out, reason = None, s.error
    try:
        if reason is None:
            exe = exe or _state.exe or find_ptxopt()
            tmpdir = tempfile.mkdtemp(prefix="ptxopt-numba-") if s.remarks else None
            try:
                remarks_tmp = os.path.join(tmpdir, "remarks.jsonl") if tmpdir else None
                start = time.monotonic()
                out, err, reason = _run(exe, ptx, s, remarks_tmp)
                if s.verbose and err:
                    _note(err)
                if out is not None and remarks_tmp and os.path.exists(remarks_tmp):
                    with open(remarks_tmp, "rb") as f:
                        lines = f.read()
                    if lines:
                        _append(s.remarks, lines if lines.endswith(b"\n") else lines + b"\n")
            finally:
                if tmpdir:
                    shutil.rmtree(tmpdir, ignore_errors=True)
            if out is not None and s.verbose:
                _note(f"ptxopt_numba: {name}: optimized in {1000 * (time.monotonic() - start):.1f} ms "
                      f"by {exe} {' '.join(s.words) or '-O2'}")
        if s.keep:
            _keep(s.keep, ptx, out)
    except PtxoptNotFoundError as e:
        out, reason = None, str(e)
    except OSError as e:
        out, reason = None, f"{e.filename or 'I/O'}: {e.strerror or e}"
    except Exception as e:      # noqa: BLE001 - a compile must not fail because of the hook
        out, reason = None, f"{type(e).__name__}: {_one_line(str(e))}"
    if out is None:
        if s.strict:
            raise PtxoptError(f"ptxopt_numba: {name}: {reason}")
        _warn(name, reason)
        return ptx, False
    return out, True


def optimize_ptx(ptx, name=None, exe=None):
    """ptx (bytes) through ptxopt under the settings above: the optimized PTX, or ptx itself
    (after one warning line when ptxopt failed; PtxoptError under PTXOPT_STRICT). name labels
    a module without a kernel or function in messages."""
    return _optimize(ptx, name, exe)[0]


# --------------------------------------------------------------------------------------------
# The wrapped _Linker methods


def _linker_class():
    from numba.cuda.cudadrv import driver
    return driver._Linker


def _swap_last(linker, original, optimized, name):
    """The last object of the link becomes the optimized PTX; remembered in case nvJitLink
    rejects it."""
    from cuda.core import ObjectCode
    index = len(linker._object_codes) - 1
    keep = linker._object_codes[index]
    linker._object_codes[index] = ObjectCode.from_ptx(optimized, name=keep.name)
    linker.__dict__.setdefault(_SWAPS, []).append((index, keep, original, optimized, name))


def _add_ptx(self, ptx, name="<cudapy-ptx>"):
    result = _state.originals["add_ptx"](self, ptx, name)
    # cuda.core reads a str as a file name: only PTX in memory (bytes) is optimized.
    if isinstance(ptx, (bytes, bytearray, memoryview)):
        optimized, ok = _optimize(ptx, name)
        if ok:
            _swap_last(self, bytes(ptx), optimized, name)
    return result


def _add_cu(self, cu, name="<cudapy-cu>"):
    before = len(self._object_codes)
    result = _state.originals["add_cu"](self, cu, name)
    # Without LTO, NVRTC's PTX joins the link without passing add_ptx.
    if not self.lto and len(self._object_codes) == before + 1:
        obj = self._object_codes[-1]
        if getattr(obj, "code_type", None) == "ptx" and isinstance(obj.code, bytes):
            optimized, ok = _optimize(obj.code, name)
            if ok:
                _swap_last(self, obj.code, optimized, name)
    return result


def _complete(self):
    swaps = self.__dict__.pop(_SWAPS, None)
    if self._has_ltoir:
        return _complete_lto(self, swaps)
    return _link_or_retry(self, swaps)


def _link_or_retry(self, swaps):
    """numba's complete(); should nvJitLink reject it while some PTX is ptxopt's, again with
    the PTX numba produced, after one warning (and the two kept for a report)."""
    original = _state.originals["complete"]
    if not swaps:
        return original(self)
    try:
        return original(self)
    except Exception as e:  # noqa: BLE001 - was it ptxopt's PTX? Try numba's own.
        rejected = e
    for index, obj, _, _, _ in swaps:
        self._object_codes[index] = obj
    result = original(self)         # when this fails too, numba's own error is what it raises
    _rejected(self, [(before, after) for _, _, before, after, _ in swaps], rejected)
    return result


def _rejected(self, pairs, exc):
    """nvJitLink refused ptxopt's PTX of these (original, optimized) pairs and took the
    originals: keep them for a report, then one warning (PtxoptError under PTXOPT_STRICT)."""
    s = _Settings()
    complaint = _link_complaint(exc)
    kept = []
    try:
        for before, after in pairs:
            info = {"tool": "ptxopt_numba", "status": f"rejected by nvJitLink: {complaint}",
                    "arch": self.arch, "ptxopt": _state.exe,
                    "ptxopt_flags": os.environ.get("PTXOPT_FLAGS", "")}
            kept.append(_keep(s.findings_dir(), before, after, info) + ".{in,opt}.ptx")
    except OSError:
        pass
    names = ", ".join(dict.fromkeys(_module_name(before) for before, _ in pairs))
    reason = (f"nvJitLink rejected the optimized PTX ({complaint}) but accepts the original; "
              f"please report this with {', '.join(kept) or 'the input'}")
    if s.strict:
        raise PtxoptError(f"ptxopt_numba: {names}: {reason}") from exc
    _warn(names, reason)


def _complete_lto(self, swaps):
    """LTO-IR -> PTX (nvJitLink -ptx) -> ptxopt -> a link without LTO of that PTX and of the
    link's other objects. Any failure: numba's own LTO link."""
    s = _Settings()
    if s.off:
        return _link_or_retry(self, swaps)
    name = "<lto>"
    try:
        Linker = type(self)
        to_ptx = Linker(max_registers=self.max_registers, lineinfo=self.lineinfo, cc=self.cc,
                        lto=True, additional_flags=["-ptx"])
        for obj in self._object_codes:
            if obj.code_type == "ltoir":
                to_ptx.add_ltoir(obj.code, obj.name)
        ptx = bytes(to_ptx.get_linked_ptx())
        name = _module_name(ptx)
        optimized, ok = _optimize(ptx, name, settings=s)
    except PtxoptError:
        raise
    except Exception as e:  # noqa: BLE001 - numba's own LTO link instead
        return _lto_fallback(self, swaps, s, name, e)
    if not ok:                      # ptxopt failed (and said so) or was not to run
        return _link_or_retry(self, swaps)
    def link_without_lto(module):
        linker = Linker(max_registers=self.max_registers, lineinfo=self.lineinfo, cc=self.cc,
                        lto=False, additional_flags=self.additional_flags)
        _state.originals["add_ptx"](linker, module, name)
        linker._object_codes.extend(o for o in self._object_codes if o.code_type != "ltoir")
        return linker, _state.originals["complete"](linker)

    try:
        final, result = link_without_lto(optimized)
    except Exception as e:  # noqa: BLE001 - numba's own LTO link instead
        try:
            link_without_lto(ptx)           # is it ptxopt's output that nvJitLink refuses?
        except Exception:  # noqa: BLE001 - no: the path through PTX itself failed
            return _lto_fallback(self, swaps, s, name, e)
        _rejected(self, [(ptx, optimized)], e)
        return _link_or_retry(self, swaps)
    self.linker = final.linker
    self._info_log = final._info_log
    self._error_log = final._error_log
    self._complete = True
    return result


def _lto_fallback(self, swaps, s, name, exc):
    reason = f"LTO through ptxopt failed: {_link_complaint(exc)}"
    if s.strict:
        raise PtxoptError(f"ptxopt_numba: {name}: {reason}") from exc
    _warn(name, reason)
    return _link_or_retry(self, swaps)


_WRAPPERS = {"add_ptx": _add_ptx, "add_cu": _add_cu, "complete": _complete}


def enable(ptxopt=None):
    """Send numba-cuda's links through ptxopt. Finds the executable (find_ptxopt) and raises
    PtxoptNotFoundError when there is none. Called again, it only finds the executable again:
    the methods are wrapped once. Returns the executable's path."""
    _state.exe = find_ptxopt(ptxopt)
    if _state.originals is None:
        cls = _linker_class()
        _state.originals = {m: cls.__dict__[m] for m in _WRAPPED}
        for m in _WRAPPED:
            setattr(cls, m, _WRAPPERS[m])
    return _state.exe


def disable():
    """Put numba-cuda's own _Linker methods back. Harmless when not enabled."""
    if _state.originals is not None:
        cls = _linker_class()
        for m, fn in _state.originals.items():
            setattr(cls, m, fn)
        _state.originals = None


def is_enabled():
    return _state.originals is not None
