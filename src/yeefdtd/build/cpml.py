"""CPML (Roden and Gedney 2000): graded profiles and the slabs they act on.

In a layer normal to axis s, every derivative along s in the update equations is replaced
by ``(1/kappa) d/ds + psi``, where the auxiliary field follows the recursion::

    psi <- b psi + c D,      b = exp(-(sigma/kappa + alpha) dt / eps0),
                             c = sigma (b - 1) / (sigma kappa + kappa^2 alpha)

with D the plain difference across the cell (so psi carries field units). The update then
adds ``C_d ((1/kappa - 1) D + psi)`` to the field, where C_d is the field's own coefficient
for that difference (its material's, so lossy and anisotropic media inside the layer work).
The auxiliary arrays cover the slab only: L planes along s, the whole grid across it.

Depth u in [0, 1] runs from the layer's inner face (0) to the wall (1): E points lie on
whole nodes, H points half a node in, each graded at its own depth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..constants import EPS0, ETA0
from ..description.boundaries import Cpml
from .grid import YeeGrid, axis_of, curl_axes


@dataclass(frozen=True)
class Profile:
    """Recursion coefficients along the slab axis for one field kind (E or H points)."""

    start: int           #: first index of the slab along its axis
    b: np.ndarray        #: (L,) float64
    c: np.ndarray        #: (L,) float64
    kinv_m1: np.ndarray  #: (L,) float64: 1/kappa - 1


@dataclass(frozen=True)
class Slab:
    """One CPML face: its axis, side, thickness and the profiles for E and H points."""

    axis: int
    side: str        #: 'min' or 'max'
    cells: int
    e: Profile
    h: Profile

    def terms(self, components) -> list[tuple[str, str, int]]:
        """(component, curl field, coefficient column) for each derivative along the axis.

        Column 1 is the b-difference, column 2 the c-difference (see coefficients).
        """
        out = []
        for comp in components:
            if axis_of(comp) == self.axis:
                continue
            b, c = curl_axes(comp)
            other = "h" if comp[0] == "e" else "e"
            if self.axis == b:  # difference along b of the c-component
                out.append((comp, f"{other}{'xyz'[c]}", 1))
            else:               # difference along c of the b-component
                out.append((comp, f"{other}{'xyz'[b]}", 2))
        return [t for t in out if t[1] in components]


def sigma_max(params: Cpml, d: float, eps_r: float, mu_r: float) -> float:
    """The optimum conductivity 0.8 (m + 1) / (eta0 d sqrt(eps_r mu_r)) times the factor."""
    return params.sigma_factor * 0.8 * (params.order + 1.0) / (ETA0 * d * math.sqrt(eps_r * mu_r))


def _profile(params: Cpml, u: np.ndarray, smax: float, dt: float, start: int) -> Profile:
    m = params.order
    sigma = smax * u**m
    kappa = 1.0 + (params.kappa_max - 1.0) * u**m
    alpha = params.alpha_max * (1.0 - u) ** params.alpha_order
    b = np.exp(-(sigma / kappa + alpha) * dt / EPS0)
    den = sigma * kappa + kappa**2 * alpha
    c = np.divide(sigma * (b - 1.0), den, out=np.zeros_like(sigma), where=den > 0)
    return Profile(start=start, b=b, c=c, kinv_m1=1.0 / kappa - 1.0)


def face_index(grid: YeeGrid, axis: int, background) -> float:
    """The refractive index a face normal to ``axis`` is matched to: per pair of its terms
    (E along a, H along b, both across the axis: a wave along the axis), n = sqrt(eps_r[a]
    mu_r[b]) of the background; the geometric mean of the pairs the grid has (TMz and TEz
    have one a face: its own exactly). The mean eps_r and mu_r over every axis mismatched
    an anisotropic background's layers: eps_r = (9, 1, 4) in 3D, the wave with E along y
    (n = 1) reflected at -66.9 dB against -89.6 in vacuum, and eps_r = [9, 9, 1] on a TMz
    grid, before only the axes its fields have counted, -65 dB against -92."""
    logs = []
    for comp in grid.components:
        a = axis_of(comp)
        if comp[0] != "e" or a == axis:
            continue
        b = 3 - axis - a   # the third axis: the H component of the pair
        if f"h{'xyz'[b]}" in grid.components:
            logs.append(0.5 * math.log(background.eps_r[a] * background.mu_r[b]))
    if not logs:   # (no face of a grid lacks them; as before, the means over the axes)
        eps_r = float(np.mean([background.eps_r[a] for a in grid.axes_seen("e")]))
        mu_r = float(np.mean([background.mu_r[a] for a in grid.axes_seen("h")]))
        return math.sqrt(eps_r * mu_r)
    return math.exp(sum(logs) / len(logs))


def make_slab(params: Cpml, grid: YeeGrid, axis: int, side: str, background) -> Slab:
    """Profiles of one face. ``background`` is the material the layer is matched to, by
    its refractive index for waves across the face (face_index)."""
    L, n, d = params.cells, grid.cells[axis], grid.steps[axis]
    smax = sigma_max(params, d, face_index(grid, axis, background) ** 2, 1.0)
    k = np.arange(L, dtype=np.float64)
    if side == "min":
        e = _profile(params, (L - k) / L, smax, grid.dt, 0)            # E nodes 0..L-1
        h = _profile(params, (L - k - 0.5) / L, smax, grid.dt, 0)      # H nodes 0..L-1
    else:
        e = _profile(params, (k + 1) / L, smax, grid.dt, n - L + 1)    # E nodes n-L+1..n
        h = _profile(params, (k + 0.5) / L, smax, grid.dt, n - L)      # H nodes n-L..n-1
    return Slab(axis=axis, side=side, cells=L, e=e, h=h)


def cpml_faces(scene) -> list[tuple[int, str, Cpml]]:
    """(axis, side, its Cpml) of each face of the scene's grid that ends in a CPML layer."""
    faces = []
    for axis in range(scene.grid.ndim):
        for side in ("min", "max"):
            face = scene.boundaries.face(f"{'xyz'[axis]}_{side}")
            if isinstance(face, Cpml):
                faces.append((axis, side, face))
    return faces


def make_slabs(scene, grid: YeeGrid) -> list[Slab]:
    background = scene.material(scene.background)
    return [make_slab(face, grid, axis, side, background)
            for axis, side, face in cpml_faces(scene)]
