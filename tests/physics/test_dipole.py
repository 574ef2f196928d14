"""A soft point current against the analytic field of a Hertzian dipole."""

from __future__ import annotations

import numpy as np

import yeefdtd as yf
from yeefdtd.build.grid import OFFSETS as OFFSETS_OF
from yeefdtd.constants import C0, EPS0, MU0

from .analytic import hertzian_dipole

DX = 1e-3
N = 120
C = N // 2
TAU = 30e-12
# probe offsets from the source cell, 10 to 20 cells away in several directions
OFFSETS = {"x10": (10, 0, 0), "x20": (20, 0, 0), "diag12": (9, 9, 4), "z15": (3, 0, 15),
           "diag17": (10, -10, 10)}


def _first_reflection(point, source, t_lead: float) -> float:
    """Earliest time a wave from ``source`` reflected by any wall of the box reaches
    ``point`` (image sources in the six walls), counting from the pulse's leading edge."""
    size = N * DX
    best = np.inf
    for a in range(3):
        for wall in (0.0, size):
            image = np.array(source, dtype=float)
            image[a] = 2 * wall - image[a]
            best = min(best, np.linalg.norm(np.asarray(point) - image) / C0)
    return t_lead + best


def test_hertzian_dipole_near_and_far_field(backend):
    """A 120^3 cell PEC box (1 mm cells) with a soft Jz source at its centre cell.

    The source current density J(t) = A DiffGaussian(tau = 30 ps) over one cell is a
    current moment I l = J dx dy dz, i.e. a dipole whose moment p(t) is a Gaussian. Each
    probe component (5 points 10 to 20 cells away, on and off the axes) is compared at its
    own staggered position and time with the analytic near-plus-far field of a point
    dipole at the Ez node of the source, up to the time the first reflection from any
    wall could arrive (image sources; the pulse's leading edge taken at 4.6 tau before its
    peak). The error is measured against the largest analytic magnitude of that field
    (E or H) at that probe.

    Measured: at most 1.4% (float64 and float32 alike). The bias is the grid's: numerical
    dispersion delays the pulse's upper band (down to about 11 cells per wavelength) by
    about 0.5% of a period per 10 cells, which shows as a ~1% shape error where the field
    changes fastest, and a source filling one cell is not quite a point. 3% bounds that
    with room, while a wrong amplitude, sign, staggering or time offset of half a step
    gives errors of 5% or more.
    """
    for name, comp, err in dipole_errors(backend, "float32"):
        assert err < 0.03, f"{name}.{comp}: error {err:.3%} of the peak"


def dipole_errors(backend: str, dtype: str, source: str = "ez") -> list:
    """(probe, component, largest error over the window / the analytic peak) for each
    probed component, with the soft source on ``source``: "ez" (an electric current J) or
    "hz" (a magnetic current M, whose field is the electric dipole's by duality: E_M =
    -H_J, H_M = E_J eps0 / mu0, for M of the same value in V/m^2 as J in A/m^2)."""
    wf = yf.DiffGaussian(tau=TAU)
    scene = yf.Scene(
        grid=yf.Grid(cells=(N, N, N), spacing=DX),
        boundaries="pec",
        sources=[yf.PointSource(component=source, cell=(C, C, C), waveform=wf)],
        monitors=[yf.Probe(name=k, cell=(C + o[0], C + o[1], C + o[2]))
                  for k, o in OFFSETS.items()],
        run=yf.RunSettings(duration=345e-12, dtype=dtype, backend=backend),
    )
    res = yf.run(scene, progress=False)
    # the source component's node in the source cell
    src = (C + np.array(OFFSETS_OF[source])) * DX
    t_lead = wf.delay - 4.6 * TAU
    out = []
    for name in OFFSETS:
        probe = res.probes[name]
        for comp, values in probe.data.items():
            pos = np.asarray(probe.positions[comp])
            t = probe.times[comp]
            keep = t < _first_reflection(pos, src, t_lead)
            assert keep.sum() > 100, f"{name}: window too short"
            E, H = hertzian_dipole(pos - src, t[keep], TAU, wf.delay, amp=DX**3)
            if source == "hz":   # duality
                E, H = -H, E * EPS0 / MU0
            field = E if comp[0] == "e" else H
            scale = np.abs(field).max()
            exact = field["xyz".index(comp[1])]
            out.append((name, comp, np.abs(values[keep] - exact).max() / scale))
    return out


def test_magnetic_dipole_near_and_far_field(backend):
    """The dipole above with the soft source on Hz: a magnetic current density M (V/m^2)
    over one cell, a magnetic dipole whose field is the electric one's by duality (E_M =
    -H_J, H_M = E_J eps0 / mu0). It checks the sign and units of magnetic sources (curl E
    = -mu dH/dt - M) and their half-step timing, which the electric dipole does not.
    Measured: at most 1.4%, as for the electric dipole, for the same reasons; the same 3%
    bound. With M's sign flipped the largest error is 201%, half a step late 7.4%."""
    for name, comp, err in dipole_errors(backend, "float32", "hz"):
        assert err < 0.03, f"{name}.{comp}: error {err:.3%} of the peak (magnetic source)"


def test_hertzian_dipole_with_float16_storage(backend):
    """The dipole above with the fields stored in float16: largest error 13.9% of the peak
    (NumPy; cuda 15.9%; bfloat16 93%, float32 1.4%). After the pulse the source cell is
    left about one float16 step (~1e-3 of its peak field) away from zero, a static dipole
    whose 1/r^3 field at the probes (10 to 20 cells away, where the pulse's own field is
    ~1e-3 of the source cell's) is a sizeable share of what they see. Bounded at 20%, to
    catch a regression: this is the figure a user of 16-bit storage must weigh near strong
    soft sources."""
    worst = max(err for *_, err in dipole_errors(backend, "float16"))
    assert worst < 0.20, f"error {worst:.1%} of the peak with float16 storage"
