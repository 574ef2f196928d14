"""yeefdtd: FDTD electromagnetics on the Yee grid, on NVIDIA GPUs (CUDA through CuPy) or
with NumPy anywhere.

    >>> import yeefdtd as yf
    >>> scene = yf.Scene.load("examples/dipole_cpml.toml")
    >>> result = yf.run(scene)
    >>> result.probes["near"]["ez"]
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import startup  # first: it decides what Ctrl-C while the rest loads does

startup.watch()   # in the command, until cli.main settles it
try:   # NumPy and pydantic: most of a second, before the command can catch anything
    from .bscan import bscan
    from .build.model import Model, build_model
    from .description import (
        BUILTIN_MATERIALS,
        Boundaries,
        Box,
        Cpml,
        Cylinder,
        DiffGaussian,
        Gaussian,
        Grid,
        Material,
        ModulatedGaussian,
        PointSource,
        Probe,
        Ricker,
        RunSettings,
        Samples,
        Scene,
        Sine,
        Snapshot,
        Sphere,
    )
    from .exceptions import (
        BackendUnavailable,
        DivergenceError,
        KernelError,
        NotFound,
        OutOfMemory,
        RunInterrupted,
        SetupError,
        ValidationError,
        YeeError,
    )
    from .results import ProbeData, Result, SnapshotData, load
    from .run import make_stepper, run, run_model
except BaseException as exc:
    startup.interrupted(exc)   # Ctrl-C in the command: one line, status 130
    raise

__all__ = [
    "BUILTIN_MATERIALS", "BackendUnavailable", "Boundaries", "Box", "Cpml", "Cylinder",
    "DiffGaussian", "DivergenceError", "Gaussian", "Grid", "KernelError", "Material", "Model",
    "ModulatedGaussian", "NotFound", "OutOfMemory", "PointSource", "Probe", "ProbeData", "Result",
    "Ricker", "RunInterrupted", "RunSettings", "Samples", "Scene", "SetupError", "Sine",
    "Snapshot", "SnapshotData", "Sphere", "ValidationError", "YeeError", "__version__",
    "bscan", "build_model", "load", "make_stepper", "run", "run_model",
]
