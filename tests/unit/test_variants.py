"""The marching variants' names, options and launch shapes (no GPU needed)."""

from __future__ import annotations

import pytest

from yeefdtd.backends.cuda.variants import make_variant
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
    assert not any(c[3] for c in make_variant("fused").configs("pass", (64, 64, 64)))


@pytest.mark.parametrize("bad", ["1", "7", "x"])
def test_temporal_steps_out_of_range_say_so(bad):
    with pytest.raises(ValidationError, match="temporal steps must be an integer from 2 to 6"):
        make_variant(f"temporal:steps={bad}").configs("pass", (64, 64, 64))


@pytest.mark.parametrize("mode", ["tmz", "tez"])
def test_marching_variants_are_3d(mode):
    with pytest.raises(SetupError, match=f"does not run {mode} grids"):
        make_variant("temporal").check(mode)


def test_launch_grid_covers_the_grid_with_owned_cells():
    v = make_variant("temporal")
    grid, block, zlen = v.launch((3, 32, 16, 64), (100, 50, 130))
    assert block == (32, 16, 1) and zlen == 64
    assert grid == (-(-100 // 26), -(-50 // 10), 3)
