"""What the CPML layers cost a 3D marching pass, face by face and by where they are updated.
Times a marching variant on dipole-cpml's scene (N^3, 10-cell layers on the faces named,
PEC elsewhere) for each placement ($YEEFDTD_CPML: ``xboxes``, ``inpass``, ``boxes``, and
for 'fused' ``slabs``) and face set, at one launch shape or tuned, and prints Mcells/s with
the instance's registers and blocks per SM, and the milliseconds a step spent in the pass,
in the boxes beside it and in the slab kernels (each timed alone, over 20 passes), and the
share of the pass's blocks flagged to run as a pass of one material (march3v.cu, "One
material"; they run it unless compiled with -DMARCH_UNIFORM=0).

    python3 benchmarks/cpml_placement_3d.py --launch 2,32,12,64 --faces none z y x all
    python3 benchmarks/cpml_placement_3d.py --variant fused --place slabs --faces all
    python3 benchmarks/cpml_placement_3d.py --launch 2,64,16,64 --faces all --per-box
"""

from __future__ import annotations

import argparse
import os

from cpml_placement_2d import launch_shape  # this script's folder, on the path when run

from yeefdtd.bench import WARMUP, bench_scene, time_stepper
from yeefdtd.build.model import build_model
from yeefdtd.description import Cpml

FACES = {"none": (), "z": ("z_min", "z_max"), "y": ("y_min", "y_max"),
         "x": ("x_min", "x_max"), "xy": ("x_min", "x_max", "y_min", "y_max"),
         "xz": ("x_min", "x_max", "z_min", "z_max"), "yz": ("y_min", "y_max", "z_min", "z_max"),
         "all": ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")}
PASSES = 20   # passes timed launch kind by launch kind


def scene(n: int, faces: tuple[str, ...], steps: int):
    base = bench_scene("dipole-cpml", n, steps)
    layer = Cpml(cells=10, order=3, kappa_max=5.0, alpha_max=0.05)
    walls = {f: (layer if f in faces else "pec") for f in FACES["all"]}
    return type(base)(**{**dict(base), "boundaries": walls})


def per_kind(st) -> tuple[float, float, float]:
    """Milliseconds a step in the pass, the boxes and the slab kernels."""
    import cupy as cp

    cfg = st.configs["pass"]
    nt = cfg[0]
    spent = [0.0, 0.0, 0.0]
    n = WARMUP
    for _ in range(PASSES):
        ev = [cp.cuda.Event() for _ in range(4)]
        with st._stream:
            ev[0].record(st._stream)
            kinds = (st._main_launch(cfg, nt, n, st._src, st._f, st._g),
                     st._box_launches(cfg, nt, n, st._src, st._f, st._g),
                     st._slab_launches(n, st._src, st._f, st._g))
            for q, launches in enumerate(kinds):
                for fn, grid, block, args, smem in launches:
                    fn(grid, block, args, shared_mem=smem)
                ev[q + 1].record(st._stream)
        ev[3].synchronize()
        for q in range(3):
            spent[q] += cp.cuda.get_elapsed_time(ev[q], ev[q + 1])
        st._f, st._g, st._src = st._g, st._f, 1 - st._src
        n += nt
    return tuple(t / (PASSES * nt) for t in spent)


def per_box(st) -> list[tuple]:
    """(origin, extent, launch shape, CPML axes mask, registers, grid, milliseconds a step)
    of each CPML box beside the pass, each timed alone over PASSES launches of the same
    pass's box (timing only: the run's fields are not kept)."""
    import cupy as cp

    cfg = st.configs["pass"]
    nt = cfg[0]
    out = []
    launches = st._box_launches(cfg, nt, WARMUP, st._src, st._f, st._g)
    for (bcfg, (org, ext), mask), launch in zip(st._box_plan[cfg], launches, strict=True):
        fn, grid, block, args, smem = launch
        ev = [cp.cuda.Event(), cp.cuda.Event()]
        with st._stream:
            fn(grid, block, args, shared_mem=smem)   # warm
            ev[0].record(st._stream)
            for _ in range(PASSES):
                fn(grid, block, args, shared_mem=smem)
            ev[1].record(st._stream)
        ev[1].synchronize()
        ms = cp.cuda.get_elapsed_time(ev[0], ev[1]) / (PASSES * nt)
        out.append((org, ext, bcfg, mask, fn.num_regs, grid, ms))
    return out


def main() -> None:
    from yeefdtd.backends.cuda.stepper import CudaStepper

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--variant", choices=["temporal", "fused"], default="temporal")
    p.add_argument("--faces", nargs="+", choices=list(FACES), default=list(FACES))
    p.add_argument("--place", nargs="+", choices=["xboxes", "inpass", "boxes", "slabs"],
                   default=["boxes"])
    p.add_argument("--launch", type=launch_shape,
                   help="steps,BX,BY,planes of the pass (default: tuned)")
    p.add_argument("--per-box", action="store_true",
                   help="also time each CPML box alone (placements with boxes)")
    a = p.parse_args()
    launch = {"pass": a.launch} if a.launch else None
    if a.variant == "temporal" and "slabs" in a.place:
        p.error("--place: slabs is for --variant fused only")
    print(f"{'place':7s} {'faces':5s} {'launch':18s} {'Mcells/s':>9s} regs blocks/SM "
          "ms/step: pass  boxes  slabs  one-material blocks", flush=True)
    for place in a.place:
        os.environ["YEEFDTD_CPML"] = place
        for faces in a.faces:
            # the timed steps, the warm-up, and the passes timed kind by kind
            model = build_model(scene(a.n, FACES[faces], a.steps + WARMUP + PASSES * 8))
            st = CudaStepper(model, "float32", variant=a.variant, tune=launch is None,
                             launch=launch)
            occ = st.occupancy()
            rate = a.n ** 3 * a.steps / time_stepper(st, a.steps) / 1e6
            tp, tb, ts = per_kind(st)
            one = st.describe().get("tile", {}).get("one_material_blocks", "-")
            print(f"{place:7s} {faces:5s} {st.configs['pass']!s:18s} {rate:9.0f} "
                  f"{occ['registers']:4d} {occ['blocks_per_sm']:9d} {tp:15.3f} {tb:6.3f} "
                  f"{ts:6.3f}  {one}", flush=True)
            if a.per_box and st._box_launches(st.configs["pass"], st.configs["pass"][0],
                                              WARMUP, st._src, st._f, st._g):
                for org, ext, bcfg, mask, regs, grid, ms in per_box(st):
                    axes = "".join(c for q, c in enumerate("xyz") if mask >> q & 1)
                    print(f"    box at {org} extent {ext} terms {axes:3s} launch {bcfg} "
                          f"grid {grid} {regs} regs: {ms:.3f} ms a step", flush=True)
            del st


if __name__ == "__main__":
    main()
