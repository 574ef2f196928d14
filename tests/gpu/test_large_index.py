"""A grid whose field arrays hold more than 2^31 values: 64-bit index arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf

N_BIG = 1300  # 1301^3 = 2.2e9 values per field array, beyond 2^31 - 1


def _scene(n: int, steps: int) -> yf.Scene:
    c = n // 2
    return yf.Scene(grid=yf.Grid(cells=(n, n, n), spacing=1e-3), boundaries="pec",
                    sources=[yf.PointSource(component="ez", cell=(c, c, c),
                                            waveform=yf.Gaussian(tau=3e-12, t0=6e-12))],
                    run=yf.RunSettings(steps=steps, dtype="float32"))


def test_more_than_2_31_values_per_array():
    """1300^3 cells (about 66 GB on the GPU with uint8 ids): after 12 steps the fields
    within 8 cells of the source equal those of the same source in a 64^3 box, where the
    walls are still out of reach; any 32-bit overflow in the index arithmetic would put
    the update far from the source (or fault)."""
    import cupy as cp

    need = 6 * 4 * (N_BIG + 1) ** 3 + 6 * (N_BIG + 1) ** 3
    free = cp.cuda.runtime.memGetInfo()[0]
    if free < need * 1.05:
        pytest.skip(f"needs {need / 2**30:.0f} GiB free on the GPU, {free / 2**30:.0f} GiB free")
    assert (N_BIG + 1) ** 3 > 2**31
    steps = 12
    big_model = yf.build_model(_scene(N_BIG, steps))
    st = yf.backends.get_stepper_class("cuda")(big_model, "float32", variant="indexed",
                                               tune=False)
    st.advance(0, steps)
    c = N_BIG // 2
    with st._stream:
        big = {k: f[c - 8:c + 9, c - 8:c + 9, c - 8:c + 9].get() for k, f in st._f.items()}
    del st
    cp.get_default_memory_pool().free_all_blocks()
    small = yf.run(_scene(64, steps), backend="cuda", keep_fields=True, progress=False,
                   stepper_options={"variant": "indexed"}).fields
    for k, v in big.items():
        ref = small[k][32 - 8:32 + 9, 32 - 8:32 + 9, 32 - 8:32 + 9]
        assert np.abs(ref).max() > 0 or k == "hz"
        assert np.array_equal(v, ref), k
