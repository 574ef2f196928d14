"""CPML reflection: a small domain with a 10-cell CPML against a domain large enough that no
reflection comes back within the same time."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf

DX = 1e-3
L = 10  # CPML cells


def _scene(mode: str, cells: int, offset: int, boundaries, steps: int, src, plane, backend,
           dtype="float32", eps_r=1.0, tau=25e-12):
    nd = 3 if mode == "3d" else 2
    comps = yf.Grid(mode=mode, cells=[cells] * nd, spacing=DX).components
    where = {} if nd == 2 else {"axis": "z", "index": plane + offset}
    return yf.Scene(
        grid=yf.Grid(mode=mode, cells=[cells] * nd, spacing=DX),
        boundaries=boundaries,
        materials={"medium": yf.Material(eps_r=eps_r)},
        background="medium",
        sources=[yf.PointSource(component="hz" if mode == "tez" else "ez",
                                cell=tuple(s + offset for s in src),
                                waveform=yf.DiffGaussian(tau=tau))],
        monitors=[yf.Snapshot(name=c, component=c, every=2, **where) for c in comps],
        run=yf.RunSettings(steps=steps, dtype=dtype, backend=backend),
    )


@pytest.mark.parametrize("mode, n, margin, steps", [
    ("3d", 40, 34, 160), ("tmz", 60, 150, 400), ("tez", 60, 150, 400)])
def test_cpml_reflection_below_minus_85_db(mode, n, margin, steps, backend):
    """A soft Ez source (Hz in TEz; differentiated Gaussian, tau = 25 ps: 10 to 30 cells per
    wavelength over its band) sits 5 cells from the inner face of a 10-cell CPML (order 3,
    kappa_max 5, alpha_max 0.05 S/m) in an n-cell cube (square in 2D) of 1 mm cells.

    The reference is the same source in a PEC box ``margin`` cells larger on every side,
    so that within ``steps`` no wave reflected by its walls reaches the compared region
    (the shortest such path, 25 + 2 margin cells, is longer than the distance light
    travels in those steps). Every component is compared on the plane through the source
    (the whole grid in 2D) every second step, over the small domain's interior outside
    the CPML and outside a 3-cell ball round the source (where the source's own field
    would make any difference look small). The largest difference must stay 85 dB below
    the largest reference field of that region: measured -93.7 dB (3D), -91.8 (TMz), -91.9
    (TEz) on NumPy (on cuda, the H200 check at be1b0fb passed this bound); with PEC walls
    instead of the CPML the same measure gives -18 dB (3D) and +4 dB (2D), with sigma_max at
    5% of its optimum -27 dB, and at half of it -78 dB in 2D, so the bound, 7 dB above the
    worst measured, separates the layer as built from a detuned one (a bound of -60 dB let
    half the conductivity pass). In 3D this measure does not follow sigma_max (at half of it
    -96.9 dB against -93.7): something other than the layer's own reflection sets it there
    (not established what), so in 3D it guards against gross errors only; the plane-wave
    test below checks each 3D axis's layer against the analytic reflection. float32 is enough:
    its rounding sits near -130 dB.
    """
    db = cpml_reflection_db(mode, n, margin, steps, backend)
    assert db < -85.0, f"CPML reflection {db:.1f} dB"


def cpml_reflection_db(mode, n, margin, steps, backend, dtype="float32", **medium) -> float:
    """The measure of the test above, in dB (the reference box runs in float64, so that a
    16-bit run is measured against the exact reference). ``medium``: the background's
    eps_r and the pulse's tau, as _scene takes them."""
    nd = 3 if mode == "3d" else 2
    src = [L + 5] + [n // 2] * (nd - 1)
    small = yf.run(_scene(mode, n, 0, "cpml", steps, src, n // 2, backend, dtype, **medium),
                   progress=False)
    ref = yf.run(_scene(mode, n + 2 * margin, margin, "pec", steps, src, n // 2, backend,
                        "float32" if dtype == "float32" else "float64", **medium),
                 progress=False)
    ii, jj = np.meshgrid(np.arange(L, n - L), np.arange(L, n - L), indexing="ij")
    near_source = (ii - src[0]) ** 2 + (jj - src[1]) ** 2 <= 9
    worst_diff = worst_ref = 0.0
    for c in small.snapshots:
        a = small.snapshots[c].frames[:, L:n - L, L:n - L].copy()
        b = ref.snapshots[c].frames[:, L + margin:n - L + margin, L + margin:n - L + margin].copy()
        a[:, near_source] = 0.0
        b[:, near_source] = 0.0
        # E and H differ by the wave impedance; compare each against its own kind
        scale = 1.0 if c[0] == "e" else yf.constants.ETA0
        worst_diff = max(worst_diff, scale * np.abs(a - b).max())
        worst_ref = max(worst_ref, scale * np.abs(b).max())
    return 20 * np.log10(worst_diff / worst_ref)


@pytest.mark.parametrize("mode", ["tmz", "tez"])
def test_cpml_matched_to_a_dielectric_background(mode, backend):
    """The measure above in a background of eps_r = 9 (index 3), with the pulse three times
    as long (tau = 75 ps), so that it spans as many cells a wavelength in the medium as the
    vacuum test's pulse does in vacuum; 600 steps, for the slower, longer pulse to reach the
    layer and come back (light in the medium crosses 140 cells in them, the reference's
    walls are 150 cells out). The layer is matched to the background (sigma_max over
    sqrt(eps_r mu_r)): measured -94.1 dB (TMz) and -92.3 (TEz) on NumPy, as in vacuum. The
    layer built for vacuum instead, its conductivity 3 times the optimum, measures -84.1 and
    -83.6, so the bound, -88 dB, sits about 4 dB from each and fails a layer not matched to
    its medium. The vacuum pulse in this medium (a third of the cells a wavelength) measures
    -35.8 dB in TMz (eps_r = 4: -54.9): the layer's reflection follows the cells a
    wavelength in the medium, which the README says."""
    db = cpml_reflection_db(mode, 60, 150, 600, backend, eps_r=9.0, tau=75e-12)
    assert db < -88.0, f"CPML in eps_r = 9 reflection {db:.1f} dB"


@pytest.mark.parametrize("pol", ["ey", "ez"])
def test_cpml_in_an_anisotropic_background(pol, backend):
    """A plane wave along x in a background of eps_r = (9, 1, 4): a line of 80 cells (1 x 1
    across, periodic), CPML on both x faces, a soft source 40 cells in, a probe 10 cells
    from the x_max layer; the reference is the same line 4000 cells long, whose x_max face
    no wave reaches and comes back from within the 3.5 ns. With E along y the wave sees
    eps_yy (index 1), along z eps_zz (index 2); the pulse is as many cells a wavelength in
    each (tau = 25 ps times the index). A face's one profile is matched to the geometric
    mean of the indices of its pairs of terms, sqrt(2): measured -86.4 dB (y) and -87.0 (z)
    on NumPy, where a layer matched to its wave's own index gives -89.3 (eps_r = 4) to
    -89.6 (vacuum). Matched to the mean over the axes (eps_r 14/3, index 2.16), y measured
    -66.9 dB; the bound, -80 dB, fails that and keeps 6 dB from the worst measured. It runs
    at a Courant factor of 0.99 / sqrt(3), the one each axis of a cubic 3D grid sees: the
    line's own limit is dx / c (its axes of one periodic cell take no part), and at 0.99 of
    it every layer reflects about 6 dB more (the README's figures), y -81.6 dB."""
    eps = (9.0, 1.0, 4.0)
    n = np.sqrt(eps["xyz".index(pol[1])])
    faces = {"x_min": "cpml", "x_max": "cpml", "y_min": "periodic", "y_max": "periodic",
             "z_min": "periodic", "z_max": "periodic"}

    def run(cells):
        scene = yf.Scene(
            grid=yf.Grid(cells=(cells, 1, 1), spacing=DX), boundaries=faces,
            materials={"m": yf.Material(eps_r=eps)}, background="m",
            sources=[yf.PointSource(component=pol, cell=(40, 0, 0),
                                    waveform=yf.DiffGaussian(tau=25e-12 * n))],
            monitors=[yf.Probe(name="p", cell=(60, 0, 0), components=[pol])],
            run=yf.RunSettings(duration=3.5e-9, courant=0.99 / np.sqrt(3), dtype="float64",
                               backend=backend))
        return np.asarray(yf.run(scene, progress=False).probes["p"][pol])

    small, ref = run(80), run(4000)
    db = 20 * np.log10(np.abs(small - ref).max() / np.abs(ref).max())
    assert db < -80.0, f"CPML in eps_r = (9, 1, 4), E along {pol[1]}: {db:.1f} dB"


#: (mode, cells, margin, steps, bound in dB) of the float16 measure
FLOAT16_CASES = [("3d", 40, 34, 160, -35.0), ("tmz", 60, 150, 400, -45.0),
                 ("tez", 60, 150, 400, -45.0)]


@pytest.mark.parametrize("mode, n, margin, steps, bound", FLOAT16_CASES)
def test_cpml_reflection_measure_with_float16_storage(mode, n, margin, steps, bound, backend):
    """The measure above with the fields stored in float16, against the float64 reference.

    Measured (NumPy): -39.1 dB (3D), -49.3 (TMz), -51.2 (TEz) (cuda: -39.0, -51.1, -51.2);
    bfloat16 -26.6, -32.3, -33.6; float32 -92 to -94. What limits it is not the layer but
    the rounding at the source cell: the differentiated Gaussian's small late increments are
    lost against the large field they add to, which leaves the cell about one float16 step
    (~1e-3 of its peak) away from zero, a static charge whose field reaches the compared
    region. The bounds keep 4 to 6 dB above those, so a change that makes 16-bit storage
    worse shows here."""
    db = cpml_reflection_db(mode, n, margin, steps, backend, "float16")
    assert db < bound, f"CPML reflection measure {db:.1f} dB with float16 storage"


def _plane_wave_measure(axis: int, sigma_factor: float, backend, dtype="float32") -> float:
    """max |field with the CPML - reference| over max |reference|, in dB, for a plane wave
    along ``axis`` in 3D: a 100-cell line of 2 x 2 cells across, periodic across, a 10-cell
    CPML at both ends of ``axis``, a soft point source (differentiated Gaussian, tau = 25 ps)
    in the middle. The reference is the same line 150 cells longer at each end with PEC
    ends, whose reflections reach no compared cell within the 400 steps (at least 360 cells
    of path against 231 travelled). Compared: the polarised component on the line outside
    the CPML and at least 10 cells from the source, where the modes that vary across the
    2 x 2 section (the point source's near field, 19 times the plane wave at the source)
    have died out, so the reference's largest value there is the plane wave's amplitude."""
    n, margin, steps, x0 = 100, 150, 400, 50
    pol = "ex" if axis == 2 else "ez"
    far = [i for i in range(L, n - L) if abs(i - x0) >= 10]

    def cell(i):
        c = [0, 0, 0]
        c[axis] = i
        return tuple(c)

    def run(length, shift, face, dtype):
        cells = [2, 2, 2]
        cells[axis] = length
        faces = {f"{a}_{side}": (face if k == axis else "periodic")
                 for k, a in enumerate("xyz") for side in ("min", "max")}
        scene = yf.Scene(
            grid=yf.Grid(mode="3d", cells=cells, spacing=DX),
            boundaries=yf.Boundaries(**faces),
            sources=[yf.PointSource(component=pol, cell=cell(x0 + shift),
                                    waveform=yf.DiffGaussian(tau=25e-12))],
            monitors=[yf.Probe(name=f"p{i}", cell=cell(i + shift), components=[pol])
                      for i in far],
            run=yf.RunSettings(steps=steps, dtype=dtype, backend=backend))
        out = yf.run(scene, progress=False)
        return np.array([out.probes[f"p{i}"][pol] for i in far])

    small = run(n, 0, yf.Cpml(sigma_factor=sigma_factor), dtype)
    ref = run(n + 2 * margin, margin, "pec", "float32" if dtype == "float32" else "float64")
    return 20 * np.log10(np.abs(small - ref).max() / np.abs(ref).max())


@pytest.mark.parametrize("axis", [0, 1, 2], ids=["x", "y", "z"])
def test_cpml_plane_wave_reflection_follows_the_conductivity_in_3d(axis, backend):
    """Normal incidence on each axis's pair of 3D CPML faces (see `_plane_wave_measure`).

    A graded layer of depth L cells backed by PEC reflects exp(-2 int sigma / (eps0 c) dx)
    = exp(-1.6 sigma_factor L) of a plane wave (sigma_max = sigma_factor 0.8 (order + 1) /
    (eta0 dx)), besides what the discrete grading reflects at its inner face:
    - sigma_factor 0.1: -13.9 dB analytic, the PEC back dominating; measured -14.4 on every
      axis (alpha and the discrete profile make the 0.5 dB). Within 1 dB: a conductivity
      10% high or low moves the measure by 1.6 dB (-16.0 and -12.8 measured at 0.11 and
      0.09), so either fails.
    - sigma_factor 0.5: -69.5 dB analytic; measured -71.4. Within 3 dB, since the discrete
      grading's own reflection (below) adds to it; 0.45 and 0.55 measure -65.0 and -76.1.
    - the default layer (sigma_factor 1): analytic -139 dB, so the discrete grading sets
      it; measured -85.7 to -86.0 (float32 and float64 alike), bound -80 dB, which half the
      conductivity (-71.4) fails. Here, unlike the point source in a cube above, the
      measure follows sigma_max, so each axis's layer is checked in 3D as built."""
    analytic = {0.1: 20 * np.log10(np.exp(-1.6 * 0.1 * L)),
                0.5: 20 * np.log10(np.exp(-1.6 * 0.5 * L))}
    for factor, tol in ((0.1, 1.0), (0.5, 3.0)):
        db = _plane_wave_measure(axis, factor, backend)
        assert abs(db - analytic[factor]) < tol, (
            f"sigma_factor {factor}: {db:.1f} dB against {analytic[factor]:.1f} analytic")
    db = _plane_wave_measure(axis, 1.0, backend)
    assert db < -80.0, f"default CPML reflects {db:.1f} dB of a plane wave"


@pytest.mark.parametrize("axis", [0, 1, 2], ids=["x", "y", "z"])
def test_cpml_plane_wave_reflection_with_float16_storage(axis, backend):
    """The plane-wave measure above with the fields stored in float16 (the reference in
    float64). The conductivity is checked as in float32: sigma_factor 0.1 within 1 dB of
    the analytic -13.9 dB (measured -14.2 / -14.3 / -14.3 on x / y / z; 0.09 and 0.11 give
    -12.7 and -15.8, so a conductivity 10% off either way fails). The default layer's
    measure is float16's rounding, not the layer's: -41.8 / -43.1 / -43.1 dB (sigma_factor
    0.5 the same or lower), bound -38 dB, 4 dB above the worst, as the float16 bounds
    above. bfloat16 measures -12.8 dB at 0.1 and -23.9 at the default: its 8-bit
    significand cannot tell a 10% change of the conductivity, so it is left out."""
    analytic = 20 * np.log10(np.exp(-1.6 * 0.1 * L))
    db = _plane_wave_measure(axis, 0.1, backend, "float16")
    assert abs(db - analytic) < 1.0, f"sigma_factor 0.1: {db:.1f} dB against {analytic:.1f}"
    db = _plane_wave_measure(axis, 1.0, backend, "float16")
    assert db < -38.0, f"default CPML measure {db:.1f} dB with float16 storage"
