r"""The Yee grid: where each field component lives, array shapes and the time step.

Staggering (Yee 1966; Elsherbeni and Demir's unified formulation). Cell (i, j, k) spans
[i dx, (i+1) dx] x [j dy, (j+1) dy] x [k dz, (k+1) dz]. Electric components sit at edge
centres, magnetic components at face centres::

                 z
                 |
                 +----------Ey---------+          Ex (i+1/2, j,     k    )
                /|        (i,j+1/2,k)  |          Ey (i,     j+1/2, k    )
              Ex |                    /|          Ez (i,     j,     k+1/2)
              /  Ez        Hx        / |          Hx (i,     j+1/2, k+1/2)
             +   |  (i,j+1/2,k+1/2)  +  |          Hy (i+1/2, j,     k+1/2)
             |   +---------Ey-------|--+--- y      Hz (i+1/2, j+1/2, k    )
            Ez  /    Hy  (i+1/2,j,  Ez /
             | Ex         k+1/2)     | Ex
             |/     Hz (i+1/2,j+1/2,k)|/
             +----------Ey-----------+
            /
           x            (node (i, j, k) at the front-bottom-left corner)

E is known at whole steps t = n dt, H at half steps t = (n + 1/2) dt. One time step n
updates H from (n - 1/2) dt to (n + 1/2) dt using E at n dt, then E from n dt to (n + 1) dt.

Arrays. Every component is stored in an array of the same shape (Nx, Ny, Nz), indexed
[i, j, k], with x varying fastest in memory (Fortran order, as in the CUDA papers the
kernels follow: flat = i + Nx (j + Ny k)). Along an axis with n cells N = n + 1, or N = n
where the axis is periodic (then node n is node 0 again). Neighbour indices wrap modulo N
on every axis. On a non-periodic axis this is exact too: a component offset by half a cell
along that axis has n valid points, and its slot n is kept at zero (its update
coefficients are zero), so the wrapped read of index -1 by the first E node sees zero,
which is what a PEC or PMC image needs.
In 2D, z has one cell and is periodic: every z difference is zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..constants import C0, COMPONENTS

#: offset of each component inside its cell, in cells, along (x, y, z)
OFFSETS = {
    "ex": (0.5, 0.0, 0.0),
    "ey": (0.0, 0.5, 0.0),
    "ez": (0.0, 0.0, 0.5),
    "hx": (0.0, 0.5, 0.5),
    "hy": (0.5, 0.0, 0.5),
    "hz": (0.5, 0.5, 0.0),
}


def axis_of(component: str) -> int:
    """0, 1 or 2 for a component along x, y or z."""
    return "xyz".index(component[1])


def curl_axes(component: str) -> tuple[int, int]:
    """(b, c): the two axes after the component's own axis, cyclically."""
    a = axis_of(component)
    return (a + 1) % 3, (a + 2) % 3


def time_step(steps: tuple[float, float, float], courant: float,
              flat: tuple[bool, bool, bool] = (False, False, False)) -> float:
    """dt = courant / (c0 sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)); an infinite dz drops its term, as
    does each axis ``flat`` says nothing varies along (see ``flat_axes``), unless all
    would."""
    kept = [d for d, f in zip(steps, flat, strict=True) if math.isfinite(d) and not f]
    kept = kept or [d for d in steps if math.isfinite(d)]
    return courant / (C0 * math.sqrt(sum(1.0 / d**2 for d in kept)))


def flat_axes(cells: tuple[int, int, int],
              periodic: tuple[bool, bool, bool]) -> tuple[bool, bool, bool]:
    """The axes of one periodic cell: every value along one is its neighbour's, so every
    difference along it is zero and it takes no part in the stability limit (a 1D line of
    400 x 1 x 1 periodic cells runs at up to dx / c, not dx / (sqrt(3) c))."""
    return tuple(n == 1 and p for n, p in zip(cells, periodic, strict=True))


#: how near (cells) to halfway between two of a component's points a position is taken
#: as halfway (YeeGrid.nearest: the upper one), past the rounding of position / d
TIE = 1e-6


@dataclass(frozen=True)
class YeeGrid:
    """Array shapes and coordinates of the fields of one scene (no field data)."""

    cells: tuple[int, int, int]        #: cells (nx, ny, nz); nz = 1 in 2D
    steps: tuple[float, float, float]  #: cell sizes (dx, dy, dz), metres; dz = inf in 2D
    periodic: tuple[bool, bool, bool]  #: axes that wrap
    mode: str                          #: '3d', 'tmz' or 'tez'
    components: tuple[str, ...]        #: components present, canonical order
    dt: float                          #: time step, seconds

    @property
    def shape(self) -> tuple[int, int, int]:
        """(Nx, Ny, Nz): the common shape of every field array."""
        return tuple(n if p else n + 1 for n, p in zip(self.cells, self.periodic, strict=False))

    @property
    def num_cells(self) -> int:
        return self.cells[0] * self.cells[1] * self.cells[2]

    @property
    def num_nodes(self) -> int:
        s = self.shape
        return s[0] * s[1] * s[2]

    def axes_seen(self, kind: str) -> list[int]:
        """The axes of the grid's components of ``kind`` ('e' or 'h'), sorted: the axes
        of a material's eps_r (E) or mu_r (H) that its fields see (TMz's Ez: z alone)."""
        return sorted({axis_of(c) for c in self.components if c[0] == kind})

    def extent(self, component: str) -> tuple[int, int, int]:
        """Points of ``component`` that exist along each axis (its valid region)."""
        off = OFFSETS[component]
        return tuple(
            N if (p or o == 0.0) else n
            for N, n, p, o in zip(self.shape, self.cells, self.periodic, off, strict=False)
        )

    def coords(self, component: str, axis: int) -> np.ndarray:
        """Coordinates (metres) of the array slots of ``component`` along ``axis``."""
        d = self.steps[axis]
        if not math.isfinite(d):
            return np.zeros(1)
        return (np.arange(self.shape[axis]) + OFFSETS[component][axis]) * d

    def nearest(self, component: str, position) -> tuple[int, int, int]:
        """Index of the point of ``component`` nearest to ``position`` (metres). Along a
        periodic axis the points wrap (x = L is x = 0, and a point past the last one may
        be nearest to the first); along the others the first or last point stands for what
        lies beyond it. A position halfway between two points (within TIE cells) takes the
        upper one, whatever the rounding of position / d: a B-scan's probe at a node moved
        k cells in metres took hy's point on one side on some traces and the other on the
        rest (30 of 300 traces off on 1 mm cells)."""
        ext = self.extent(component)
        idx = []
        for a in range(3):
            d = self.steps[a]
            if a >= len(position) or not math.isfinite(d):
                idx.append(0)
                continue
            i = math.floor(position[a] / d - OFFSETS[component][a] + 0.5 + TIE)
            idx.append(i % ext[a] if self.periodic[a] else min(max(i, 0), ext[a] - 1))
        return tuple(idx)

    def point(self, component: str, index) -> tuple[float, float, float]:
        """Position (metres) of ``component`` at ``index``; z is 0 in 2D."""
        return tuple(
            (index[a] + OFFSETS[component][a]) * self.steps[a]
            if math.isfinite(self.steps[a]) else 0.0
            for a in range(3)
        )

    def flat(self, index) -> int:
        """Flat index of ``index`` in a field array (x fastest)."""
        Nx, Ny, _ = self.shape
        return int(index[0]) + Nx * (int(index[1]) + Ny * int(index[2]))


__all__ = ["COMPONENTS", "OFFSETS", "YeeGrid", "axis_of", "curl_axes", "time_step"]
