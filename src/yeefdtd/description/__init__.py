"""Scene description: pydantic models in SI units, with no arrays and no device knowledge."""

from .boundaries import FACES, Boundaries, Cpml
from .geometry import Box, Cylinder, Sphere
from .grid import Grid
from .materials import BUILTIN_MATERIALS, Material
from .monitors import Probe, Snapshot
from .scene import RunSettings, Scene
from .sources import PointSource
from .waveforms import DiffGaussian, Gaussian, ModulatedGaussian, Ricker, Samples, Sine

__all__ = [
    "BUILTIN_MATERIALS", "FACES", "Boundaries", "Box", "Cpml", "Cylinder", "DiffGaussian",
    "Gaussian", "Grid", "Material", "ModulatedGaussian", "PointSource", "Probe", "Ricker",
    "RunSettings", "Samples", "Scene", "Sine", "Snapshot", "Sphere",
]
