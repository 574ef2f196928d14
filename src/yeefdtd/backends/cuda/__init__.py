"""The CUDA backend: kernels compiled at run time through CuPy (imported lazily)."""

from __future__ import annotations

from functools import lru_cache


def _first_line(exc: BaseException) -> str:
    """The exception's type and the first line of its message: CuPy's runtime errors name
    the CUDA error (``cudaErrorInsufficientDriver: CUDA driver version is insufficient
    ...``), which is what a user needs to act on."""
    text = str(exc).strip().split("\n")[0]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _driver_advice(exc: BaseException) -> str:
    """What to change where CuPy imports but the driver cannot serve it."""
    text = str(exc)
    if "InsufficientDriver" in text or "driver version is insufficient" in text:
        return ("; the NVIDIA driver is older than the CUDA this CuPy was built for: update "
                "the driver, or install the CuPy of the CUDA version nvidia-smi shows "
                "(yeefdtd[cuda12] for 12.x, yeefdtd[cuda13] for 13.x)")
    if "NoDevice" in text or "no CUDA-capable device" in text:
        return "; no GPU is visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)"
    return "; check that nvidia-smi sees the GPU"


@lru_cache(maxsize=1)
def device_status() -> tuple[bool, str]:
    """(True, device description) when CuPy imports and sees a usable GPU, else (False, why)."""
    from .. import NotInstalled

    try:
        import cupy
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        why = f"CuPy is not importable ({type(exc).__name__}: {exc})".split("\n")[0]
        return False, NotInstalled(why)
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no usable CUDA device ({_first_line(exc)}){_driver_advice(exc)}"
    if count < 1:
        return False, "no CUDA device found"
    try:
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        mem = props["totalGlobalMem"] / 2**30
    except Exception as exc:
        return False, f"the CUDA device cannot be queried ({_first_line(exc)})"
    return True, f"{name}, {mem:.1f} GiB"


def __getattr__(name):
    if name == "CudaStepper":
        from .stepper import CudaStepper

        return CudaStepper
    raise AttributeError(name)
