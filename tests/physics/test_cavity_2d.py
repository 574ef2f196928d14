"""2D cavities (TMz and TEz, PEC and PMC walls) against the discrete dispersion relation."""

from __future__ import annotations

import math

import pytest

import yeefdtd as yf
from yeefdtd.constants import C0
from yeefdtd.spectra import refine_peak

CELLS = (16, 11)
SPACING = (1.0e-3, 1.4e-3)


def resonance(mode, dt: float) -> float:
    s = sum((math.sin(m * math.pi / (2 * n)) / d) ** 2
            for m, n, d in zip(mode, CELLS, SPACING, strict=True))
    return 2.0 / dt * math.asin(C0 * dt * math.sqrt(s)) / (2 * math.pi)


@pytest.mark.parametrize("mode, walls, modes", [
    ("tmz", "pec", [(1, 1), (2, 1), (1, 2)]),          # Ez ~ sin sin
    ("tmz", "pmc", [(1, 0), (0, 1), (1, 1), (2, 1)]),  # Ez ~ cos cos (image of H)
    ("tez", "pec", [(1, 0), (0, 1), (1, 1), (2, 1)]),  # Hz ~ cos cos
    ("tez", "pmc", [(1, 1), (2, 1), (1, 2)]),          # Hz ~ sin sin
])
def test_2d_cavity_resonances(mode, walls, modes, backend):
    """A 16 x 11 cell box (dx = 1.0 mm, dy = 1.4 mm) with PEC or PMC on all four walls.

    The out-of-plane component (Ez for TMz, Hz for TEz) is driven by a broadband soft
    source at cell (3, 4) and probed at cell (11, 7) for 12000 steps. By duality the
    cosine modes of one kind of wall are the sine modes of the other, and on the Yee
    grid all of them sit exactly at the frequencies of the discrete dispersion relation
    (PMC walls hold the image of H, which keeps that exact). As for the 3D cavity, only
    the spectral estimate errs: in float64 at most 1.8e-5 (TEz, PEC walls, mode (2, 1));
    most modes 2e-6 to 5e-6, from 12000 steps of a small box; 1e-4 is the bound. A PMC wall
    treated as PEC would move the lowest peak by 20% or more.
    """
    comp = "ez" if mode == "tmz" else "hz"
    scene = yf.Scene(
        grid=yf.Grid(mode=mode, cells=CELLS, spacing=SPACING),
        boundaries=walls,
        sources=[yf.PointSource(component=comp, cell=(3, 4), waveform=yf.Gaussian(tau=4e-12))],
        monitors=[yf.Probe(name="p", cell=(11, 7), components=[comp])],
        run=yf.RunSettings(steps=12000, dtype="float64", backend=backend),
    )
    res = yf.run(scene, progress=False)
    p = res.probes["p"]
    for m in modes:
        f_th = resonance(m, res.stats["dt"])
        f, height = refine_peak(p[comp], p.times[comp], 0.995 * f_th, 1.005 * f_th)
        assert height > 1e-3, f"mode {m} not excited ({height:.1e})"
        assert abs(f / f_th - 1) < 1e-4, f"mode {m}: {f:.9e} against {f_th:.9e}"


@pytest.mark.parametrize("eps_r", [1.0, 9.0])
def test_a_pmc_box_ends_a_cavity_half_a_cell_inside_its_face(eps_r, backend):
    """A TEz line (one periodic cell along y) with a PEC wall at x = 0 and a PMC box from
    x = 10 mm to the PEC wall at 20 mm, in a background of eps_r 1 or 9: the box holds Hz
    from x = 10.5 mm on, and Ey on its face (x = 10 mm) sees the background, so the line
    is a Yee quarter-wave resonator of L = 10.5 mm, whose modes sit at the discrete
    dispersion relation's sin(w dt / 2) = (v dt / dx) sin(k dx / 2), k = (2m + 1) pi / 2L.
    Bound 1e-6 (measured: within 1e-8, a lossless line of well-separated modes). Ey on the face
    took vacuum's eps_r, so in eps_r = 9 the line was shorter: the lowest mode 3.9e-2 above
    the continuum's c / (4 * 10 mm * 3), where the half cell puts it 4.8e-2 below."""
    d = 1e-3
    scene = yf.Scene(
        grid=yf.Grid(mode="tez", cells=(20, 1), spacing=d),
        materials={"bg": yf.Material(eps_r=eps_r)}, background="bg",
        objects=[yf.Box(center=(0.015, 0.5 * d), size=(0.010, 4 * d), material="pmc")],
        boundaries={"x_min": "pec", "x_max": "pec", "y_min": "periodic", "y_max": "periodic"},
        sources=[yf.PointSource(component="ey", position=(0.0031, 0.0),
                                waveform=yf.Gaussian(tau=20e-12))],
        monitors=[yf.Probe(name="p", position=(0.0057, 0.0), components=["ey"])],
        run=yf.RunSettings(steps=12000, dtype="float64", backend=backend))
    res = yf.run(scene, progress=False)
    dt, v, length = res.stats["dt"], C0 / math.sqrt(eps_r), 10.5e-3
    p = res.probes["p"]
    for m in (0, 1):
        k = (2 * m + 1) * math.pi / (2 * length)
        f_th = 2.0 / dt * math.asin(v * dt / d * math.sin(k * d / 2)) / (2 * math.pi)
        f, height = refine_peak(p["ey"], p.times["ey"], 0.99 * f_th, 1.01 * f_th)
        assert height > 1e-3, f"mode {m} not excited ({height:.1e})"
        assert abs(f / f_th - 1) < 1e-6, f"mode {m}: {f:.9e} against {f_th:.9e}"
