"""The NumPy reference backend: readable, float64-capable, the oracle for every other."""

from .stepper import NumpyStepper

__all__ = ["NumpyStepper"]
