"""Time every launch of one step separately (CUDA events around each, no graph), to see
where a step's time goes: the interior update, each box holding CPML layers, sources,
probes.

    python3 benchmarks/launch_times.py --scene dipole-cpml -n 512
"""

from __future__ import annotations

import argparse

from yeefdtd.backends.cuda.stepper import CudaStepper
from yeefdtd.bench import bench_scene
from yeefdtd.build.model import build_model


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="dipole-cpml")
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--variant", default="indexed")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--steps", type=int, default=20)
    a = p.parse_args()
    import cupy as cp

    model = build_model(bench_scene(a.scene, a.n, a.steps + 5))
    st = CudaStepper(model, a.dtype, variant=a.variant, graphs=False)
    st.advance(0, 5)
    st.synchronize()
    plan = st._step_plan
    total = [0.0] * len(plan)
    with st._stream:
        ev = [cp.cuda.Event() for _ in range(len(plan) + 1)]
        for _ in range(a.steps):
            ev[0].record()
            for q, (fn, grid, block, args, smem) in enumerate(plan):
                fn(grid, block, args, shared_mem=smem)
                ev[q + 1].record()
            ev[-1].synchronize()
            for q in range(len(plan)):
                total[q] += cp.cuda.get_elapsed_time(ev[q], ev[q + 1])
    whole = sum(total) / a.steps
    print(f"{a.scene} N={a.n} {a.variant} {a.dtype}: {whole:.3f} ms/step over {len(plan)} "
          f"launches; launch {st.configs}")
    for role, results in st.tuning.items():
        print(f"tuning {role}: " + ", ".join(f"{c}: {ms:.3f}" for c, ms in results))
    for q, (_fn, grid, block, args, _) in enumerate(plan):
        ms = total[q] / a.steps
        update = any(x is plan[q] for x in st._plans["h"] + st._plans["e"])
        box = ()
        if update and st.variant.name == "indexed":   # 3D: one launch over the grid
            box = tuple(int(x) for x in args[-6:]) if st.model.grid.mode != "3d" else \
                (0, st.shape[0], 0, st.shape[1], 0, st.shape[2])
        cells = 1
        if box:
            cells = (box[1] - box[0]) * (box[3] - box[2]) * (box[5] - box[4])
        rate = f"{cells / ms / 1e6:8.0f} Mcells/s" if box else ""
        print(f"{q:3d} {ms:8.4f} ms {100 * ms / whole:5.1f}%  grid {grid} block {block} "
              f"box {box} {rate}")


if __name__ == "__main__":
    main()
