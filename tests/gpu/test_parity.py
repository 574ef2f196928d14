"""Every CUDA kernel variant against the NumPy reference backend.

The scenes are deliberately awkward: sizes that are multiples of neither 16 nor 32, random
anisotropic lossy materials (electric and magnetic), PEC and PMC objects, CPML on some faces
and PEC, PMC or periodic walls on the others, soft and hard sources on E and H, probes and
snapshots. After 500 steps:
- float64 CUDA matches float64 NumPy within 1e-10 relative L2 (the two differ only in the
  order of floating-point operations, ~1e-15 per step);
- float32 CUDA is within 1e-4 of float64 NumPy, and no worse than three times the error of
  float32 NumPy (both round in float32; fused multiply-adds on the GPU may round differently).
"""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf

VARIANTS_3D = ["indexed", "seed-xyz", "seed-xyz:noshared", "seed-xyz:pad32", "seed-xy",
               "seed-xy:noshared", "seed-plane", "seed-multicell", "seed-multicell:consecutive",
               "fused", "temporal"]
VARIANTS_2D = ["indexed", "tiled-2d", "fused", "temporal"]
STEPS = 500


def random_scene(mode: str, seed: int, boundaries: dict, cells=None) -> yf.Scene:
    rng = np.random.default_rng(seed)
    cells = cells or ((37, 29, 23) if mode == "3d" else (61, 47))
    d = (1.0e-3, 1.3e-3, 0.8e-3)[: len(cells)]
    size = [n * di for n, di in zip(cells, d, strict=True)]
    nd = len(cells)

    def point():
        return tuple(float(rng.uniform(0.3, 0.7) * s) for s in size)

    mats = {f"m{i}": yf.Material(eps_r=tuple(rng.uniform(1, 6, 3)),
                                 mu_r=tuple(rng.uniform(1, 3, 3)),
                                 sigma_e=tuple(rng.uniform(0, 0.5, 3)),
                                 sigma_m=tuple(rng.uniform(0, 300, 3))) for i in range(5)}
    objects = []
    for i in range(6):
        name = f"m{i % 5}" if i < 5 else "pec"
        if i % 2:
            objects.append(yf.Sphere(center=point(), radius=float(rng.uniform(0.1, 0.2)) * size[0],
                                     material=name))
        else:
            objects.append(yf.Box(center=point(), size=tuple(float(rng.uniform(0.1, 0.3) * s)
                                                               for s in size), material=name))
    objects.append(yf.Sphere(center=point(), radius=0.05 * size[0], material="pmc"))
    comps = yf.Grid(mode=mode, cells=cells, spacing=d).components
    sources = [
        yf.PointSource(component=comps[0], position=point(), waveform=yf.DiffGaussian(tau=12e-12)),
        yf.PointSource(component=comps[-1], position=point(), kind="soft",
                       waveform=yf.Ricker(frequency=20e9)),
        yf.PointSource(component=comps[1], position=point(), kind="hard",
                       waveform=yf.ModulatedGaussian(frequency=15e9, tau=40e-12)),
    ]
    # several sources on one component: one group, a table of values per step
    sources += [yf.PointSource(component=comps[0], position=point(), amplitude=float(a),
                               waveform=yf.Gaussian(tau=float(t)))
                for a, t in zip(rng.uniform(-2, 2, 4), rng.uniform(8e-12, 20e-12, 4),
                                strict=True)]
    monitors = [yf.Probe(name="a", position=point()), yf.Probe(name="b", position=point(),
                                                               every=3)]
    snap = {"axis": "y", "index": 7} if nd == 3 else {}
    monitors.append(yf.Snapshot(name="s", component=comps[0], every=50, **snap))
    return yf.Scene(grid=yf.Grid(mode=mode, cells=cells, spacing=d), materials=mats,
                    objects=objects, sources=sources, monitors=monitors,
                    boundaries=boundaries, run=yf.RunSettings(steps=STEPS))


def random_case(seed: int) -> tuple[str, tuple, dict, int]:
    """(mode, cells, boundaries, steps) drawn from ``seed``: 3D grids of 20-71 cells a side or
    2D ones of 24-259, each face PEC, PMC, periodic (both ends of its axis) or a CPML of 1-10
    cells, 60-179 steps (passes of every length end mid-run, at snapshots and at the end)."""
    rng = np.random.default_rng(seed)
    mode = str(rng.choice(["3d", "3d", "tmz", "tez"]))
    lo, hi, nd = (20, 72, 3) if mode == "3d" else (24, 260, 2)
    cells = tuple(int(x) for x in rng.integers(lo, hi, nd))
    bnd: dict = {}
    for a in "xyz"[:nd]:
        kind = str(rng.choice(["pec", "pmc", "periodic", "cpml"]))
        if kind == "periodic":
            bnd[f"{a}_min"] = bnd[f"{a}_max"] = "periodic"
            continue
        for side in ("min", "max"):
            k = kind if side == "min" else str(rng.choice(["pec", "pmc", "cpml"]))
            # at most a third of the axis (the scene's own limit)
            depth = int(rng.integers(1, min(10, cells["xyz".index(a)] // 3) + 1))
            bnd[f"{a}_{side}"] = {"cells": depth} if k == "cpml" else k
    return mode, cells, bnd, int(rng.integers(60, 180))


def march_mismatch(scene, steps: int, dtype: str, variant: str, ref=None):
    """(largest relative difference of ``variant`` from 'indexed' on cuda: the fields' L2,
    each probe component against its peak, the snapshot against its peak; the 'indexed'
    result, to pass back in)."""
    def run(v):
        return yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True, progress=False,
                      steps=steps, stepper_options={"variant": v})

    ref = run("indexed") if ref is None else ref
    got = run(variant)
    probes = 0.0
    for name, p in ref.probes.items():
        for comp, v in p.data.items():
            g = got.probes[name][comp]
            assert g.shape == v.shape, (name, comp)
            probes = max(probes, float(np.max(np.abs(g - v)) / (np.max(np.abs(v)) + 1e-300)))
    rf, gf = ref.snapshots["s"].frames, got.snapshots["s"].frames
    assert gf.shape == rf.shape
    snap = float(np.max(np.abs(gf - rf)) / (np.abs(rf).max() + 1e-300))
    return (rel_l2(got.fields, ref.fields), probes, snap), ref


BOUNDARIES_3D = [
    {"x_min": {"cells": 6}, "x_max": {"cells": 5}, "y_min": "pmc", "y_max": {"cells": 5},
     "z_min": "periodic", "z_max": "periodic"},
    {"x_min": "periodic", "x_max": "periodic", "y_min": "pec", "y_max": "pmc",
     "z_min": {"cells": 4}, "z_max": {"cells": 7}},
]
BOUNDARIES_2D = [
    {"x_min": {"cells": 8}, "x_max": "pmc", "y_min": "periodic", "y_max": "periodic"},
    {"x_min": "pec", "x_max": {"cells": 6}, "y_min": {"cells": 5}, "y_max": "pec"},
]

_REF: dict = {}


def reference(mode: str, case: int):
    """float64 and float32 NumPy results of a case (computed once per session)."""
    key = (mode, case)
    if key not in _REF:
        bnd = (BOUNDARIES_3D if mode == "3d" else BOUNDARIES_2D)[case]
        scene = random_scene(mode, 10 + case, bnd)
        r64 = yf.run(scene, backend="numpy", dtype="float64", keep_fields=True, progress=False)
        r32 = yf.run(scene, backend="numpy", dtype="float32", keep_fields=True, progress=False)
        _REF[key] = (scene, r64, r32)
    return _REF[key]


def rel_l2(a: dict, b: dict) -> float:
    num = sum(np.sum((a[c] - b[c]) ** 2) for c in b)
    den = sum(np.sum(b[c] ** 2) for c in b)
    return float(np.sqrt(num / den))


def _check(mode, case, variant):
    scene, r64, r32 = reference(mode, case)
    c64 = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": variant})
    c32 = yf.run(scene, backend="cuda", dtype="float32", keep_fields=True, progress=False,
                 stepper_options={"variant": variant})
    assert rel_l2(c64.fields, r64.fields) < 1e-10
    err32 = rel_l2(c32.fields, r64.fields)
    assert err32 < 1e-4
    assert err32 <= 3 * rel_l2(r32.fields, r64.fields)
    for name, p in r64.probes.items():
        for comp, v in p.data.items():
            got = c64.probes[name][comp]
            assert got.shape == v.shape
            assert np.max(np.abs(got - v)) <= 1e-9 * (np.max(np.abs(v)) + 1e-300)
    ref_frames = r64.snapshots["s"].frames
    assert np.max(np.abs(c64.snapshots["s"].frames - ref_frames)) <= 1e-9 * np.abs(
        ref_frames).max()


@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("variant", VARIANTS_3D)
def test_parity_3d(variant, case):
    _check("3d", case, variant)


@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("variant", VARIANTS_2D)
@pytest.mark.parametrize("mode", ["tmz", "tez"])
def test_parity_2d(mode, variant, case):
    _check(mode, case, variant)


@pytest.mark.parametrize("seed", range(12))
def test_random_scenes_march_as_indexed(seed):
    """Random sizes, faces and step counts (random_case): 'fused' and 'temporal' (tuned, and
    3 steps a pass) give 'indexed''s float64 fields, probes and snapshot to rounding.
    benchmarks/parity_fuzz.py runs the same for as long as it is given (607 scenes, float32
    too, without a mismatch: docs/perf/parity-fuzz-h100-2026-11-27.txt)."""
    mode, cells, bnd, steps = random_case(seed)
    scene = random_scene(mode, seed, bnd, cells)
    ref = None
    for variant in ("fused", "temporal", "temporal:steps=3"):
        (fields, probes, snap), ref = march_mismatch(scene, steps, "float64", variant, ref)
        assert fields < 1e-11 and probes < 1e-9 and snap < 1e-9, (variant, mode, cells, bnd)


def test_thick_y_boxes_run_on_one_tile_of_32_rows():
    """At 3 steps a pass, a y CPML box thicker than the 10 rows a tile of 32 x 16 owns
    runs on one tile of 16 x 32 where that computes fewer cells (box_config): CPML layers
    of 9 cells at both y ends, so that the y box (the spans at both ends, 12 rows each) is
    24 rows thick; float64 fields, probes and snapshot as 'indexed''s to rounding."""
    from yeefdtd.build.model import build_model
    from yeefdtd.run import make_stepper

    bnd = {"x_min": {"cells": 4}, "x_max": "pec", "y_min": {"cells": 9},
           "y_max": {"cells": 9}, "z_min": "pmc", "z_max": {"cells": 3}}
    scene = random_scene("3d", 41, bnd, (37, 60, 23))
    st = make_stepper(build_model(scene), "cuda", "float64", variant="temporal", tune=False,
                      graphs=False, launch={"pass": (3, 32, 8, 0)})
    st.advance(0, 3)
    plan = st._box_plan[(3, 32, 8, 0)]   # the y face: the box with the y terms alone
    assert [(b[:3], ext[1]) for b, (_, ext), m in plan if m == 2] == [((3, 16, 32), 24)]
    (fields, probes, snap), _ = march_mismatch(scene, 60, "float64", "temporal:steps=3")
    assert fields < 1e-11 and probes < 1e-9 and snap < 1e-9


def _indexed_3d_shapes():
    from yeefdtd.backends.cuda.variants import make_variant

    return make_variant("indexed").configs("h", (37, 29, 23))


@pytest.mark.parametrize("cfg", _indexed_3d_shapes(), ids=str)
@pytest.mark.parametrize("case", [0, 1])
def test_every_indexed_3d_launch_shape(cfg, case):
    """The tuner may pick any of these shapes (threads per block, cells per thread, L2
    prefetch distance): each must give the same numbers."""
    scene, r64, _ = reference("3d", case)
    got = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": "indexed", "launch": {"h": cfg, "e": cfg}})
    assert got.stats["launch"]["h"] == list(cfg)
    assert rel_l2(got.fields, r64.fields) < 1e-10


def _march_shapes(name, mode="3d"):
    """Every launch shape the tuner may pick for the 37 x 29 x 23 grid (2D: 61 x 47), and
    z (2D: y) segments shorter than the grid (large grids get them), among them one of a
    single plane and one that does not divide the grid. 2D adds every steps per pass."""
    from yeefdtd.backends.cuda.variants import make_variant

    v = make_variant(name)
    v.mode = mode
    v.single = False   # these run in float64: no march3v tiles (test_lane_pass_bits)
    if mode == "3d":
        out = v.configs("pass", (37, 29, 23))
        return out + [(c[0], 32, 8, z) for c in out[:1] for z in (1, 5, 8)]
    out = v.configs("pass", (61, 47, 1))
    return out + [(c[0], c[1], c[2], y) for c in out[:1] for y in (1, 5, 8)]


@pytest.mark.parametrize("cfg", _march_shapes("fused") + _march_shapes("temporal"), ids=str)
@pytest.mark.parametrize("case", [0, 1])
def test_every_march_launch_shape(cfg, case):
    """Steps per pass, tile and z segment: the same numbers as NumPy in float64, fields,
    probes (recorded inside the passes) and snapshots (taken between them)."""
    _check_march("3d", case, "fused" if cfg[0] == 1 else "temporal", cfg)


@pytest.mark.parametrize("cfg", _march_shapes("fused", "tmz") + _march_shapes("temporal", "tmz"),
                         ids=str)
@pytest.mark.parametrize("mode", ["tmz", "tez"])
@pytest.mark.parametrize("case", [0, 1])
def test_every_march_launch_shape_2d(cfg, mode, case):
    """The 2D marching kernels (warps along x, marching along y): the same numbers as NumPy
    in float64 for every shape, fields, probes and snapshots."""
    _check_march(mode, case, "fused" if cfg[0] == 1 else "temporal", cfg)


@pytest.mark.parametrize("steps", [2, 3, 5, 7])
@pytest.mark.parametrize("mode", ["tmz", "tez"])
def test_every_steps_per_pass_2d(steps, mode):
    """Steps per pass the tuner does not try by default, chosen by the variant's option."""
    _check_march(mode, steps % 2, f"temporal:steps={steps}")


def _check_march(mode, case, spec, cfg=None):
    """A marching variant (forced launch shape ``cfg``, if given) against float64 NumPy:
    fields, probes (recorded inside the passes) and snapshots (taken between them)."""
    scene, r64, _ = reference(mode, case)
    opts = {"variant": spec} | ({"launch": {"pass": cfg}} if cfg else {})
    got = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options=opts)
    if cfg:
        assert got.stats["launch"]["pass"] == list(cfg)
    assert rel_l2(got.fields, r64.fields) < 1e-10
    for pname, p in r64.probes.items():
        for comp, v in p.data.items():
            assert np.max(np.abs(got.probes[pname][comp] - v)) <= 1e-9 * np.max(np.abs(v))
    frames = r64.snapshots["s"].frames
    assert np.max(np.abs(got.snapshots["s"].frames - frames)) <= 1e-9 * np.abs(frames).max()


@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("cfg", [(2, 32, 16, 0), (3, 32, 8, 5)], ids=str)
def test_warp_sync_gives_the_block_barriers_bits(cfg, case, monkeypatch):
    """march3 instances of one block per SM (these pass shapes, and the CPML boxes) sync
    neighbouring warps by mbarriers rather than the whole block (RowSync in march.cu). A
    wait missed or passed a round early would read a neighbour's row of another step: the
    float32 fields and probes must be bit for bit those of the same launches with
    __syncthreads (-DMARCH_BLOCK_BARRIERS), CPML layers, sources and probes included. The
    warp-synced instances also leave out the half steps no owned cell needs (TRIM in
    march.cu), which the block-barrier ones compute."""
    bnd = BOUNDARIES_3D[case]
    scene = random_scene("3d", 10 + case, bnd)
    opts = {"variant": "temporal", "launch": {"pass": cfg}}
    runs = []
    for flags in ("", "-DMARCH_BLOCK_BARRIERS"):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        runs.append(yf.run(scene, backend="cuda", dtype="float32", keep_fields=True,
                           progress=False, stepper_options=opts))
    warp, block = runs
    assert warp.stats["cpml"] == CPML_PLACES["boxes"]
    assert warp.stats["launch"]["pass"] == list(cfg)
    assert_same_bits(warp, block)


@pytest.mark.parametrize("flags", ["-DMARCH_TRIM=0", "-DMARCH_FIXED_FACES=0"])
@pytest.mark.parametrize("case", [0, 1, 2])
def test_kernel_shortcuts_keep_the_bits(flags, case, monkeypatch):
    """3D 'temporal' float32, CPML boxes beside the pass (every face, and the odd layers of
    test_lane_pass_bits), sources and probes: bit for bit the fields and probes of the
    same kernels compiled without a shortcut (march.cu): the half steps no owned cell
    needs left out (TRIM) and the x and y faces looked up once per thread (FixedFace)."""
    odd = {"x_min": {"cells": 7}, "x_max": "pec", "y_min": {"cells": 5}, "y_max": "pec",
           "z_min": {"cells": 4}, "z_max": "pmc"}
    scene = random_scene("3d", 20 + case, BOUNDARIES_3D[case] if case < 2 else odd)
    opts = {"variant": "temporal", "launch": {"pass": (2, 64, 16, 0)}}
    runs = []
    for f in ("", flags):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", f)
        runs.append(yf.run(scene, backend="cuda", dtype="float32", keep_fields=True,
                           progress=False, stepper_options=opts))
    fast, plain = runs
    assert fast.stats["cpml"] == CPML_PLACES["boxes"]
    assert_same_bits(fast, plain)


@pytest.mark.parametrize("mode", ["tmz", "tez"])
def test_2d_passes_of_all_their_steps_keep_the_bits(mode):
    """2D 'temporal' float32 (CPML, sources, probes): passes of all their steps run march2's
    FULL instance, shorter passes the one that takes the steps as an argument. 61 steps in
    passes of 4 (FULL, then one of 1) give bit for bit the fields of 61 passes of 1 step."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    scene, _, _ = reference(mode, 0)
    model = yf.build_model(scene)
    runs = []
    for chunk in (61, 1):
        st = CudaStepper(model, "float32", variant="temporal", tune=False,
                         launch={"pass": (4, 4, 4, 16)})
        for n in range(0, 61, chunk):
            st.advance(n, min(chunk, 61 - n))
        runs.append(st.fields())
    for c, v in runs[1].items():
        assert np.abs(v).max() > 0, c
        assert np.array_equal(runs[0][c], v), c


def assert_same_bits(got, ref):
    """Every field and probe of run ``got`` bit for bit that of run ``ref``."""
    for c, v in ref.fields.items():
        assert np.array_equal(got.fields[c], v), c
    for name, p in ref.probes.items():
        for comp, v in p.data.items():
            assert np.array_equal(got.probes[name][comp], v), (name, comp)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("case", [0, 1, 2])
@pytest.mark.parametrize("cfg", [(2, 64, 16, 0), (2, 64, 8, 5), (2, 64, 7, 64), (3, 64, 24, 0),
                                 (3, 64, 24, 5)], ids=str)
def test_lane_pass_bits(cfg, case, dtype):
    """3D 'temporal''s pass on tiles 64 cells wide runs march3v (2 cells a lane, x
    neighbours by shuffles; 64 x 16 with its warps synced by mbarriers, the others by the
    block; the lean pass's shape, 3 steps, over its tiles of 12 rows, whose shared planes
    take dynamic shared memory): bit for bit the fields and probes of march3 (32 x 12
    threads, as many steps a pass), CPML boxes, sources, probes, lanes that wrap around
    periodic x ends and x origins off a lane's alignment included."""
    odd = {"x_min": {"cells": 7}, "x_max": "pec", "y_min": "pec", "y_max": "pec",
           "z_min": {"cells": 4}, "z_max": "pmc"}   # the pass starts at x = 9
    scene = random_scene("3d", 10 + case, BOUNDARIES_3D[case] if case < 2 else odd)
    runs = []
    for c in ((cfg[0], 32, 12, 0), cfg):
        runs.append(yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True,
                           progress=False,
                           stepper_options={"variant": "temporal", "launch": {"pass": c}}))
    ref, lanes = runs
    assert lanes.stats["launch"]["pass"] == list(cfg)
    assert lanes.stats["tile"]["cells_per_thread"] == 2
    assert_same_bits(lanes, ref)


def _clear_blocks_scene(case: int) -> yf.Scene:
    """random_scene's on 150 x 61 x 47 cells with its objects replaced by four at x below
    50 (some blocks of the passes clear of them, others not): case 1 periodic along x with
    the lossy anisotropic m1 as background (vacuum in the others), case 2 with a pass from
    an odd x at 2 steps (a CPML of 7 cells at x_min) and a PMC wall at z_max; case 3 with
    the objects at x from 72 to 108 and CPML layers of 8 and 7 cells at the x ends, so that
    at 3 steps the pass runs over x = 11 .. 140 (its first and last lanes of 2 cells own
    one each), with clear blocks at both ends."""
    odd = {"x_min": {"cells": 7}, "x_max": "pec", "y_min": "pec", "y_max": "pec",
           "z_min": {"cells": 4}, "z_max": "pmc"}
    both = {"x_min": {"cells": 8}, "x_max": {"cells": 7}, "y_min": "pec", "y_max": "pmc",
            "z_min": {"cells": 4}, "z_max": {"cells": 5}}
    scene = random_scene("3d", 30 + case, BOUNDARIES_3D[case] if case < 2 else
                         (odd, both)[case - 2], (150, 61, 47))
    d = scene.grid.spacing
    x0 = 60 if case == 3 else 0

    def at(i, j, k):
        return (i * d[0], j * d[1], k * d[2])

    objects = [yf.Box(center=at(x0 + 22, 30, 23), size=at(20, 24, 10), material="m0"),
               yf.Sphere(center=at(x0 + 40, 20, 30), radius=8 * d[0], material="m2"),
               yf.Box(center=at(x0 + 25, 45, 12), size=at(6, 5, 7), material="pec"),
               yf.Sphere(center=at(x0 + 30, 40, 36), radius=3 * d[0], material="pmc")]
    return scene.model_copy(update={"objects": objects,
                                    "background": "m1" if case == 1 else "vacuum"})


def _runs_with_flags(scene, cfg, monkeypatch, off: str, dtype: str = "float32") -> list:
    """'temporal' runs of ``scene`` (fields stored as ``dtype``) with pass shape ``cfg``,
    compiled as they are, with ``off`` (the shortcut under test turned off) and with
    -DMARCH_UNIFORM_ROW=1 (its blocks given row 1's coefficients, so that the fields tell
    whether they ran)."""
    runs = []
    for flags in ("", off, "-DMARCH_UNIFORM_ROW=1"):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        runs.append(yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True,
                           progress=False,
                           stepper_options={"variant": "temporal", "launch": {"pass": cfg}}))
    return runs


@pytest.mark.parametrize("case", [0, 1, 2])
@pytest.mark.parametrize("cfg", [(2, 64, 16, 16), (2, 64, 8, 24)], ids=str)
def test_one_material_blocks_keep_the_bits(cfg, case, monkeypatch):
    """march3v's whole-sector blocks whose cells all hold the grid's most common
    combination of materials (row 0) run the pass that loads no ids and takes row 0's
    coefficients at fixed offsets: bit for bit the fields and probes of every block on the
    general pass (-DMARCH_UNIFORM=0), float32; and that pass ran: made to take row 1
    instead (-DMARCH_UNIFORM_ROW=1), the fields change. A grid of 150 x 61 x 47 cells whose
    objects lie at x below 50, so that some blocks are clear and others not, with sources
    and probes in both; the background is a lossy anisotropic material in case 1 (vacuum in
    the others), case 1 is periodic along x (lanes that wrap around its ends), and case
    2's pass starts at an odd x. The passes march in segments of z shorter than the grid: a
    segment through case 2's PMC wall at z_max (rows of their own there) holds no clear
    block."""
    scene = _clear_blocks_scene(case)
    monkeypatch.setenv("YEEFDTD_LANE_SECTORS", "on")
    one, plain, row1 = _runs_with_flags(scene, cfg, monkeypatch, "-DMARCH_UNIFORM=0")
    assert one.stats["launch"]["pass"] == list(cfg)
    assert one.stats["tile"]["whole_sectors"] is True
    share = one.stats["tile"]["one_material_blocks"]
    assert 0 < share < 1, share
    assert plain.stats["tile"]["one_material_blocks"] == share
    assert_same_bits(one, plain)
    assert any(not np.array_equal(row1.fields[c], v) for c, v in one.fields.items())


@pytest.mark.parametrize("case", [0, 1, 2, 3])
@pytest.mark.parametrize("seg,dtype", [(16, "float32"), (9, "float32"), (16, "float16")])
def test_lean_pass_keeps_the_bits(seg, dtype, case, monkeypatch):
    """The lean pass (3 steps, tiles of 64 x 24): its blocks that need nothing but the
    update of row 0 run lean3v, the others march3v over tiles of 12 rows that split
    theirs: bit for bit the fields and probes of every block on march3v (-DMARCH_LEAN=0),
    float32, and float16 (values widened to float as they are loaded, each step's rounded
    to float16 and back, as march3v does); and lean3v ran: made to take row 1
    (-DMARCH_UNIFORM_ROW=1), the fields change. The scene of _clear_blocks_scene
    (random_scene's sources and probes moved to x below 45 cells), with a point source and
    a probe in a block that would otherwise run lean3v, and passes of fewer steps (at the
    snapshots every 50 steps and at the end of 101). In case 3 (objects at x from 72 to
    108) they are moved to x from 75 to 105, and the pass's first and last lanes along x
    own one of their 2 cells each, in clear blocks."""
    scene = _clear_blocks_scene(case)
    d = scene.grid.spacing

    def at(i, j, k):
        return (i * d[0], j * d[1], k * d[2])

    lo, hi = (75, 105) if case == 3 else (0, 45)

    def left(item):   # random_scene's sources and probes at x below 45 cells (case 3: 75-105)
        if getattr(item, "position", None) is None:
            return item
        x, y, z = item.position
        return item.model_copy(update={"position": (min(max(x, lo * d[0]), hi * d[0]), y, z)})

    src = yf.PointSource(position=at(130 if case == 3 else 80, 25, 24), component="ey",
                         waveform=scene.sources[0].waveform)
    probe = yf.Probe(name="lean", position=at(20 if case == 3 else 90, 30, 20))
    scene = scene.model_copy(update={"run": scene.run.model_copy(update={"steps": 101}),
                                     "sources": [*map(left, scene.sources), src],
                                     "monitors": [*map(left, scene.monitors), probe]})
    cfg = (3, 64, 24, seg)
    lean, plain, row1 = _runs_with_flags(scene, cfg, monkeypatch, "-DMARCH_LEAN=0", dtype)
    assert lean.stats["launch"]["pass"] == list(cfg)
    assert lean.stats["tile"]["lean_pass"] is True
    share = lean.stats["tile"]["one_material_blocks"]
    assert 0 < share < 1, share
    assert plain.stats["tile"]["one_material_blocks"] == 0
    assert_same_bits(lean, plain)
    assert any(not np.array_equal(row1.fields[c], v) for c, v in lean.fields.items())
    if case == 3:   # the first and the last column of tiles along x hold lean blocks that
        # march with EDGE (byte 2: lanes owned in part)
        from yeefdtd.build.model import build_model
        from yeefdtd.run import make_stepper

        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", "")
        st = make_stepper(build_model(scene), "cuda", dtype, variant="temporal",
                          tune=False, graphs=False, launch={"pass": cfg})
        org, ext = st.pass_box_of(3)
        assert (org[0], org[0] + ext[0]) == (11, 141), (org, ext)
        k = st._pass_kernel(cfg)
        grid, blocks = k.grid, k.blocks.get().reshape(k.grid[::-1])
        assert grid[0] == 3, grid
        assert (blocks[..., 0] == 2).any() and (blocks[..., -1] == 2).any(), blocks
        # (4: the walls' march, at the PMC wall of y_max and the PEC one of y_min)
        assert set(np.unique(blocks[..., 1])) <= {0, 1, 3, 4}, blocks


def _events_left(scene: yf.Scene) -> yf.Scene:
    """``scene`` with its point sources and probes moved to x of 40 cells where they lie
    past it: off the tiles of the objects at x from 72 on (_clear_blocks_scene's case 3), so
    that those blocks may take the march with ids."""
    d = scene.grid.spacing[0]

    def left(item):
        if getattr(item, "position", None) is None:
            return item
        x, y, z = item.position
        return item.model_copy(update={"position": (min(x, 40 * d), y, z)})

    return scene.model_copy(update={"sources": [*map(left, scene.sources)],
                                    "monitors": [*map(left, scene.monitors)]})


@pytest.mark.parametrize("case", [0, 1, 3])
def test_lean_pass_ids_blocks_keep_the_bits(case, monkeypatch):
    """The lean pass's blocks whose cone holds other combinations of materials than row 0
    (and no source or probe, no wrapping, no lane owned in part) run lean3v's march with
    ids, the table's rows copied to shared memory: bit for bit the fields and probes of
    those blocks on march3v (-DMARCH_LEAN_IDS=0), float32, over _clear_blocks_scene's
    objects (lossy anisotropic materials, PEC, PMC; cases 0 and 1 with them moved 60 cells
    along x, off the first column of tiles, whose cones reach the grid's x ends; case 1 on
    a lossy anisotropic background, so that those blocks hold other rows than row 0
    alone); and they ran: with every cell of theirs given row 0's coefficients
    (-DMARCH_IDS_ROW=0) the fields change, where with those blocks on march3v they do
    not."""
    scene = _clear_blocks_scene(case)
    d = scene.grid.spacing[0]
    if case < 3:
        scene = scene.model_copy(update={"objects": [
            o.model_copy(update={"center": (o.center[0] + 60 * d, *o.center[1:])})
            for o in scene.objects]})

    scene = _events_left(scene).model_copy(
        update={"run": scene.run.model_copy(update={"steps": 61})})
    cfg = (3, 64, 24, 16)
    runs = {}
    for name, flags in (("ids", ""), ("off", "-DMARCH_LEAN_IDS=0"),
                        ("row0", "-DMARCH_IDS_ROW=0"),
                        ("row0off", "-DMARCH_LEAN_IDS=0 -DMARCH_IDS_ROW=0")):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        runs[name] = yf.run(scene, backend="cuda", dtype="float32", keep_fields=True,
                            progress=False,
                            stepper_options={"variant": "temporal", "launch": {"pass": cfg}})
    tile = runs["ids"].stats["tile"]
    assert tile["lean_pass"] is True
    assert 0 < tile["lean_ids_blocks"] < 1, tile
    assert runs["off"].stats["tile"]["lean_ids_blocks"] == 0
    assert tile["one_material_blocks"] == runs["off"].stats["tile"]["one_material_blocks"]
    assert_same_bits(runs["ids"], runs["off"])
    assert_same_bits(runs["row0off"], runs["off"])
    assert any(not np.array_equal(runs["row0"].fields[c], v)
               for c, v in runs["ids"].fields.items())


def _walls_scene(case: int) -> yf.Scene:
    """random_scene's sources and probes on 150 x 61 x 47 cells of one material with walls:
    case 0 vacuum in PEC walls; case 1 the lossy anisotropic m1 in PEC walls; case 2 vacuum
    with a CPML of 7 cells at x_min (the pass from an odd x: its first lanes own one cell
    of 2), PEC at the others; case 3 case 0's periodic along x (the walls' march refused);
    case 4 with a PMC wall at z_max (whose tangential E doubles its difference along z);
    case 5 PMC walls at x_min and y_max (doubling both where they meet) on m1; case 6 PMC
    walls on every face, on m1."""
    pec = {f"{a}_{s}": "pec" for a in "xyz" for s in ("min", "max")}
    bnd = [pec, pec, {**pec, "x_min": {"cells": 7}},
           {**pec, "x_min": "periodic", "x_max": "periodic"}, {**pec, "z_max": "pmc"},
           {**pec, "x_min": "pmc", "y_max": "pmc"}, dict.fromkeys(pec, "pmc")][case]
    scene = random_scene("3d", 40 + case, bnd, (150, 61, 47))
    return scene.model_copy(update={"objects": [],
                                    "background": "m1" if case in (1, 5, 6) else "vacuum",
                                    "run": scene.run.model_copy(update={"steps": 61})})


@pytest.mark.parametrize("case,dtype", [(0, "float32"), (1, "float32"), (2, "float32"),
                                        (0, "float16"), (3, "float32"), (4, "float32"),
                                        (5, "float32"), (4, "float16"), (5, "float16"),
                                        (6, "float32")])
def test_lean_pass_walls_blocks_keep_the_bits(case, dtype, monkeypatch):
    """On a grid of one material with walls, the lean pass's blocks whose cone crosses the
    grid's ends or holds the walls' cells (and no source or probe, no lane owned in part)
    run lean3v's walls' march (WL in march3v.cu: lanes off the grid read the grid's first
    cells, each step's components kept zero by the cells' columns, rows and planes set to
    zero): bit for bit the fields and probes of those blocks on march3v
    (-DMARCH_LEAN_WALLS=0), over PEC walls, a lossy anisotropic background, a CPML layer
    beside an odd start of the pass, and float16; and they ran: with row 1's coefficients
    for the lean marches (-DMARCH_UNIFORM_ROW=1) the fields differ from those with the
    walls' blocks on march3v. Beside PMC walls (cases 4 and 5) the instance that doubles
    the differences across them runs (WP), in float32 and float16, and beside PMC walls on
    every face (case 6: WP along every axis). Along a periodic axis
    (case 3) no block takes it. With $YEEFDTD_LEAN_WALLS=grid, the grid's masks."""
    scene = _walls_scene(case)
    cfg = (3, 64, 24, 16)
    monkeypatch.setenv("YEEFDTD_LEAN_WALLS", "grid")
    runs = {}
    # (off: with the march with ids off too, so that the walls' blocks whose cone lies in
    # the grid run march3v, not that march)
    off = "-DMARCH_LEAN_WALLS=0 -DMARCH_LEAN_IDS=0"
    for name, flags in (("walls", ""), ("off", off), ("row1", "-DMARCH_UNIFORM_ROW=1"),
                        ("row1off", off + " -DMARCH_UNIFORM_ROW=1")):
        if case == 3 and name != "walls":
            continue
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        runs[name] = yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True,
                            progress=False,
                            stepper_options={"variant": "temporal", "launch": {"pass": cfg}})
    tile = runs["walls"].stats["tile"]
    assert tile["lean_pass"] is True
    if case == 3:
        assert tile["lean_walls_blocks"] == 0, tile
        return
    assert 0 < tile["lean_walls_blocks"] < 1, tile
    assert runs["off"].stats["tile"]["lean_walls_blocks"] == 0
    assert tile["one_material_blocks"] == runs["off"].stats["tile"]["one_material_blocks"]
    assert_same_bits(runs["walls"], runs["off"])
    assert any(not np.array_equal(runs["row1"].fields[c], v, equal_nan=True)
               for c, v in runs["row1off"].fields.items())


@pytest.mark.parametrize("case,dtype", [(0, "float32"), (0, "float16"), (4, "float32")])
def test_lean_pass_walls_blocks_beside_objects_keep_the_bits(case, dtype, monkeypatch):
    """With $YEEFDTD_LEAN_WALLS=cone (the default) the walls' march also runs on a grid
    that holds objects of other materials, in the blocks whose cone holds only cells whose
    code (zero components, doubled differences) is their column's, row's and plane's
    (lean3v_one's zrow): bit for bit the fields and probes of those blocks on march3v
    (-DMARCH_LEAN_WALLS=0, and the march with ids off, which would take the walls' blocks
    whose cone lies in the grid), in PEC walls (case 4: a PMC wall at z_max, on the
    instance that doubles its differences) with _clear_blocks_scene's objects at x from 72
    to 108 (lossy anisotropic materials, PEC, PMC), where the objects' blocks run the
    march with ids (the sources and probes moved off them, _events_left); and they ran
    (with row 1's coefficients for the lean marches the fields differ from those with the
    walls' blocks on march3v).
    With $YEEFDTD_LEAN_WALLS=grid no block takes it there."""
    objects = _clear_blocks_scene(3).objects
    scene = _events_left(_walls_scene(case).model_copy(update={"objects": objects}))
    cfg = (3, 64, 24, 16)

    def run(flags, walls="cone"):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        monkeypatch.setenv("YEEFDTD_LEAN_WALLS", walls)
        return yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True, progress=False,
                      stepper_options={"variant": "temporal", "launch": {"pass": cfg}})

    off_flags = "-DMARCH_LEAN_WALLS=0 -DMARCH_LEAN_IDS=0"
    cone, off = run(""), run(off_flags)
    tile = cone.stats["tile"]
    assert tile["lean_pass"] is True
    assert 0 < tile["lean_walls_blocks"] < 1 and tile["lean_ids_blocks"] > 0, tile
    assert off.stats["tile"]["lean_walls_blocks"] == 0
    assert run("", "grid").stats["tile"]["lean_walls_blocks"] == 0
    assert_same_bits(cone, off)
    row1, row1off = run("-DMARCH_UNIFORM_ROW=1"), run(off_flags + " -DMARCH_UNIFORM_ROW=1")
    assert any(not np.array_equal(row1.fields[c], v, equal_nan=True)
               for c, v in row1off.fields.items())


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_lean_pass_ids_blocks_with_16_bit_ids(dtype, monkeypatch):
    """The march with ids over 16-bit ids (its ring of words of 2 ids of 2 bytes; the
    sources' and probes' cells marked with the table's row count, above 255): 30 lossy
    dielectric boxes of 1.8 x 1.8 x 3.6 cells on a 2-cell pitch make 507 combinations of
    component materials, a table that still fits constant memory (36 504 bytes). They lie
    in blocks whose cone stays off the grid's ends: the second row of tiles along y (owned
    rows 18 .. 35 at 24 rows and 3 steps), the second segment along z (16 .. 31), the
    second and third tiles along x (owned x 56 .. 111 and 112 .. 167, of 180); probe q
    lies in the first of those, which the mark leaves to march3v (on the march with ids
    its probe would not be recorded), and the source at z = 40, off their cones, reaches
    the boxes within the run. Bit for bit the fields and probes of those blocks on march3v
    (-DMARCH_LEAN_IDS=0), fields of float32 and float16, 3 steps a pass, and the blocks ran
    (-DMARCH_IDS_ROW=0 changes the fields)."""
    from yeefdtd.build.model import build_model
    from yeefdtd.run import make_stepper

    d = 1e-3
    mats = {f"m{i}": yf.Material(eps_r=1 + i / 50, sigma_e=0.01 * (i % 7)) for i in range(30)}
    objects = [yf.Box(center=((90 + 2 * (i % 22)) * d, (24 + 2 * (i // 22)) * d, 16 * d),
                      size=(1.8e-3, 1.8e-3, 3.6e-3), material=f"m{i}") for i in range(30)]
    scene = yf.Scene(grid=yf.Grid(mode="3d", cells=(180, 61, 47), spacing=d), materials=mats,
                     objects=objects, boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(115, 30, 40),
                                             waveform=yf.Gaussian(tau=8e-12))],
                     monitors=[yf.Probe(name="p", cell=(30, 20, 20)),
                               yf.Probe(name="q", cell=(84, 30, 24))],
                     run=yf.RunSettings(steps=61))
    cfg = (3, 64, 24, 16)
    monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", "")
    st = make_stepper(build_model(scene), "cuda", dtype, variant="temporal", tune=False,
                      graphs=False, launch={"pass": cfg})
    assert st.id_dtype == np.uint16 and st.const_table and st.R == 507, st.R
    assert st._lean_mark() == 507
    del st
    runs = {}
    for name, flags in (("ids", ""), ("off", "-DMARCH_LEAN_IDS=0"),
                        ("row0", "-DMARCH_IDS_ROW=0")):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        runs[name] = yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True, progress=False,
                            stepper_options={"variant": "temporal", "launch": {"pass": cfg}})
    assert 0 < runs["ids"].stats["tile"]["lean_ids_blocks"] < 1
    assert runs["off"].stats["tile"]["lean_ids_blocks"] == 0
    assert_same_bits(runs["ids"], runs["off"])
    assert any(not np.array_equal(runs["row0"].fields[c], v)
               for c, v in runs["ids"].fields.items())


def _faces_scene(case: int) -> yf.Scene:
    """random_scene's on 120 x 61 x 60 cells with CPML layers on every face and its objects
    replaced by four between x = 20 and 80 cells, y = 15 and 50, z = 20 and 40, so that the
    CPML boxes beside 3D 'temporal''s pass and their cones hold vacuum and the walls alone
    (120 cells along x: the last lanes of the yz edge's tiles lie in the arrays); case 1
    adds a probe at z = 3 cells (in the z faces' box), case 2 one at y = 2 (in the y
    faces'), case 3 one at x = 117 (in the x faces')."""
    bnd = {"x_min": {"cells": 6}, "x_max": {"cells": 5}, "y_min": {"cells": 5},
           "y_max": {"cells": 6}, "z_min": {"cells": 7}, "z_max": {"cells": 6}}
    scene = random_scene("3d", 52, bnd, (120, 61, 60))
    d = scene.grid.spacing

    def at(i, j, k):
        return (i * d[0], j * d[1], k * d[2])

    objects = [yf.Box(center=at(40, 30, 30), size=at(20, 24, 16), material="m0"),
               yf.Sphere(center=at(60, 25, 28), radius=7 * d[0], material="m2"),
               yf.Box(center=at(55, 45, 32), size=at(6, 5, 7), material="pec"),
               yf.Sphere(center=at(30, 40, 33), radius=3 * d[0], material="pmc")]
    monitors = list(scene.monitors)
    if case:
        monitors.append(yf.Probe(name="layer", position=(at(50, 30, 3), at(50, 2, 30),
                                                         at(117, 30, 30))[case - 1]))
    return scene.model_copy(update={"objects": objects, "monitors": monitors,
                                    "run": scene.run.model_copy(update={"steps": 101})})


@pytest.mark.parametrize("case", [0, 1, 2, 3])
@pytest.mark.parametrize("cfg,dtype", [((3, 64, 24, 16), "float32"), ((2, 64, 16, 0), "float32"),
                                       ((3, 64, 24, 16), "float16")], ids=str)
def test_faces_boxes_on_lean_kernels_keep_the_bits(cfg, dtype, case, monkeypatch):
    """lean3f runs the CPML boxes beside 3D 'temporal''s pass (float32, and float16 at 3 steps,
    passes of all their steps), of the faces (x, y, z terms) and of the edges (xz, yz, xyz),
    where every cell of the box's cone holds one combination of materials (vacuum, and at the
    grid's ends the walls' zero tangential E and the last cells' unused slots) and no source or
    probe: bit for bit the fields and probes of march3 over those boxes
    ($YEEFDTD_LEAN_FACES=off), in passes that reach both ends of the grid (each box wraps from
    the last cell, row or plane to the first along its axes); and it ran: with row 1's
    coefficients (-DMARCH_UNIFORM_ROW=1, lean3v's and march3v's shortcuts off) the fields
    change. With a probe in a face's box (cases 1, z, 2, y, and 3, x) march3 runs that one. At 3
    steps the boxes that do not wrap along z take segments of 16 planes (several along z, their
    ends inside the box), at 2 steps of LEAN_SEGMENT (one)."""
    from yeefdtd.backends.cuda.march import MarchStepper
    from yeefdtd.build.model import build_model
    from yeefdtd.run import make_stepper

    if cfg[0] == 3:
        monkeypatch.setattr(MarchStepper, "LEAN_SEGMENT", 16)
    scene = _faces_scene(case)
    opts = {"variant": "temporal", "launch": {"pass": cfg}}
    row1 = "-DMARCH_LEAN=0 -DMARCH_UNIFORM=0 -DMARCH_UNIFORM_ROW=1"
    runs = {}
    for name, flags, lean in (("on", "", "on"), ("off", "", "off"), ("row1", row1, "on"),
                              ("row1off", row1, "off")):
        monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", flags)
        monkeypatch.setenv("YEEFDTD_LEAN_FACES", lean)
        runs[name] = yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True,
                            progress=False, stepper_options=opts)
    assert_same_bits(runs["on"], runs["off"])
    kernels = {b["cpml_axes"]: b["kernel"] for b in runs["on"].stats["cpml_boxes"]}
    for axis, name in enumerate("xyz"):
        assert kernels[name] == ("march3" if case == 3 - axis else "lean3f"), kernels
    assert {kernels[e] for e in ("xz", "yz", "xyz")} == {"lean3f"}, kernels   # the edges
    assert {b["kernel"] for b in runs["off"].stats["cpml_boxes"]} == {"march3"}
    assert any(not np.array_equal(runs["row1"].fields[c], v)
               for c, v in runs["row1off"].fields.items())
    monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", "")
    monkeypatch.setenv("YEEFDTD_LEAN_FACES", "on")
    st = make_stepper(build_model(scene), "cuda", dtype, variant="temporal", tune=False,
                      graphs=False, launch={"pass": cfg})
    # the walls: the tangential E of the first column, row or plane, the last one's unused
    # slots (E, and H offset along the axis) kept zero, along the box's axes; nothing else
    walls = {0: (0b000110, 0b110111), 1: (0b000101, 0b101111), 2: (0b000011, 0b011111)}
    at = np.cumsum([0, *st.shape])
    for org, ext, _, fm in st.march_boxes(cfg[0]):
        got = st._lean_face(cfg[0], (org, ext), fm)
        assert (got is None) == (fm == 1 << (3 - case)), fm
        if got is None:
            continue
        mask = got[-1].get()
        for axis in range(3):
            part = mask[at[axis]:at[axis + 1]]
            if fm >> axis & 1:
                assert org[axis] + ext[axis] > st.shape[axis] or axis == 2, (org, ext)
                assert (part[0], part[-1]) == walls[axis], (fm, axis, part[[0, -1]])
                assert not part[1:-1].any()
            else:
                assert not part.any(), (fm, axis)


@pytest.mark.parametrize("wall,kind,boxes", [
    ("z_min", "pec", ("x", "y")), ("x_min", "pec", ("y", "z", "yz")),
    ("y_max", "pec", ("x", "z", "xz")), ("z_min", "pmc", None),
    ("x_min", "pmc", ("x", "y", "z", "xz", "yz")), ("y_max", "pmc", ("x", "z", "xz"))])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_faces_boxes_reaching_a_wall_on_lean3f_keep_the_bits(dtype, wall, kind, boxes,
                                                             monkeypatch):
    """_faces_scene's grid with a PEC or PMC wall in place of one layer (a ground plane at
    z_min, a symmetry plane at x_min or y_max): the CPML boxes without that axis's terms
    then span the grid along it up to the wall, and their cones cross it. With
    $YEEFDTD_LEAN_FACE_WALLS=on lean3f runs them with ZW (cells off the grid along that
    axis zero, the wall's masks kept; a PMC wall's doubled differences on its instance
    with WP): bit for bit the fields and probes of march3 over every box
    ($YEEFDTD_LEAN_FACES=off), float32 and float16, 3 steps a pass; with the switch off
    march3 runs them. With a PMC plane at z_min every box runs on lean3f (boxes None): the
    z_max layer's boxes, whose cones stop at the grid's end, and the edges along z, which
    double along z at the PMC plane; with one at x_min the x_max layer's box too, whose tiles
    wrap along x onto the PMC column (doubled along x)."""
    from yeefdtd.backends.cuda.march import MarchStepper

    monkeypatch.setattr(MarchStepper, "LEAN_SEGMENT", 16)
    scene = _faces_scene(0)
    data = scene.model_dump()
    data["boundaries"][wall] = kind
    scene = yf.Scene.model_validate(data)
    opts = {"variant": "temporal", "launch": {"pass": (3, 64, 24, 16)}}
    runs = {}
    for name, walls, lean in (("on", "on", "on"), ("off", "on", "off"), ("plain", "off", "on")):
        monkeypatch.setenv("YEEFDTD_LEAN_FACE_WALLS", walls)
        monkeypatch.setenv("YEEFDTD_LEAN_FACES", lean)
        runs[name] = yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True,
                            progress=False, stepper_options=opts)
    assert_same_bits(runs["on"], runs["off"])
    assert_same_bits(runs["plain"], runs["off"])
    kernels = {b["cpml_axes"]: b["kernel"] for b in runs["on"].stats["cpml_boxes"]}
    if boxes is None:   # every box
        boxes = tuple(kernels)
    assert {kernels[a] for a in boxes} == {"lean3f"}, kernels
    # (those with the wall's axis's terms reach it by wrapping, as with the switch off)
    plain = {b["cpml_axes"]: b["kernel"] for b in runs["plain"].stats["cpml_boxes"]}
    assert {plain[a] for a in boxes if wall[0] not in a} == {"march3"}, plain


@pytest.mark.parametrize("case", [0, 1, 2, 3])
@pytest.mark.parametrize("cfg", [(2, 64, 16, 0), (2, 64, 7, 64)], ids=str)
def test_lane_tiles_of_whole_sectors_keep_the_bits(cfg, case, monkeypatch):
    """march3v's tiles that own 56 cells from a multiple of 8 (whole 32-byte sectors; the
    first from the one at or before the pass's x origin, odd in cases 2 and 3), forced on:
    bit for bit the fields and probes of march3. Case 3 is 131 cells wide, so that its pass
    runs three tiles along x and their overlaps; the others one."""
    odd = {"x_min": {"cells": 7}, "x_max": "pec", "y_min": "pec", "y_max": "pec",
           "z_min": {"cells": 4}, "z_max": "pmc"}   # the pass starts at x = 9
    scene = random_scene("3d", 10 + case, BOUNDARIES_3D[case] if case < 2 else odd,
                         (131, 21, 17) if case == 3 else None)
    runs = []
    for c, env in (((2, 32, 12, 0), "off"), (cfg, "on")):
        monkeypatch.setenv("YEEFDTD_LANE_SECTORS", env)
        runs.append(yf.run(scene, backend="cuda", dtype="float32", keep_fields=True,
                           progress=False,
                           stepper_options={"variant": "temporal", "launch": {"pass": c}}))
    ref, lanes = runs
    assert lanes.stats["tile"]["whole_sectors"] is True
    assert lanes.stats["pass_box"]["extent"][0] > 2 * 56 or case < 3   # three tiles
    assert_same_bits(lanes, ref)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_two_block_pass_holds_no_local_memory(dtype):
    """3D 'temporal''s pass of two blocks per SM (32 x 12 threads, at most 80 registers) keeps
    nothing in local memory: a cell's components reaching the rare-path calls (sources, probes) by
    reference lived in local memory, and their reload shared a scoreboard with the next
    plane's loads, so each plane waited for them (march.cu, sources3; H100, pec-box 512 at
    32 x 12: 54 146 Mcells/s then, 57 822 since)."""
    from yeefdtd.bench import bench_scene
    from yeefdtd.build.model import build_model
    from yeefdtd.run import make_stepper

    model = build_model(bench_scene("pec-box", 64, 4))
    st = make_stepper(model, "cuda", dtype, variant="temporal", tune=False, graphs=False,
                      launch={"pass": (2, 32, 12, 64)})
    occupancy = st.describe()["occupancy"]
    assert occupancy["blocks_per_sm"] == 2
    assert occupancy["local_bytes"] == 0, occupancy


_REF16: dict = {}


def reference16(mode: str, case: int):
    """The NumPy backend's float16 emulation of a case and its error against float64."""
    if (mode, case) not in _REF16:
        scene, r64, _ = reference(mode, case)
        n16 = yf.run(scene, backend="numpy", dtype="float16", keep_fields=True, progress=False)
        _REF16[(mode, case)] = (n16, rel_l2(n16.fields, r64.fields))
    return _REF16[(mode, case)]


def _records_l2(res, ref) -> tuple[float, float]:
    """Relative L2 of every probe record together, and of the snapshot frames, of ``res``
    against ``ref``."""
    num = den = 0.0
    for name, p in ref.probes.items():
        for comp, v in p.data.items():
            num += float(np.sum((res.probes[name][comp] - v) ** 2))
            den += float(np.sum(v**2))
    frames = ref.snapshots["s"].frames
    snap = float(np.linalg.norm(res.snapshots["s"].frames - frames) / np.linalg.norm(frames))
    return float(np.sqrt(num / den)), snap


def metrics16(mode: str, case: int, cfg=None, variant: str = "indexed") -> dict:
    """float16 storage on the GPU and in the NumPy emulation, each against float64 NumPy:
    relative L2 of the fields, of the probe records and of the snapshot frames."""
    scene, r64, _ = reference(mode, case)
    n16, e_np = reference16(mode, case)
    roles = ("pass",) if variant in ("fused", "temporal") else ("h", "e")
    opts = {"variant": variant} | ({"launch": dict.fromkeys(roles, cfg)} if cfg else {})
    c16 = yf.run(scene, backend="cuda", dtype="float16", keep_fields=True, progress=False,
                 stepper_options=opts)
    (pc, sc), (pn, sn) = _records_l2(c16, r64), _records_l2(n16, r64)
    return {"dtype": c16.stats["dtype"], "np16": e_np, "cuda16": rel_l2(c16.fields, r64.fields),
            "cuda16_vs_np16": rel_l2(c16.fields, n16.fields), "probes": pc, "probes_np16": pn,
            "snapshot": sc, "snapshot_np16": sn}


def _check16(mode, case, cfg=None, variant="indexed"):
    """float16 storage: the kernels round the same float32 values to float16 as the NumPy
    emulation, but fused multiply-adds and the order of the additions may leave a value on
    the other side of a rounding boundary (one float16 step, 2^-11 relative), and such
    differences grow over the steps as float32's do. Bound: no worse than three times the
    emulation's own error against float64, for the fields, the probes and the snapshots
    (as float32 is held to float32 NumPy). A kernel that kept float32 would come out far
    below the emulation's error (the second assertion), one that lost a scale far above.
    Measured (H200): 0.87-1.15 times the emulation's error (3e-3 to 6e-2)."""
    m = metrics16(mode, case, cfg, variant)
    assert m["dtype"] == "float16"
    assert m["cuda16"] <= 3 * m["np16"], m
    assert m["cuda16"] >= 0.3 * m["np16"], m
    assert m["cuda16_vs_np16"] <= 3 * m["np16"], m
    assert m["probes"] <= 3 * m["probes_np16"], m
    assert m["snapshot"] <= 3 * m["snapshot_np16"], m


@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("mode", ["3d", "tmz", "tez"])
def test_parity_float16(mode, case):
    _check16(mode, case)


#: steps of the early float16 comparison: the source has started, and the values that
#: crossed a float16 rounding boundary one way on the GPU and the other in NumPy (one
#: float16 step, 2^-11 relative) have not yet spread far
EARLY16 = 12


def early16(mode: str, case: int, variant: str = "indexed") -> float:
    """Relative L2 of the cuda backend's float16 fields against NumPy's emulation after
    EARLY16 steps of a parity case."""
    scene, _, _ = reference(mode, case)
    early = scene.model_copy(update={"run": scene.run.model_copy(update={"steps": EARLY16})})
    n16 = yf.run(early, backend="numpy", dtype="float16", keep_fields=True, progress=False)
    c16 = yf.run(early, backend="cuda", dtype="float16", keep_fields=True, progress=False,
                 stepper_options={"variant": variant})
    assert max(np.abs(f).max() for f in n16.fields.values()) > 0
    return rel_l2(c16.fields, n16.fields)


@pytest.mark.parametrize("variant", ["indexed", "fused", "temporal"])
@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("mode", ["3d", "tmz", "tez"])
def test_float16_follows_the_emulation_before_rounding_spreads(mode, case, variant):
    """_check16's bound (three times the emulation's error after 500 steps, 4e-3 to 6e-2)
    hides errors of the float16 paths (scales, sources in scaled units, rounding at the
    stores) of a few 1e-3 (on a NumPy stand-in, a CPML at half its conductivity passed
    it). After EARLY16 steps, before rounding differences spread, the GPU's float16 fields
    must match the emulation to 1e-6 relative L2: the two round the same float32 values,
    and only a value that a fused multiply-add leaves on the other side of a rounding
    boundary differs, by one float16 step. Measured (H200, benchmarks/parity_report.py):
    bit for bit in 2D, 2.5e-9 to 8.6e-8 in 3D. On the stand-in a hard source half a step
    early gives 1.1e-6 to 3e-4 where the case's hard source radiates."""
    assert early16(mode, case, variant) <= 1e-6


@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("mode", ["3d", "tmz", "tez"])
@pytest.mark.parametrize("variant", ["fused", "temporal"])
def test_parity_float16_march(variant, mode, case):
    _check16(mode, case, variant=variant)


@pytest.mark.parametrize("case", [0, 1])
def test_parity_float16_fused_aligned_tiles(case, monkeypatch):
    """$YEEFDTD_FUSED=aligned runs 3D 'fused' with float16 storage on the aligned tiles too
    (float16 runs the overlapping ones by default): the same bounds as every float16 kernel."""
    from yeefdtd.backends.cuda.variants import make_variant

    monkeypatch.setenv("YEEFDTD_FUSED", "aligned")
    v = make_variant("fused")
    v.mode, v.half = "3d", True
    assert v.aligned
    _check16("3d", case, variant="fused")


def _indexed_3d_shapes16():
    from yeefdtd.backends.cuda.variants import make_variant

    v = make_variant("indexed")
    v.half = True
    return v.configs("h", (37, 29, 23))


@pytest.mark.parametrize("cfg", _indexed_3d_shapes16(), ids=str)
def test_every_indexed_3d_launch_shape_float16(cfg):
    _check16("3d", 0, cfg)


def test_variant_that_cannot_run_the_mode_says_so():
    scene = random_scene("tmz", 1, BOUNDARIES_2D[0])
    with pytest.raises(yf.SetupError, match="does not run tmz"):
        yf.run(scene, backend="cuda", stepper_options={"variant": "seed-xyz"}, progress=False)


@pytest.mark.parametrize("mode", ["3d", "tmz"])
@pytest.mark.parametrize("variant", ["indexed", "fused", "temporal"])
def test_many_materials_use_16_bit_ids_and_the_global_table(variant, mode):
    """More than 255 materials need 16-bit ids (in the marching variants, more than 256
    combinations of component materials: one id per cell; here 1997 in 3D, 700 in TMz); in
    float64 their coefficients make a table too big for constant memory, read from global
    memory instead (3D, 500 materials: 72 kB, 1997 combinations: 288 kB; TMz, 700
    materials: 101 kB, 700 combinations in march2's rows of 96 bytes: 67 kB)."""
    n = 500 if mode == "3d" else 700
    mats = {f"m{i}": yf.Material(eps_r=1 + i / 100) for i in range(n)}
    # boxes of 1.8 x 1.8 cells on a 2-cell pitch: none overlaps, each holds points of
    # every component
    xy = [((2 * (i % 20) + 1) * 1e-3, (2 * (i // 20) + 1) * 1e-3) for i in range(n)]
    if mode == "3d":
        objects = [yf.Box(center=(x, y, 0.005), size=(1.8e-3, 1.8e-3, 4e-3), material=f"m{i}")
                   for i, (x, y) in enumerate(xy)]
        cells, comp, at = (40, 50, 10), "ez", (20, 25, 5)
    else:
        objects = [yf.Box(center=(x, y), size=(1.8e-3, 1.8e-3), material=f"m{i}")
                   for i, (x, y) in enumerate(xy)]
        cells, comp, at = (40, 70), "ez", (20, 35)
    scene = yf.Scene(grid=yf.Grid(mode=mode, cells=cells, spacing=1e-3), materials=mats,
                     objects=objects, boundaries="periodic",
                     sources=[yf.PointSource(component=comp, cell=at,
                                             waveform=yf.Gaussian(tau=5e-12))],
                     run=yf.RunSettings(steps=100, dtype="float64"))
    st = yf.backends.get_stepper_class("cuda")(yf.build_model(scene), "float64",
                                               variant=variant, tune=False)
    assert st.id_dtype == np.uint16
    assert not st.const_table
    del st
    ref = yf.run(scene, backend="numpy", keep_fields=True, progress=False)
    got = yf.run(scene, backend="cuda", keep_fields=True, progress=False,
                 stepper_options={"variant": variant})
    assert got.stats["coefficient_table"] == "global"
    assert rel_l2(got.fields, ref.fields) < 1e-10


#: what a marching stepper's description says of each place of the CPML layers
CPML_PLACES = {"boxes": "beside the pass (boxes)",
               "xboxes": "x layers beside the pass (boxes), the others in it",
               "slabs": "beside the pass (slab3)", "slabm": "beside the pass (slab3m)",
               "inpass": "in the pass"}


def _assert_exact(got, ref):
    """float64 CUDA against float64 NumPy: the fields within 1e-10 relative L2, every probe
    sample within 1e-9 of its record's peak."""
    assert rel_l2(got.fields, ref.fields) < 1e-10
    for name, p in ref.probes.items():
        for comp, v in p.data.items():
            assert np.max(np.abs(got.probes[name][comp] - v)) <= 1e-9 * np.max(np.abs(v))


def _layers_case_matches_numpy(grid, layers, at, comps, box, variant, where):
    """A lossy box and a source (the one at at[1] hard) and probe at each cell of ``at``,
    300 steps, float64: the CUDA ``variant`` describes its CPML place as ``where`` and
    matches NumPy (_assert_exact)."""
    sources = [yf.PointSource(component=c, cell=p, kind="hard" if q == 1 else "soft",
                              waveform=yf.Gaussian(tau=(8 + 2 * q) * 1e-12))
               for q, (c, p) in enumerate(zip(comps, at, strict=True))]
    monitors = [yf.Probe(name=f"p{q}", cell=p, every=1 + q % 2) for q, p in enumerate(at)]
    scene = yf.Scene(grid=grid, boundaries=layers,
                     materials={"m": yf.Material(eps_r=3.0, sigma_e=0.2, mu_r=1.5)},
                     objects=[box], sources=sources, monitors=monitors,
                     run=yf.RunSettings(steps=300))
    ref = yf.run(scene, backend="numpy", dtype="float64", keep_fields=True, progress=False)
    got = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": variant})
    assert got.stats["cpml"] == CPML_PLACES[where]
    _assert_exact(got, ref)


@pytest.mark.parametrize("variant,where", [("fused", "boxes"), ("fused", "slabs"),
                                           ("fused", "slabm"), ("fused", "inpass"),
                                           ("temporal:steps=2", "boxes"),
                                           ("temporal:steps=3", "boxes"),
                                           ("temporal:steps=3", "inpass"),
                                           ("temporal:steps=2", "xboxes")])
def test_cpml_beside_the_pass_with_sources_and_probes_in_the_layers(variant, where,
                                                                    monkeypatch):
    """The marching variants in 3D update the CPML layers beside the pass (the pass without
    the CPML terms, then the same kernel with them over a box around each layer, widened by
    the steps per pass; or, 'fused', slab3 or slab3m over the layers); sources and probes
    inside the layers, at an edge where two layers meet, and one cell inside the interior,
    must come out as in NumPy. The same scene with the layers kept in the pass
    ($YEEFDTD_CPML=inpass) too."""
    monkeypatch.setenv("YEEFDTD_CPML", where)
    cells, d = (30, 27, 25), 1e-3
    layers = {"x_min": {"cells": 5}, "x_max": {"cells": 6}, "y_min": {"cells": 4},
              "y_max": {"cells": 5}, "z_min": {"cells": 6}, "z_max": {"cells": 4}}
    at = [(2, 13, 12), (27, 1, 23), (5, 4, 6), (24, 21, 20), (15, 13, 12)]
    box = yf.Box(center=(4e-3, 20e-3, 20e-3), size=(8e-3, 6e-3, 6e-3), material="m")
    _layers_case_matches_numpy(yf.Grid(cells=cells, spacing=d), layers, at,
                               ["ez", "hx", "ey", "hz", "ex"], box, variant, where)


@pytest.mark.parametrize("variant", ["temporal:steps=2", "temporal:steps=3", "fused"])
def test_cpml_boxes_on_some_faces_only(variant, monkeypatch):
    """Every layer in boxes with layers on one face of each axis (x_min, y_max, z_min;
    PEC elsewhere): the y and z boxes leave out what the x and y boxes hold and their
    terms, and the fields and probes still come out as in NumPy."""
    monkeypatch.setenv("YEEFDTD_CPML", "boxes")
    layers = {"x_min": {"cells": 5}, "x_max": "pec", "y_min": "pec", "y_max": {"cells": 4},
              "z_min": {"cells": 6}, "z_max": "pec"}
    at = [(2, 24, 3), (27, 25, 2), (3, 5, 20), (14, 12, 11)]
    box = yf.Box(center=(4e-3, 20e-3, 8e-3), size=(8e-3, 6e-3, 6e-3), material="m")
    _layers_case_matches_numpy(yf.Grid(cells=(30, 27, 25), spacing=1e-3), layers, at,
                               ["ez", "hx", "ey", "hz"], box, variant, "boxes")


@pytest.mark.parametrize("where", ["xboxes", "inpass"])
@pytest.mark.parametrize("variant", ["fused", "temporal:steps=4", "temporal:steps=7"])
@pytest.mark.parametrize("mode", ["tmz", "tez"])
def test_2d_cpml_beside_the_pass_with_sources_and_probes_in_the_layers(mode, variant, where,
                                                                       monkeypatch):
    """2D marching variants: the pass applies the y layers and the same kernel with every
    CPML term recomputes a box around each x layer, widened by the steps per pass
    ("xboxes", the default); or the pass applies them all ("inpass"). Layers on all four
    faces, sources and probes inside them, at a corner where two meet and one cell inside
    the interior: the same fields and probes as NumPy."""
    monkeypatch.setenv("YEEFDTD_CPML", where)
    cells, d = (70, 45), 1e-3
    layers = {"x_min": {"cells": 7}, "x_max": {"cells": 9}, "y_min": {"cells": 5},
              "y_max": {"cells": 6}}
    at = [(2, 20), (66, 42), (3, 2), (10, 22), (61, 30)]
    grid = yf.Grid(mode=mode, cells=cells, spacing=d)
    comps = [grid.components[q % 3] for q in range(len(at))]
    box = yf.Box(center=(5e-3, 30e-3), size=(8e-3, 6e-3), material="m")
    _layers_case_matches_numpy(grid, layers, at, comps, box, variant, where)


@pytest.mark.parametrize("variant", ["fused", "temporal"])
def test_marching_passes_update_the_last_planes_once_set_field_writes_there(variant):
    """The passes leave out the grid's last planes where they stay zero (PEC and CPML walls,
    no source or probe there); set_field writing something else there brings them back,
    so the fields come out as in NumPy after the same steps."""
    from yeefdtd.backends.cuda.stepper import CudaStepper
    from yeefdtd.backends.numpy import NumpyStepper

    cells = (30, 20, 18)
    scene = yf.Scene(grid=yf.Grid(cells=cells, spacing=1e-3),
                     boundaries={"x_min": "pec", "x_max": "pec", "y_min": {"cells": 4},
                                 "y_max": {"cells": 4}, "z_min": "pec", "z_max": "pec"},
                     sources=[yf.PointSource(component="ez", cell=(12, 9, 8),
                                             waveform=yf.Gaussian(tau=10e-12))],
                     run=yf.RunSettings(steps=60))
    model = yf.build_model(scene)
    got = CudaStepper(model, "float64", variant=variant, tune=False)
    ref = NumpyStepper(model, "float64")
    assert got.update_shape == (30, 20, 18)   # the last plane along each axis left out
    rng = np.random.default_rng(3)
    for comp in ("hx", "ey"):
        v = np.zeros(model.grid.shape)
        v[-1, 1:-1, 1:-1] = rng.standard_normal((19, 17))   # in the last plane along x only
        v[ref.held_at_zero(comp)] = 0   # ey's there: on the PEC wall, which set_field refuses
        got.set_field(comp, v)
        ref.set_field(comp, v)
    assert got.update_shape == (31, 20, 18)
    got.advance(0, 60)
    ref.advance(0, 60)
    assert rel_l2(got.fields(), ref.fields()) < 1e-10
    assert np.abs(got.fields()["hx"][-1]).max() > 0   # kept, not zeroed


def test_a_tuning_sweep_leaves_no_trace(tmp_path, monkeypatch):
    """The sweep runs the update kernels on random fields; fields and CPML auxiliary values
    must be back at rest before the run starts (an empty cache forces the sweep)."""
    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    scene, r64, _ = reference("3d", 0)
    got = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": "indexed", "tune": True})
    assert (tmp_path / "tuning.json").exists()
    assert rel_l2(got.fields, r64.fields) < 1e-10


@pytest.mark.parametrize("mode, dtype, expect", [("3d", "float32", "temporal"),
                                                 ("3d", "float16", "indexed"),
                                                 ("tmz", "float32", "temporal")])
def test_auto_runs_the_fastest_variant_for_the_mode_and_dtype(mode, dtype, expect,
                                                              monkeypatch):
    """'auto' (the scenes' default) picks by grid, size and dtype: 'indexed' below the
    measured crossovers (these scenes are small), else a marching variant as if they were
    large (the thresholds lowered), matching NumPy within the bounds of the variant it
    picked: no worse than three times NumPy's own error in the same storage dtype."""
    from yeefdtd.backends.cuda import variants

    scene, r64, r32 = reference(mode, 0)
    small = yf.run(scene, backend="cuda", dtype=dtype, steps=2, progress=False)
    assert small.stats["variant"] == "indexed"
    for name in ("AUTO_MIN_CELLS", "AUTO_MIN_CELLS_FED"):   # whatever the card's feed
        monkeypatch.setattr(variants, name, dict.fromkeys(getattr(variants, name), 0))
    got = yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True, progress=False)
    assert got.stats["variant"] == expect
    own = rel_l2(r32.fields, r64.fields) if dtype == "float32" else reference16(mode, 0)[1]
    assert rel_l2(got.fields, r64.fields) <= 3 * own


def test_auto_with_16_bit_storage_in_3d_follows_the_cards_memory_feed(monkeypatch):
    """On a card whose memory feeds its SMs AUTO_FEED bytes a cycle or more (an H200,
    not an H100 SXM), 'auto' runs 3D float16 with CPML layers on 'indexed' below
    AUTO_MIN_CELLS_16_FED's threshold (and without layers at every size); below that feed,
    from AUTO_MIN_CELLS_16's. The feed is read from the device's attributes. The scene
    has layers: with both thresholds at 0 it runs 'temporal' on any card."""
    from yeefdtd.backends.cuda import variants
    from yeefdtd.backends.cuda.stepper import device_feed

    feed = device_feed()
    assert feed is not None and 2.0 < feed < 100.0
    scene, r64, _ = reference("3d", 0)
    monkeypatch.setattr(variants, "AUTO_MIN_CELLS_16",
                        dict.fromkeys(variants.AUTO_MIN_CELLS_16, 0))
    got = yf.run(scene, backend="cuda", dtype="float16", keep_fields=True, progress=False)
    assert got.stats["variant"] == ("indexed" if feed >= variants.AUTO_FEED else "temporal")
    assert rel_l2(got.fields, r64.fields) <= 3 * reference16("3d", 0)[1]
    monkeypatch.setattr(variants, "AUTO_MIN_CELLS_16_FED",
                        dict.fromkeys(variants.AUTO_MIN_CELLS_16_FED, 0))
    got = yf.run(scene, backend="cuda", dtype="float16", keep_fields=True, progress=False)
    assert got.stats["variant"] == "temporal"
    assert rel_l2(got.fields, r64.fields) <= 3 * reference16("3d", 0)[1]
