"""What `yeefdtd validate` finds without the grid's arrays: which points the objects reach,
where a source's component is held at zero, and the memory a run takes; each against what
the arrays themselves say."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd import host
from yeefdtd.backends.numpy import stepper as numpy_stepper
from yeefdtd.backends.numpy.stepper import NumpyStepper
from yeefdtd.build.coefficients import SRC, held_at_zero, rows_reached
from yeefdtd.build.memory import run_memory
from yeefdtd.build.model import face_kinds, make_grid, notes_before_run
from yeefdtd.build.voxelize import covers, full_ranges, reaches, voxelize
from yeefdtd.cli import main

from .test_description import full_scene


def _random_objects(rng, n: int, size, ndim: int):
    """Boxes, spheres and cylinders from a tenth of a cell to past the domain, some with
    their centre outside it."""
    out = []
    for _ in range(n):
        centre = tuple(rng.uniform(-0.2, 1.2) * s for s in size[:ndim])
        r = float(np.exp(rng.uniform(np.log(1e-5), np.log(0.02))))
        kind = rng.integers(3)
        if kind == 0:
            out.append(yf.Box(center=centre, size=tuple(r * rng.uniform(0.3, 2, ndim)),
                              material="pec"))
        elif kind == 1:
            out.append(yf.Sphere(center=centre, radius=r, material="pec"))
        else:
            axis = "z" if ndim == 2 else "xyz"[rng.integers(3)]
            length = None if ndim == 2 or rng.random() < 0.3 else r * rng.uniform(0.5, 4)
            out.append(yf.Cylinder(center=centre, radius=r, axis=axis, length=length,
                                   material="pec"))
    return out


@pytest.mark.parametrize("mode", ["3d", "tmz"])
def test_reaches_and_covers_agree_with_the_voxels(mode):
    """For each object alone, on each component and on blocks of the grid: reaches is
    whether voxelize puts it on some point, covers whether on every one. The objects are
    PEC, which acts on E alone: H passes through them (none of its points is PEC)."""
    rng = np.random.default_rng(7)
    cells = (9, 7, 5) if mode == "3d" else (9, 7)
    spacing = (1e-3, 1.5e-3, 2e-3) if mode == "3d" else (1e-3, 1.5e-3)
    base = yf.Scene(grid=yf.Grid(mode=mode, cells=cells, spacing=spacing), boundaries="pec",
                    run=yf.RunSettings(steps=1))
    size = base.grid.size
    found = {True: 0, False: 0}
    for obj in _random_objects(rng, 150, size, len(cells)):
        lo, hi = obj.bounds()
        if any(h < 0 or l > s for l, h, s in zip(lo, hi, size, strict=False)):
            continue   # the scene refuses those
        scene = base.model_copy(update={"objects": (obj,)})
        grid = make_grid(scene)
        for c in grid.components:
            inside = voxelize(scene, grid, c) == 1   # pec
            if c.startswith("h"):
                assert not inside.any(), (obj, c)
                continue
            full = full_ranges(grid, c)
            blocks = [full, tuple((r[0] + 1, r[1] - 1) if r[1] - r[0] > 2 else r
                                  for r in full)]
            for ranges in blocks:
                part = inside[tuple(slice(*r) for r in ranges)]
                assert reaches(obj, grid, c, ranges) == bool(part.any()), (obj, c, ranges)
                assert covers(obj, grid, c, ranges) == bool(part.all()), (obj, c, ranges)
                found[bool(part.any())] += 1
    assert min(found.values()) > 50   # both answers tried, often


@pytest.mark.parametrize("h", [1e-4, 1e-3, 2e-3, 1e-2])
def test_reaches_objects_aligned_with_the_grid(h):
    """A box of one cell centred halfway between two grid points along each axis: its faces
    lie on points, and rounding puts either neighbour of the centre inside (with the
    nearest point alone, a third of these boxes were noted as out of the run, which saw
    them). reaches must agree with voxelize on each."""
    told = {True: 0, False: 0}
    for i in range(1, 19, 2):
        for k in range(1, 19, 3):
            box = yf.Box(center=((i + 0.5) * h, (k + 0.5) * h, (i + 0.5) * h), size=(h,) * 3,
                         material="pec")
            scene = yf.Scene(grid=yf.Grid(cells=(20, 20, 20), spacing=h), objects=[box],
                             boundaries="pec", run=yf.RunSettings(steps=1))
            grid = make_grid(scene)
            for c in grid.components:
                full = full_ranges(grid, c)
                inside = voxelize(scene, grid, c)[tuple(slice(*r) for r in full)] == 1
                if c.startswith("h"):   # PEC acts on E alone
                    assert not inside.any(), (box, c)
                    continue
                assert reaches(box, grid, c, full) == bool(inside.any()), (box, c)
                told[bool(inside.any())] += 1
    assert told[True] > 100


@pytest.mark.parametrize("mode", ["3d", "tmz", "tez"])
def test_held_at_zero_is_the_tables_zero_row_at_every_point(mode):
    """PEC and PMC objects, PEC, PMC, CPML and periodic faces, and a dielectric box drawn
    after them on a face of the PMC box and over the PEC sphere (the points on a
    conductor's surface stay the conductor's): the point-wise answer that validate gives
    is the table's, everywhere."""
    if mode == "3d":
        scene = full_scene()
    else:
        scene = yf.Scene(
            grid=yf.Grid(mode=mode, cells=(14, 12), spacing=1e-3),
            materials={"glass": yf.Material(eps_r=3, mu_r=2)},
            objects=[yf.Sphere(center=(0.005, 0.006), radius=0.002, material="pec"),
                     yf.Box(center=(0.01, 0.004), size=(0.003, 0.003), material="pmc"),
                     yf.Box(center=(0.01, 0.007), size=(0.003, 0.003), material="glass"),
                     yf.Box(center=(0.0035, 0.006), size=(0.003, 0.004), material="glass")],
            boundaries={"x_min": "pec", "x_max": "pmc", "y_min": {"cells": 3},
                        "y_max": "pec"},
            run=yf.RunSettings(steps=1))
    model = yf.build_model(scene)
    faces = face_kinds(scene)
    rng = np.random.default_rng(3)
    for c in model.grid.components:
        t = model.tables[c]
        zero = t.table[t.ids, SRC] == 0
        # every point of a 2D grid; in 3D, 300 held at zero and 300 not, at random
        picks = [np.flatnonzero(zero.ravel() == z) for z in (True, False)]
        if mode == "3d":
            picks = [rng.choice(p, min(300, len(p)), replace=False) for p in picks]
        assert all(len(p) for p in picks), c
        for flat in np.concatenate(picks):
            idx = np.unravel_index(flat, zero.shape)
            assert held_at_zero(scene, model.grid, c, idx, faces) == zero[idx], (c, idx)


def test_rows_reached_hold_the_tables_rows_and_no_more_where_it_matters():
    """Every row the table uses among a component's points is among rows_reached's, and a
    column is the same everywhere in one exactly where it is in the other (what decides a
    per-point coefficient array)."""
    scene = full_scene()
    model = yf.build_model(scene)
    faces = face_kinds(scene)
    for c in model.grid.components:
        t = model.tables[c]
        full = full_ranges(model.grid, c)
        used = t.table[np.unique(t.ids[tuple(slice(*r) for r in full)])]
        got = rows_reached(scene, model.grid, c, full, faces)
        assert {tuple(r) for r in used} <= {tuple(r) for r in got}, c
        for col in range(4):
            assert (np.ptp(used[:, col]) == 0) == (np.ptp(got[:, col]) == 0), (c, col)


def _scenes():
    cpml = yf.Scene(
        grid=yf.Grid(cells=(30, 26, 22), spacing=1e-3),
        materials={"glass": yf.Material(eps_r=4.0)},
        objects=[yf.Sphere(center=(0.015, 0.013, 0.011), radius=0.004, material="glass"),
                 yf.Box(center=(0.01, 0.01, 0.01), size=(0.002, 0.002, 0.006),
                        material="pec")],
        boundaries={"x_min": {"cells": 6}, "x_max": {"cells": 6}, "y_min": {"cells": 5},
                    "y_max": {"cells": 5}, "z_min": "pec", "z_max": "pmc"},
        sources=[yf.PointSource(component="ez", cell=(15, 13, 11),
                                waveform=yf.Gaussian(tau=1e-11))],
        monitors=[yf.Probe(name="p", cell=(20, 13, 11), every=2),
                  yf.Snapshot(name="s", component="ey", axis="y", every=5)],
        run=yf.RunSettings(steps=40))
    # every point in one object: the background's rows are nowhere
    filled = cpml.model_copy(update={
        "materials": {"ferrite": yf.Material(mu_r=2.0, eps_r=3.0)},
        "objects": (yf.Box(center=(0.015, 0.013, 0.011), size=(0.1, 0.1, 0.1),
                           material="ferrite"),)})
    tmz = yf.Scene(
        grid=yf.Grid(mode="tmz", cells=(60, 50), spacing=1e-3),
        materials={"lossy": yf.Material(eps_r=2.0, sigma_e=0.5)},
        objects=[yf.Cylinder(center=(0.03, 0.025), radius=0.01, material="lossy")],
        boundaries={"x_min": {"cells": 8}, "x_max": {"cells": 8}, "y_min": "pmc",
                    "y_max": "pec"},
        sources=[yf.PointSource(component="ez", cell=(20, 25),
                                waveform=yf.Ricker(frequency=1e10))],
        monitors=[yf.Snapshot(name="s", component="hx", every=4)],
        run=yf.RunSettings(steps=30))
    vacuum = tmz.model_copy(update={"objects": (), "grid": yf.Grid(mode="tez", cells=(60, 50),
                                                                     spacing=1e-3),
                                    "sources": (), "monitors": ()})
    # 70 materials named and one used: the ids still fit 8 bits
    named = cpml.model_copy(update={
        "materials": {f"m{i}": yf.Material(eps_r=1.0 + i / 10) for i in range(70)},
        "objects": (yf.Sphere(center=(0.015, 0.013, 0.011), radius=0.004, material="m3"),)})
    return {"cpml-3d": cpml, "filled-3d": filled, "everything-3d": full_scene(),
            "tmz": tmz, "tez-vacuum": vacuum, "many-named-3d": named}


#: the NumPy backend's own count (memory_bytes) and the estimate's parts that it covers
#: agree within this fraction (rows_reached may count rows a box does not hold)
TOLERANCE = 0.01


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(_scenes()))
def test_the_memory_estimate_is_the_numpy_backends_own_count(monkeypatch, name, dtype,
                                                             threads):
    """Fields, coefficient arrays (only where a component's coefficients differ from point
    to point), CPML arrays and scratch (chunks of 256 cells here, pieces of 64 or more, so
    that three threads take a piece each of these small grids): within TOLERANCE of
    NumpyStepper.memory_bytes; the whole estimate adds what memory_bytes leaves out (ids,
    source values, records)."""
    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 64)
    monkeypatch.setattr(numpy_stepper, "CHUNK_CELLS", 256)
    scene = _scenes()[name]
    model = yf.build_model(scene)
    stepper = NumpyStepper(model, dtype, threads=threads)
    assert len(stepper._scratch) == threads
    parts = run_memory(scene, model.grid, model.steps, dtype, face_kinds(scene), threads)
    counted = parts["fields"] + parts["coefficients"] + parts["cpml"] + parts["scratch"]
    assert abs(counted - stepper.memory_bytes()) <= TOLERANCE * stepper.memory_bytes(), parts
    ids = sum(t.ids.nbytes for t in model.tables.values())
    assert parts["ids"] == ids
    # the records, their copy as collected, and a probe's series copied once more (a column
    # each), with each record's time
    times = sum(r.size for r in stepper._probe_rec) + sum(len(r) for r in stepper._snap_rec)
    assert parts["records"] == sum(3 * r.nbytes for r in stepper._probe_rec) + \
        sum(2 * r.nbytes for r in stepper._snap_rec) + 8 * times
    assert sum(parts.values()) >= stepper.memory_bytes() + ids


def test_validate_says_the_memory_and_a_note_where_it_is_more_than_the_host_has(
        tmp_path, capsys, monkeypatch):
    """A scene of 10^12 cells validates in well under a minute without allocating its
    arrays, and a note says it would not fit, naming the largest part."""
    scene = {"grid": {"cells": [10_000, 10_000, 10_000], "spacing": 1e-3},
             "objects": [{"type": "sphere", "center": [2, 2, 2], "radius": 1.0,
                          "material": "pec"}],
             "sources": [{"component": "ez", "cell": [5000, 5000, 5000],
                          "waveform": {"type": "gaussian", "tau": 3e-11}}],
             "monitors": [{"type": "probe", "cell": [10, 10, 10]},
                          {"type": "snapshot", "component": "ez", "every": 50}],
             "run": {"steps": 100}}
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(scene))
    monkeypatch.setattr(host, "total_bytes", lambda: 64 * 10**9)
    monkeypatch.setenv("YEEFDTD_THREADS", "2")   # scratch: 2 x 2 chunks of a 10^8-cell layer
    tracemalloc.start()
    start = time.perf_counter()
    try:
        assert main(["validate", str(path)]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 30 and peak < 20e6
    out, err = capsys.readouterr()
    assert out.splitlines()[1].startswith("memory: about 30.4 TB on the host for a run on "
                                          "the numpy backend in float32 (fields 24 TB")
    # host: fields 24 TB, ids 6 TB, coefficients only over the sphere's box (0.29 TB).
    # GPU: fields 24 TB (two sets: 48), ids 6 TB (one id a cell: 1), CPML values 0.096 TB
    # (10-cell layers on six faces, four terms each; two sets: 0.19), rows padded ('fused'
    # to 10 016 nodes, 'temporal' to 10 008)
    assert out.splitlines()[2] == ("memory on a GPU (cuda backend): about 30.1 TB with "
                                   "'indexed', 49.3 TB with 'fused', 49.3 TB with "
                                   "'temporal' (these two keep two sets of fields)")
    assert err.count("\n") == 1
    assert err == ("note: memory: a run on the numpy backend would need about 30.4 TB, more "
                   "than the 64 GB of memory here; its largest part is the fields (24 TB): "
                   "use fewer or larger cells\n")
    # where the host is larger, no note; where its size is not known, none either
    monkeypatch.setattr(host, "total_bytes", lambda: 10**15)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(host, "total_bytes", lambda: None)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().err == ""


def test_validate_says_the_memory_a_long_runs_model_needs_while_it_is_built(tmp_path, capsys,
                                                                            monkeypatch):
    """A model holds each source's values three times while it is built (times and values
    in float64, and their copy merged by point), and build_model refuses a run on that
    count: validate says that peak too, and its note where it is more than the host has
    (one source over 1e9 steps: 12 GB said, 36 GB refused by the run)."""
    scene = {"grid": {"cells": [10, 10, 10], "spacing": 1e-3}, "boundaries": "pec",
             "sources": [{"component": "ez", "cell": [5, 5, 5],
                          "waveform": {"type": "gaussian", "tau": 1e-11}}],
             "run": {"steps": 1_000_000_000, "backend": "numpy"}}
    path = tmp_path / "long.json"
    path.write_text(json.dumps(scene))
    monkeypatch.setattr(host, "total_bytes", lambda: 20 * 10**9)
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1].startswith("memory: about 36 GB on the host")
    assert out.splitlines()[1].endswith("source values 12 GB; at most while the model is "
                                        "built, which holds the source values 3 times)")
    assert any(line.startswith("note: memory: a run on the numpy backend would need about "
                               "36 GB") for line in err.splitlines())
    monkeypatch.setattr(host, "free_bytes", lambda: 20 * 10**9)
    with pytest.raises(yf.OutOfMemory, match="about 36 GB"):
        yf.build_model(yf.Scene.load(path))


def test_the_hosts_memory_is_its_physical_memory_within_a_cgroups_limit(tmp_path,
                                                                        monkeypatch):
    import os

    if not hasattr(os, "sysconf") or "SC_PHYS_PAGES" not in os.sysconf_names:
        pytest.skip("no SC_PHYS_PAGES here")
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    monkeypatch.setattr(host, "CGROUP_MAX", str(tmp_path / "none"))
    assert host.total_bytes() == physical
    (tmp_path / "max").write_text("max\n")
    monkeypatch.setattr(host, "CGROUP_MAX", str(tmp_path / "max"))
    assert host.total_bytes() == physical
    (tmp_path / "max").write_text(f"{1 << 30}\n")
    assert host.total_bytes() == min(physical, 1 << 30)


def test_validate_gives_the_runs_notes(tmp_path, capsys, monkeypatch):
    """An object the grid does not see, a soft source inside PEC and a monitor that records
    nothing: the same notes from validate (from the points alone) as from the run (from
    the tables)."""
    import importlib

    monkeypatch.setattr(importlib.import_module("yeefdtd.run"), "_notes_shown", set())
    scene = yf.Scene(
        grid=yf.Grid(cells=(20, 20, 20), spacing=1e-3),
        objects=[yf.Box(center=(0.01, 0.01, 0.01), size=(0.004, 0.004, 0.004),
                        material="pec"),
                 yf.Sphere(center=(0.0152, 0.0152, 0.0152), radius=1e-4, material="pec")],
        sources=[yf.PointSource(component="ez", position=(0.01, 0.01, 0.01),
                                waveform=yf.Gaussian(tau=1e-11))],
        monitors=[yf.Probe(name="p", cell=(5, 5, 5), every=50)],
        boundaries="pec", run=yf.RunSettings(steps=10, backend="numpy"))
    path = scene.save(tmp_path / "s.json")
    assert main(["validate", str(path)]) == 0
    said = [line.removeprefix("note: ") for line in capsys.readouterr().err.splitlines()]
    # (its pulse of 10 ps on 1 mm cells: the note on the grid's dispersion too)
    assert [s.split(":")[0] for s in said] == ["objects[1]", "sources[0].waveform", "sources[0]",
                                               "monitors[0] ('p')"]
    assert said[0].startswith("objects[1]: this sphere (radius 0.0001 m) holds no point of any "
                              "E field component of the grid (cells of 0.001 m)")
    assert said[2].startswith("sources[0]: a soft source where ez is held at zero")
    res = yf.run(scene, progress=False)
    assert res.stats["notes"] == said
    grid = make_grid(scene)
    assert notes_before_run(scene, grid, 10) == tuple(said)


def test_validate_says_a_cuda_scene_cannot_run_here(tmp_path, capsys, monkeypatch):
    """A scene that asks for backend 'cuda', validated where CUDA is not usable, was said
    valid with no word of it, and 'run' then refused it: a note says so (the scene stays
    valid: it runs on a GPU machine)."""
    import yeefdtd.backends as backends

    scene = yf.Scene(grid=yf.Grid(cells=(20, 20, 20), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=10, backend="cuda"))
    path = scene.save(tmp_path / "s.json")
    monkeypatch.setattr(backends, "cuda_status", lambda: (False, "no GPU here"))
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert "note: run.backend: 'cuda' cannot run on this machine (no GPU here)" in err
    monkeypatch.setattr(backends, "cuda_status", lambda: (True, "an H100"))
    assert main(["validate", str(path)]) == 0
    assert "run.backend" not in capsys.readouterr().err


def test_the_gpu_estimate_is_what_the_h200_table_held(monkeypatch):
    """The benchmark table's runs on an H200 (docs/perf/table-h200-2026-11-26-1933a7b.json)
    recorded what each stepper held (memory_bytes): indexed, fused and temporal, float32,
    float64 and float16, 3D at 512^3 and 2D at 8192^2. The estimate lays the arrays out
    as each stepper does and leaves out only the small tables (coefficients, source and
    probe indices): 0.01% of these grids. 3D 'temporal''s rows of 16-bit values were then
    padded to a multiple of 2 cells (16 since the lean pass takes them), which
    $YEEFDTD_LANE_PITCH gives back for those rows."""
    from yeefdtd.bench import WARMUP, bench_scene
    from yeefdtd.build.memory import gpu_memory

    table = Path(__file__).resolve().parents[2] / "docs/perf/table-h200-2026-11-26-1933a7b.json"
    rows = json.loads(table.read_text())
    checked = 0
    for row in rows["rows"]:
        if row["variant"] not in ("indexed", "fused", "temporal"):
            continue
        steps = row["steps"] + WARMUP   # what bench_model builds
        scene = bench_scene(row["scene"], row["n"], steps)
        grid = make_grid(scene)
        old = row["variant"] == "temporal" and row["dtype"] == "float16" and grid.mode == "3d"
        if old:
            monkeypatch.setenv("YEEFDTD_LANE_PITCH", "2")
        else:
            monkeypatch.delenv("YEEFDTD_LANE_PITCH", raising=False)
        est = gpu_memory(scene, grid, steps, row["dtype"], face_kinds(scene))
        got = est[row["variant"]] / grid.num_cells
        held = row["memory_bytes_per_cell"]
        assert 0.9999 * held <= got <= held, row
        checked += 1
    assert checked >= 15
