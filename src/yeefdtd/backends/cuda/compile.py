"""Kernel sources (package data) and their compilation through CuPy (NVRTC).

Kernels are C++ templates over the field type (float, double), the id type (uint8,
uint16) and compile-time switches; each stepper asks for the instances it launches by name
(``name_expressions``). CuPy (14.2 or later; see CACHED_CUPY) caches the compiled binary on
disk per architecture and source, so a new module costs a load, not a compilation. The
instances are split over several modules, compiled on threads (see MODULE_GROUPS).

The coefficient table and the pointers to a stepper's auxiliary arrays, sources and probes
live in the modules' constant memory, so each live stepper needs modules of its own. CuPy
hands out one module per source and instances in a process; where a live stepper holds a
module, the next gets one of another source (see load_module).
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from pathlib import Path

from ...exceptions import KernelError

KERNEL_DIR = Path(__file__).with_name("kernels")
#: kernel files every module holds, in order
BASE_FILES = ("common.cuh", "support.cu")
OPTIONS = ("-std=c++17",)


def options() -> tuple[str, ...]:
    """Compiler options; $YEEFDTD_NVRTC_OPTIONS adds more (for experiments)."""
    from .experiments import compiler_options

    return OPTIONS + compiler_options()


def read_kernel(name: str) -> str:
    return (KERNEL_DIR / name).read_text(encoding="utf-8")


def kernel_source(files: tuple[str, ...]) -> str:
    """The C++ source of a module: the shared header, the support kernels, then ``files``."""
    parts = []
    for name in (*BASE_FILES, *files):
        parts.append(f"// ===== {name} =====\n{read_kernel(name)}")
    return "\n".join(parts)


@lru_cache(maxsize=1)
def kernel_version() -> str:
    """A short hash of every kernel file: tuning results are kept per version."""
    h = hashlib.sha1()
    for p in sorted(KERNEL_DIR.glob("*.cu*")):
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def type_name(dtype) -> str:
    return {"float32": "float", "float64": "double"}[str(dtype)]


def id_name(dtype) -> str:
    return {"uint8": "id8_t", "uint16": "id16_t"}[str(dtype)]


#: modules a stepper's instances are compiled as: NVRTC runs without the interpreter lock,
#: so they compile side by side on threads. The groups do not depend on the host (CuPy's
#: disk cache keys each module on its instances). 3D 'temporal' float32's sweep (36
#: instances) on an H100 host of 16 cores: 20.9 s as one module, 3.9 s as 8 on 8 threads,
#: 20.0 s as 8 one after another (each module parses the source again, but that is small).
MODULE_GROUPS = 8
#: host memory one NVRTC compile is allowed (the threads are capped at a quarter of the
#: free memory in these)
NVRTC_BYTES = 1 << 30


def groups(names: list[str], count: int = MODULE_GROUPS) -> list[list[str]]:
    """``names`` (duplicates dropped) dealt round-robin into at most ``count`` groups, so that
    the heavy pass instances, which come first, spread over them."""
    names = list(dict.fromkeys(names))
    count = max(1, min(count, len(names)))
    return [names[q::count] for q in range(count)]


def compile_threads(count: int) -> int:
    """Threads for ``count`` modules: no more than the cores this process may use, nor than
    a quarter of the free memory holds at NVRTC_BYTES each."""
    from ... import host

    return host.workers(count, NVRTC_BYTES)


class Modules:
    """A stepper's kernels, compiled as several CuPy modules. Each module holds its own copy
    of the constants (the coefficient table and the rest), so a constant is written to every
    one; a kernel is fetched from the module that compiled it."""

    def __init__(self, modules: list, groups: list[list[str]], copies: list[int]):
        self.modules = modules
        #: each module's copy (see load_module): 0 unless another live stepper held it
        self.copies = copies
        self._owner = {name: m for m, group in zip(modules, groups, strict=True) for name in group}

    def get_function(self, name: str):
        return self._owner[name].get_function(name)

    def get_global(self, name: str) -> _Constant:
        return _Constant([m.get_global(name) for m in self.modules])


class _Constant:
    """A ``__constant__`` variable of every module: copy_from_host writes each."""

    def __init__(self, pointers: list):
        self.pointers = pointers

    def copy_from_host(self, src: int, nbytes: int) -> None:
        for p in self.pointers:
            p.copy_from_host(src, nbytes)


#: the CuPy version from which a module compiled with name expressions is found in the disk
#: cache by a later process (before 14.1 it never was; 14.1 missed templates of several
#: arguments: CuPy issues 9667 and 10173)
CACHED_CUPY = (14, 2)


def cupy_caches_modules() -> bool:
    """Whether this CuPy finds the modules of an earlier process in its disk cache (not where
    $CUPY_CACHE_IN_MEMORY keeps its cache in memory)."""
    import os
    import re

    import cupy

    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0"):
        return False
    got = tuple(int(x) for x in re.findall(r"\d+", cupy.__version__)[:2])
    return got >= CACHED_CUPY


#: module key (device, files, options, instances) -> the copies live steppers hold
_HELD: dict[tuple, set[int]] = {}
#: (module key, copy) pairs handed out before in this process: their kernels may still run
_USED: set[tuple] = set()
_HELD_LOCK = threading.RLock()


def _claim(keys: list[tuple]) -> list[int]:
    """For each key, the lowest copy no live stepper holds, now held."""
    with _HELD_LOCK:
        out = []
        for key in keys:
            held = _HELD.setdefault(key, set())
            k = 0
            while k in held:
                k += 1
            held.add(k)
            out.append(k)
        return out


def _handed_out(keys: list[tuple], copies: list[int]) -> bool:
    """Whether any of these copies was handed out before (its last holder's kernels may
    still be queued); from now on, each has been."""
    with _HELD_LOCK:
        pairs = set(zip(keys, copies, strict=True))
        before = bool(pairs & _USED)
        _USED.update(pairs)
        return before


def _release(keys: list[tuple], copies: list[int]) -> None:
    if not copies:   # none held (between a release and the claim after it)
        return
    with _HELD_LOCK:
        for key, k in zip(keys, copies, strict=True):
            held = _HELD.get(key)
            if held is not None:
                held.discard(k)
                if not held:
                    del _HELD[key]


def load_module(files: tuple[str, ...], names: list[str]) -> Modules:
    """Compile (or fetch from CuPy's cache) and load the instances ``names`` of ``files``, as
    the modules of ``groups(names)``, compiled on threads (compile_threads).

    CuPy gives every RawModule of the same source, options and instances the same module
    (per device, for the process), and with it the same constants. A module a live stepper
    holds is therefore compiled again, for the next, from the source with a comment naming
    the copy (each copy is kept in CuPy's disk cache like the plain source, copy 0). A
    stepper's copies are freed with its modules (after a garbage collection where it is in
    a reference cycle: one runs before a second copy is made). A copy handed out before is
    handed out again only after the device has finished its work: its last holder's kernels
    may still be queued, reading the constants the new holder is about to write."""
    import gc
    import weakref

    import cupy

    code = kernel_source(files)
    parts = groups(names)
    opts = options()
    threads = compile_threads(len(parts))
    device = cupy.cuda.Device().id   # a thread's current device is its own
    keys = [(device, files, opts, tuple(g)) for g in parts]
    copies = _claim(keys)
    try:
        if any(copies):   # held: a stepper no longer reachable may still hold them
            _release(keys, copies)
            copies = []
            gc.collect()
            copies = _claim(keys)
        reused = _handed_out(keys, copies)

        def one(part: tuple[list[str], int]):
            group, k = part
            source = code if k == 0 else f"{code}\n// copy {k} (another live stepper's)\n"
            with cupy.cuda.Device(device):
                module = cupy.RawModule(code=source, options=opts, name_expressions=group)
                module.compile()
            return module

        if threads == 1:
            modules = [one(p) for p in zip(parts, copies, strict=True)]
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads) as pool:
                modules = list(pool.map(one, zip(parts, copies, strict=True)))
        if reused:
            with cupy.cuda.Device(device):
                cupy.cuda.runtime.deviceSynchronize()
        out = Modules(modules, parts, copies)
        weakref.finalize(out, _release, keys, copies)
    except cupy.cuda.compiler.CompileException as exc:
        _release(keys, copies)
        first = str(exc).strip().splitlines()
        raise KernelError(f"kernel compilation failed: {first[0] if first else exc}") from None
    except BaseException:
        _release(keys, copies)
        raise
    return out
