"""The CUDA backend: kernels compiled at run time through CuPy (imported lazily)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def device_status() -> tuple[bool, str]:
    """(True, device description) when CuPy imports and sees a usable GPU, else (False, why)."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})".split("\n")[0]
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no usable CUDA device ({type(exc).__name__})"
    if count < 1:
        return False, "no CUDA device found"
    try:
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        mem = props["totalGlobalMem"] / 2**30
    except Exception as exc:
        return False, f"the CUDA device cannot be queried ({type(exc).__name__})"
    return True, f"{name}, {mem:.1f} GiB"


def __getattr__(name):
    if name == "CudaStepper":
        from .stepper import CudaStepper

        return CudaStepper
    raise AttributeError(name)
