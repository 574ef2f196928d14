"""The marching variants' names, options and launch shapes (no GPU needed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from yeefdtd.backends.cuda.experiments import box_streams, lean_segment
from yeefdtd.backends.cuda.variants import default_variant, make_variant
from yeefdtd.exceptions import SetupError, ValidationError


def test_fused_is_one_step_per_pass_and_temporal_several():
    fused, temporal = make_variant("fused"), make_variant("temporal")
    assert {c[0] for c in fused.configs("pass", (64, 64, 64))} == {1}
    assert min(c[0] for c in temporal.configs("pass", (64, 64, 64))) >= 2
    assert {c[0] for c in make_variant("temporal:steps=5").configs("pass", (64, 64, 64))} == {5}


@pytest.mark.parametrize("name", ["fused", "temporal"])
def test_every_shape_owns_cells(name):
    """A tile of BX x BY threads owns (BX - 2 NT) x (BY - 2 NT) cells: never none."""
    for nt, bx, by, _ in make_variant(name).configs("pass", (512, 512, 512)):
        assert bx - 2 * nt >= 2 and by - 2 * nt >= 2


def test_long_grids_get_z_segments():
    shapes = make_variant("fused").configs("pass", (512, 512, 512))
    assert any(c[3] for c in shapes) and any(c[3] == 0 for c in shapes)
    assert not any(c[3] for c in make_variant("fused").configs("pass", (64, 64, 64))[1:])


@pytest.mark.parametrize("mode, shape", [("3d", (65, 65, 65)), ("3d", (129, 129, 257)),
                                         ("3d", (513, 513, 513)), ("tmz", (1025, 1025, 1)),
                                         ("tmz", (8193, 8193, 1)), ("tez", (61, 47, 1)),
                                         ("3d", (2049, 2049, 33)), ("3d", (65, 65, 16)),
                                         ("tez", (1025, 32, 1))])
@pytest.mark.parametrize("name", ["fused", "temporal"])
def test_the_untuned_shape_cuts_segments_until_the_blocks_fill_the_gpu(name, mode, shape):
    """Grids too small to tune run the first shape: whole columns there left all but a few
    SMs idle (tmz-2d 1025: 3 blocks), so its segments are cut to give FILL_BLOCKS blocks or
    more, but no shorter than MIN_SEGMENT_* (each recomputes about 2 NT planes or rows).
    Whole columns stay where they give FILL_BLOCKS blocks already (2049 x 2049 cells
    across) or where the extent is no longer than MIN_SEGMENT_* (16 planes, 32 rows)."""
    v = _in(mode, name)
    first = v.configs("pass", shape)[0]
    axis, floor = (2, v.MIN_SEGMENT_3D) if mode == "3d" else (1, v.MIN_SEGMENT_2D)
    grid, _, seg = v.launch(first, shape)
    blocks = grid[0] * grid[1] * grid[2]
    whole = shape[:2] == (2049, 2049) or shape[axis] <= floor
    assert bool(first[3]) != whole, first
    if first[3]:
        assert floor <= seg < shape[axis]
        assert blocks >= v.FILL_BLOCKS or seg == floor
    else:
        assert grid[0] * grid[1] >= v.FILL_BLOCKS or shape[axis] <= floor


@pytest.mark.parametrize("bad", ["7", "12"])
def test_temporal_steps_out_of_range_say_so(bad):
    """Past the most a 3D pass keeps (6): said once the grid's mode is known."""
    with pytest.raises(ValidationError, match="temporal steps must be an integer from 2 to 6"):
        make_variant(f"temporal:steps={bad}").configs("pass", (64, 64, 64))


def _in(mode, spec):
    v = make_variant(spec)
    v.mode = mode
    return v


@pytest.mark.parametrize("mode", ["tmz", "tez"])
@pytest.mark.parametrize("name", ["fused", "temporal"])
def test_marching_variants_run_2d_grids_with_warp_tiles(mode, name):
    """2D shapes are (steps, cells per lane, warps per block, rows per segment): a warp's
    tile of 32 V cells owns 32 V - 2 NT of them, never none."""
    v = _in(mode, name)
    v.check(mode)
    shapes = v.configs("pass", (8192, 8192, 1))
    assert shapes and all(32 * c[1] - 2 * c[0] >= 8 for c in shapes)
    assert any(c[3] for c in shapes) and not any(c[3] for c in v.configs("pass", (61, 47, 1))[1:])
    te = "true" if mode == "tez" else "false"
    with_layers = v.instances(mode, "float", "id8_t", "true", masks=[3], configs=shapes)
    assert all(n.startswith("march2<") and n.endswith(f", 3, {te}>") for n in with_layers)
    names = v.instances(mode, "float", "id8_t", "true", masks=[0], configs=shapes)
    assert all(n.startswith("march2<") for n in names)
    # without CPML terms each shape for passes of all its steps (FULL; with CPML terms it
    # takes more registers: MarchStepper.full_pass), and, where a pass may take fewer than
    # its shape's steps (more than 1), for those
    tiles = list(dict.fromkeys(c[:3] for c in shapes))
    multi = [c for c in tiles if c[0] > 1]
    assert len(with_layers) == len(tiles)
    plain = [v.kernel("pass", c, mode, "float", "id8_t", "true", 0) for c in multi]
    full = [v.kernel("pass", c, mode, "float", "id8_t", "true", 0, full=True) for c in tiles]
    assert names == plain + full
    assert all(n.endswith(f", {te}>") for n in plain)
    assert all(n.endswith(f", {te}, true>") for n in full)


@pytest.mark.parametrize("mode", ["3d", "tmz"])
def test_a_module_may_hold_the_pass_kernels_of_chosen_shapes_only(mode):
    """Every candidate's pass kernel when given them all (a sweep times them all); given
    some launch shapes, only theirs, one per (steps, tile) whatever the segment."""
    v = _in(mode, "temporal")
    T = "float, float" if mode == "3d" else "float"
    shapes = v.configs("pass", (512, 512, 512) if mode == "3d" else (8192, 8192, 1))
    every = v.instances(mode, T, "id8_t", "true", masks=[0], configs=shapes)
    per_shape = 1 if mode == "3d" else 2   # 2D: also the instance for passes of all steps
    assert len(every) == per_shape * len({c[:3] for c in shapes}) > 2
    first = v.instances(mode, T, "id8_t", "true", masks=[0], configs=[shapes[0]])
    assert first == [v.kernel("pass", shapes[0], mode, T, "id8_t", "true", 0, full=f)
                     for f in ((False,) if mode == "3d" else (False, True))]
    again = (*shapes[0][:3], 7) if mode == "3d" else (*shapes[0][:3], 64)
    assert v.instances(mode, T, "id8_t", "true", masks=[0], configs=[shapes[0], again]) == first


def test_temporal_steps_reach_8_in_2d_only():
    assert _in("tmz", "temporal:steps=8").steps == (8,)
    with pytest.raises(ValidationError, match="from 2 to 6"):
        _in("3d", "temporal:steps=8").configs("pass", (64, 64, 64))


def test_2d_launch_grid_covers_the_row_with_owned_cells():
    v = _in("tmz", "temporal")
    grid, block, seg = v.launch((4, 4, 4, 256), (1000, 600, 1))
    assert block == (128, 1, 1) and seg == 256
    tiles = -(-1000 // 120)
    assert grid == (-(-tiles // 4), 3, 1)
    assert v.owned((4, 4, 4, 256)) == [120] and v.threads((4, 4, 4, 256)) == 128


def test_launch_grids_stay_within_cudas_65535_blocks_along_y_and_z():
    """Segments grow where short ones would take more blocks than CUDA launches along y (2D:
    the x boxes' 4 rows past 262 140 rows) or z; tiles past that along y in 3D are a
    one-line error naming the variant to use instead."""
    v = _in("tmz", "temporal")
    grid, _, seg = v.launch((4, 1, 1, 4), (8, 270001, 1))
    assert grid[1] <= 65535 and grid[1] * seg >= 270001 and seg == 5
    assert v.launch((4, 1, 1, 4), (8, 1000, 1))[2] == 4   # short grids keep theirs
    t = make_variant("temporal")
    grid, _, zlen = t.launch((2, 32, 16, 1), (20, 20, 70000))
    assert grid[2] <= 65535 and grid[2] * zlen >= 70000
    with pytest.raises(SetupError, match="'temporal': 1000000 cells along y take more than "
                                         "65535 of its tiles"):
        t.launch((2, 32, 16, 64), (8, 1_000_000, 8))


def test_marching_tiles_keep_to_cudas_65535_blocks_along_y_and_auto_knows():
    """3D: only the tiles whose rows of blocks fit are offered (a sweep that met one that
    did not stopped at its launch error), none is one line; 'auto' then runs 'indexed'."""
    t = make_variant("temporal")
    ny = 400_000
    shapes = t.configs("pass", (17, ny, 80))
    assert shapes and all(-(-ny // t.owned(c)[1]) <= 65535 for c in shapes)
    assert len(shapes) < len(t.configs("pass", (17, 1000, 80)))
    with pytest.raises(SetupError, match="'temporal': 800001 cells along y take more than "
                                         "65535 rows of its tiles; use 'indexed'"):
        t.configs("pass", (17, 800_001, 80))
    assert default_variant("3d", "float32", 10**9, True, 0, None, None, (17, 800_001, 80)) \
        == ("indexed", "variant 'auto': 'temporal': 800001 cells along y take more than "
            "65535 rows of its tiles; using 'indexed'")
    assert default_variant("3d", "float32", 10**9, True, 0, None, None,
                           (513, 513, 513)) == ("temporal", None)


def test_the_papers_kernels_keep_to_cudas_65535_blocks_along_y():
    """seed-xyz and seed-multicell launch a row of blocks per z plane, seed-plane and
    tiled-2d one per row of tiles: past the limit, the shapes that fit, or one line."""
    assert make_variant("tiled-2d").configs("h", (64, 300_000, 1))[0] == (16, 16)
    assert all(-(-300_000 // c[1]) <= 65535
               for c in make_variant("tiled-2d").configs("h", (64, 300_000, 1)))
    assert len(make_variant("tiled-2d").configs("h", (64, 1000, 1))) == 12
    for name in ("seed-xyz", "seed-multicell"):
        with pytest.raises(SetupError, match=f"'{name}' launches its blocks over 70000 z "
                                             "planes.*; use 'indexed'"):
            make_variant(name).configs("h", (16, 16, 70000))
    assert make_variant("seed-xy").configs("h", (16, 16, 70000))   # one block row in all
    with pytest.raises(SetupError, match="'seed-plane' launches its blocks over 65537 rows"):
        make_variant("seed-plane").configs("h", (16, 65536 * 16 + 1, 4))


def test_launch_grid_covers_the_grid_with_owned_cells():
    v = make_variant("temporal")
    grid, block, zlen = v.launch((3, 32, 16, 64), (100, 50, 130))
    assert block == (32, 16, 1) and zlen == 64
    assert grid == (-(-100 // 26), -(-50 // 10), 3)


def test_fused_aligned_tiles_own_every_column_of_the_tile(monkeypatch):
    """3D 'fused' over the grid (no CPML terms in the pass): tiles of BX columns that own all
    of them, in one-dimensional blocks of the tile's threads and one extra warp; a pass with
    the CPML terms (boxes, or the layers in the pass), 16-bit storage and
    $YEEFDTD_FUSED=overlap run the tiles that overlap by one cell on each side."""
    v = make_variant("fused")
    v.mode = "3d"
    cfg = (1, 64, 7, 32)
    grid, block, zlen = v.launch(cfg, (513, 100, 70))
    assert block == (64 * 7 + 32, 1, 1) and zlen == 32
    assert grid == (-(-513 // 64), -(-100 // 5), 3)
    assert v.owned(cfg) == [64, 5] and v.threads(cfg) == 480
    assert v.kernel("pass", cfg, "3d", "float, float", "id8_t", "true").endswith(", 0, 1>")
    tag = v.tuning_tag()
    for kind in ("pml", "half", "env"):
        pml = 5 if kind == "pml" else 0
        v.half = kind == "half"
        if kind == "env":
            monkeypatch.setenv("YEEFDTD_FUSED", "overlap")
        grid, block, _ = v.launch(cfg, (513, 100, 70), pml)
        assert block == (64, 7, 1) and grid[0] == -(-513 // 62)
        assert v.owned(cfg, pml) == [62, 5] and v.threads(cfg, pml) == 448
        assert v.kernel("pass", cfg, "3d", "float, float", "id8_t", "true", pml) \
            .endswith(f", {pml}, 0>")
    assert v.tuning_tag() != tag   # the tuner's choices are kept per kind of tile


@pytest.mark.parametrize("rows, n, shape", [(5, 6, (30, 20, 10)), (300, 6, (30, 20, 10)),
                                            (70000, 3, (40, 30, 1)), (2, 3, (8, 8, 1))])
def test_cell_ids_rebuild_every_component_id(rows, n, shape):
    """The marching kernels' one id per cell: the combination of its components' ids, for
    ids of 8 and 16 bits (six 16-bit ids do not fit one 64-bit key: packed in stages)."""
    import numpy as np

    from yeefdtd.backends.cuda.march import _combinations

    rng = np.random.default_rng(rows)
    ids = [rng.integers(0, rows, shape) for _ in range(n)]
    cell, combos = _combinations(ids, rows)
    assert cell.shape == shape
    for j in range(n):
        assert (combos[cell, j] == ids[j]).all()
    assert len(np.unique(combos, axis=0)) == len(combos)


# one 16-bit key; one 64-bit key; 64-bit keys in stages (six ids of 17 bits)
@pytest.mark.parametrize("rows, n", [(4, 6), (300, 6), (70000, 6)])
def test_cell_ids_put_the_most_common_combination_first(rows, n):
    """Row 0 of the marching kernels' table is the grid's most common combination (march3v
    runs blocks whose cells all hold id 0 as a pass of one material), here one that is not
    the smallest key, with a tenth of the cells random: its cells hold id 0 and nothing
    else does, and every cell still rebuilds its components' ids."""
    import numpy as np

    from yeefdtd.backends.cuda.march import _combinations

    rng = np.random.default_rng(rows + n)
    shape = (40, 30, 20)
    background = [rows - 1 - (j % 2) for j in range(n)]   # far from the smallest key
    ids = [np.full(shape, b, dtype=np.uint8 if rows <= 256 else np.int64, order="F")
           for b in background]
    odd = rng.random(shape) < 0.1
    for a in ids:
        a[odd] = rng.integers(0, rows - 2, int(odd.sum()))
    cell, combos = _combinations(ids, rows)
    assert combos[0].tolist() == background
    assert ((cell == 0) == ~odd).all()
    for j in range(n):
        assert (combos[cell, j] == ids[j]).all()


@pytest.mark.parametrize("order, shape, bits", [
    ("F", (30, 20, 11), 2), ("C", (17, 9, 5), 2), ("F", (40, 30, 1), 2), ("F", (8, 3, 3), 2),
    ("F", (9, 1, 1), 2), ("F", (6, 5, 0), 2), ("F", (12, 10, 7), 1)])
def test_cell_ids_on_threads(monkeypatch, order, shape, bits):
    """The 16-bit path cuts the grid into slabs along its last axis longer than one cell
    (z, or y in 2D), one a thread: each cell's combination is its ids (against np.unique's
    rows), the combinations are distinct and, after the first (the most common), sorted by
    key, and the cells keep the ids' layout and the one-thread result."""
    import concurrent.futures as cf

    import numpy as np

    from yeefdtd import host
    from yeefdtd.backends.cuda.march import _combinations

    rows = 1 << bits
    rng = np.random.default_rng(sum(shape) + bits)
    ids = [np.asarray(rng.integers(0, rows, shape), dtype=np.uint8, order=order)
           for _ in range(6 if bits == 2 else 5)]
    monkeypatch.setattr(host, "cores", lambda: 1)
    cell1, _ = _combinations(ids, rows)
    monkeypatch.setattr(host, "cores", lambda: 5)
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 40)
    pools = []
    real_pool = cf.ThreadPoolExecutor
    monkeypatch.setattr(cf, "ThreadPoolExecutor", lambda n: pools.append(n) or real_pool(n))
    cell, combos = _combinations(ids, rows)
    longest = [m for m in shape if m > 1]
    assert pools == [max(1, min(5, longest[-1] if longest else shape[-1]))]
    stacked = np.stack([a.ravel(order="K") for a in ids], axis=1)
    distinct = np.unique(stacked, axis=0)   # rows sorted as the packed keys are
    if len(distinct):
        rest = [r for r in distinct.tolist() if r != combos[0].tolist()]
        assert len(rest) == len(distinct) - 1 and combos[1:].tolist() == rest
    else:   # no cells
        assert not len(combos)
    assert np.array_equal(combos[cell.ravel(order="K")], stacked)
    assert np.array_equal(cell, cell1)
    assert cell.shape == shape and cell.dtype == cell1.dtype
    assert cell.flags.f_contiguous == ids[0].flags.f_contiguous
    assert cell.flags.c_contiguous == ids[0].flags.c_contiguous


def test_fused_3d_runs_the_staged_kernel_and_asks_for_its_shared_memory(monkeypatch):
    """3D 'fused' is march3f with dynamic shared memory: STAGES planes of six fields of the
    padded tile (values under 4 bytes in 4-byte words) plus ids and a flags word, rounded to
    16 bytes, then two H buffers of the arithmetic type; 'temporal' stays on march3."""
    v = make_variant("fused")
    v.mode = "3d"
    cfg = (1, 32, 8, 64)
    assert v.kernel("pass", cfg, "3d", "float, float", "id8_t", "true").startswith("march3f<")
    sp = 34 * 10
    for threads, env in ((256 + 32, None), (256, "overlap")):
        if env:
            monkeypatch.setenv("YEEFDTD_FUSED", env)
        stage = -(-(6 * sp * 4 + threads * 4 + 4) // 16) * 16
        assert v.shared_bytes(cfg, "float", "float") == v.STAGES_3D * stage + 6 * sp * 4
        assert v.shared_bytes(cfg, "float", "half_t") == v.shared_bytes(cfg, "float", "float")
        assert v.shared_bytes(cfg, "double", "double") > v.shared_bytes(cfg, "float", "float")
    monkeypatch.setenv("YEEFDTD_FUSED", "block")
    assert v.kernel("pass", cfg, "3d", "float, float", "id8_t", "true").startswith("march3<")
    assert v.shared_bytes(cfg, "float", "float") == 0
    t = make_variant("temporal")
    t.mode = "3d"
    assert t.kernel("pass", (2, 32, 16, 64), "3d", "float, float", "id8_t", "true") \
        .startswith("march3<")


def test_temporal_asks_for_blocks_per_sm_only_where_the_instance_fits_them():
    """march3's launch bounds: two blocks of 32 x 12 (three of 32 x 8) for 2 steps with
    float arithmetic and no CPML terms; no minimum where the instance would spill (CPML
    terms, 3 steps, double)."""
    t = make_variant("temporal")
    t.mode = "3d"

    def mb(cfg, T="float, float", pml=0):
        name = t.kernel("pass", cfg, "3d", T, "id8_t", "true", pml)
        return int(name.rstrip(">").split(",")[-2])

    assert mb((2, 32, 12, 64)) == 2
    assert mb((2, 32, 12, 64), "float, half_t") == 2
    assert mb((2, 32, 8, 64)) == 3
    assert mb((2, 32, 16, 64)) == 1
    assert mb((2, 32, 12, 64), pml=6) == 0
    assert mb((3, 32, 12, 64)) == 0
    assert mb((2, 32, 12, 64), "double, double") == 0
    # CPML terms inline where the instance applies one axis's alone
    inline = [int(t.kernel("pass", (2, 32, 16, 0), "3d", "float, float", "id8_t", "true",
                           pml).rstrip(">").split(",")[-1]) for pml in (1, 2, 4, 6, 7, 0)]
    assert inline == [1, 2, 4, 0, 0, 0]
    # the tuner tries that tile with z segments, as the other tiles of its steps per pass
    assert {(2, 32, 12, 64), (2, 32, 12, 128)} <= set(t.configs("pass", (512, 512, 512)))


def _march_stub(shape, layers):
    """A marching stepper with only what the box planning reads: the grid's extent and, per
    layer, its axis, thickness and the first index of its E and H cells."""
    from types import SimpleNamespace

    from yeefdtd.backends.cuda.march import MarchStepper

    st = object.__new__(MarchStepper)
    st.shape = st.update_shape = shape
    st.variant = make_variant("fused")
    st.cpml_mode = "slabs"
    st.model = SimpleNamespace(grid=SimpleNamespace(mode="3d"))
    st._disjoint = {}
    st._slabs = [{"slab": SimpleNamespace(axis=a, cells=L), "e": {"start": es},
                  "h": {"start": hs}} for a, L, es, hs in layers]
    return st


@pytest.mark.parametrize("nt", [1, 2, 3])
def test_cpml_boxes_cover_the_layers_and_the_cells_they_reach(nt):
    """A pass of nt steps without the CPML terms is inexact in the layers' E and H cells,
    the cell after each H layer, and nt - 1 cells further each way; the boxes hold exactly
    that, within the grid, and the tile of each box owns its whole thickness when it can."""
    st = _march_stub((40, 30, 20), [(0, 5, 0, 0), (0, 5, 35, 34), (1, 4, 0, 0), (2, 3, 17, 16)])
    boxes = st.march_boxes(nt)
    assert boxes[0] == ((0, 0, 0), (6 + nt - 1, 30, 20), 0, 7)
    assert boxes[1] == ((34 - (nt - 1), 0, 0), (6 + nt - 1, 30, 20), 0, 7)
    assert boxes[2] == ((0, 0, 0), (40, 5 + nt - 1, 20), 1, 7)
    assert boxes[3] == ((0, 0, 16 - (nt - 1)), (40, 30, 4 + nt - 1), 2, 7)
    for _, ext, a, _ in boxes:
        cfg = st.box_config((nt, 32, 8, 0), a, ext)
        assert cfg[0] == nt and cfg[1] * cfg[2] == 512
        if a < 2:
            assert cfg[1 + a] - 2 * nt >= ext[a]
        else:
            assert cfg[3] == 0   # one segment: the whole box along z


@pytest.mark.parametrize("nt, rows, tile", [(3, 26, (16, 32)), (2, 24, (32, 16)),
                                              (3, 7, (32, 16)), (1, 22, (32, 16)),
                                              (3, 27, (32, 16))])
def test_y_boxes_take_one_tall_tile_where_it_computes_fewer_cells(nt, rows, tile):
    """A y box thicker than a 32 x 16 tile's owned rows runs on one tile of 16 x 32 where
    that computes fewer cells for each it owns (dipole-cpml 512 at 3 steps: 26 rows, 1.97
    against 2.27 on three tiles), else on 32 x 16 (24 rows at 2 steps: two tiles, 1.52
    against 1.78; a box thinner than 16 - 2 NT rows, or thicker than 32 - 2 NT)."""
    st = _march_stub((600, 600, 600), [])
    cfg = st.box_config((nt, 64, 24, 64), 1, (487, rows, 487))
    assert cfg == (nt, *tile, 16)


def _box_cells(shape, org, ext):
    """A boolean mask of a box's cells, wrapped at the grid's ends as the kernels wrap."""
    import numpy as np

    out = np.zeros(shape, bool)
    out[np.ix_(*[np.arange(o, o + e) % n for o, e, n in zip(org, ext, shape, strict=True)])] = True
    return out


@pytest.mark.parametrize("nt", [1, 2, 3])
def test_cpml_boxes_cut_into_faces_and_edges(nt):
    """With every layer in boxes, the cells of the layers' spans go to six boxes: three
    faces (one axis's spans, both ends in one box that wraps, the middle of the others) with
    that axis's terms alone, and three edges with the terms of their axes (the x-y edge with
    the corners and every axis's). Every cell of every span is in exactly one box, whose
    kernel applies the terms of every span holding it; no other cell is."""
    import numpy as np

    layers = [(0, 5, 0, 0), (0, 5, 35, 34), (1, 4, 0, 0), (2, 3, 17, 16), (2, 3, 0, 0)]
    st = _march_stub((40, 30, 20), layers)
    st.cpml_mode = "slabs"
    whole = st.march_boxes(nt)
    assert all(m == 7 for *_, m in whole)
    st.cpml_mode = "boxes"
    boxes = st.march_boxes(nt)
    xl, xh = 6 + nt - 1, 34 - (nt - 1)   # the x spans end at xl and start at xh
    yl, zl, zh = 5 + nt - 1, 4 + nt - 1, 16 - (nt - 1)
    assert [b[2:] for b in boxes] == [(0, 1), (1, 2), (2, 4), (0, 7), (2, 5), (2, 6)]
    assert boxes[0][:2] == ((xh, yl, zl), (40 - xh + xl, 30 - yl, zh - zl))
    assert boxes[1][:2] == ((xl, 0, zl), (xh - xl, yl, zh - zl))
    assert boxes[3][:2] == ((xh, 0, 0), (40 - xh + xl, yl, 20))
    need = np.zeros(st.shape, int)
    for o, e, a, _ in whole:
        need[_box_cells(st.shape, o, e)] |= 1 << a
    count = np.zeros(st.shape, int)
    for o, e, _, m in boxes:
        cells = _box_cells(st.shape, o, e)
        count += cells
        assert not (need[cells] & ~m).any()
    assert (count == (need > 0)).all()
    st.model.grid.mode = "tmz"   # 2D: x boxes only, as before
    st.cpml_mode = "xboxes"
    assert all(m == 7 for *_, m in st.march_boxes(nt))


@pytest.mark.parametrize("nt", [1, 2, 3])
@pytest.mark.parametrize("variant, mode", [("temporal", "boxes"), ("temporal", "xboxes"),
                                           ("fused", "boxes")])
def test_pass_leaves_out_what_the_boxes_recompute(nt, variant, mode):
    """With the layers in boxes, the pass over the grid leaves out the planes at either end
    that the boxes recompute: every cell of the grid is in the pass's box or in a box (a
    cell in neither would never be updated), and the pass's box holds no box cell, except
    along x for aligned tiles, whose box starts on a multiple of ROW_CELLS. A grid whose
    layers meet leaves the pass nothing."""
    import numpy as np

    layers = [(0, 5, 0, 0), (0, 5, 35, 34), (1, 4, 0, 0), (2, 3, 17, 16), (2, 3, 0, 0)]
    st = _march_stub((40, 30, 20), layers)
    st.variant = make_variant(variant)
    st.cpml_mode = mode
    st.pass_box, st._pass_boxes = ((0, 0, 0), st.shape), {}
    org, ext = st.pass_box_of(nt)
    held = _box_cells(st.shape, org, ext)
    boxed = np.zeros(st.shape, bool)
    for o, e, _, _ in st.march_boxes(nt):
        boxed |= _box_cells(st.shape, o, e)
    assert (held | boxed).all()
    x_lo = 6 + nt - 1
    assert st.pass_disjoint(nt) == (variant == "temporal")   # aligned tiles: not along x
    if variant == "fused":
        assert org[0] == x_lo - x_lo % 16
        assert not (held[x_lo:] & boxed[x_lo:]).any()
    else:
        assert org[0] == x_lo and not (held & boxed).any()
    inner = (34 - (nt - 1) - x_lo, 30, 20) if mode == "xboxes" else \
        (34 - (nt - 1) - x_lo, 30 - (5 + nt - 1), 16 - (nt - 1) - (4 + nt - 1))
    assert ext[0] == inner[0] + x_lo - org[0] and ext[1:] == inner[1:]
    st = _march_stub((12, 30, 20), [(0, 5, 0, 0), (0, 5, 7, 6)])
    st.variant, st.cpml_mode = make_variant("temporal"), mode
    st.pass_box, st._pass_boxes = ((0, 0, 0), st.shape), {}
    assert st.pass_box_of(nt)[1][0] == 0


@pytest.mark.parametrize("nt", [2, 3])
def test_walls_march_only_where_the_pass_reaches_a_grid_end(nt):
    """The lean pass's walls' instance is compiled and launched only where the pass reaches
    an end of the grid that no CPML box takes (the blocks whose cone crosses the grid's
    ends are what it runs): not with layers in boxes on all six faces, but with a face
    left without one, with the layers in x boxes alone (the pass then spans y and z), or
    with the layers in the pass; never in 2D."""
    every = [(0, 5, 0, 0), (0, 5, 35, 34), (1, 4, 0, 0), (1, 4, 26, 25), (2, 3, 0, 0),
             (2, 3, 17, 16)]
    for layers, mode, want in ((every, "boxes", False), (every, "xboxes", True),
                               (every[:-1], "boxes", True), (every[1:], "boxes", True),
                               (every, "slabs", True), ([], "none", True)):
        st = _march_stub((40, 30, 20), layers)
        st.variant, st.cpml_mode = make_variant("temporal"), mode
        assert st._walls_at_ends(nt) is want, (layers, mode)
    st.model.grid.mode = "tmz"
    assert st._walls_at_ends(nt) is False


@pytest.mark.parametrize("pitch,itemsize", [(48, 4), (41, 4), (48, 2)])
def test_slab_boxes_write_whole_sectors_along_x(pitch, itemsize):
    """slab3's boxes along x start and end on 32-byte sectors when the rows are padded to
    them (a box that ends at the last cell goes on through the padding), cover the layers
    and the cells the layers' terms reach, and are left as they were on unpadded rows. An
    H box reaches the last cell where its E box does (so that the pass can leave both out:
    see test_fused_pass_leaves_out_what_both_slab_boxes_recompute)."""
    import numpy as np

    st = _march_stub((41, 30, 20), [(0, 5, 0, 0), (0, 5, 36, 35), (1, 4, 0, 0)])
    st.pitch = (pitch, 30)
    st.field_dtype = np.dtype(f"f{itemsize}")
    sector = 32 // itemsize
    boxes = st._slab_boxes()
    need = {"h": [(0, 5), (35, 41), (0, 41)], "e": [(0, 6), (35, 41), (0, 41)]}
    for kind in ("h", "e"):
        for box, (lo, hi) in zip(boxes[kind], need[kind], strict=True):
            x0, x1 = box[0], box[0] + box[3]
            if pitch % sector:
                assert (x0, x1) == (lo, hi)
                continue
            assert x0 <= lo and x1 >= hi   # the cells the layer's terms reach
            assert x0 % sector == 0 and x1 % sector == 0   # whole sectors
            assert x1 <= 41 or x1 == pitch   # past the last cell only through the padding
            assert hi - lo < x1 - x0 < hi - lo + 2 * sector or x1 == pitch


@pytest.mark.parametrize("mode", ["slabm", "slabs"])
@pytest.mark.parametrize("pitch", [48, 41])
def test_fused_pass_leaves_out_what_both_slab_boxes_recompute(pitch, mode):
    """The pass over the grid leaves out, along each axis, the planes at either end that an H
    box and an E box of that axis both hold (slab3 replaces the pass's values there), and
    no other cell: every cell outside the pass lies in an H box and in an E box. Along x its
    origin stays on a multiple of 16 cells; an axis without layers keeps every plane.
    slab3 ("slabs") recomputes H over the H boxes and E over the E boxes, slab3m ("slabm")
    both over each E box."""
    import numpy as np

    st = _march_stub((41, 30, 20), [(0, 5, 0, 0), (0, 5, 36, 35), (1, 4, 0, 0),
                                    (1, 4, 26, 25), (2, 12, 0, 0)])
    st.pitch = (pitch, 30)
    st.field_dtype = np.dtype("f4")
    st.cpml_mode = mode
    st._boxes = st._slab_boxes()
    org, ext = st._pass_box()
    # x: both low boxes end at 8 on padded rows (whole sectors), 6 unpadded: origin 0 (a
    # multiple of 16); high: both boxes start at 32 padded, 35 unpadded; y: low boxes end at
    # 4 (H) and 5 (E), high ones start at 25; z: one layer, 12 thick, at the low end, its
    # H box ending at 12, its E box at 13
    if mode == "slabm":   # the H boxes are the E boxes
        assert st._boxes["h"] == st._boxes["e"]
        assert org == (0, 5, 13)
        assert ext == ((32 if pitch == 48 else 35), 20, 7)
    else:
        assert org == (0, 4, 12)
        assert ext == ((32 if pitch == 48 else 35), 21, 8)
    inside = np.zeros((41, 30, 20), dtype=bool)
    inside[org[0]:org[0] + ext[0], org[1]:org[1] + ext[1], org[2]:org[2] + ext[2]] = True
    for kind in ("h", "e"):
        boxed = np.zeros_like(inside)
        for b in st._boxes[kind]:
            boxed[b[0]:b[0] + b[3], b[1]:b[1] + b[4], b[2]:b[2] + b[5]] = True
        assert (inside | boxed).all()
    st.cpml_mode = "inpass"
    assert st._pass_box() == ((0, 0, 0), (41, 30, 20))


def test_fused_pads_rows_for_aligned_tiles_or_x_layers(monkeypatch):
    """Rows start on 32-byte sectors (16 cells) where the aligned tiles of march3f run
    (32- and 64-bit storage) or slab3 has x boxes; 16-bit storage without x layers and the
    overlapping tiles without x layers keep them unpadded; 'temporal' pads them in float
    arithmetic only: to 8 cells over 4-byte values (march3v's tiles that write whole
    sectors), to an even length over 16-bit ones (its two-cell accesses)."""
    v = make_variant("fused")
    v.mode = "3d"
    assert v.aligned and v.pitches((513, 513, 513)) == (528, 513)
    v.half = True
    assert not v.aligned and v.pitches((513, 513, 513)) == (513, 513)
    monkeypatch.setenv("YEEFDTD_FUSED", "aligned")
    assert v.aligned and v.pitches((513, 513, 513)) == (528, 513)
    monkeypatch.delenv("YEEFDTD_FUSED")
    v.x_layers = True
    assert v.pitches((513, 513, 513)) == (528, 513)
    monkeypatch.setenv("YEEFDTD_FUSED", "overlap")
    v.half, v.x_layers = False, False
    assert not v.aligned and v.pitches((513, 513, 513)) == (513, 513)
    v.x_layers = True
    assert v.pitches((513, 513, 513)) == (528, 513)
    t = make_variant("temporal")
    t.mode, t.x_layers = "3d", True
    # 'temporal' in float arithmetic: rows of whole sectors, 8 cells over 4-byte values,
    # 16 over 16-bit ones
    assert t.pitches((513, 513, 513)) == (520, 513)
    t.half = True
    assert t.pitches((513, 513, 513)) == (528, 513)
    t.half, t.single = False, False
    assert t.pitches((513, 513, 513)) == (513, 513)


def test_marching_passes_leave_out_the_last_planes_that_stay_zero():
    """The last plane along an axis needs no update (it stays zero) where the wall there is
    PEC or CPML and no source or probe lies in it; a PMC wall, a periodic axis, a source or
    a probe in the plane keep it in."""
    import yeefdtd as yf
    from yeefdtd.backends.cuda.march import MarchStepper

    def inert(**kw):
        base = dict(grid=yf.Grid(cells=(10, 8, 6), spacing=1e-3), boundaries="pec",
                    run=yf.RunSettings(steps=3))
        m = yf.build_model(yf.Scene(**{**base, **kw}))
        st = object.__new__(MarchStepper)
        st._probe_groups = [{"group": pg} for pg in m.probes]
        return st._inert_ends(m)

    walls = {f"{a}_{s}": "pec" for a in "xyz" for s in ("min", "max")}
    wf = yf.Gaussian(tau=1e-11)
    assert inert() == (True, True, True)
    cpml = yf.Cpml(cells=2)
    assert inert(boundaries={**walls, "y_min": cpml, "y_max": cpml}) == (True, True, True)
    assert inert(boundaries={**walls, "x_max": "pmc"}) == (False, True, True)
    assert inert(boundaries={**walls, "z_min": "pmc"}) == (True, True, True)
    assert inert(boundaries={**walls, "y_min": "periodic", "y_max": "periodic"}) == \
        (True, False, True)
    assert inert(monitors=[yf.Probe(name="p", position=(0.010, 0.004, 0.003))]) == \
        (False, True, True)
    assert inert(sources=[yf.PointSource(component="ex", position=(0.0045, 0.004, 0.006),
                                             waveform=wf)]) == \
        (True, True, False)


@pytest.mark.parametrize("name,value,reads", [
    ("YEEFDTD_FUSED", "blocks", lambda v: v.staged),
    ("YEEFDTD_STAGES", "2", lambda v: v.stages),
    ("YEEFDTD_STAGES", "four", lambda v: v.stages),
    ("YEEFDTD_CPML", "slab", lambda v: v.tuning_tag()),
    ("YEEFDTD_BOX_STREAMS", "-1", lambda v: box_streams(6)),
    ("YEEFDTD_BOX_STREAMS", "many", lambda v: box_streams(6)),
    ("YEEFDTD_LANE_SECTORS", "yes", lambda v: make_variant("temporal").tuning_tag()),
    ("YEEFDTD_LEAN_FACES", "w", lambda v: make_variant("temporal").tuning_tag()),
    ("YEEFDTD_LANE_PITCH", "7", lambda v: make_variant("temporal").pitches((513, 513, 513))),
    ("YEEFDTD_LANE_PITCH", "08x", lambda v: make_variant("temporal").lane_pitch),
    ("YEEFDTD_LANE_PITCH", "512", lambda v: make_variant("temporal").lane_pitch),
    ("YEEFDTD_LEAN_SEGMENT", "0", lambda v: lean_segment()),
    ("YEEFDTD_LEAN_SEGMENT", "64,32,16", lambda v: lean_segment()),
    ("YEEFDTD_LEAN_SEGMENT", "64,z", lambda v: lean_segment()),
    ("YEEFDTD_LEAN_WALLS", "on", lambda v: make_variant("temporal").tuning_tag()),
    ("YEEFDTD_LEAN_FACE_WALLS", "yes", lambda v: make_variant("temporal").tuning_tag()),
])
def test_an_experiment_switch_it_does_not_understand_is_a_one_line_error(name, value, reads,
                                                                         monkeypatch):
    """The environment switches that run other kernels (experiments.py) say which variable
    holds what they cannot read, and what it takes, instead of falling back silently."""
    v = make_variant("fused")
    v.mode = "3d"
    monkeypatch.setenv(name, value)
    with pytest.raises(SetupError) as err:
        reads(v)
    msg = str(err.value)
    assert msg.startswith(f"${name}: {value!r}") and "unset it" in msg and "\n" not in msg


def test_the_switches_take_what_they_document(monkeypatch):
    from yeefdtd.backends.cuda.launch import SLAB_DEFAULT, slab_setting

    v = make_variant("fused")
    v.mode = "3d"
    monkeypatch.setenv("YEEFDTD_STAGES", "5")
    assert v.stages == 5
    monkeypatch.setenv("YEEFDTD_STAGES", "")
    assert v.stages == v.STAGES_3D
    monkeypatch.setenv("YEEFDTD_CPML", "boxes")
    assert v.tuning_tag().endswith("cpml=boxes")
    assert slab_setting() == SLAB_DEFAULT
    monkeypatch.setenv("YEEFDTD_SLAB", "4, 128")
    assert slab_setting() == (4, 128)
    for bad in ("4", "4,x", "0,256"):
        monkeypatch.setenv("YEEFDTD_SLAB", bad)
        with pytest.raises(SetupError, match=r"^\$YEEFDTD_SLAB: .*2 comma-separated integers"):
            slab_setting()
    assert box_streams(6) == 6
    monkeypatch.setenv("YEEFDTD_BOX_STREAMS", "0")
    assert box_streams(6) == 0
    t = make_variant("temporal")
    t.mode, t.single = "3d", True
    assert "lean_faces" not in t.tuning_tag()
    # march3 over some faces' boxes: tuned apart
    for value, tag in (("off", ""), ("x", "x"), ("yz", "yz"), ("z", "z")):
        monkeypatch.setenv("YEEFDTD_LEAN_FACES", value)
        assert t.tuning_tag().endswith(f" lean_faces={tag}")
    monkeypatch.setenv("YEEFDTD_LEAN_FACES", "on")
    assert "lean_faces" not in t.tuning_tag()
    # lean3f's boxes on other z segments: tuned apart
    assert lean_segment() is None and "lean_segment" not in t.tuning_tag()
    monkeypatch.setenv("YEEFDTD_LEAN_SEGMENT", "32")
    assert lean_segment() == (32, 32) and t.tuning_tag().endswith(" lean_segment=32,32")
    monkeypatch.setenv("YEEFDTD_LEAN_SEGMENT", " 128, 64 ")
    assert lean_segment() == (128, 64) and t.tuning_tag().endswith(" lean_segment=128,64")
    # the walls' march on grids of one material alone, or nowhere: tuned apart
    monkeypatch.setenv("YEEFDTD_LEAN_SEGMENT", "")
    for value in ("grid", "off"):
        monkeypatch.setenv("YEEFDTD_LEAN_WALLS", value)
        assert t.tuning_tag().endswith(f" lean_walls={value}")
    monkeypatch.setenv("YEEFDTD_LEAN_WALLS", "cone")
    assert "lean_walls" not in t.tuning_tag()
    # march3 over the boxes that reach a wall (lean3f's, the default): tuned apart
    monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", "off")
    assert t.tuning_tag().endswith(" lean_face_walls=off")
    for value in ("on", ""):
        monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", value)
        assert "lean_face_walls" not in t.tuning_tag()


def test_where_the_cpml_goes_follows_the_switch_and_refuses_slabs_after_several_steps(
        monkeypatch):
    """Slabs (one step) follow 'fused' only; with no layers the switch does not matter;
    3D 'fused' defaults to slab3, 'temporal' and 2D to boxes around the x layers (2D takes
    only those or the pass)."""
    from yeefdtd.backends.cuda.march import cpml_mode

    fused, temporal = make_variant("fused"), make_variant("temporal")
    fused.mode = temporal.mode = "3d"
    flat = make_variant("temporal")
    flat.mode = "tmz"
    assert cpml_mode(fused, True) == "slabs"
    assert cpml_mode(temporal, True) == "boxes"
    assert cpml_mode(flat, True) == "xboxes"
    assert cpml_mode(fused, False) == cpml_mode(flat, False) == "inpass"
    monkeypatch.setenv("YEEFDTD_CPML", "boxes")
    assert cpml_mode(fused, True) == cpml_mode(temporal, True) == "boxes"
    with pytest.raises(SetupError, match=r"^\$YEEFDTD_CPML: 'boxes' is for 3D grids; in 2D "):
        cpml_mode(flat, True)
    monkeypatch.setenv("YEEFDTD_CPML", "slabm")
    assert cpml_mode(fused, True) == "slabm"
    with pytest.raises(SetupError, match=r"^\$YEEFDTD_CPML: 'slabm' follows one-step passes"):
        cpml_mode(temporal, True)
    assert cpml_mode(temporal, False) == "inpass"
    monkeypatch.setenv("YEEFDTD_CPML", "inpass")
    assert cpml_mode(flat, True) == cpml_mode(temporal, True) == "inpass"
    monkeypatch.setenv("YEEFDTD_CPML", "xboxes")
    assert cpml_mode(flat, True) == cpml_mode(temporal, True) == "xboxes"


def test_2d_boxes_hold_the_x_layers_only_and_a_tile_owns_their_width():
    """2D with the x layers beside the pass: a box around each x layer (its E and H
    columns, the column after, and NT - 1 more each way), none around the y layers (the
    pass applies those); each box's tile owns its whole width, in short segments."""
    st = _march_stub((61, 47, 1), [(0, 5, 0, 0), (0, 6, 55, 54), (1, 4, 0, 0), (1, 5, 42, 41)])
    st.cpml_mode = "xboxes"
    st.model.grid.mode = "tmz"
    for nt in (1, 4, 8):
        boxes = st.march_boxes(nt)
        assert [a for _, _, a, _ in boxes] == [0, 0]
        assert boxes[0][:2] == ((0, 0, 0), (6 + nt - 1, 47, 1))
        lo = 54 - (nt - 1)
        assert boxes[1][:2] == ((lo, 0, 0), (61 - lo, 47, 1))
        for _, ext, a, _ in boxes:
            cfg = st.box_config((nt, 4, 4, 128), a, ext)
            assert cfg[0] == nt and 32 * cfg[1] - 2 * nt >= ext[0] and cfg[2] == 1
            assert cfg[3] == st.BOX_ROWS_2D
    st.cpml_mode = "inpass"
    assert len(st.march_boxes(2)) == 4


@pytest.mark.parametrize("mode, dtype, expect", [
    ("3d", "float32", "temporal"), ("3d", "float64", "temporal"), ("3d", "float16", "temporal"),
    ("tmz", "float32", "temporal"), ("tez", "float16", "temporal"),
    ("tmz", "float64", "temporal")])
def test_auto_runs_the_fastest_measured_variant_for_large_grids(mode, dtype, expect):
    assert default_variant(mode, dtype, 513**3, True, 10**9, 10**12) == (expect, None)
    assert default_variant(mode, dtype) == (expect, None)   # no device to ask


@pytest.mark.parametrize("mode, cells, cpml, expect", [
    ("3d", 96**3, False, "indexed"), ("3d", 112**3, False, "temporal"),
    ("3d", 192**3, True, "indexed"), ("3d", 208**3, True, "temporal"),
    ("tmz", 1024**2, False, "indexed"), ("tmz", 1152**2, False, "temporal"),
    ("tez", 1664**2, True, "indexed"), ("tez", 1792**2, True, "temporal")])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_auto_runs_indexed_on_grids_below_the_measured_crossover(mode, cells, cpml, expect,
                                                                dtype):
    """Each pair: the sizes either side of a crossover measured on an H100 in float32.
    float64 shares the thresholds: where measured it favours 'temporal' as much or more
    (dipole-cpml 192^3 level, 14 504 / 14 767 Mcells/s; see AUTO_MIN_CELLS)."""
    assert default_variant(mode, dtype, cells, cpml)[0] == expect


@pytest.mark.parametrize("mode, cells, cpml, expect", [
    ("tmz", 1536**2, False, "indexed"), ("tmz", 1792**2, False, "temporal"),
    ("tez", 2048**2, True, "indexed"), ("tmz", 2560**2, True, "temporal")])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_auto_with_16_bit_storage_in_2d_follows_its_own_crossover(mode, cells, cpml, expect,
                                                                 dtype):
    """2D float16: 'indexed' holds out to larger grids than in float32 (H100, tmz-2d 1536^2:
    165 796 against 157 957 Mcells/s; 1792^2: 183 291 against 215 018)."""
    assert default_variant(mode, dtype, cells, cpml)[0] == expect


@pytest.mark.parametrize("cells, cpml, expect", [
    (193**3, False, "indexed"), (257**3, False, "temporal"),
    (321**3, True, "indexed"), (385**3, True, "temporal")])
def test_auto_with_16_bit_storage_in_3d_follows_its_own_crossover(cells, cpml, expect):
    """3D float16: 'indexed' (half the bytes) holds out to larger grids without layers
    (pec-box 192 on an H100: 59 291 against 51 058 Mcells/s; 256: 65 823 against 68 682)."""
    assert default_variant("3d", "float16", cells, cpml)[0] == expect


@pytest.mark.parametrize("mode, dtype, feed, cpml, periodic, expect", [
    ("3d", "float16", 12.8, True, False, "temporal"),
    ("3d", "float16", 18.4, False, True, "indexed"),
    ("3d", "bfloat16", 18.4, False, True, "indexed"),
    ("3d", "float16", 18.4, False, False, "temporal"),
    ("3d", "float32", 18.4, False, True, "temporal"),
    ("tmz", "float16", 18.4, False, True, "temporal"),
    ("3d", "float16", None, False, True, "temporal"),
    ("3d", "float16", 18.4, True, True, "temporal"),
    ("3d", "bfloat16", 18.4, True, False, "temporal")])
def test_auto_with_16_bit_storage_in_3d_runs_indexed_where_memory_feeds_the_sms_more(
        mode, dtype, feed, cpml, periodic, expect):
    """An H100 SXM's memory feeds 12.8 bytes per SM cycle and an H200's about 18.4; on the H200
    3D float16 'indexed' outruns 'temporal' without CPML layers where the walls' march does
    not run (a periodic axis; pec-box 512 without it: 94 589 against 82 767), but not where
    it does (pec-box 512: 117 618 against 94 304), and with layers since the lean pass took
    16-bit values 'temporal' runs ahead (dipole-cpml 512: 95 661 against 70 019)."""
    cells = 513**3 if mode == "3d" else 8193**2
    assert default_variant(mode, dtype, cells, cpml, 10**9, 10**12, feed,
                           periodic=periodic) == (expect, None)


@pytest.mark.parametrize("mode, dtype, cells, cpml, expect", [
    ("3d", "float32", 112**3, False, "indexed"), ("3d", "float32", 128**3, False, "temporal"),
    ("3d", "float32", 224**3, True, "indexed"), ("3d", "float32", 256**3, True, "temporal"),
    ("3d", "float64", 224**3, True, "temporal"), ("3d", "float64", 112**3, False, "temporal"),
    ("tmz", "float32", 1024**2, False, "indexed"), ("tmz", "float32", 1152**2, False, "temporal"),
    ("tmz", "float32", 1792**2, True, "indexed"), ("tez", "float32", 2048**2, True, "temporal"),
    ("tmz", "float16", 1536**2, False, "indexed"), ("tmz", "float16", 1792**2, False, "temporal"),
    ("tmz", "float16", 2560**2, True, "indexed"), ("tez", "bfloat16", 3072**2, True, "temporal"),
    ("3d", "float16", 248**3, True, "indexed"), ("3d", "float16", 256**3, True, "temporal"),
    ("3d", "float16", 256**3, False, "indexed"), ("3d", "float16", 288**3, False, "temporal")])
def test_auto_on_cards_whose_memory_feeds_the_sms_more_follows_their_crossovers(
        mode, dtype, cells, cpml, expect):
    """The sizes either side of each crossover measured on an H200 (feed 18.4): 'indexed'
    holds out to larger 3D grids and 2D grids with layers than on an H100 (12.8), where the
    same sizes of 112^3, 224^3, 1792^2 and 2560^2 run 'temporal'. float64 keeps the
    H100's thresholds (it favoured 'temporal' more where measured). The feed's threshold
    is AUTO_FEED itself."""
    from yeefdtd.backends.cuda.variants import AUTO_FEED

    for feed in (18.4, AUTO_FEED):
        assert default_variant(mode, dtype, cells, cpml, 10**9, 10**12, feed) == (expect, None)
    if expect == "indexed" and (cells, cpml) in ((112**3, False), (224**3, True),
                                                 (1792**2, True), (2560**2, True)):
        for feed in (12.8, AUTO_FEED - 0.01, None):
            assert default_variant(mode, dtype, cells, cpml, 10**9, 10**12, feed)[0] == \
                "temporal"


def test_device_feed_is_none_without_a_device(monkeypatch):
    """Without CuPy (or a device to ask) there is no feed, and 'auto' decides without it."""
    import sys

    from yeefdtd.backends.cuda.stepper import device_feed

    monkeypatch.setitem(sys.modules, "cupy", None)   # import cupy raises ImportError
    assert device_feed() is None


def test_auto_runs_indexed_where_two_sets_of_fields_would_not_fit():
    # 3 GiB of fields twice against 7 GiB free: over 80% of it
    name, note = default_variant("3d", "float32", 513**3, True, 3 * 2**30, 7 * 2**30)
    assert name == "indexed"
    assert "'temporal'" in note and "6.0 GiB" in note and "7.0 GiB free" in note
    assert default_variant("3d", "float32", 513**3, True, 3 * 2**30, 8 * 2**30)[0] == \
        "temporal"
    assert default_variant("tmz", "float32", 8193**2, False, 3 * 2**30, 7 * 2**30)[0] == \
        "indexed"


def test_lane_tiles_run_march3v_only_where_it_fits():
    """3D 'temporal' runs tiles 64 cells wide as march3v (32 x BY threads, 2 cells a lane)
    with 2 steps a pass, float arithmetic and no CPML terms; 64 x 16 (which as march3 would
    be 1024 threads) is offered only there, and every other pass stays march3."""
    t = make_variant("temporal")
    t.mode = "3d"
    shapes = t.configs("pass", (513, 513, 513))
    assert (2, 64, 16, 0) in shapes and (3, 64, 16, 0) not in shapes
    assert t.kernel("pass", (2, 64, 16, 64), "3d", "float", "id8_t", "true") == \
        "march3v<float, id8_t, true, 2, 2, 16, 1>"
    assert t.kernel("pass", (2, 64, 8, 64), "3d", "float", "id8_t", "true") == \
        "march3v<float, id8_t, true, 2, 2, 8, 2>"
    assert t.launch((2, 64, 16, 64), (489, 489, 489))[1] == (32, 16, 1)
    assert t.threads((2, 64, 16, 64)) == 512
    # CPML terms (the boxes), 3 steps a pass, double arithmetic: march3
    assert t.kernel("pass", (2, 64, 8, 16), "3d", "float", "id8_t", "true", 1).startswith(
        "march3<")
    assert t.kernel("pass", (3, 64, 8, 0), "3d", "float", "id8_t", "true").startswith("march3<")
    assert t.launch((2, 64, 8, 16), (24, 489, 489), 1)[1] == (64, 8, 1)
    t.single = False
    assert (2, 64, 16, 0) not in t.configs("pass", (513, 513, 513))
    assert t.kernel("pass", (2, 64, 8, 64), "3d", "double", "id8_t", "true").startswith(
        "march3<")
    f = make_variant("fused")
    f.mode = "3d"
    assert not any(c[1] * c[2] > 512 for c in f.configs("pass", (513, 513, 513)))


def test_lane_tiles_write_whole_sectors_where_they_take_no_more_tiles(monkeypatch):
    """3D 'temporal''s march3v over 4-byte values runs tiles owning 56 cells from a multiple
    of 8 (whole 32-byte sectors) where they take no more tiles along x than the tiles that
    overlap by NT cells (60 owned); over 16-bit values (rows of 16 cells) for the lean
    pass's shape alone; not for other passes."""
    for name in ("YEEFDTD_LANE_SECTORS", "YEEFDTD_LANE_PITCH"):
        monkeypatch.delenv(name, raising=False)
    t = make_variant("temporal")
    t.mode = "3d"
    cfg = (2, 64, 16, 64)
    assert t.lane_owned(cfg) == 60 and t.lane_owned(cfg, True) == 56
    px = t.pitches((513, 513, 513))[0]
    assert px == 520
    # dipole-cpml 512's pass box (489 cells from x = 12): 9 tiles either way
    assert t.lane_sectors(cfg, 12, 489, 0, px)
    grid, block, _ = t.launch(cfg, (489, 489, 489), 0, 12)
    assert grid[0] == 9 and block == (32, 16, 1)
    # pec-box 512 (512 from 0): 10 tiles of 56 against 9 of 60
    assert not t.lane_sectors(cfg, 0, 512, 0, px)
    assert t.launch(cfg, (512, 1, 1), 0, 0)[0][0] == 10 and t.launch(cfg, (512, 1, 1))[0][0] == 9
    assert not t.lane_sectors((3, 32, 12, 64), 12, 489, 0, px)   # march3
    assert not t.lane_sectors(cfg, 12, 0, 0, px)
    assert not t.lane_sectors(cfg, 12, 489, 0, 514)   # rows not on sector boundaries
    t.half = True
    assert not t.lane_sectors(cfg, 12, 489, 0, px)
    lean = (3, 64, 24, 64)   # the lean pass's shape, on rows of 16 cells alone
    px16 = t.pitches((513, 513, 513))[0]
    assert px16 == 528 and t.lane_sectors(lean, 13, 487, 0, px16)
    assert not t.lane_sectors(lean, 13, 487, 0, 520)
    t.half = False
    name = t.kernel("pass", cfg, "3d", "float, float", "id8_t", "true", 0, True)
    assert name.endswith(", 1, true>") and "march3v" in name


def test_the_lane_switches_take_what_they_document(monkeypatch):
    """$YEEFDTD_LANE_PITCH pads 3D 'temporal''s rows to its multiple (whole-sector tiles only
    on rows of whole sectors); $YEEFDTD_LANE_SECTORS forces them on or off; both are part of
    the tuner's tag."""
    for name in ("YEEFDTD_LANE_SECTORS", "YEEFDTD_LANE_PITCH"):
        monkeypatch.delenv(name, raising=False)
    t = make_variant("temporal")
    t.mode = "3d"
    cfg = (2, 64, 16, 64)
    tag = t.tuning_tag()
    monkeypatch.setenv("YEEFDTD_LANE_PITCH", "16")
    px = t.pitches((513, 513, 513))[0]
    assert px == 528 and t.lane_sectors(cfg, 12, 489, 0, px)
    assert t.tuning_tag() != tag
    monkeypatch.setenv("YEEFDTD_LANE_PITCH", "2")
    px = t.pitches((513, 513, 513))[0]
    assert px == 514 and not t.lane_sectors(cfg, 12, 489, 0, px)
    monkeypatch.delenv("YEEFDTD_LANE_PITCH")
    monkeypatch.setenv("YEEFDTD_LANE_SECTORS", "on")
    assert t.lane_sectors(cfg, 0, 512, 0, 520) and t.tuning_tag() != tag
    monkeypatch.setenv("YEEFDTD_LANE_SECTORS", "off")
    assert not t.lane_sectors(cfg, 12, 489, 0, 520) and t.tuning_tag() != tag


@pytest.mark.parametrize("spec, says", [
    ("temporal:steps=1", "integer of at least 2"), ("temporal:steps=two", "not 'two'"),
    ("temporal:steps", "integer of at least 2"), ("seed-multicell:cells=0", "at least 1"),
    ("seed-xyz:noshared=1", "a switch and takes no value"), ("temporal:steps=²", "not '²'")])
def test_a_variant_option_of_the_wrong_kind_is_a_one_line_error(spec, says):
    """Checked where the variant is named (scene, CLI), not first inside a CUDA run."""
    with pytest.raises(ValidationError, match=says):
        make_variant(spec)


def test_variant_options_of_the_right_kind_are_kept():
    assert make_variant("temporal:steps=3").options == {"steps": "3"}
    assert make_variant("seed-multicell:cells=4,consecutive").options == {
        "cells": "4", "consecutive": True}


def test_2d_segments_are_refined_to_whole_waves():
    """After a sweep, a 2D pass is offered the y segments near each segment the sweep timed
    with its best tile that make whole waves of blocks (at least 90% full on average): on
    132 SMs holding 4 blocks each, tmz-2d 8192 at 4 steps, 2 cells a lane and 4 warps makes
    4.48 waves with segments of 128 rows and 3.99 with 144."""
    from types import SimpleNamespace

    from yeefdtd.backends.cuda.march import MarchStepper

    v = make_variant("temporal")
    v.mode = "tmz"
    box = (8192, 8192, 1)

    def stepper(mode, blocks_per_sm):
        return SimpleNamespace(
            model=SimpleNamespace(grid=SimpleNamespace(mode=mode)), variant=v,
            WAVE_SEGMENTS=MarchStepper.WAVE_SEGMENTS, WAVE_FILL=MarchStepper.WAVE_FILL,
            WAVE_CANDIDATES=MarchStepper.WAVE_CANDIDATES,
            occupancy=lambda cfg: {"blocks_per_sm": blocks_per_sm, "sms": 132},
            _pass_kernel=lambda cfg: (None, v.launch(cfg, box)[0]),
            pass_box_of=lambda nt: ((0, 0, 0), box), shape=box)

    def waves(cfg, per_wave):
        grid = v.launch(cfg, box)[0]
        return grid[0] * grid[1] / per_wave

    best = (4, 2, 4, 128)
    assert waves(best, 4 * 132) == pytest.approx(4.485, abs=1e-3)
    swept = sorted({c[3] for c in v.configs("pass", box) if c[:3] == best[:3] and c[3]})
    assert swept == [64, 128]   # the sweep's segments for this tile
    refined = MarchStepper._refinements(stepper("tmz", 4), "pass", best)
    assert (4, 2, 4, 144) in refined
    for cfg in refined:
        assert cfg[:3] == best[:3] and 0.6 * 64 <= cfg[3] <= 1.6 * 128
        w = waves(cfg, 4 * 132)
        assert w / math.ceil(w) >= 0.9
    assert any(cfg[3] < 0.6 * 128 for cfg in refined)   # near 64 too
    assert MarchStepper._refinements(stepper("3d", 4), "pass", best) == []
    assert MarchStepper._refinements(stepper("tmz", 4), "pass", (4, 2, 4, 0)) == []
    assert MarchStepper._refinements(stepper("tmz", 0), "pass", best) == []
    # one block an SM: many lengths fit; the nearest few to each swept segment are offered,
    # those near the best first
    many = MarchStepper._refinements(stepper("tmz", 1), "pass", best)
    assert len(many) == 2 * MarchStepper.WAVE_CANDIDATES and many[0] == (4, 2, 4, 128)
    assert all(abs(math.log(c[3] / 128)) < abs(math.log(c[3] / 64))
               for c in many[:MarchStepper.WAVE_CANDIDATES])


def test_candidates_are_timed_over_whole_passes_scaled_to_twelve_steps():
    """A tuning candidate runs the whole passes that fit in TUNE_STEPS (one at least), and
    its time is scaled to TUNE_STEPS steps, so that candidates of any steps per pass
    compare (5 a pass runs 10 steps, timed as 12)."""
    st = _march_stub((512, 512, 512), [])
    want = {2: 12, 3: 12, 4: 12, 5: 10, 6: 12, 7: 7, 8: 8}
    assert {nt: st.tune_steps(nt) for nt in want} == want
    for nt, steps in want.items():
        assert st._tune_scale("pass", (nt, 32, 8, 0)) == 12 / steps


def test_the_lean_pass_and_the_tiles_beside_it_partition_the_same_box():
    """3D 'temporal''s lean pass (3 steps, 64 x 24): lean3v's tiles and march3v's of 12 rows
    beside it start at the same x and z, take as many tiles along x and segments along z,
    and three of march3v's rows of tiles own each row of lean3v's (18 rows against 6), so
    that each block's byte from lean3v_one says which of the two runs its cells. Offered to
    the tuner in float arithmetic only (march3v's lanes), and not where its tiles of 6 owned
    rows would pass CUDA's 65 535 blocks along y."""
    v = make_variant("temporal")
    v.mode = "3d"
    v.single = True
    shape = (487, 487, 487)
    lean = [c for c in v.configs("pass", (513, 513, 513)) if v.lean_shape(c)]
    assert lean == [(3, 64, 24, 128), (3, 64, 24, 64)]
    for cfg in lean:
        g = v.lean_general(cfg)
        assert g == (3, 64, 12, cfg[3]) and v.lane_pass(g) and not v.lean_shape(g)
        (lx, ly, lz), lblock, lseg = v.launch(cfg, shape, 0, 13)
        (gx, gy, gz), gblock, gseg = v.launch(g, shape, 0, 13)
        assert (lx, lz, lseg) == (gx, gz, gseg) and lblock == (32, 24, 1) and gblock == (32, 12, 1)
        assert v.owned(cfg, 0, True) == [56, 18] and v.owned(g, 0, True) == [56, 6]
        assert ly == -(-487 // 18) and gy == -(-487 // 6) <= 3 * ly
        assert v.kernel("pass", cfg, "3d", "float, float", "unsigned char", "true", 0, True,
                        True, True) == "lean3v<float, float, unsigned char, true, 3, 2, 24>"
        assert v.kernel("pass", cfg, "3d", "float, float", "unsigned char", "true", 0, True,
                        True).startswith("march3v<float, float, unsigned char, true, 3, 2, 12, 1,"
                                         " true, true, true>")
    v.single = False
    assert not any(v.lean_shape(c) for c in v.configs("pass", (513, 513, 513)))
    v.single = True
    assert not any(v.lean_shape(c) for c in v.configs("pass", (17, 400_000, 80)))


def test_the_dynamic_shared_memory_of_the_lean_pass_and_of_march3v():
    """lean3v's shared planes (16 of 64 x 26 floats at 3 steps, 24 rows) and march3v's
    where they and its barriers pass 48 kB (3 steps, 12 rows), as march3v.cu lays them
    out; none for march3v's at 2 steps (46 080 bytes, static) or for other kernels."""
    from yeefdtd.backends.cuda.march import lean_bytes

    T, ID = "float, float", "unsigned char"
    assert lean_bytes(f"lean3v<{T}, {ID}, true, 3, 2, 24>", "float") == 16 * 64 * 26 * 4
    assert lean_bytes(f"march3v<{T}, {ID}, true, 3, 2, 12, 1, true, true, true>",
                      "float") == 16 * 64 * 14 * 4
    assert lean_bytes(f"march3v<{T}, {ID}, true, 2, 2, 16, 1, true>", "float") == 0
    assert lean_bytes(f"march3<{T}, {ID}, true, 2, 32, 12, 0, 0, 2, 0>", "float") == 0


def test_the_lean_pass_s_march_with_ids_its_instance_mark_and_shared_memory():
    """lean3v's blocks of other ids run an instance of their own (IDS), with the same
    planes as lean3v's and, past them, the table's rows and a ring of NT + 1 words of 2 ids
    a lane; the finder takes the table's row count as the sources' and probes' cells' id
    (no cell holds it), or -1 where the ids take every value of their type or that
    instance's shared memory would pass the device's limit."""
    from types import SimpleNamespace

    from yeefdtd.backends.cuda.march import MarchStepper, lean_bytes, lean_ids_kernel

    name = "lean3v<float, float, unsigned char, true, 3, 2, 24>"
    ids = lean_ids_kernel(name)
    assert ids == "lean3v<float, float, unsigned char, true, 3, 2, 24, true>"
    assert lean_bytes(ids, "float") == lean_bytes(name, "float") == 16 * 64 * 26 * 4

    def st(rows, dtype):
        return SimpleNamespace(R=rows, id_dtype=np.dtype(dtype),
                               _table_host=np.zeros((rows, 6, 3), np.float32))

    assert MarchStepper._lean_mark(st(45, np.uint8)) == 45
    assert MarchStepper._lean_mark(st(255, np.uint8)) == 255
    assert MarchStepper._lean_mark(st(256, np.uint8)) == -1
    assert MarchStepper._lean_mark(st(300, np.uint16)) == 300
    # where the instance's shared memory passes what a block may take: none of byte 3
    assert MarchStepper._lean_mark(st(45, np.uint8), 120_000, 232_448) == 45
    assert MarchStepper._lean_mark(st(45, np.uint8), 120_000, 101_376) == -1
    assert MarchStepper._lean_ids_bytes(st(45, np.uint8), (3, 64, 24, 64)) == \
        45 * 18 * 4 + 4 * 32 * 24 * 2
    assert MarchStepper._lean_ids_bytes(st(300, np.uint16), (3, 64, 24, 64)) == \
        300 * 18 * 4 + 4 * 32 * 24 * 4


#: the components in the order of MarchStepper's table
ORDER = ("ex", "ey", "ez", "hx", "hy", "hz")


def _coefficient_row(zero=(), other=()):
    """A table row [component, column] of vacuum-like coefficients, the components of
    ``zero`` all zero, those of ``other`` with another curl coefficient."""
    r = np.tile([1.0, 0.5, -0.5], (6, 1))
    r[list(zero)] = 0.0
    r[list(other), 1] = 0.25
    return r


def test_lean3f_zero_masks_are_a_column_s_a_row_s_and_a_plane_s():
    """lean3f keeps a cell's components zero where its column's, row's or plane's mask
    (along the box's CPML axes) says so, and takes row 0's coefficients for the others: the
    host finds those masks from the cells' combinations of materials (zero_masks), and
    refuses a cone whose zero components are not such a union, or that holds a component
    whose coefficients are neither row 0's nor zero."""
    import numpy as np

    from yeefdtd.backends.cuda.march import zero_masks

    order, row = ORDER, _coefficient_row
    # 0 vacuum, 1 an x wall (Ey, Ez zero), 2 a z wall (Ex, Ey), 3 their corner, 4 another
    # material
    table = np.stack([row(), row((1, 2)), row((0, 1)), row((0, 1, 2)), row(other=(0,))])
    cells = np.zeros((5, 4, 6), dtype=np.uint8)
    cells[0] = 1
    cells[:, :, 0] = 2
    cells[0, :, 0] = 3
    parts = zero_masks(cells, table, order, 0b101)
    assert parts is not None
    assert list(parts[0]) == [0b110, 0, 0, 0, 0]
    assert not parts[1].any()
    assert list(parts[2]) == [0b011, 0, 0, 0, 0, 0]
    assert zero_masks(cells, table, order, 0b100) is None   # the x wall is no plane's
    odd = cells.copy()
    odd[2, 2, 3] = 1   # an x wall's combination inside the cone
    assert zero_masks(odd, table, order, 0b101) is None
    other = cells.copy()
    other[2, 1, 4] = 4
    assert zero_masks(other, table, order, 0b101) is None
    assert [list(p) for p in zero_masks(np.zeros((2, 3, 4), np.uint8), table, order, 7)] == \
        [[0, 0], [0, 0, 0], [0, 0, 0, 0]]


def test_the_walls_masks_are_zero_masks_of_every_axis_over_the_grid():
    """lean3v's walls' march (WL) takes the zero masks of every axis over the whole grid
    (wall_masks: a chunk of planes at a time, on the cells' device), the same as lean3f's
    zero_masks with every axis's, or None where those refuse the grid; its instance is
    lean3v's with IDS false and WL true."""
    from yeefdtd.backends.cuda.march import lean_walls_kernel, wall_masks, wall_rows, zero_masks

    assert lean_walls_kernel("lean3v<float, float, unsigned char, true, 3, 2, 24>") == \
        "lean3v<float, float, unsigned char, true, 3, 2, 24, false, true>"
    assert lean_walls_kernel("lean3v<float, float, unsigned char, true, 3, 2, 24>", 4) == \
        "lean3v<float, float, unsigned char, true, 3, 2, 24, false, true, 4>"
    order, row = ORDER, _coefficient_row
    # 0 vacuum; walls normal to x (Ey, Ez zero), y (Ex, Ez), z (Ex, Ey); 4 another material;
    # 5 the edges where two walls meet (every E component zero)
    table = np.stack([row(), row((1, 2)), row((0, 2)), row((0, 1)), row(other=(0,)),
                      row((0, 1, 2))])
    cells = np.zeros((7, 5, 9), dtype=np.uint8)
    cells[-1] = 1
    cells[:, 0] = 2
    cells[:, :, 0] = 3
    cells[-1, 0, :] = cells[:, 0, 0] = cells[-1, :, 0] = 5
    rows = wall_rows(table, order)
    for chunk in (2, 4, 64):
        got = wall_masks(cells, rows, chunk)
        want = zero_masks(cells, table, order, 7)
        assert want is not None
        assert [list(p) for p in got] == [list(p) for p in want]
    assert list(got[0]) == [0] * 6 + [0b110]
    assert list(got[1]) == [0b101, 0, 0, 0, 0]
    assert list(got[2]) == [0b011] + [0] * 8
    odd = cells.copy()
    odd[2, 2, 3] = 1   # an x wall's combination off the x wall
    assert zero_masks(odd, table, order, 7) is None
    assert wall_masks(odd, rows, 2) is None
    other = cells.copy()
    other[2, 1, 4] = 4
    assert wall_masks(other, rows, 2) is None
    # read loosely, the other material's cell sets no bit apart (each block's cone is
    # checked against the masks instead: lean3v_one's zrow)
    assert [list(p) for p in wall_masks(other, rows, 2, loose=True)] == \
        [list(p) for p in got]
    assert [list(p) for p in wall_masks(odd, rows, 2, loose=True)] == [list(p) for p in got]


def test_a_pmc_wall_s_doubled_differences_are_its_plane_s_mask():
    """A PMC wall's tangential E takes row 0's coefficients with the difference across the
    wall doubled (its image): wall_rows codes that as the difference's axis's bits
    (WALL_DOUBLES' layout: Ex's second difference and Ey's first are along z), and
    wall_masks gives the wall's plane bits 6-7, which the walls' march's instance with WP
    doubles; where a PEC wall meets it, the component the PEC wall keeps zero takes its
    bits either way, so the plane's mask keeps them; a PEC wall's own masks hold none; a
    difference of another factor is another material's."""
    from yeefdtd.backends.cuda.march import WALL_DOUBLES, WALL_OTHER, wall_masks, wall_rows

    order, row = ORDER, _coefficient_row
    pmc_z = row()
    pmc_z[0, 2] *= 2   # Ex's second difference (along z)
    pmc_z[1, 1] *= 2   # Ey's first (along z)
    edge = row((1, 2))
    edge[0, 2] *= 2
    half = row()
    half[0, 2] *= 0.5
    table = np.stack([row(), pmc_z, row((1, 2)), edge, half])
    rows = wall_rows(table, order)
    assert list(rows[:4]) == [0, 1 << 11 | 1 << 10, 0b110 | WALL_DOUBLES[1] | WALL_DOUBLES[2],
                              0b110 | WALL_DOUBLES[1] | WALL_DOUBLES[2] | 1 << 11]
    assert rows[4] == WALL_OTHER
    cells = np.zeros((6, 5, 7), dtype=np.uint8)
    cells[-1] = 2          # a PEC wall at x's end
    cells[:, :, -1] = 1    # a PMC wall at z's end
    cells[-1, :, -1] = 3   # where they meet
    got = wall_masks(cells, rows, 2)
    assert got is not None
    assert list(got[0]) == [0] * 5 + [0b110]   # the PEC wall's: no doubled bit
    assert not got[1].any()
    assert list(got[2]) == [0] * 6 + [0b11000000]
    moved = cells.copy()
    moved[2, 2, 3] = 1   # a PMC wall's combination off the wall
    assert wall_masks(moved, rows, 2) is None


def test_lean3f_boxes_take_segments_of_64_planes_or_the_switch_s(monkeypatch):
    """lean3f marches a CPML box that does not wrap along z in segments of LEAN_SEGMENT (64)
    planes however few blocks that leaves it (beside the pass, shorter ones only add their
    cones' planes), or of $YEEFDTD_LEAN_SEGMENT's (N for all, X,N: X for the x faces' box);
    a box that wraps along z takes its two pieces whole. Dipole-cpml 512's boxes (layers of
    13 cells): the x faces' 26 x 487 x 487 on one tile across and 28 of 24 rows; the y
    faces' 487 x 26 x 487; the z faces' 487 x 487 x 26, wrapping."""
    from types import SimpleNamespace

    from yeefdtd.backends.cuda.march import MarchStepper

    t = make_variant("temporal")
    t.mode, t.single = "3d", True
    st = SimpleNamespace(pitch=(512, 512), shape=(512, 512, 512), variant=t,
                         LEAN_X_ROWS=MarchStepper.LEAN_X_ROWS,
                         LEAN_FACE_ROWS=MarchStepper.LEAN_FACE_ROWS,
                         LEAN_SEGMENT=MarchStepper.LEAN_SEGMENT,
                         _lean_face_lanes=MarchStepper._lean_face_lanes,
                         _lean_face_tiles_x=lambda *a: MarchStepper._lean_face_tiles_x(st, *a))
    boxes = {1: ((499, 13, 13), (26, 487, 487)), 2: ((13, 499, 13), (487, 26, 487)),
             4: ((13, 13, 499), (487, 487, 26))}

    def geometry(fm):
        grid, block, seg, fits = MarchStepper._lean_face_geometry(st, 3, boxes[fm], fm)
        assert fits
        return grid, block, seg

    assert geometry(1) == ((1, 28, 8), (32, 24, 1), 64)
    assert geometry(2)[1:] == ((32, 16, 1), 64) and geometry(2)[0][2] == 8
    assert geometry(4)[0][2] == 2 and geometry(4)[2] == 0   # two pieces of 13 planes
    monkeypatch.setenv("YEEFDTD_LEAN_SEGMENT", "128,32")
    assert geometry(1) == ((1, 28, 4), (32, 24, 1), 128)
    assert geometry(2)[0][2] == 16 and geometry(2)[2] == 32
    assert geometry(4)[0][2] == 2 and geometry(4)[2] == 0
    monkeypatch.setenv("YEEFDTD_LEAN_SEGMENT", "16")
    assert geometry(1)[0] == (1, 28, 31) and geometry(2)[0][2] == 31
