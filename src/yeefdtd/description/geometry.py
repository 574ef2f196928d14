"""Geometric objects: axis-aligned boxes, spheres and cylinders along x, y or z.

Objects are listed in a scene in order; a later object overwrites an earlier one where they
overlap, and cells inside no object hold the scene's background material. In 2D the
coordinates have two values (x, y): a sphere is a disc, a cylinder must lie along z.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import Field, PositiveFloat, PrivateAttr, field_validator

from .base import Axis, StrictModel, Vec, real_array

_AXIS = {"x": 0, "y": 1, "z": 2}


#: a point this far (relative to the coordinates and sizes involved) past an object's
#: surface counts as on it, so inside: floating-point rounding of the centre plus or minus
#: half the size put grid points that lie exactly on a face (a box drawn on grid planes)
#: inside or outside by chance (a PEC plate one cell thick, on grid planes, was missed).
#: 1e-14 is some 45 roundings of the largest of them (a face's c - s/2, a point's (i + 1/2) d,
#: each a rounding or two from exact); 1e-12 moved the faces of objects of the sizes a
#: scene may have by cells: a box 1e9 m long reached a point 0.3 mm short of its face on
#: 1 mm cells, a sphere of that radius one 1.3 mm short
ON_SURFACE = 1e-14


class _Object(StrictModel):
    material: str = Field(description="name of a material in the scene, or 'vacuum', "
                          "'pec' or 'pmc'")
    #: per axis, how far (metres) this object lies from where the scene put it: an image of
    #: it along a periodic axis (moved()), whose centre keeps the rounding of the one given
    _moved: tuple = PrivateAttr((0.0, 0.0, 0.0))

    def moved(self, by) -> _Object:
        """A copy shifted by ``by`` (metres per axis), whose allowance at its surface
        (allowance()) counts the shift: the centre c + k L of an image carries the rounding
        of c and of L, which the image's own small centre and size do not measure (a PEC
        box across a periodic seam, on 0.25 mm cells 0.3 m from the origin, held one cell
        fewer of its image than of itself)."""
        out = self.model_copy(update={"center": tuple(
            c + d for c, d in zip(self.center, by, strict=True))})
        by = tuple(by) + (0.0,) * (3 - len(by))
        out._moved = tuple(abs(m) + abs(d) for m, d in zip(self._moved, by, strict=True))
        return out

    def allowance(self, a: int, *scales: float) -> float:
        """ON_SURFACE's allowance (metres) along axis ``a`` for a comparison of values of
        the magnitudes ``scales``, with the distance the object was moved()."""
        return ON_SURFACE * (sum(abs(s) for s in scales) + self._moved[a])

    def contains(self, x, y, z):
        """Boolean array: which of the points (broadcast arrays, metres) lie inside."""
        raise NotImplementedError

    @staticmethod
    def _points(x, y, z) -> tuple:
        """contains' coordinates as arrays of real numbers that broadcast together, or a
        one-line ValidationError."""
        from ..exceptions import ValidationError

        # as given: the voxelizer's float64 arrays are not copied
        pts = [real_array(p, name, "coordinates in metres")
               for name, p in zip("xyz", (x, y, z), strict=True)]
        try:
            np.broadcast_shapes(*(a.shape for a in pts))
        except ValueError:
            shapes = ", ".join(str(a.shape) for a in pts)
            raise ValidationError(f"x, y, z: arrays of shapes {shapes} that do not broadcast "
                                  "together; give arrays of one shape") from None
        return tuple(pts)

    def bounds(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Lower and upper corner of the bounding box, metres."""
        raise NotImplementedError


class Box(_Object):
    """An axis-aligned box given by its centre and its size (metres)."""

    type: Literal["box"] = "box"
    center: Vec = Field(description="centre, metres")
    size: Annotated[tuple[float, ...], Field(min_length=2, max_length=3)] = Field(
        description="edge lengths along x, y (and z), metres; each > 0")

    @field_validator("size")
    @classmethod
    def _positive(cls, v):
        if min(v) <= 0:
            raise ValueError(f"every edge must be > 0 metres (got {list(v)})")
        return v

    def contains(self, x, y, z):
        pts = self._points(x, y, z)
        inside = np.ones(np.broadcast_shapes(*(np.shape(p) for p in pts)), dtype=bool)
        for a, (c, s) in enumerate(zip(self.center, self.size, strict=False)):
            half = 0.5 * s
            inside &= np.abs(pts[a] - c) <= half + self.allowance(a, c, half)
        return inside

    def bounds(self):
        lo = tuple(c - 0.5 * s for c, s in zip(self.center, self.size, strict=False))
        hi = tuple(c + 0.5 * s for c, s in zip(self.center, self.size, strict=False))
        return lo, hi


class Sphere(_Object):
    """A sphere (a disc in 2D) given by its centre and radius (metres)."""

    type: Literal["sphere"] = "sphere"
    center: Vec = Field(description="centre, metres")
    radius: PositiveFloat = Field(description="radius, metres")

    def contains(self, x, y, z):
        pts = self._points(x, y, z)
        with np.errstate(over="ignore"):   # a radius past 1e154 m: everything is inside
            r2 = sum(np.square(pts[a] - c) for a, c in enumerate(self.center))
            return r2 <= np.square(_reach(self.radius, self.center, self._moved))

    def bounds(self):
        return (tuple(c - self.radius for c in self.center),
                tuple(c + self.radius for c in self.center))


class Cylinder(_Object):
    """A circular cylinder along x, y or z; without a length it spans the whole domain."""

    type: Literal["cylinder"] = "cylinder"
    center: Vec = Field(description="centre, metres")
    radius: PositiveFloat = Field(description="radius, metres")
    axis: Axis = Field("z", description="direction of the cylinder's axis")
    length: PositiveFloat | None = Field(None, description="length along the axis, metres; "
                                         "omit for a cylinder through the whole domain")

    def contains(self, x, y, z):
        pts = self._points(x, y, z)
        ax = _AXIS[self.axis]
        with np.errstate(over="ignore"):   # as in Sphere.contains
            r2 = sum(np.square(pts[a] - c) for a, c in enumerate(self.center) if a != ax)
            inside = r2 <= np.square(_reach(self.radius, self.center, self._moved))
        if self.length is not None and ax < len(self.center):
            c, half = self.center[ax], 0.5 * self.length
            inside = inside & (np.abs(pts[ax] - c) <= half + self.allowance(ax, c, half))
        return inside

    def bounds(self):
        ax = _AXIS[self.axis]
        lo, hi = [], []
        for a, c in enumerate(self.center):
            half = self.radius if a != ax else (
                np.inf if self.length is None else 0.5 * self.length)
            lo.append(c - half)
            hi.append(c + half)
        return tuple(lo), tuple(hi)


def _reach(radius: float, center, moved) -> np.float64:
    """A radius with ON_SURFACE's allowance (with the distance the object was moved)."""
    return np.float64(radius) * (1 + ON_SURFACE) + ON_SURFACE * max(
        abs(c) + m for c, m in zip(center, moved, strict=False))


Object = Annotated[Box | Sphere | Cylinder, Field(discriminator="type")]
