"""Kernel sources (package data) and their compilation through CuPy (NVRTC).

Kernels are C++ templates over the field type (float, double), the id type (uint8,
uint16) and compile-time switches; each stepper asks for the instances it launches by name
(``name_expressions``). CuPy caches the compiled binary on disk per device and source, so a
new module costs a load, not a compilation. Each stepper loads its own module because the
coefficient table lives in that module's constant memory.
"""

from __future__ import annotations

import hashlib
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


def load_module(files: tuple[str, ...], names: list[str]):
    """Compile (or fetch from CuPy's cache) and load a module with the given instances."""
    import cupy

    code = kernel_source(files)
    try:
        module = cupy.RawModule(code=code, options=options(), name_expressions=list(names))
        module.compile()
    except cupy.cuda.compiler.CompileException as exc:
        first = str(exc).strip().splitlines()
        raise KernelError(f"kernel compilation failed: {first[0] if first else exc}") from None
    return module
