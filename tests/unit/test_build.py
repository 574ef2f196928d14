"""The build step: staggering, time step, voxelization, coefficient tables, CPML, plans."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.build.coefficients import CB, CC, SELF, SRC
from yeefdtd.constants import C0, EPS0, MU0


def scene(**kw) -> yf.Scene:
    base = dict(grid=yf.Grid(cells=(10, 8, 6), spacing=(1e-3, 2e-3, 3e-3)),
                boundaries="pec", run=yf.RunSettings(steps=5))
    base.update(kw)
    return yf.Scene(**base)


def test_time_step_is_the_courant_limit_times_the_factor():
    m = yf.build_model(scene())
    limit = 1 / (C0 * math.sqrt(1e6 + 1 / 4e-6 + 1 / 9e-6))
    assert m.grid.dt == pytest.approx(0.99 * limit, rel=1e-14, abs=0)
    two_d = yf.build_model(yf.Scene(grid=yf.Grid(mode="tmz", cells=(5, 5), spacing=1e-3),
                                    run=yf.RunSettings(steps=1, courant=1.0),
                                    boundaries="pec"))
    assert two_d.grid.dt == pytest.approx(1e-3 / (C0 * math.sqrt(2)), rel=1e-14, abs=0)


@pytest.mark.parametrize("grid, boundaries, axes", [
    (dict(cells=(40, 1, 1)), "periodic", (1,)),           # a line: x alone counts
    (dict(cells=(40, 1, 30)), "periodic", (1, 3)),        # a plane of x and z
    (dict(cells=(40, 1, 1)), "pec", (1, 2, 3)),           # walls: a one-cell box counts
    (dict(cells=(40, 2, 2)), "periodic", (1, 2, 3)),      # two cells: values may differ
    (dict(cells=(1, 1, 1)), "periodic", (1, 2, 3)),       # nothing varies: all three
    (dict(mode="tmz", cells=(40, 1)), "periodic", (1,)),  # 2D: z never counts
    (dict(cells=(40, 1, 1)), {"y_min": "periodic", "y_max": "periodic", "x_min": "pec",
                              "x_max": "pec", "z_min": "pmc", "z_max": "pmc"}, (1, 3)),
])
def test_an_axis_of_one_periodic_cell_takes_no_part_in_the_time_step(grid, boundaries, axes):
    """Along an axis of one periodic cell every value is its neighbour's, so the update's
    differences along it are zero and the stability limit is that of the other axes (cells
    of 1, 2 and 3 mm along x, y and z; ``axes`` are those that count, by their cell size)."""
    d = (1e-3, 2e-3, 3e-3)
    steps = d[:2] if grid.get("mode") == "tmz" else d
    m = yf.build_model(yf.Scene(grid=yf.Grid(spacing=steps, **grid), boundaries=boundaries,
                                run=yf.RunSettings(steps=1)))
    limit = 1 / (C0 * math.sqrt(sum(1 / d[a - 1] ** 2 for a in axes)))
    assert m.grid.dt == pytest.approx(0.99 * limit, rel=1e-14, abs=0)


def test_duration_becomes_steps():
    s = scene(run=yf.RunSettings(duration=1e-10))
    m = yf.build_model(s)
    assert (m.steps - 1) * m.grid.dt < 1e-10 <= m.steps * m.grid.dt
    # a duration of exactly k steps is k steps, however many (an absolute slack of 1e-9
    # steps added one from about 4.5 million on)
    from yeefdtd.build.model import step_count

    dt = m.grid.dt
    for k in (7, 32_786_139, 523_832_097):
        assert step_count(scene(run=yf.RunSettings(duration=k * dt)), dt) == k, k


@pytest.mark.parametrize("argv, module", [
    (["-m", "yeefdtd", "run"], "yeefdtd"), (["-Om", "yeefdtd", "run"], "yeefdtd"),
    (["-uEm", "yeefdtd.cli"], "yeefdtd.cli"), (["-myeefdtd"], "yeefdtd"),
    (["-OW", "ignore", "-m", "yeefdtd"], "yeefdtd"), (["-OWignore", "-m", "yeefdtd"], "yeefdtd"),
    (["-Oc", "import yeefdtd"], None), (["script.py", "-m", "yeefdtd"], None)])
def test_the_module_python_runs_is_read_from_flags_in_a_group(argv, module, monkeypatch):
    """python -Om yeefdtd ran the command, but its flags in one group were read as a flag
    alone and the module as a script, so a Ctrl-C while it started came out as a
    traceback and status -2 instead of one line and 130."""
    from yeefdtd import startup

    monkeypatch.setattr(startup.sys, "orig_argv", ["python", *argv], raising=False)
    assert startup._module_run() == module


def test_shapes_extents_and_periodic_axes():
    g = yf.build_model(scene()).grid
    assert g.shape == (11, 9, 7)
    assert g.extent("ex") == (10, 9, 7) and g.extent("hx") == (11, 8, 6)
    p = yf.build_model(scene(boundaries={"x_min": "periodic", "x_max": "periodic",
                                         "y_min": "pec", "y_max": "pec", "z_min": "pec",
                                         "z_max": "pec"})).grid
    assert p.shape == (10, 9, 7) and p.extent("ex") == (10, 9, 7)


def test_vacuum_coefficients():
    m = yf.build_model(scene())
    dt, (dx, dy, dz) = m.grid.dt, m.grid.steps
    ex = m.tables["ex"]
    row = ex.table[ex.ids[3, 3, 3]]
    assert row[SELF] == 1.0
    assert row[CB] == pytest.approx(dt / (EPS0 * dy))    # Cexhz
    assert row[CC] == pytest.approx(-dt / (EPS0 * dz))   # Cexhy
    assert row[SRC] == pytest.approx(-dt / EPS0)
    hy = m.tables["hy"]
    row = hy.table[hy.ids[3, 3, 3]]
    assert row[CB] == pytest.approx(-dt / (MU0 * dz))    # Chyex
    assert row[CC] == pytest.approx(dt / (MU0 * dx))     # Chyez


def test_lossy_anisotropic_coefficients_use_the_component_axis():
    mat = yf.Material(eps_r=(2, 3, 4), sigma_e=(0.1, 0.2, 0.3), mu_r=(5, 6, 7),
                      sigma_m=(10, 20, 30))
    m = yf.build_model(scene(materials={"m": mat}, background="m"))
    dt = m.grid.dt
    for c, a in (("ey", 1), ("hz", 2)):
        t = m.tables[c]
        row = t.table[t.ids[4, 4, 3]]
        if c[0] == "e":
            e, s = EPS0 * mat.eps_r[a], mat.sigma_e[a]
        else:
            e, s = MU0 * mat.mu_r[a], mat.sigma_m[a]
        assert row[SELF] == pytest.approx((2 * e - s * dt) / (2 * e + s * dt), rel=1e-14)


def test_walls_and_unused_slots_have_zero_ids():
    m = yf.build_model(scene())
    ez = m.tables["ez"].ids
    assert np.all(ez[0] == 0) and np.all(ez[-1] == 0)        # tangential on x walls
    assert np.all(ez[:, 0] == 0) and np.all(ez[:, -1] == 0)
    assert np.all(ez[:, :, -1] == 0)                         # unused slot along z
    assert np.all(ez[1:-1, 1:-1, :-1] != 0)
    hx = m.tables["hx"].ids
    assert np.all(hx[0, :-1, :-1] != 0)                      # normal H on the wall updates
    assert np.all(hx[:, -1] == 0) and np.all(hx[:, :, -1] == 0)


def test_pmc_wall_doubles_the_difference_across_it():
    m = yf.build_model(scene(boundaries={"x_min": "pmc", "x_max": "pec", "y_min": "pmc",
                                         "y_max": "pec", "z_min": "pec", "z_max": "pec"}))
    ez = m.tables["ez"]                                      # b = x, c = y
    inner = ez.table[ez.ids[4, 4, 2]]
    on_x = ez.table[ez.ids[0, 4, 2]]
    edge = ez.table[ez.ids[0, 0, 2]]
    assert on_x[CB] == 2 * inner[CB] and on_x[CC] == inner[CC]
    assert edge[CB] == 2 * inner[CB] and edge[CC] == 2 * inner[CC]
    assert np.all(ez.ids[-1] == 0)                           # the PEC wall


def test_voxelization_samples_each_component_at_its_own_point():
    s = scene(grid=yf.Grid(cells=(40, 40, 40), spacing=1e-3),
              materials={"glass": yf.Material(eps_r=4)},
              objects=[yf.Sphere(center=(0.02, 0.02, 0.02), radius=0.01, material="glass")])
    m = yf.build_model(s)
    vac = yf.build_model(scene(grid=yf.Grid(cells=(40, 40, 40), spacing=1e-3)))
    for c in ("ex", "ez"):
        t = m.tables[c]
        glass = np.isclose(t.table[:, CB], 0.25 * vac.tables[c].table[1, CB])  # eps_r = 4
        inside = glass[t.ids]
        X, Y, Z = (m.grid.coords(c, 0)[:, None, None], m.grid.coords(c, 1)[None, :, None],
                   m.grid.coords(c, 2)[None, None, :])
        exact = (X - 0.02) ** 2 + (Y - 0.02) ** 2 + (Z - 0.02) ** 2 <= 0.01**2
        assert np.array_equal(inside, exact), c
        volume = 4 / 3 * math.pi * 10**3
        assert abs(inside.sum() / volume - 1) < 0.03


@pytest.mark.parametrize("count", [3, 12])
def test_tables_hold_rows_for_the_materials_present_only(count):
    """Each table has the zero row and a row for each distinct material that some point of
    the component holds: a material whose objects are overwritten, or hold no sample point,
    gets none (the grid is compared with each of a few materials, and marks what more of
    them index: both ways are checked). The ids keep the grid's layout, x fastest."""
    mats = {f"m{k}": yf.Material(eps_r=2 + k) for k in range(count)}
    # spheres, painted at the points alone (boxes mix materials at their faces: below)
    objects = [yf.Sphere(center=(0.002, 0.005, 0.005), radius=0.0004,
                         material=f"m{count - 2}")]   # overwritten by the next
    objects += [yf.Sphere(center=(0.002 + 0.001 * k, 0.005, 0.005), radius=0.001,
                          material=f"m{k}") for k in range(count - 2)]
    objects.append(yf.Sphere(center=(0.0155, 0.0055, 0.0055), radius=0.00005,
                             material=f"m{count - 1}"))   # between sample points: nowhere
    m = yf.build_model(scene(grid=yf.Grid(cells=(20, 10, 10), spacing=1e-3),
                             materials=mats, objects=objects))
    for c, t in m.tables.items():
        assert t.ids.dtype == np.uint8 and t.ids.flags["F_CONTIGUOUS"], c
        used = set(np.unique(t.ids))
        assert set(range(1, len(t.table))) <= used, c   # every row but the zero row is used
        assert len(t.table) <= count, c   # the zero row, the background, count - 2 placed
    ez = m.tables["ez"]
    assert len({tuple(r) for r in ez.table}) == len(ez.table) == count


def test_tables_built_side_by_side_equal_those_built_one_after_another(monkeypatch):
    """The components' tables are built on threads where the host has the cores and the
    memory, and come out the same as one after another."""
    from concurrent import futures

    from yeefdtd import host

    s = scene(grid=yf.Grid(cells=(24, 20, 16), spacing=1e-3), boundaries="pmc",
              materials={"glass": yf.Material(eps_r=4, sigma_e=0.1)},
              objects=[yf.Sphere(center=(0.012, 0.01, 0.008), radius=0.005, material="glass")])
    pools = []
    real = futures.ThreadPoolExecutor
    monkeypatch.setattr(futures, "ThreadPoolExecutor",
                        lambda n: pools.append(n) or real(n))
    monkeypatch.setattr(host, "cores", lambda: 4)
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 30)
    threaded = yf.build_model(s).tables
    assert pools == [4]
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 17)   # room for the model alone: in turn
    serial = yf.build_model(s).tables
    assert pools == [4]
    assert list(threaded) == list(serial)
    for c in serial:
        assert np.array_equal(threaded[c].ids, serial[c].ids), c
        assert np.array_equal(threaded[c].table, serial[c].table), c


def test_later_objects_overwrite_earlier_ones():
    s = scene(grid=yf.Grid(cells=(20, 20, 20), spacing=1e-3),
              objects=[yf.Box(center=(0.01, 0.01, 0.01), size=(0.01, 0.01, 0.01),
                              material="pec"),
                       yf.Sphere(center=(0.01, 0.01, 0.01), radius=0.003, material="vacuum")])
    m = yf.build_model(s)
    ids = m.tables["ez"].ids
    assert ids[10, 10, 10] != 0 and ids[7, 10, 10] == 0


def test_cpml_profiles_grade_from_the_inner_face_to_the_wall():
    m = yf.build_model(scene(grid=yf.Grid(cells=(40, 30, 30), spacing=1e-3),
                             boundaries="cpml"))
    lo = next(s for s in m.slabs if s.axis == 0 and s.side == "min")
    hi = next(s for s in m.slabs if s.axis == 0 and s.side == "max")
    assert lo.e.start == 0 and hi.e.start == 31 and hi.h.start == 30
    assert np.all(np.diff(lo.e.b) >= 0)              # b rises toward the inside
    assert np.allclose(lo.e.b, hi.e.b[::-1]) and np.allclose(lo.h.c, hi.h.c[::-1])
    assert np.all(lo.e.kinv_m1 <= 0) and lo.e.kinv_m1[0] == pytest.approx(1 / 5 - 1)
    assert len(m.slabs) == 6


def test_source_plan_times_and_coefficients():
    wf = yf.Gaussian(tau=1e-11)
    s = scene(sources=[yf.PointSource(component="ez", cell=(4, 4, 2), waveform=wf,
                                      amplitude=3.0),
                       yf.PointSource(component="hx", cell=(4, 4, 2), waveform=wf,
                                      kind="hard")])
    m = yf.build_model(s)
    dt = m.grid.dt
    soft = next(g for g in m.sources if g.kind == "soft")
    hard = next(g for g in m.sources if g.kind == "hard")
    n = np.arange(m.steps)
    np.testing.assert_allclose(soft.values[:, 0], -dt / EPS0 * 3.0 * wf((n + 0.5) * dt),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(hard.values[:, 0], wf((n + 0.5) * dt), rtol=1e-12, atol=0)


def test_source_plan_times_of_hard_e_and_soft_h():
    """The other two timings of the leapfrog (step n: H to (n + 1/2) dt, then E to (n + 1)
    dt): a hard E source takes its waveform at (n + 1) dt, a soft H source (a magnetic
    current M) enters H's update centred at n dt, scaled by -dt / mu0. Half a step off is a
    phase error of w dt / 2, which no other CPU test sees."""
    wf = yf.Gaussian(tau=1e-11)
    s = scene(sources=[yf.PointSource(component="ez", cell=(4, 4, 2), waveform=wf,
                                      kind="hard"),
                       yf.PointSource(component="hx", cell=(3, 4, 2), waveform=wf,
                                      amplitude=2.0)])
    m = yf.build_model(s)
    dt = m.grid.dt
    soft = next(g for g in m.sources if g.kind == "soft")
    hard = next(g for g in m.sources if g.kind == "hard")
    assert (soft.component, hard.component) == ("hx", "ez")
    n = np.arange(m.steps)
    np.testing.assert_allclose(hard.values[:, 0], wf((n + 1.0) * dt), rtol=1e-12, atol=0)
    np.testing.assert_allclose(soft.values[:, 0], -dt / MU0 * 2.0 * wf(n * dt), rtol=1e-12,
                               atol=1e-300)


def test_probe_snaps_each_component_to_its_nearest_point():
    s = scene(grid=yf.Grid(cells=(20, 20, 20), spacing=1e-3),
              monitors=[yf.Probe(name="p", position=(0.0102, 0.0049, 0.0101))])
    m = yf.build_model(s)
    ch = {c.component: c for c in m.probes[0].channels}
    assert ch["ex"].position == pytest.approx((0.0105, 0.005, 0.010))
    assert ch["ez"].position == pytest.approx((0.010, 0.005, 0.0105))
    assert ch["hz"].position == pytest.approx((0.0105, 0.0045, 0.010))


def test_positions_wrap_on_a_periodic_axis():
    """x = L is x = 0 where x is periodic, and a point just short of L is nearest to the
    first point (they were clamped to the last before, a cell away); along the PEC axes
    the last point still stands for the wall."""
    s = scene(grid=yf.Grid(cells=(20, 20, 20), spacing=1e-3),
              boundaries={"x_min": "periodic", "x_max": "periodic", "y_min": "pec",
                          "y_max": "pec", "z_min": "pec", "z_max": "pec"},
              monitors=[yf.Probe(name="p", position=(0.020, 0.020, 0.0101)),
                        yf.Probe(name="q", position=(0.0198, 0.0101, 0.0101))])
    m = yf.build_model(s)
    ch = {(c.probe, c.component): c for g in m.probes for c in g.channels}
    p = {c: ch["p", c] for c in ("ex", "ez")}
    q = {c: ch["q", c] for c in ("ex", "ez")}
    assert p["ez"].index[:2] == (0, 20) and p["ex"].index[:2] == (0, 20)
    assert q["ez"].index[0] == 0 and q["ex"].index[0] == 19   # ex: 19.5 mm is nearer


@pytest.mark.parametrize("mode", ["3d", "tmz"])
def test_objects_repeat_along_periodic_axes(mode):
    """A periodic unit cell with an inclusion across its face is the same however it is
    written: one object centred on the face, or the object and its image one period over,
    give the same materials and the same run, bit for bit (the part past the face was cut
    off, and a box ending at x = L left node 0 out, though x = L is x = 0). One centred
    before x = 0 comes back in at x = L; across a PEC face nothing repeats."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize

    n = (20, 6, 6) if mode == "3d" else (20, 6)
    lx = 20e-3
    walls = {"x_min": "periodic", "x_max": "periodic", "y_min": "pec", "y_max": "pec"}
    if mode == "3d":
        walls.update(z_min="periodic", z_max="periodic")

    def at(x, y=3e-3, r=2.5e-3):
        centre = (x, y, 3e-3)[:len(n)]
        return yf.Sphere(center=centre, radius=r, material="g")

    def run(objects):
        s = scene(grid=yf.Grid(mode=mode, cells=n, spacing=1e-3), boundaries=walls,
                  materials={"g": yf.Material(eps_r=4.0, sigma_e=0.1)}, objects=objects,
                  sources=[yf.PointSource(component="ez", cell=(5, 3, 3)[:len(n)],
                                          waveform=yf.DiffGaussian(tau=10e-12))],
                  monitors=[yf.Probe(name="p", cell=(12, 2, 2)[:len(n)])],
                  run=yf.RunSettings(steps=60, backend="numpy", dtype="float64"))
        return s, yf.run(s, progress=False, keep_fields=True)

    one, r1 = run([at(lx)])
    two, r2 = run([at(lx), at(0.0)])
    out, _ = run([at(-1e-3)])   # centre 1 mm before the face: mostly in its image
    g = make_grid(one)
    for c in g.components:
        assert np.array_equal(voxelize(one, g, c), voxelize(two, g, c)), c
    ez = voxelize(one, g, "ez")
    assert ez[0].max() > 0 and ez[10].max() == 0   # node 0 (x = L) inside, the middle not
    for c in r1.fields:
        assert np.array_equal(r1.fields[c], r2.fields[c]), c
    assert voxelize(out, g, "ez")[17:20].max() > 0 and voxelize(out, g, "ez")[5:15].max() == 0
    # across a PEC face (y = 0) the sphere is cut, not repeated at the far side
    cut, _ = run([at(10e-3, y=0.0)])
    assert voxelize(cut, g, "ez")[10, 0].max() > 0
    assert voxelize(cut, g, "ez")[10, -2].max() == 0


def test_a_conductor_is_passed_through_by_the_field_it_does_not_hold():
    """To E a PMC box is not there, and to H a PEC box: the points on their faces (and
    inside) take the material drawn before them, here the background (eps_r = mu_r = 4),
    not vacuum's values (a PMC box's face in a dielectric ended its cavity half a cell
    short; tests/physics/test_cavity_2d.py). The fields they hold stay held."""
    from yeefdtd.build.model import build_model

    def rows(material, lo, hi):
        s = scene(grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3),
                  materials={"bg": yf.Material(eps_r=4.0, mu_r=4.0)}, background="bg",
                  objects=[yf.Box(center=(0.5 * (lo + hi), 6e-3, 6e-3),
                                  size=(hi - lo, 4e-3, 4e-3), material=material)],
                  run=yf.RunSettings(steps=1))
        return {c: t.table[t.ids] for c, t in build_model(s).tables.items()}

    pmc = rows("pmc", 4e-3, 8e-3)           # faces on E's grid planes x = 4, 8 mm
    for c in ("ey", "ez"):
        assert np.array_equal(pmc[c][4, 6, 6], pmc[c][2, 6, 6]), c   # on the face
        assert np.array_equal(pmc[c][6, 6, 6], pmc[c][2, 6, 6]), c   # inside
    assert not pmc["hz"][6, 6, 6].any()     # PMC holds H inside
    pec = rows("pec", 3.5e-3, 8.5e-3)       # faces on H's half-cell planes x = 3.5, 8.5 mm
    for c in ("hy", "hz"):
        assert np.array_equal(pec[c][3, 6, 6], pec[c][1, 6, 6]), c   # Hy, Hz at x = 3.5 mm
    assert not pec["ey"][5, 6, 6].any()


def test_a_face_on_the_periodic_seam_is_the_same_as_anywhere_else():
    """A PEC wall whose face lies on the seam (x = L = 0), beside a dielectric box that
    blends the cells it cuts, holds the same points as the wall moved 4 cells in: the
    seam's sub-points come back in at x = L, and the wall's image that holds the point
    (from -2 mm to 0) was left out, so E at x = 0 was free where the box cut the cells. The
    same for a cylinder's end on the seam: the tables, rolled by the shift, are equal."""
    from yeefdtd.build.model import build_model

    walls = {f: "periodic" for f in ("x_min", "x_max", "y_min", "y_max")}
    walls.update(z_min="pec", z_max="pec")
    mats = {"sub": yf.Material(eps_r=3.0), "d": yf.Material(eps_r=[2.0, 3.0, 4.0])}

    def tables(x0, conductor):   # the wall or the cylinder over [x0, x0 + 2 mm]
        inner = (yf.Box(center=(x0 + 1e-3, 6e-3, 5e-3), size=(2e-3, 12e-3, 6e-3), material="pec")
                 if conductor else
                 yf.Cylinder(center=(x0 + 1e-3, 6e-3, 5e-3), radius=2.5e-3, axis="x",
                             length=2e-3, material="d"))
        s = scene(grid=yf.Grid(cells=(16, 12, 10), spacing=1e-3), boundaries=walls,
                  materials=mats, objects=[
                      yf.Box(center=(8e-3, 6e-3, 4.75e-3), size=(16e-3, 12e-3, 3e-3),
                             material="sub"), inner],
                  run=yf.RunSettings(steps=1))
        m = build_model(s)
        return {c: t.table[t.ids] for c, t in m.tables.items()}

    for conductor in (True, False):
        seam, inside = tables(14e-3, conductor), tables(10e-3, conductor)
        for c in seam:
            assert np.array_equal(np.roll(seam[c], -4, axis=0), inside[c]), (conductor, c)


@pytest.mark.parametrize("shape", ["box", "disc"])
def test_an_object_across_the_seam_far_from_the_origin_keeps_its_faces(shape):
    """A PEC box from x = 318.375 mm to 320 mm in a period of 1277 cells of 0.25 mm
    (319.25 mm): its image comes back in from x = 0 to 0.75 mm, faces on grid points that
    it holds as the box itself does. The image's centre, c - L, keeps the rounding of c and
    L (some 1e-17 m) while the allowance at its faces scaled with its own small centre and
    size (1e-14 of 0.9 mm): the point at 0.75 mm fell out, one cell fewer than the same box
    moved 10 cells in from the seam. The same for a disc over the same span."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize

    d, n = 0.25e-3, 1277

    def held(x0):
        s = yf.Scene(grid=yf.Grid(mode="tmz", cells=(n, 4), spacing=d),
                     boundaries={"x_min": "periodic", "x_max": "periodic", "y_min": "pec",
                                 "y_max": "pec"},
                     objects=[yf.Box(center=(x0 + 0.8125e-3, 0.5e-3), size=(1.625e-3, 2e-3),
                                     material="pec") if shape == "box" else
                              yf.Sphere(center=(x0 + 0.8125e-3, 0.5e-3), radius=0.8125e-3,
                                        material="pec")], run=yf.RunSettings(steps=1))
        return voxelize(s, make_grid(s), "ez")[:, 2] != 0

    seam, inside = held(318.375e-3), held(315.875e-3)
    assert np.flatnonzero(seam).tolist() == [0, 1, 2, 3, 1274, 1275, 1276]
    assert np.array_equal(np.roll(seam, -10), inside)


@pytest.mark.parametrize("mode", ["tmz", "3d"])
def test_a_round_object_wider_than_the_period_is_the_same_lattice_from_any_image(mode):
    """A rod (a sphere in 3D) of radius 12 mm in a period of 10 mm: written at x = 3 mm it
    lacked the points its image at 13 mm holds near the seam (images were added only where
    the object did not span the period, and only one period either way), so one lattice
    gave two geometries."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize

    def rod(cx):
        cells = (10, 30) if mode == "tmz" else (10, 30, 4)
        walls = {"x_min": "periodic", "x_max": "periodic", "y_min": "pec", "y_max": "pec"}
        obj = yf.Cylinder(center=(cx, 15e-3), radius=12e-3, material="rod") \
            if mode == "tmz" else yf.Sphere(center=(cx, 15e-3, 2e-3), radius=12e-3,
                                            material="rod")
        if mode == "3d":
            walls.update(z_min="periodic", z_max="periodic")
        s = yf.Scene(grid=yf.Grid(mode=mode, cells=cells, spacing=1e-3), boundaries=walls,
                     materials={"rod": yf.Material(eps_r=4)}, objects=[obj],
                     run=yf.RunSettings(steps=1))
        g = make_grid(s)
        return {c: voxelize(s, g, c) for c in g.components}

    a, b, c = rod(3e-3), rod(13e-3), rod(-7e-3)
    for comp in a:
        assert np.array_equal(a[comp], b[comp]) and np.array_equal(a[comp], c[comp]), comp
    # (9 mm, 4 mm) is 11.7 mm from the image at (13, 15) mm: inside the lattice
    assert a["ez"][9, 4].max() > 0


def test_a_sphere_far_wider_than_its_periodic_cell_takes_few_images_and_fills_it():
    """Only the images whose centres lie within half a period of the domain matter (a point
    inside any image is inside the one nearest along each axis): a sphere of radius 50 mm
    in a cell of 1 mm made a million images before, and its build was hours long."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import placed, voxelize

    walls = {f"{a}_{side}": "periodic" for a in "xyz" for side in ("min", "max")}
    s = yf.Scene(grid=yf.Grid(cells=(10, 10, 10), spacing=0.1e-3), boundaries=walls,
                 materials={"m": yf.Material(eps_r=4)},
                 objects=[yf.Sphere(center=(0.5e-3,) * 3, radius=0.05, material="m")],
                 run=yf.RunSettings(steps=1))
    g = make_grid(s)
    assert len(placed(s, g)) <= 27
    assert all((voxelize(s, g, c) != 0).all() for c in g.components)


@pytest.mark.parametrize("d, thick", [(1e-3, 1), (1e-4, 1), (1e-3, 10), (0.7e-3, 3)])
def test_a_box_drawn_on_grid_planes_holds_both_face_planes(d, thick):
    """Points exactly on a face are inside (closed boxes). Rounding of centre +- half the
    size decided it by chance: of boxes one cell thick at each of 100 positions on 1 mm
    cells, 78% held neither face plane (a PEC plate on grid planes let a wave through)."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize

    periodic = {f"{a}_{s}": "periodic" for a in "xy" for s in ("min", "max")}
    held = set()
    for k in range(100):
        s = scene(grid=yf.Grid(cells=(2, 2, 120), spacing=d), boundaries=periodic,
                  objects=[yf.Box(center=(d, d, (k + thick / 2) * d),
                                  size=(4 * d, 4 * d, thick * d), material="pec")])
        held.add(int(np.count_nonzero(voxelize(s, make_grid(s), "ex")[0, 0, :])))
    assert held == {thick + 1}


def test_cpml_is_matched_to_the_background_values_the_fields_see():
    """A face is matched to the background's index for waves across it, per pair of its
    terms (E along a, H along b): sqrt(eps_r[a] mu_r[b]). TMz's x face has one pair, Ez and
    Hy (eps_zz, mu_yy); the layer was matched to the mean over all three axes (eps_r =
    [9, 9, 1], vacuum for TMz, reflected at -65 dB against -92). A 3D face has two, and takes
    their geometric mean: eps_r = [9, 9, 1] gives 3 (Ey, Hz) and 1 (Ez, Hy) at the x faces,
    sqrt(3), as eps_r = 3 would; the mean over the axes, 19/3, mismatched the wave of index
    1 (eps_r = (9, 1, 4): -66.9 dB where this gives -86.4, tests/physics/test_cpml.py)."""
    from yeefdtd.build.cpml import make_slabs
    from yeefdtd.build.model import make_grid

    def profile(bg, mode):
        cells = (40, 40, 40) if mode == "3d" else (40, 40)
        s = scene(grid=yf.Grid(mode=mode, cells=cells, spacing=1e-3), boundaries={},
                  materials={"bg": bg}, background="bg")
        slab = make_slabs(s, make_grid(s))[0]
        return np.concatenate([slab.e.c, slab.h.c])

    vacuum = yf.Material()
    assert np.array_equal(profile(yf.Material(eps_r=[9, 9, 1]), "tmz"), profile(vacuum, "tmz"))
    assert np.array_equal(profile(yf.Material(eps_r=[1, 1, 9], mu_r=[4, 4, 1]), "tez"),
                          profile(vacuum, "tez"))
    np.testing.assert_allclose(profile(yf.Material(eps_r=[9, 9, 1]), "3d"),
                               profile(yf.Material(eps_r=3), "3d"), rtol=1e-13)
    np.testing.assert_allclose(profile(yf.Material(eps_r=[1, 1, 9], mu_r=[4, 1, 1]), "3d"),
                               profile(yf.Material(eps_r=3), "3d"), rtol=1e-13)
    assert not np.array_equal(profile(yf.Material(eps_r=[1, 1, 9]), "tmz"),
                              profile(vacuum, "tmz"))


@pytest.mark.parametrize("size", [1e-2, 1e6, 1e9])
def test_an_objects_faces_stay_where_they_are_at_any_size(size):
    """The allowance for rounding at a face (ON_SURFACE) scales with the object's centre and
    size; at 1e-12 of them a box 1e9 m long (a scene may hold one: a half space) reached a
    point 0.3 mm short of its face on 1 mm cells, a sphere of that radius one 1.3 mm short.
    Its faces (or surface) at x = 5.3 mm: the first Ey point held is x = 6 mm."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize

    lo = 5.3e-3
    for obj in (yf.Box(center=(lo + size / 2, 5e-3, 5e-3), size=(size, 0.02, 0.02),
                       material="pec"),
                yf.Sphere(center=(lo + size, 5e-3, 5e-3), radius=size, material="pec")):
        s = scene(grid=yf.Grid(cells=(10, 10, 10), spacing=1e-3), objects=[obj],
                  boundaries="pec")
        held = voxelize(s, make_grid(s), "ey")[:, 5, 5] == 1
        assert int(np.argmax(held)) == 6 and held[6:].all(), (obj, held)


def _region_cases():
    glass = {"glass": yf.Material(eps_r=4, sigma_e=0.1), "ferr": yf.Material(mu_r=3)}
    g3 = yf.Grid(cells=(24, 20, 16), spacing=1e-3)
    yield scene(grid=g3, boundaries="pmc", materials=glass,   # touching the PMC walls
                objects=[yf.Box(center=(0.004, 0.01, 0.008), size=(0.01, 0.03, 0.004),
                                material="glass"),
                         yf.Sphere(center=(0.02, 0.01, 0.008), radius=0.003, material="ferr")])
    yield scene(grid=g3, materials=glass,   # covers the grid: no background left
                objects=[yf.Box(center=(0.01, 0.01, 0.01), size=(0.1, 0.1, 0.1),
                                material="glass"),
                         yf.Box(center=(0.01, 0.01, 0.01), size=(0.004, 0.004, 0.004),
                                material="pec")])
    yield scene(grid=g3, materials=glass,   # between sample points: nothing painted
                objects=[yf.Box(center=(0.0155, 0.0105, 0.0055), size=(1e-4, 1e-4, 1e-4),
                                material="glass")])
    # a background of its own; the first object wholly overwritten by the second
    yield scene(grid=g3, materials=glass, background="ferr",
                objects=[yf.Box(center=(0.01, 0.01, 0.008), size=(0.002, 0.002, 0.002),
                                material="pec"),
                         yf.Box(center=(0.01, 0.01, 0.008), size=(0.006, 0.006, 0.006),
                                material="glass")])
    yield scene(grid=yf.Grid(mode="tmz", cells=(40, 30), spacing=1e-3), boundaries="pmc",
                materials=glass,
                objects=[yf.Sphere(center=(0.0, 0.015), radius=0.006, material="glass"),
                         yf.Box(center=(0.03, 0.015), size=(0.004, 0.1), material="ferr")])


@pytest.mark.parametrize("case", range(5))
def test_tables_from_the_objects_region_equal_those_from_the_whole_grid(case):
    """Each component's ids and table come out the same whether only the box the objects
    reach is stored, searched and looked up (voxelize_region's Voxels) or every cell's
    materials: objects on PMC walls, over the whole grid, between sample points, one hiding
    another in a background of its own, and a 2D grid. The Voxels hold what every point's
    material is (material_map, evaluated at each), and give its planes."""
    from yeefdtd.build.coefficients import component_table
    from yeefdtd.build.model import face_kinds, make_grid
    from yeefdtd.build.voxelize import Voxels, material_map, voxelize_region

    s = list(_region_cases())[case]
    grid, kinds = make_grid(s), face_kinds(s)
    base = len(s.material_names())
    for c in grid.components:
        vox = voxelize_region(s, grid, c)
        coords = [grid.coords(c, a) for a in range(3)]
        every = material_map(s, coords[0][:, None, None], coords[1][None, :, None],
                             coords[2][None, None, :], component=c)
        full = vox.full()
        assert full.dtype == every.dtype, c
        # a point is its material as sampled there, or at a box's face a mixture of it
        plain = full < base
        assert np.array_equal(full[plain], every[plain]), c
        for m, e in {(int(m), int(e)) for m, e in zip(full[~plain], every[~plain],
                                                      strict=True)}:
            assert e in dict(vox.mixtures[m - base]), (c, m, e)
        if case == 2:   # between the sub-points too: nothing painted
            assert not vox.mixtures and np.all(full == full.flat[0]), c
        for axis in range(3):
            for k in {0, grid.shape[axis] // 2, grid.shape[axis] - 1}:
                index = tuple(k if a == axis else slice(None) for a in range(3))
                assert np.array_equal(vox.take(index), full[index]), (c, axis, k)
        fast = component_table(s, grid, c, vox, kinds)
        whole = component_table(s, grid, c, Voxels(full.shape, int(full.flat[0]), tuple(
            slice(0, n) for n in full.shape), full, vox.mixtures), kinds)
        assert fast.ids.dtype == whole.ids.dtype and fast.ids.flags["F_CONTIGUOUS"], c
        assert np.array_equal(fast.ids, whole.ids), c
        assert np.array_equal(fast.table, whole.table), c


def test_points_on_a_boxs_faces_take_the_share_of_their_cell_it_holds():
    """A box of a material (not a conductor) drawn on grid planes: the E points on a face
    take the mean of the two materials, on an edge a quarter of the box's; points inside
    take the box's, H points (half a cell off the faces) as before. Two boxes that meet,
    or a box across a whole periodic axis, fill the cells they share; a PEC box keeps its
    faces' points (its tangential E is held there)."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize_region

    def shares(objects, component, plane, **kw):
        s = scene(grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3),
                  materials={"g": yf.Material(eps_r=4)}, objects=objects, **kw)
        vox = voxelize_region(s, make_grid(s), component)
        base = len(s.material_names())
        full = vox.full()[:, :, plane]
        out = np.zeros(full.shape)
        for (i, j), m in np.ndenumerate(full):
            mix = dict(vox.mixtures[m - base]) if m >= base else {int(m): 1.0}
            out[i, j] = mix.get(3, 0.0)   # the share of "g" (material 3)
        return out

    box = yf.Box(center=(0.006, 0.006, 0.006), size=(0.004, 0.004, 0.004), material="g")
    ez = shares([box], "ez", 6)   # z = 6.5 mm: inside along ez's own axis
    assert ez[4, 4] == 0.25 and ez[4, 6] == 0.5 and ez[6, 6] == 1.0 and ez[3, 6] == 0.0
    assert ez.sum() == 3 * 3 + 4 * 3 * 0.5 + 4 * 0.25
    assert np.array_equal(shares([box], "hz", 5)[3:9, 3:9] > 0, np.pad(np.ones((4, 4)), 1) > 0)
    halves = [yf.Box(center=(0.005, 0.006, 0.006), size=(0.002, 0.004, 0.004), material="g"),
              yf.Box(center=(0.007, 0.006, 0.006), size=(0.002, 0.004, 0.004), material="g")]
    assert np.array_equal(shares(halves, "ez", 6), ez)
    slab = yf.Box(center=(0.006, 0.006, 0.006), size=(0.004, 0.012, 0.012), material="g")
    periodic = shares([slab], "ez", 6, boundaries=yf.Boundaries(
        x_min="pec", x_max="pec", y_min="periodic", y_max="periodic", z_min="periodic",
        z_max="periodic"))
    assert np.all(periodic[4, :] == 0.5) and np.all(periodic[6, :] == 1.0)
    pec = scene(grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3),
                objects=[box.model_copy(update={"material": "pec"})])
    vox = voxelize_region(pec, make_grid(pec), "ez")
    assert not vox.mixtures and vox.full()[4, 4, 6] == 1
    # a substrate drawn after a PEC ground plane on its face: the face's E points stay PEC
    ground = scene(grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3),
                   materials={"g": yf.Material(eps_r=4)},
                   objects=[yf.Box(center=(0.006, 0.006, 0.002), size=(0.012, 0.012, 0.004),
                                   material="pec"),
                            yf.Box(center=(0.006, 0.006, 0.005), size=(0.012, 0.012, 0.002),
                                   material="g")])
    ex = voxelize_region(ground, make_grid(ground), "ex").full()
    assert np.all(ex[:-1, :, 4] == 1) and np.all(ex[:-1, 1:-1, 5] == 3)


def test_a_box_seen_only_through_the_cells_it_cuts_gets_no_note():
    """A cube of 0.4 cells centred between the grid's points holds no point of any
    component, but it is in the run through the shares of the E cells it cuts (Ez's, whose
    point at z = 6.5 mm it holds), so the note that the run does not see it is not given;
    one of 0.1 cells holds no sub-point of any cell (a quarter of a cell apart) and still
    gets it. (The first is painted 0.5 cells thick, its faces placed to quarter cells,
    which a note of its own says.)"""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import object_notes

    def notes(size):
        s = scene(grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3),
                  materials={"g": yf.Material(eps_r=4)},
                  objects=[yf.Box(center=(0.0065, 0.0065, 0.0065), size=size, material="g")])
        return object_notes(s, make_grid(s))

    said = notes((0.0004, 0.0004, 0.0004))
    assert len(said) == 1 and said[0].startswith("objects[0]: this box is 0.4 cells thick "
                                                 "along x"), said
    said = notes((0.0001, 0.0001, 0.0001))
    assert len(said) == 1 and "the run does not see it" in said[0], said


@pytest.mark.parametrize("mode, lo, thick, says", [
    ("3d", 500.1, 0.3, "0.3 cells thick along z (7.5e-05 m), which the grid paints as 0.5 "
                       "(each face is placed to the nearest quarter of a cell): 67% thicker"),
    ("3d", 500.1, 1.1, "1.1 cells thick along z (0.000275 m), which the grid paints as 1.25 "),
    ("3d", 500.1, 2.7, None),        # 2.7 against 2.75: 1.9%
    ("3d", 500.0, 0.5, None),        # faces on quarter cells
    ("3d", -3.0, 3.3, "its part inside the domain is 0.3 cells thick along z"),   # -> 0.25
    # a face on a sub-point (an odd eighth of a cell) counts it in: 5.125 -> 5.25
    ("3d", 500.0, 1.125, "1.13 cells thick along z (0.0002813 m), which the grid paints as "
                         "1.25 "),
    ("tmz", 500.1, 0.3, "0.3 cells thick along y"),
])
def test_a_box_whose_thickness_the_grid_paints_off_gets_a_note(mode, lo, thick, says):
    """A layer of eps_r = 10 and 0.3 cells (faces at 500.1 and 500.4 cells) reflected as one
    of 0.5 (|R| 0.117 against 0.0705 at 10 GHz, 66% high) without a word: each face is
    placed to the nearest quarter of a cell. A note now says so where the thickness the grid
    paints is more than 10% off; along an axis the box spans (x and y of a line of 1 x 1
    periodic cells), none."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import object_notes

    d = 0.25e-3
    if mode == "3d":
        grid = yf.Grid(cells=(1, 1, 800), spacing=d)
        box = yf.Box(center=(0, 0, (lo + thick / 2) * d), size=(1, 1, thick * d),
                     material="g")
        faces = {"x_min": "periodic", "x_max": "periodic", "y_min": "periodic",
                 "y_max": "periodic", "z_min": "pec", "z_max": "pec"}
    else:
        grid = yf.Grid(mode="tmz", cells=(1, 800), spacing=d)
        box = yf.Box(center=(0, (lo + thick / 2) * d), size=(1, thick * d), material="g")
        faces = {"x_min": "periodic", "x_max": "periodic", "y_min": "pec", "y_max": "pec"}
    s = scene(grid=grid, boundaries=faces, materials={"g": yf.Material(eps_r=10)},
              objects=[box])
    said = object_notes(s, make_grid(s))
    if says is None:
        assert said == ()
    else:
        said_of = "" if says.startswith("its part") else "this box is "
        assert len(said) == 1 and said[0].startswith(f"objects[0]: {said_of}{says}"), said


def test_shares_across_a_periodic_end_and_at_a_pmc_face():
    """A box that ends within half a cell before x = L cuts the cell of the point at x = 0
    (which wraps to [L - d/2, L)): that point takes its share (it took none, and a box of
    0.4 cells there was not seen at all). An E point on a face of a PMC box, which holds H
    and not E, takes the mean of vacuum and the box drawn after it (PEC holds E there)."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import voxelize_region

    def ez_row(objects, boundaries):
        s = yf.Scene(grid=yf.Grid(mode="tmz", cells=(12, 4), spacing=1e-3),
                     materials={"g": yf.Material(eps_r=5)}, objects=objects,
                     boundaries=boundaries, run=yf.RunSettings(steps=1))
        vox = voxelize_region(s, make_grid(s), "ez")
        base = len(s.material_names())
        out = []
        for m in vox.full()[:, 1, 0]:
            mix = dict(vox.mixtures[m - base]) if m >= base else {int(m): 1.0}
            out.append(sum(w * (5.0 if k == 3 else 1.0) for k, w in mix.items()))
        return out

    periodic = {"x_min": "periodic", "x_max": "periodic", "y_min": "periodic",
                "y_max": "periodic"}
    row = ez_row([yf.Box(center=(0.009375, 0.002), size=(0.00475, 0.004), material="g")],
                 periodic)
    assert row[0] == 2.0 and row[7] == 3.0 and row[8] == 5.0   # a quarter, a half, whole
    row = ez_row([yf.Box(center=(0.01175, 0.002), size=(0.0004, 0.004), material="g")],
                 periodic)
    assert row[0] == 3.0 and sum(row) == 12 + 4 * 0.5
    walls = {"x_min": "pec", "x_max": "pec", "y_min": "periodic", "y_max": "periodic"}
    pmc = yf.Box(center=(0.0035, 0.002), size=(0.003, 0.004), material="pmc")
    glass = yf.Box(center=(0.0065, 0.002), size=(0.003, 0.004), material="g")
    assert ez_row([pmc, glass], walls)[5] == 3.0   # the shared face x = 5 mm
    pec = pmc.model_copy(update={"material": "pec"})
    s = yf.Scene(grid=yf.Grid(mode="tmz", cells=(12, 4), spacing=1e-3),
                 materials={"g": yf.Material(eps_r=5)}, objects=[pec, glass],
                 boundaries=walls, run=yf.RunSettings(steps=1))
    assert voxelize_region(s, make_grid(s), "ez").full()[5, 1, 0] == 1   # PEC


def test_a_box_drawn_after_a_conductor_frees_the_points_whose_cells_it_takes():
    """Later objects overwrite earlier ones at the faces of a conductor too: a box drawn
    over a PEC (PMC) box frees the E (H) points on their shared faces where it takes the
    conductor's part of their cells. A PEC box then a vacuum box of the same size is no box
    (a hole cut to a plate's thickness stayed closed: its face points held E at zero); a
    PEC box then a glass one is the glass one; PEC over [2, 10] mm then glass over [6, 14]
    is PEC over [2, 6] beside glass over [6, 14]. Each compared on every coefficient of
    every E (H) component. A PEC sheet thinner than a quarter cell still holds the E on it."""
    from yeefdtd.build.model import build_model

    def tables(objects, **kw):
        s = scene(grid=yf.Grid(cells=(16, 12, 12), spacing=1e-3),
                  materials={"g": yf.Material(eps_r=[4, 5, 6], sigma_e=0.1)}, objects=objects,
                  **kw)
        m = build_model(s)
        return {c: np.stack([t.per_cell(k) for k in range(4)]) for c, t in m.tables.items()}

    def same(a, b, comps):
        ta, tb = tables(a), tables(b)
        return all(np.array_equal(ta[c], tb[c]) for c in comps)

    def box(x0, x1, material, size=0.006):
        return yf.Box(center=(0.5 * (x0 + x1), 0.006, 0.006), size=(x1 - x0, size, size),
                      material=material)

    e, h = ("ex", "ey", "ez"), ("hx", "hy", "hz")
    for cond, comps in (("pec", e), ("pmc", h)):
        assert same([box(0.004, 0.010, cond), box(0.004, 0.010, "vacuum")], [], comps)
        assert not same([box(0.004, 0.010, cond)], [], comps)
    assert same([box(0.004, 0.010, "pec"), box(0.004, 0.010, "g")], [box(0.004, 0.010, "g")],
                e)
    assert same([box(0.002, 0.010, "pec"), box(0.006, 0.014, "g")],
                [box(0.002, 0.006, "pec"), box(0.006, 0.014, "g")], e)
    sheet = yf.Box(center=(0.008, 0.006, 0.006), size=(1e-9, 0.006, 0.006), material="pec")
    glass = box(0.009, 0.012, "g")   # its cells beside the sheet's: mixtures there
    ey = tables([sheet, glass])["ey"]
    assert np.all(ey[:3, 8, 3:9, 3:10] == 0) and np.all(ey[0, 9, 3:9, 3:10] != 0)


def test_a_conductor_that_holds_no_point_of_the_field_it_acts_on_gets_the_note():
    """A PEC sheet of 1 nm in a TMz grid at x = 10.5 mm holds Hy points alone, which PEC
    does not act on: the run's coefficients are those without it, so it gets the note
    that the run does not see it (it got none: it held points of some component); at
    x = 10 mm it holds Ez points and gets none. A PMC one acts on H: none at 10.5 mm."""
    from yeefdtd.build.model import build_model, make_grid
    from yeefdtd.build.voxelize import object_notes

    def run_of(x, material="pec"):
        s = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3),
                     objects=[yf.Box(center=(x, 0.01), size=(1e-9, 0.012),
                                     material=material)] if x else [],
                     boundaries="pec", run=yf.RunSettings(steps=1))
        m = build_model(s)
        return object_notes(s, make_grid(s)), {c: t.per_cell(0) for c, t in m.tables.items()}

    notes, seen = run_of(0.0105)
    _, without = run_of(None)   # no sheet
    assert len(notes) == 1 and "holds no point of any E field component" in notes[0]
    assert all(np.array_equal(seen[c], without[c]) for c in seen)
    assert run_of(0.010)[0] == () and run_of(0.0105, "pmc")[0] == ()


def test_a_conductor_sheet_or_wire_that_holds_none_of_the_components_along_it_gets_a_note():
    """A PEC plate normal to x thinner than a cell and between two E planes holds Ex alone,
    across it: a pulse went through it whole (transmitted peak 1.000 against 0.000 for the
    plates that hold Ey), without a word; likewise a wire along z that holds no Ez. On a
    grid plane, or a cell thick, nothing to say."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import object_notes

    def notes(obj, mode="tez", cells=(120, 2)):
        s = yf.Scene(grid=yf.Grid(mode=mode, cells=cells, spacing=1e-3), objects=[obj],
                     boundaries={"x_min": "pec", "x_max": "pec", "y_min": "periodic",
                                 "y_max": "periodic", **({} if mode != "3d" else {
                                     "z_min": "pec", "z_max": "pec"})},
                     run=yf.RunSettings(steps=1))
        return object_notes(s, make_grid(s))

    def plate(x, t, material="pec"):
        return yf.Box(center=(x, 1e-3), size=(t, 1.0), material=material)

    for x, t in ((0.0605, 0.5e-3), (0.0605, 0.9e-3), (0.0603, 0.5e-3)):
        got = notes(plate(x, t))
        assert len(got) == 1 and got[0].startswith("objects[0]: this box is thinner than a "
                                                   "cell along x and holds no point of ey")
    for x, t in ((0.060, 0.5e-3), (0.060, 0.9e-3), (0.0603, 0.9e-3), (0.0605, 1.5e-3)):
        assert notes(plate(x, t)) == ()
    # PMC acts on H: the plate between the planes holds Hz, on one it holds no H at all
    assert notes(plate(0.0605, 0.5e-3, "pmc")) == ()
    assert "holds no point of any H field component" in notes(plate(0.060, 0.5e-3, "pmc"))[0]
    wire = yf.Cylinder(center=(5.5e-3, 5e-3, 5e-3), radius=0.4e-3, material="pec")
    got = notes(wire, "3d", (10, 10, 10))
    assert len(got) == 1 and "thinner than a cell along x and y and holds no point of ez" \
        in got[0]
    assert notes(wire.model_copy(update={"center": (5e-3, 5e-3, 5e-3)}), "3d",
                 (10, 10, 10)) == ()


def test_a_face_normal_to_the_field_takes_the_harmonic_mean_of_its_cell():
    """A face normal to a component that cuts its point's cell in halves (Ex at x = 4.5 mm
    on a box's face at x = 4.5 mm, off the grid planes; Hx at x = 4 mm on a face there, on
    them) gives the point the layers' series value: 1 / (0.5 / 1 + 0.5 / 4) = 1.6 (eps_r
    for E, mu_r for H), and sigma = 1.6^2 (0.5 sigma_box / 4^2) = 0.08 sigma_box, the
    series admittance to first order in the loss. Sampled at the point it was the box's,
    4 (the face placed half a cell off: first-order error in the resonances). The values
    are read back from the coefficient rows and compared with the formula's to 1e-12
    (rounding alone; 1e-9 for sigma, read back as a difference of two rows' terms). An
    Ex point on the box's face along y (a grid plane) keeps the volume mean, 2.5, of the
    same shares: a mixture of its own (Series is another); so does one cut both ways (on
    the edge x = 4.5, y = 4 mm: sampled at the point along x).
    The box spans the periodic z: the points at z = 0 are as those inside. Ez in TMz
    (no extent along z) takes no series mixture."""
    from yeefdtd.build.coefficients import material_rows
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import Series, voxelize_region

    sig = 0.2

    def box_scene(x0):
        return scene(grid=yf.Grid(cells=(12, 12, 4), spacing=1e-3),
                     boundaries=yf.Boundaries(x_min="pec", x_max="pec", y_min="pec",
                                              y_max="pec", z_min="periodic",
                                              z_max="periodic"),
                     materials={"g": yf.Material(eps_r=4, sigma_e=sig, mu_r=4,
                                                 sigma_m=1e3 * sig)},
                     objects=[yf.Box(center=(x0 + 0.002, 0.006, 0.002),
                                     size=(0.004, 0.004, 0.004), material="g")])

    def value(s, component, index):
        """(eps_r or mu_r, sigma) read from the point's coefficient row, and its mixture
        (None for a material of the scene)."""
        grid = make_grid(s)
        base = len(s.material_names())
        vox = voxelize_region(s, grid, component)
        m = int(vox.full()[index])
        row = material_rows(s, component, grid.dt, grid.steps, vox.mixtures)[m]
        # C_self = (2v - s dt) / (2v + s dt), C_src = -2 dt / (2v + s dt), v = eps0 eps_r
        den = -2 * grid.dt / row[SRC]
        v = den * (1 + row[SELF]) / 4
        return (v / (EPS0 if component[0] == "e" else MU0), (den - 2 * v) / grid.dt,
                vox.mixtures[m - base] if m >= base else None)

    off = box_scene(0.0045)   # x from 4.5 to 8.5 mm, y from 4 to 8 mm
    for k in (0, 1):
        eps, sigma, mix = value(off, "ex", (4, 6, k))   # x = 4.5 mm: on the face
        assert isinstance(mix, Series) and dict(mix) == {0: 0.5, 3: 0.5}
        assert eps == pytest.approx(1.6, rel=1e-12)
        assert sigma == pytest.approx(1.6 ** 2 * 0.5 * sig / 16, rel=1e-9)
    eps, sigma, mix = value(off, "ex", (6, 4, 1))   # y = 4 mm: the face along y, across Ex
    assert type(mix) is tuple and dict(mix) == {0: 0.5, 3: 0.5}
    assert eps == pytest.approx(2.5, rel=1e-12) and sigma == pytest.approx(0.5 * sig, rel=1e-9)
    eps, _, mix = value(off, "ex", (4, 4, 1))   # on the edge: cut both ways
    assert type(mix) is tuple and eps == pytest.approx(2.5, rel=1e-12)
    assert value(off, "ex", (6, 6, 1))[:2] == pytest.approx((4.0, sig), rel=1e-9)
    on = box_scene(0.004)   # x from 4 to 8 mm
    mu, sigma_m, mix = value(on, "hx", (4, 6, 1))   # x = 4 mm: on the face
    assert isinstance(mix, Series)
    assert mu == pytest.approx(1.6, rel=1e-12)
    assert sigma_m == pytest.approx(1.6 ** 2 * 0.5 * 1e3 * sig / 16, rel=1e-9)
    assert value(on, "ex", (4, 6, 1))[2] is None   # x = 4.5 mm: its cell inside
    tmz = yf.Scene(grid=yf.Grid(mode="tmz", cells=(12, 12), spacing=1e-3), boundaries="pec",
                   materials={"g": yf.Material(eps_r=4)}, run=yf.RunSettings(steps=1),
                   objects=[yf.Box(center=(0.0065, 0.006), size=(0.004, 0.004),
                                   material="g")])
    assert voxelize_region(tmz, make_grid(tmz), "ez").mixtures
    assert not any(isinstance(mix, Series)
                   for mix in voxelize_region(tmz, make_grid(tmz), "ez").mixtures)


def test_series_mixtures_agree_point_by_point_and_rows_reached_holds_them():
    """Boxes of several materials with faces on and off the grid planes, lossy and
    magnetic, overlapping, beside a PEC box, across a periodic face and on a PMC wall: at
    every point of every component that takes a mixture, and 100 others, point_material
    (what validate and the estimates look at) gives the coefficient row that
    voxelize_region's table gives (exactly), and
    rows_reached counts every row the table uses of a material or a mixture of two (it
    adds each box's series shares k / 4 with each material before it; mixtures of three,
    where boxes meet in a cell, it does not count)."""
    from yeefdtd.build.coefficients import material_rows, rows_reached
    from yeefdtd.build.model import face_kinds, make_grid
    from yeefdtd.build.voxelize import full_ranges, point_material, voxelize_region

    s = scene(grid=yf.Grid(cells=(10, 9, 8), spacing=1e-3),
              boundaries=yf.Boundaries(x_min="pmc", x_max="pec", y_min="periodic",
                                       y_max="periodic", z_min="pec", z_max="pmc"),
              materials={"a": yf.Material(eps_r=3, sigma_e=0.3),
                         "b": yf.Material(eps_r=(2, 5, 7), mu_r=3, sigma_m=200.0)},
              objects=[yf.Box(center=(0.002, 0.0045, 0.004), size=(0.0043, 0.009, 0.0061),
                              material="a"),
                       yf.Box(center=(0.0047, 0.001, 0.0035), size=(0.003, 0.0036, 0.005),
                              material="b"),
                       yf.Box(center=(0.0075, 0.0045, 0.0042), size=(0.001, 0.002, 0.002),
                              material="pec"),
                       yf.Box(center=(0.0072, 0.005, 0.005), size=(0.0021, 0.0032, 0.0032),
                              material="a")])
    grid, faces = make_grid(s), face_kinds(s)
    rng = np.random.default_rng(5)
    seen_series = 0
    for c in grid.components:
        vox = voxelize_region(s, grid, c)
        rows = material_rows(s, c, grid.dt, grid.steps, vox.mixtures)
        full = vox.full()
        seen_series += sum(type(m) is not tuple for m in vox.mixtures)
        ext = tuple(slice(0, e) for e in grid.extent(c))
        mixed = np.argwhere(full[ext] >= len(s.material_names()))
        others = np.argwhere(full[ext] < len(s.material_names()))
        picks = np.concatenate([mixed, rng.permutation(others)[:100]])
        for idx in map(tuple, picks):
            m, mixtures = point_material(s, grid, c, idx)
            own = material_rows(s, c, grid.dt, grid.steps, mixtures)[m]
            assert np.array_equal(own, rows[full[idx]]), (c, idx)
        base = len(s.material_names())
        used = rows[[m for m in np.unique(full) if m < base or len(vox.mixtures[m - base]) < 3]]
        got = rows_reached(s, grid, c, full_ranges(grid, c), faces)
        assert {tuple(r) for r in used} <= {tuple(r) for r in got}, c
    assert seen_series > 10


def test_a_conductors_sliver_past_a_point_keeps_it_held_and_rows_reached_counts_its_mixes():
    """A PEC plate over z 0.95 to 1.25 mm holds the E points on z = 1 mm; a substrate drawn
    after it from z = 1 mm takes the sub-points the plate held there (z = 1.125), but the
    plate's sliver below z = 1 mm still passes through the points: they stay held (they
    took the substrate's mean with vacuum, and the plate was gone from the run), as with
    the plate drawn as z 0.95 to 1.00 alone. And a conductor drawn after a box mixes, for
    the field it does not hold, with the box (as vacuum): rows_reached counts those
    mixtures (it missed them, which may choose ids too narrow)."""
    from yeefdtd.build.coefficients import material_rows, rows_reached
    from yeefdtd.build.model import build_model, face_kinds, make_grid
    from yeefdtd.build.voxelize import full_ranges, voxelize_region

    def sc(objs, **kw):
        return yf.Scene(grid=yf.Grid(cells=(8, 8, 6), spacing=1e-3), boundaries="pec",
                        materials={"sub": yf.Material(eps_r=4)}, objects=objs,
                        run=yf.RunSettings(steps=1), **kw)

    def plate(z0, z1):
        return yf.Box(center=(0.004, 0.004, 0.5 * (z0 + z1)), size=(0.004, 0.004, z1 - z0),
                      material="pec")

    substrate = yf.Box(center=(0.004, 0.004, 0.002), size=(0.004, 0.004, 0.002),
                       material="sub")
    for objs in ([plate(0.00095, 0.00125)], [plate(0.00095, 0.00125), substrate],
                 [plate(0.00095, 0.001), substrate]):
        tables = build_model(sc(objs)).tables
        assert all(np.all(tables[c].per_cell(0)[3:6, 3:6, 1] == 0) for c in ("ex", "ey"))
    for kind in ("pec", "pmc"):
        s = yf.Scene(grid=yf.Grid(cells=(8, 8, 8), spacing=1e-3), boundaries="pec",
                     background="oil",
                     materials={"oil": yf.Material(eps_r=2.2, mu_r=1.7),
                                "glass": yf.Material(eps_r=4, mu_r=3)},
                     objects=[yf.Box(center=(0.004, 0.004, 0.004), size=(0.004, 0.004, 0.004),
                                     material="glass"),
                              yf.Box(center=(0.007, 0.004, 0.004), size=(0.002, 0.004, 0.004),
                                     material=kind)],
                     run=yf.RunSettings(steps=1))
        grid, faces = make_grid(s), face_kinds(s)
        base = len(s.material_names())
        for c in grid.components:
            vox = voxelize_region(s, grid, c)
            rows = material_rows(s, c, grid.dt, grid.steps, vox.mixtures)
            got = {tuple(r) for r in rows_reached(s, grid, c, full_ranges(grid, c), faces)}
            assert all(tuple(rows[m]) in got for m in np.unique(vox.full())
                       if m < base or len(vox.mixtures[m - base]) == 2), (kind, c)


def test_boxes_that_meet_give_the_cells_at_their_seam_the_series_mean_of_one_box():
    """A box drawn as two that meet (on a grid plane or off the planes), or over one
    period of a periodic axis from another origin, is the same box: every coefficient of
    every component alike. The points at the seam lie on a face of each box across the
    component, so each box alone called their cells cut across, and they lost the series
    mean of the face normal to them (ex(2, 5, 1): eps_r 4.0 instead of 2.29)."""
    from yeefdtd.build.model import build_model

    def tables(objects, boundaries="pec"):
        s = yf.Scene(grid=yf.Grid(cells=(12, 12, 4), spacing=1e-3), boundaries=boundaries,
                     materials={"g": yf.Material(eps_r=4, mu_r=3)}, objects=objects,
                     run=yf.RunSettings(steps=1))
        return {c: np.stack([t.per_cell(k) for k in range(4)])
                for c, t in build_model(s).tables.items()}

    def box(y0, y1, z0=0.0, z1=0.004):
        return yf.Box(center=(0.0043, 0.5 * (y0 + y1), 0.5 * (z0 + z1)),
                      size=(0.004, y1 - y0, z1 - z0), material="g")

    def same(a, b):
        return all(np.array_equal(a[c], b[c]) for c in a)

    one = tables([box(0.002, 0.008, -0.003, 0.007)])
    assert same(one, tables([box(0.002, 0.005, -0.003, 0.007),
                             box(0.005, 0.008, -0.003, 0.007)]))
    assert same(one, tables([box(0.002, 0.0055, -0.003, 0.007),
                             box(0.0055, 0.008, -0.003, 0.007)]))
    periodic = yf.Boundaries(x_min="pec", x_max="pec", y_min="pec", y_max="pec",
                             z_min="periodic", z_max="periodic")
    whole = tables([box(0.002, 0.008)], periodic)
    assert same(whole, tables([box(0.002, 0.008, 0.0003, 0.0043)], periodic))
    ex = one["ex"]
    assert ex[3, 2, 5, 1] != ex[3, 4, 5, 1]   # the face's series mean, not the box's


def test_a_conducting_material_keeps_the_points_its_faces_cut_normal_to_them():
    """A box of 1e4 S/m (loss sigma dt / (2 eps0) of about 1e3 a step: it conducts on the
    grid's time scale) with a face off the grid planes: the Ex point on it keeps the
    material at the point, as a conductor's does (the series mean, exact to first order in
    the loss, made its share of the cell very lossy: a cavity's resonance moved 6 times as
    far as at the point). A box of 0.1 S/m (a loss of 1e-5 a step) takes the series mean."""
    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import Series, point_material, voxelize_region

    for sigma, series in ((1e4, False), (0.1, True)):
        s = yf.Scene(grid=yf.Grid(mode="tez", cells=(20, 10), spacing=1e-3), boundaries="pec",
                     materials={"m": yf.Material(eps_r=2, sigma_e=sigma)},
                     objects=[yf.Box(center=(0.00325, 0.005), size=(0.0085, 0.03),
                                     material="m")],
                     run=yf.RunSettings(steps=1))
        grid = make_grid(s)
        vox = voxelize_region(s, grid, "ex")
        m = int(vox.full()[7, 4, 0])   # x = 7.5 mm: on the face (the box from x = -1 mm)
        got = point_material(s, grid, "ex", (7, 4, 0))
        if series:
            assert isinstance(vox.mixtures[m - 4], Series) and got[0] == 4
        else:
            assert m == 3 and got == (3, ())   # the box's, at the point (on its face)
