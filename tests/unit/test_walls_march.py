"""The walls' march of 3D 'temporal' (WL in march3v.cu), emulated in NumPy: on a grid of one
material with walls, row 0's coefficients everywhere, the E differences the masks say doubled
(a PMC wall's image: WP), the components of each cell's column, row and plane masks
(wall_masks) set to zero after every step, and whatever values off the grid (lanes off the
grid along x and y read the grid's first cells, whatever they hold; planes off its z ends
are not loaded) give the grid's cells bit for bit the values of the
general march, which takes each cell's own coefficients and wraps around the grid's ends.
What the GPU test of the kernel checks on a GPU, checked here on the argument alone, so that
a change to how the grid stores its walls shows up without one."""

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.backends.cuda.march import _combinations, wall_code_xp, wall_masks, wall_rows
from yeefdtd.backends.cuda.stepper import COMP_INDEX
from yeefdtd.build.model import build_model

ORDER = ("ex", "ey", "ez", "hx", "hy", "hz")
PEC = {f"{a}_{s}": "pec" for a in "xyz" for s in ("min", "max")}
LOSSY = yf.Material(eps_r=(2.0, 3.0, 4.0), mu_r=(1.5, 2.0, 1.2), sigma_e=(0.1, 0.2, 0.3),
                    sigma_m=(10.0, 50.0, 100.0))


def _model(boundaries: dict, background: str):
    scene = yf.Scene(grid=yf.Grid(mode="3d", cells=(13, 11, 9), spacing=(1e-3, 1.3e-3, 0.8e-3)),
                     materials={"m1": LOSSY}, objects=[], sources=[], monitors=[],
                     boundaries=boundaries, background=background,
                     run=yf.RunSettings(steps=10))
    return build_model(scene)


def _cells_and_table(model):
    """The cells' combinations of materials and their rows [row, component, column], as
    MarchStepper._cell_table builds them."""
    tables = model.tables
    rows = max(len(t.table) for t in tables.values())
    full = np.zeros((6, rows, 3))
    for c, t in tables.items():
        full[COMP_INDEX[c], : len(t.table)] = t.table[:, :3]
    cell, combos = _combinations([tables[c].ids for c in ORDER], rows)
    table = np.stack([full[COMP_INDEX[c]][combos[:, j]] for j, c in enumerate(ORDER)], axis=1)
    return cell, table


def _step(f, coef, keep=None, twice=None):
    """One step of the update (H, then E) with coefficients coef(component, column), each
    neighbour by wrapping; keep: per component, where its new values stay (else zero);
    twice(component, column): where an E difference is doubled (d + d, as the kernel)."""
    fwd = lambda a, ax: np.roll(a, -1, ax)   # noqa: E731 (a[i + 1])
    bwd = lambda a, ax: np.roll(a, 1, ax)    # noqa: E731 (a[i - 1])

    def dd(c, q, d):
        return d if twice is None else np.where(twice(c, q), d + d, d)

    ex, ey, ez, hx, hy, hz = (f[c] for c in ORDER)
    hx = coef("hx", 0) * hx + coef("hx", 1) * (fwd(ez, 1) - ez) + coef("hx", 2) * (fwd(ey, 2) - ey)
    hy = coef("hy", 0) * hy + coef("hy", 1) * (fwd(ex, 2) - ex) + coef("hy", 2) * (fwd(ez, 0) - ez)
    hz = coef("hz", 0) * hz + coef("hz", 1) * (fwd(ey, 0) - ey) + coef("hz", 2) * (fwd(ex, 1) - ex)
    h = {"hx": hx, "hy": hy, "hz": hz}
    if keep is not None:
        h = {c: np.where(keep[c], v, 0.0) for c, v in h.items()}
    hx, hy, hz = h["hx"], h["hy"], h["hz"]
    ex = (coef("ex", 0) * ex + coef("ex", 1) * dd("ex", 1, hz - bwd(hz, 1))
          + coef("ex", 2) * dd("ex", 2, hy - bwd(hy, 2)))
    ey = (coef("ey", 0) * ey + coef("ey", 1) * dd("ey", 1, hx - bwd(hx, 2))
          + coef("ey", 2) * dd("ey", 2, hz - bwd(hz, 0)))
    ez = (coef("ez", 0) * ez + coef("ez", 1) * dd("ez", 1, hy - bwd(hy, 0))
          + coef("ez", 2) * dd("ez", 2, hx - bwd(hx, 1)))
    e = {"ex": ex, "ey": ey, "ez": ez}
    if keep is not None:
        e = {c: np.where(keep[c], v, 0.0) for c, v in e.items()}
    return {**e, **h}


def _twice(masks, P=0):
    """twice(component, column) for _step: where the masks (wall_masks) double E component
    a's difference along axis (a + column) % 3 (bit 6 of that axis's mask for column 1, 7
    for column 2), over the grid padded by P cells a side (none doubled there)."""
    def twice(c, q):
        s = ("xyz".index(c[1]) + q) % 3
        line = (masks[s] >> (5 + q) & 1).astype(bool)
        line = np.pad(line, P)
        return line.reshape([-1 if b == s else 1 for b in range(3)])
    return twice


@pytest.mark.parametrize("boundaries,background", [
    (PEC, "vacuum"), (PEC, "m1"), ({**PEC, "x_min": {"cells": 3}, "y_max": {"cells": 2}}, "vacuum"),
    ({**PEC, "z_max": "pmc"}, "vacuum"), ({**PEC, "x_min": "pmc", "y_max": "pmc"}, "m1"),
    ({**PEC, "z_min": "pmc", "x_max": {"cells": 3}}, "vacuum"),
], ids=["pec", "pec-lossy", "pec-cpml", "pmc", "pmc-edge-lossy", "pmc-cpml"])
def test_the_walls_march_keeps_the_bits_of_the_wrapped_march(boundaries, background):
    model = _model(boundaries, background)
    cell, table = _cells_and_table(model)
    masks = wall_masks(cell, wall_rows(table, ORDER))
    assert masks is not None   # one material with walls
    pmc = "pmc" in boundaries.values()
    assert bool(any((m >> 6).any() for m in masks)) == pmc   # the instance with WP
    shape = cell.shape
    rng = np.random.default_rng(5)
    zero = ~table[cell].any(axis=-1)   # [x, y, z, component]: coefficients all zero
    f0 = {c: np.where(zero[..., j], 0.0, rng.standard_normal(shape)) for j, c in enumerate(ORDER)}
    # the walls' march over the grid padded by P cells a side: values off the grid along x
    # and y whatever they are (here large and random), zero off its z ends
    P = 4
    inner = (slice(P, -P),) * 3
    wide = tuple(n + 2 * P for n in shape)
    g, keep = {}, {}
    union = masks[0][:, None, None] | masks[1][None, :, None] | masks[2][None, None, :]
    for j, c in enumerate(ORDER):
        a = rng.standard_normal(wide) * 1e3
        a[..., :P] = a[..., -P:] = 0.0
        a[inner] = f0[c]
        g[c] = a
        k = np.zeros(wide, bool)   # off the grid: every component zero
        k[inner] = (union >> j & 1) == 0
        keep[c] = k
    row0 = table[0]
    ref, plain = f0, g
    for _ in range(3):
        ref = _step(ref, lambda c, q: table[cell][..., ORDER.index(c), q])
        g = _step(g, lambda c, q: row0[ORDER.index(c), q], keep, _twice(masks, P))
        plain = _step(plain, lambda c, q: row0[ORDER.index(c), q], keep)
    for c in ORDER:
        assert np.array_equal(g[c][inner], ref[c]), c
    # the doubling is what a PMC wall needs: without it (the instance without WP) the
    # fields differ with a PMC wall, and not without one
    assert all(np.array_equal(plain[c][inner], ref[c]) for c in ORDER) != pmc


@pytest.mark.parametrize("boundaries", [PEC, {**PEC, "z_max": "pmc"}], ids=["pec", "pmc"])
def test_the_walls_march_keeps_the_bits_where_each_cone_checks_out(boundaries):
    """$YEEFDTD_LEAN_WALLS=cone: on a grid of PEC walls (or one of them PMC) that holds
    objects of other materials (a lossy anisotropic box, a PEC box), the masks read
    loosely (a cell of another material sets no bit apart), and a block takes the walls'
    march where every cell of its cone (its owned cells widened by the steps along each
    axis) holds a combination whose code (its zero components and doubled differences,
    wall_rows) is its column's, row's and plane's union (wall_code_xp; lean3v_one's zrow
    check). Emulated: wherever that holds for a cell's cone, the walls' march gives it
    the wrapped march's bits; and some cells' cones do not hold, near the objects."""
    scene = yf.Scene(grid=yf.Grid(mode="3d", cells=(24, 15, 13), spacing=(1e-3, 1e-3, 1e-3)),
                     materials={"m1": LOSSY},
                     objects=[yf.Box(center=(0.016, 0.007, 0.006), size=(0.004, 0.005, 0.004),
                                     material="m1"),
                              yf.Box(center=(0.006, 0.008, 0.007), size=(0.003, 0.003, 0.003),
                                     material="pec")],
                     sources=[], monitors=[], boundaries=boundaries,
                     run=yf.RunSettings(steps=10))
    cell, table = _cells_and_table(build_model(scene))
    rows = wall_rows(table, ORDER)
    assert wall_masks(cell, rows) is None   # the grid's masks refuse it
    masks = wall_masks(cell, rows, loose=True)
    union = masks[0][:, None, None] | masks[1][None, :, None] | masks[2][None, None, :]
    good = rows[cell] == wall_code_xp(np, masks[0][:, None, None], masks[1][None, :, None],
                                      masks[2][None, None, :])   # (WALL_OTHER is no code)
    NT = 3
    cone = np.pad(good, NT, constant_values=True)   # off the grid: the masks' 63
    for ax in range(3):
        cone = np.logical_and.reduce([np.roll(cone, s, ax) for s in range(-NT, NT + 1)])
    cone = cone[(slice(NT, -NT),) * 3]   # the cells whose cone checks out
    assert cone.any() and not cone.all()
    shape = cell.shape
    rng = np.random.default_rng(9)
    zero = ~table[cell].any(axis=-1)
    f0 = {c: np.where(zero[..., j], 0.0, rng.standard_normal(shape)) for j, c in enumerate(ORDER)}
    P = 4
    inner = (slice(P, -P),) * 3
    wide = tuple(n + 2 * P for n in shape)
    g, keep = {}, {}
    for j, c in enumerate(ORDER):
        a = rng.standard_normal(wide) * 1e3
        a[..., :P] = a[..., -P:] = 0.0
        a[inner] = f0[c]
        g[c] = a
        k = np.zeros(wide, bool)
        k[inner] = (union >> j & 1) == 0
        keep[c] = k
    ref = f0
    for _ in range(NT):
        ref = _step(ref, lambda c, q: table[cell][..., ORDER.index(c), q])
        g = _step(g, lambda c, q: table[0][ORDER.index(c), q], keep, _twice(masks, P))
    for c in ORDER:
        assert np.array_equal(g[c][inner][cone], ref[c][cone]), c
    # and outside the cones that check out, some cell differs (the check is not idle)
    assert any(not np.array_equal(g[c][inner], ref[c]) for c in ORDER)


def _face_stub(model):
    """A MarchStepper with what lean3f's host checks read (_lean_face_zw, _lean_face_geometry,
    _lean_face_mask), its cells and table from ``model``, on NumPy."""
    from types import SimpleNamespace

    from yeefdtd.backends.cuda.march import MarchStepper
    from yeefdtd.backends.cuda.variants import make_variant

    cell, table = _cells_and_table(model)
    st = object.__new__(MarchStepper)
    st.model = SimpleNamespace(grid=SimpleNamespace(mode="3d", periodic=model.grid.periodic))
    st.shape, st.pitch = cell.shape, cell.shape[:2]
    st._cells, st._table_host = cell, table
    st._face_pmc = None
    st._event_cells = tuple(np.array([], dtype=int) for _ in range(3))
    st._cp = SimpleNamespace(asnumpy=np.asarray, ix_=np.ix_, asarray=np.asarray)
    st._dev = lambda a: a
    st.variant = make_variant("temporal")
    st._tparams = ("3d", "float, float", "unsigned char", "true")
    return st


def test_lean3f_takes_a_z_wall_s_planes_where_a_box_reaches_it(monkeypatch):
    """A CPML box of the x terms that reaches a z end of the grid without a layer (a PEC
    ground plane at z_min) crosses it with its cone: lean3f's masks along x alone do not
    hold the wall's zero Ex and Ey, and its tiles would read planes below z = 0, so march3
    ran it. With $YEEFDTD_LEAN_FACE_WALLS on (the default) it takes ZW 4 (planes off the
    grid zero, the z planes' masks kept): the host's checks pass and the mask's plane 0
    holds Ex and Ey.
    A box clear of the z ends, and a box with z terms, take none."""
    cpml = {"cells": 3}
    model = build_model(yf.Scene(
        grid=yf.Grid(mode="3d", cells=(20, 14, 12), spacing=1e-3), sources=[], monitors=[],
        boundaries={"x_min": cpml, "x_max": cpml, "y_min": cpml, "y_max": cpml,
                    "z_min": "pec", "z_max": cpml}, run=yf.RunSettings(steps=10)))
    st = _face_stub(model)
    nt, box = 3, ((0, 5, 0), (5, 4, 7))
    nx, ny, _ = st.shape
    monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", "off")
    assert st._lean_face_zw(nt, box, 1) == 0
    assert st._lean_face_mask(nt, box, 1) is None   # the cone crosses z = 0
    assert st._lean_face_name(nt, 1).endswith(", 24, 1>")
    monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", "on")
    assert st._lean_face_zw(nt, box, 1) == 4
    assert st._lean_face_name(nt, 1, 4).endswith(", 24, 1, 4>")
    assert st._lean_face_geometry(nt, box, 1, 4)[3]   # every cell read in the arrays
    mask = st._lean_face_mask(nt, box, 1, 4)
    assert mask is not None
    planes = mask[nx + ny:]
    assert planes[0] == 0b011 and not planes[1:].any()   # the PEC plane's Ex and Ey
    assert mask[0] & 0b110 == 0b110   # the x end's wall (the layer's PEC termination)
    assert st._lean_face_zw(nt, ((0, 5, 3), (5, 4, 5)), 1) == 0   # clear of the z ends
    assert st._lean_face_zw(nt, box, 5) == 0   # a box with z terms wraps along z instead


def test_lean3f_takes_an_x_wall_s_columns_where_a_box_reaches_it(monkeypatch):
    """The same along x (a symmetry plane at x_min, PEC): a box of the y terms (and one of
    the z terms) spanning the grid along x from the wall takes ZW 1, lanes off the grid
    reading its first cells and the columns' masks kept; its host's checks pass, with the
    wall's Ey and Ez in column 0's mask. Off: march3's."""
    cpml = {"cells": 3}
    model = build_model(yf.Scene(
        grid=yf.Grid(mode="3d", cells=(20, 30, 12), spacing=1e-3), sources=[], monitors=[],
        boundaries={"x_min": "pec", "x_max": cpml, "y_min": cpml, "y_max": cpml,
                    "z_min": cpml, "z_max": cpml}, run=yf.RunSettings(steps=10)))
    st = _face_stub(model)
    nt = 3
    ybox, zbox = ((0, 27, 5), (15, 6, 2)), ((0, 5, 9), (15, 20, 6))   # both wrap
    monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", "off")
    assert st._lean_face_zw(nt, ybox, 2) == 0
    assert not st._lean_face_geometry(nt, ybox, 2)[3]   # its tiles start before x = 0
    monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", "on")
    for box, fm in ((ybox, 2), (zbox, 4)):
        assert st._lean_face_zw(nt, box, fm) == 1, fm
        assert st._lean_face_geometry(nt, box, fm, 1)[3], fm
        mask = st._lean_face_mask(nt, box, fm, 1)
        assert mask is not None, fm
        assert mask[0] == 0b110, (fm, mask[:4])   # the wall's Ey and Ez


def test_lean3f_takes_no_wall_along_a_periodic_axis(monkeypatch):
    """Along a periodic axis the values past the grid's end are the other end's (the
    physics, which march3's wrapping keeps): a box of the z terms of a unit cell (x and y
    periodic, CPML along z) whose tiles cross x = 0 and y = 0 takes no ZW there, so its
    host's checks leave it to march3, switch on or off."""
    cpml = {"cells": 3}
    model = build_model(yf.Scene(
        grid=yf.Grid(mode="3d", cells=(20, 14, 12), spacing=1e-3), sources=[], monitors=[],
        boundaries={"x_min": "periodic", "x_max": "periodic", "y_min": "periodic",
                    "y_max": "periodic", "z_min": cpml, "z_max": cpml},
        run=yf.RunSettings(steps=10)))
    st = _face_stub(model)
    box = ((0, 0, 10), (20, 14, 6))
    monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", "on")
    assert st._lean_face_zw(3, box, 4) == 0
    assert not st._lean_face_geometry(3, box, 4, 0)[3]


@pytest.mark.parametrize("wall", ["z_min", "x_min"])
def test_lean3f_takes_a_pmc_wall_s_doubled_differences(wall):
    """A PMC wall's tangential E reads the zero slot past the grid's end with the
    difference across the wall's coefficient doubled (its image). Where a box's cone
    crosses such a wall lean3f's masks along the wall's axis hold those doubled differences
    (bits 6-7, as the walls' march's: along z Ex's (bit 7) and Ey's (bit 6), along x Ey's
    (bit 7) and Ez's (bit 6)), and the grid's boxes take the instance that doubles them
    (WP: the axes of the box's masks along which the table doubles some difference); taken
    with no axis's doubling the same cells are refused (as before lean3f doubled), and
    a grid without a PMC wall keeps the instances without WP. With a PMC plane at z_min a
    box of the z terms at z_max takes the planes of its cone in the grid alone (lean3f
    takes those past the end as zero, so the PMC plane is not in it), and one spanning the
    grid along z (a corner's edge) doubles along z; with one at x_min the x_max layer's box,
    whose tiles wrap along x onto the PMC column, doubles along x."""
    from yeefdtd.backends.cuda.march import zero_masks

    cpml = {"cells": 3}
    faces = {f: cpml for f in ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")}
    model = build_model(yf.Scene(
        grid=yf.Grid(mode="3d", cells=(20, 30, 12), spacing=1e-3), sources=[], monitors=[],
        boundaries={**faces, wall: "pmc"}, run=yf.RunSettings(steps=10)))
    st = _face_stub(model)
    nx, ny, nz = st.shape
    nt = 3
    box, fm, zw = (((0, 5, 0), (5, 20, 7)), 1, 4) if wall == "z_min" else \
        (((0, 27, 5), (15, 6, 2)), 2, 1)
    assert st._lean_face_zw(nt, box, fm) == zw
    assert st._lean_face_name(nt, fm, zw).endswith(f", {fm}, {zw}, {zw}>")
    mask = st._lean_face_mask(nt, box, fm, zw)
    assert mask is not None
    at = nx + ny if wall == "z_min" else 0   # the wall's plane or column
    assert mask[at] >> 6 == 0b11, mask[at]
    doubled = (mask >> 6).nonzero()[0]
    assert list(doubled) == [at], doubled   # the wall's alone
    cells, table = st._cells, st._table_host
    assert zero_masks(cells, table, st.order, 7, 0) is None   # doubled: refused without
    assert zero_masks(cells, table, st.order, 7, 7) is not None
    # a grid without a PMC wall: the instance without the doubling
    pec = _face_stub(build_model(yf.Scene(
        grid=yf.Grid(mode="3d", cells=(20, 30, 12), spacing=1e-3), sources=[], monitors=[],
        boundaries={**faces, wall: "pec"}, run=yf.RunSettings(steps=10))))
    assert pec._lean_face_name(nt, fm, zw).endswith(f", {fm}, {zw}>")
    assert pec._lean_face_name(nt, 4).endswith(", 4>")
    if wall != "z_min":   # the x_max layer's box: its tiles wrap onto the PMC column
        xbox = ((nx - 4, 5, 5), (3, 20, 2))
        assert st._lean_face_zw(nt, xbox, 1) == 0
        assert st._lean_face_name(nt, 1).endswith(", 1, 0, 1>")
        mask = st._lean_face_mask(nt, xbox, 1)
        assert mask is not None and list((mask >> 6).nonzero()[0]) == [0]
        return
    top = ((5, 5, nz - 4), (nx - 10, ny - 10, 4))   # a box of the z_max layer: no PMC plane
    tw = st._lean_face_zw(nt, top, 4)   # (along x its tiles start before the grid)
    assert tw & 4 == 0
    assert st._lean_face_name(nt, 4, tw).endswith(f", 4, {tw}, 4>")
    mask = st._lean_face_mask(nt, top, 4, tw)
    assert mask is not None and not (mask >> 6).any()
    edge = ((0, 0, 0), (3, 3, nz))   # a corner's edge along z, every plane
    mask = st._lean_face_mask(nt, edge, 7)
    assert mask is not None and list((mask >> 6).nonzero()[0]) == [nx + ny]
    assert st._lean_face_name(nt, 7).endswith(", 7, 0, 4>")
