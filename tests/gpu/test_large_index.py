"""A grid whose field arrays hold more than 2^31 values: 64-bit index arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf

N_BIG = 1300  # 1301^3 = 2.2e9 values per field array, beyond 2^31 - 1


#: the source's plane along z: 30 cells from the wall at 1300 (a step moves a value at most
#: two cells, so 12 steps leave the wall out of reach, as in the 64^3 reference), and the
#: compared block (planes ZS - 8 .. ZS + 8) straddles flat index 2^31 (x fastest)
ZS = 1270


def _scene(n: int, steps: int, zs: int) -> yf.Scene:
    c = n // 2
    return yf.Scene(grid=yf.Grid(cells=(n, n, n), spacing=1e-3), boundaries="pec",
                    sources=[yf.PointSource(component="ez", cell=(c, c, zs),
                                            waveform=yf.Gaussian(tau=3e-12, t0=6e-12))],
                    run=yf.RunSettings(steps=steps, dtype="float32"))


@pytest.mark.parametrize("variant, sets", [("indexed", 1), ("temporal", 2)])
def test_more_than_2_31_values_per_array(variant, sets):
    """1300^3 cells (about 66 GB on the GPU with uint8 ids, 119 GB for 'temporal', which
    keeps two sets of fields): after 12 steps the fields within 8 cells of a source at z =
    ZS equal those of the same source in a 64^3 box, where the walls are still out of
    reach. The compared block holds values on both sides of flat index 2^31, so a 32-bit
    index that wraps puts the update elsewhere (or faults) and the block differs."""
    import cupy as cp

    n1 = N_BIG + 1
    need = sets * 6 * 4 * n1 ** 3 + 6 * n1 ** 3
    free = cp.cuda.runtime.memGetInfo()[0]
    if free < need * 1.05:
        pytest.skip(f"needs {need / 2**30:.0f} GiB free on the GPU, {free / 2**30:.0f} GiB free")
    c = N_BIG // 2
    steps = 12
    big_model = yf.build_model(_scene(N_BIG, steps, ZS))
    st = yf.backends.get_stepper_class("cuda")(big_model, "float32", variant=variant,
                                               tune=False)
    px, py = st.pitch   # rows padded by the marching variants
    flat = [i + px * (j + py * k) for i, j, k in ((c - 8, c - 8, ZS - 8), (c + 8, c + 8, ZS + 8))]
    assert flat[0] < 2**31 <= flat[1]
    st.advance(0, steps)
    with st._stream:
        big = {k: f[c - 8:c + 9, c - 8:c + 9, ZS - 8:ZS + 9].get() for k, f in st._f.items()}
    del st
    cp.get_default_memory_pool().free_all_blocks()
    small = yf.run(_scene(64, steps, 32), backend="cuda", keep_fields=True, progress=False,
                   stepper_options={"variant": variant}).fields
    for k, v in big.items():
        ref = small[k][32 - 8:32 + 9, 32 - 8:32 + 9, 32 - 8:32 + 9]
        assert np.abs(ref).max() > 0 or k == "hz"
        assert np.array_equal(v, ref), k
