"""Build: a scene becomes arrays (grid, material ids, coefficient tables, CPML, plans)."""

from .grid import OFFSETS, YeeGrid, axis_of, curl_axes, time_step
from .model import Model, build_model, face_kinds

__all__ = ["OFFSETS", "Model", "YeeGrid", "axis_of", "build_model", "curl_axes", "face_kinds",
           "time_step"]
