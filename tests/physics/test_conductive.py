"""A uniform field in a lossy medium decays by exactly the discrete factor each step."""

from __future__ import annotations

import numpy as np

import yeefdtd as yf
from yeefdtd.constants import EPS0, MU0


def test_uniform_field_decays_by_discrete_factor(backend):
    """A 4 x 3 x 2 cell grid, periodic on every face, filled with an anisotropic lossy
    medium: eps_r = (2, 3, 4), sigma_e = (0.5, 1.0, 2.0) S/m, mu_r = (1.5, 1.5, 1.5),
    sigma_m = (300, 300, 300) ohm/m.

    A soft source in every cell drives Ex, Ey and Hz with the same Gaussian pulse, so the
    fields stay uniform and their curls vanish: after the pulse each component follows
    F(n+1) = C_self F(n) alone, with C_self = (2 eps - sigma dt) / (2 eps + sigma dt) for
    E (Cexe, Ceye) and the magnetic analogue for H (Chzh). Over 150 steps after the pulse
    the ratio F(n + 150) / F(n) must equal C_self^150 within 1e-12 in float64: nothing but
    rounding separates them, and the factors differ by more than 1e-2 between axes, so an
    axis mix-up would fail.
    """
    eps = (2.0, 3.0, 4.0)
    sig = (0.5, 1.0, 2.0)
    mu, sigm = 1.5, 300.0
    cells = [(i, j, k) for i in range(4) for j in range(3) for k in range(2)]
    wf = yf.Gaussian(tau=10e-12)
    sources = [yf.PointSource(component=c, cell=cell, waveform=wf)
               for c in ("ex", "ey", "hz") for cell in cells]
    scene = yf.Scene(
        grid=yf.Grid(cells=(4, 3, 2), spacing=1e-3),
        boundaries="periodic",
        materials={"lossy": yf.Material(eps_r=eps, sigma_e=sig, mu_r=mu, sigma_m=sigm)},
        background="lossy",
        sources=sources,
        monitors=[yf.Probe(name="p", cell=(1, 2, 1), components=["ex", "ey", "ez", "hz"])],
        run=yf.RunSettings(steps=400, dtype="float64", backend=backend),
    )
    res = yf.run(scene, progress=False, keep_fields=True)
    dt = res.stats["dt"]
    start = int(np.ceil(wf.support()[1] / dt)) + 2
    p = res.probes["p"]
    expected = {
        "ex": (2 * EPS0 * eps[0] - sig[0] * dt) / (2 * EPS0 * eps[0] + sig[0] * dt),
        "ey": (2 * EPS0 * eps[1] - sig[1] * dt) / (2 * EPS0 * eps[1] + sig[1] * dt),
        "hz": (2 * MU0 * mu - sigm * dt) / (2 * MU0 * mu + sigm * dt),
    }
    for c, factor in expected.items():
        ratio = p[c][start + 150] / p[c][start]
        assert abs(ratio / factor**150 - 1) < 1e-12, (c, ratio, factor**150)
        # the field is uniform: every cell equals the probe
        f = res.fields[c]
        assert np.allclose(f, f.flat[0], rtol=1e-13, atol=0)
    assert abs(expected["ex"] - expected["ey"]) > 1e-2 * (1 - expected["ex"])
    assert np.all(p["ez"] == 0.0)
