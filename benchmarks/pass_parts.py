"""Time each part of a 3D marching pass on its own: the pass's launches over the grid
(for the lean pass, lean3v's and march3v's beside it separately) and the CPML boxes (with
--each, every box alone too: its CPML axes, extent and launch shape), each
repeated on one stream, in milliseconds a step (not overlapped, as the run overlaps the
boxes with the pass on streams of their own).

    python3 benchmarks/pass_parts.py -n 512 --scenes dipole-cpml pec-box \
        --shapes 2,64,16,64 3,64,24,128 [--variant temporal] [--reps 10] \
        [--walls z_min=pmc]

Prints, per scene and launch shape, each part's launches and milliseconds a step, and for
the lean pass the share of blocks lean3v runs and the pass's box (needs CuPy and a GPU).
"""

from __future__ import annotations

import argparse


def main() -> None:
    import cupy as cp

    from yeefdtd.bench import bench_scene, with_walls
    from yeefdtd.build.model import build_model
    from yeefdtd.run import make_stepper

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--scenes", nargs="+", default=["dipole-cpml"])
    p.add_argument("--shapes", nargs="+", default=["2,64,16,64", "3,64,24,128"])
    p.add_argument("--variant", default="temporal")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--each", action="store_true", help="time each CPML box alone too")
    p.add_argument("--walls", default=None,
                   help="pec or pmc: the scenes' boundaries replaced by these walls on every "
                   "face; FACE=KIND,...: those faces' alone (e.g. z_min=pmc)")
    a = p.parse_args()
    scenes = []   # every scene checked before any is timed
    for scene in a.scenes:
        try:
            made = bench_scene(scene, a.n, 4)
            scenes.append(with_walls(made, a.walls) if a.walls is not None else made)
        except ValueError as exc:
            p.error(str(exc))
    for scene, made in zip(a.scenes, scenes, strict=True):
        model = build_model(made)
        for text in a.shapes:
            cfg = tuple(int(x) for x in text.split(","))
            st = make_stepper(model, "cuda", a.dtype, variant=a.variant, tune=False,
                              graphs=False, launch={"pass": cfg})
            nt = cfg[0]
            f, g, src = st._f, st._g, st._src
            main = st._main_launch(cfg, nt, 0, src, f, g)
            beside = st._beside_launches(cfg, nt, 0, src, f, g)
            parts = {"pass": main + beside, "boxes": st._box_launches(cfg, nt, 0, src, f, g)}
            if len(main) > 1:   # the lean pass: lean3v, its ids and walls blocks, march3v beside
                parts["lean3v"], parts["ids, walls"], parts["march3v"] = main[:1], beside, main[1:]
            if a.each:   # box q: its launch shape, CPML axes and extent in the name
                for q, ((bcfg, box, mask), launch) in enumerate(
                        zip(st._box_plan.get(cfg, []), parts["boxes"], strict=True)):
                    axes = "".join(c for b, c in enumerate("xyz") if mask >> b & 1)
                    kind = "lean3f" if st._lean_face(nt, box, mask) is not None \
                        else ",".join(map(str, bcfg))
                    parts[f"box {q} {axes} {'x'.join(map(str, box[1]))} {kind}"] = [launch]
            for name, launches in parts.items():
                if not launches:
                    continue
                for _ in range(2):
                    for fn, grid, block, args, smem in launches:
                        fn(grid, block, args, shared_mem=smem)
                start, end = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                for _ in range(a.reps):
                    for fn, grid, block, args, smem in launches:
                        fn(grid, block, args, shared_mem=smem)
                end.record()
                end.synchronize()
                ms = cp.cuda.get_elapsed_time(start, end) / a.reps / nt
                print(f"{scene} {a.n} {text} {name:8s} {len(launches)} launches "
                      f"{ms:.3f} ms/step", flush=True)
            if st.lean_pass(cfg):
                lean = st._pass_kernel(cfg).blocks
                print(f"{scene} {a.n} {text} lean3v's share of blocks "
                      f"{float((lean != 0).mean()):.4f} (with lanes owned in part "
                      f"{float((lean == 2).mean()):.4f}, with ids "
                      f"{float((lean == 3).mean()):.4f}); pass box {st.pass_box_of(nt)}",
                      flush=True)
            del st, f, g, parts
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
