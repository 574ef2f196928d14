"""NumPy-backend speed on a benchmark scene (wall clock over whole steps, after a warm-up).

    python benchmarks/numpy_bench.py --scene dipole-cpml -n 128 --steps 50
"""

from __future__ import annotations

import argparse
import platform
import time

from yeefdtd.backends.numpy import NumpyStepper
from yeefdtd.bench import bench_scene
from yeefdtd.build.model import build_model


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="dipole-cpml")
    p.add_argument("-n", type=int, default=128)
    p.add_argument("--steps", type=int, default=50)
    a = p.parse_args()
    model = build_model(bench_scene(a.scene, a.n, a.steps + 5))
    cells = model.grid.num_cells
    print(f"{a.scene} N={a.n} ({cells / 1e6:.2f} M cells), {platform.processor() or 'cpu'}")
    for dtype in ("float32", "float64"):
        st = NumpyStepper(model, dtype)
        st.advance(0, 5)
        t0 = time.perf_counter()
        st.advance(5, a.steps)
        sec = time.perf_counter() - t0
        print(f"  {dtype}: {cells * a.steps / sec / 1e6:6.1f} Mcells/s "
              f"({sec / a.steps * 1e3:.1f} ms/step), {st.memory_bytes() / cells:.1f} bytes/cell "
              "held")


if __name__ == "__main__":
    main()
