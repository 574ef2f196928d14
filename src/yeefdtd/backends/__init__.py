"""Backends: the NumPy reference and the CUDA kernels, behind one Stepper interface."""

from __future__ import annotations

from ..exceptions import BackendUnavailable
from .base import Records, Stepper

BACKENDS = ("numpy", "cuda")


class NotInstalled(str):
    """A reason the CUDA backend cannot run that installing it (CuPy, through the package's
    extra) would mend, as opposed to a driver or device that CuPy reports on."""


def cuda_status() -> tuple[bool, str]:
    """(usable, why not / device name) for the CUDA backend, without raising."""
    try:
        from .cuda import device_status
    except ImportError as exc:  # the cuda package itself is missing
        return False, NotInstalled(f"the CUDA backend is not installed ({exc})")
    return device_status()


def _install_advice(why: str) -> str:
    """Advice to install CuPy, only where CuPy is what is missing (a NotInstalled reason):
    where it imports and the driver or device is the trouble, ``why`` carries its own
    advice and a second install would change nothing."""
    if isinstance(why, NotInstalled):
        return ", or install the extra of your CUDA (yeefdtd[cuda12] or yeefdtd[cuda13])"
    return ""


def get_stepper_class(name: str):
    """The stepper class for a backend name; ``auto`` is resolved by :func:`resolve`."""
    if name == "numpy":
        from .numpy import NumpyStepper

        return NumpyStepper
    if name == "cuda":
        ok, why = cuda_status()
        if not ok:
            raise BackendUnavailable(f"backend 'cuda' cannot run here: {why}; use "
                                     f"backend 'numpy' (--backend numpy){_install_advice(why)}")
        from .cuda import CudaStepper

        return CudaStepper
    raise BackendUnavailable(f"unknown backend {name!r}; use one of auto, numpy, cuda")


def resolve(name: str) -> tuple[str, str | None]:
    """(backend to use, note to show once) for a requested backend name."""
    if name != "auto":
        return name, None
    ok, why = cuda_status()
    if ok:
        return "cuda", None
    return "numpy", f"backend 'auto': using numpy ({why})"


__all__ = ["BACKENDS", "NotInstalled", "Records", "Stepper", "cuda_status",
           "get_stepper_class", "resolve"]
