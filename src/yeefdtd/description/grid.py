"""The grid: number of cells, cell sizes and the 2D/3D mode."""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, PositiveFloat, PositiveInt, field_validator, model_validator

from ..constants import MODE_COMPONENTS, SPACING_RANGE
from .base import FieldError, StrictModel

Mode = Literal["3d", "tmz", "tez"]


class Grid(StrictModel):
    """A uniform rectilinear Yee grid whose cells may differ in size along x, y and z.

    The domain spans ``[0, nx*dx] x [0, ny*dy] x [0, nz*dz]`` metres. In the 2D modes the
    grid has ``[nx, ny]`` cells and nothing varies along z: ``tmz`` carries Ez, Hx and Hy,
    ``tez`` carries Hz, Ex and Ey.
    """

    mode: Mode = Field("3d", description="'3d', or a 2D mode: 'tmz' (Ez, Hx, Hy) or 'tez' "
                       "(Hz, Ex, Ey)")
    cells: Annotated[tuple[PositiveInt, ...], Field(min_length=2, max_length=3)] = Field(
        description="number of cells [nx, ny, nz] (3D) or [nx, ny] (2D)")
    spacing: PositiveFloat | Annotated[tuple[PositiveFloat, ...],
                                       Field(min_length=2, max_length=3)] = Field(
        description="cell size in metres: one value for cubic cells, or [dx, dy, dz] "
                    "([dx, dy] in 2D)")

    @field_validator("spacing", mode="before")
    @classmethod
    def _spacing_values(cls, v):
        """Each of a list of spacings a positive number, named by its place (a bad one was
        reported against the whole list, as not a number: the single value's message)."""
        if isinstance(v, (list, tuple)):
            for i, d in enumerate(v):
                if isinstance(d, (bool, np.bool_)) or \
                        not isinstance(d, (int, float, np.integer, np.floating)):
                    raise FieldError(f"[{i}]", f"must be a cell size in metres (got {d!r})")
                if not math.isfinite(d) or d <= 0:
                    raise FieldError(f"[{i}]", f"must be a positive, finite cell size in "
                                     f"metres (got {d!r})")
        return v

    @field_validator("spacing")
    @classmethod
    def _spacing_in_range(cls, v):
        lo, hi = SPACING_RANGE
        for d in v if isinstance(v, tuple) else (v,):
            if not lo <= d <= hi:
                raise ValueError(f"{d:g} m is outside {lo:g} to {hi:g} m; give cell sizes in "
                                 "metres")
        return v

    @field_validator("cells")
    @classmethod
    def _cells_not_huge(cls, v):
        if math.prod(v) > 2**40:
            n = math.prod(v)
            size = f"{n:.3g}" if n < 1e300 else f"a {len(str(n))}-digit number of"
            raise ValueError(f"{size} cells is more than any device holds; use fewer cells")
        return v

    @model_validator(mode="after")
    def _dimensions_match_mode(self):
        want = 3 if self.mode == "3d" else 2
        if len(self.cells) != want:
            raise FieldError(
                "cells", f"a {'3D' if want == 3 else '2D'} grid (mode {self.mode!r}) takes "
                f"{want} values, got {len(self.cells)}")
        if isinstance(self.spacing, tuple) and len(self.spacing) != want:
            raise FieldError(
                "spacing", f"a grid of mode {self.mode!r} takes one value or {want}, "
                f"got {len(self.spacing)}")
        return self

    @property
    def is_2d(self) -> bool:
        return self.mode != "3d"

    @property
    def ndim(self) -> int:
        return 2 if self.is_2d else 3

    @property
    def shape(self) -> tuple[int, int, int]:
        """Cells along (x, y, z); nz is 1 in 2D."""
        return (*self.cells, 1) if self.is_2d else tuple(self.cells)

    @property
    def steps(self) -> tuple[float, float, float]:
        """Cell sizes (dx, dy, dz) in metres; dz is infinite in 2D (nothing varies along z)."""
        sp = self.spacing if isinstance(self.spacing, tuple) else (self.spacing,) * self.ndim
        return (*sp, math.inf) if self.is_2d else tuple(sp)

    @property
    def size(self) -> tuple[float, ...]:
        """Extent of the domain in metres, one value per dimension."""
        return tuple(n * d for n, d in zip(self.cells, self.steps, strict=False))

    @property
    def components(self) -> tuple[str, ...]:
        """The field components this mode carries."""
        return MODE_COMPONENTS[self.mode]

    @property
    def num_cells(self) -> int:
        return math.prod(self.cells)
