"""NumPy-backend speed on a benchmark scene (wall clock over whole steps, after a warm-up),
on each number of threads asked for (default: 1 and every processor this process may use).

    python benchmarks/numpy_bench.py --scene dipole-cpml -n 128 --steps 50 --threads 1 --threads 8
    python benchmarks/numpy_bench.py -n 128 --threads 1 --chunk-cells 16384 --chunk-cells 65536
"""

from __future__ import annotations

import argparse
import platform
import time

from yeefdtd.backends.numpy import stepper as numpy_stepper
from yeefdtd.backends.numpy.stepper import NumpyStepper, default_threads
from yeefdtd.bench import bench_scene
from yeefdtd.build.model import build_model
from yeefdtd.exceptions import YeeError


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="dipole-cpml")
    p.add_argument("-n", type=int, default=128)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--threads", type=int, action="append",
                   help="threads (repeatable; default: 1 and every processor)")
    p.add_argument("--dtype", action="append", choices=("float32", "float64", "float16"),
                   help="repeatable; default float32 and float64")
    p.add_argument("--min-cells", type=int, action="append",
                   help="the fewest cells a piece holds (repeatable; default MIN_CELLS)")
    p.add_argument("--chunk-cells", type=int, action="append",
                   help="about the most cells of a chunk for each thread at work (repeatable; "
                   "default CHUNK_CELLS)")
    a = p.parse_args()
    threads = a.threads or sorted({1, default_threads()})
    try:
        model = build_model(bench_scene(a.scene, a.n, a.steps + 5))
    except (ValueError, YeeError) as exc:   # an unknown scene, a size it cannot take
        p.error(str(exc).splitlines()[0])
    cells = model.grid.num_cells
    print(f"{a.scene} N={a.n} ({cells / 1e6:.2f} M cells), {platform.processor() or 'cpu'}, "
          f"{default_threads()} processors")
    for dtype in a.dtype or ("float32", "float64"):
        for n, least, chunk in ((n, m, k) for n in threads for m in a.min_cells or [None]
                                for k in a.chunk_cells or [None]):
            if least is not None:
                numpy_stepper.MIN_CELLS = least
            if chunk is not None:
                numpy_stepper.CHUNK_CELLS = chunk
            st = NumpyStepper(model, dtype, threads=n)
            st.advance(0, 5)
            t0 = time.perf_counter()
            st.advance(5, a.steps)
            sec = time.perf_counter() - t0
            print(f"  {dtype}, {n:2d} threads, pieces of {numpy_stepper.MIN_CELLS} cells or "
                  f"more, chunks of {numpy_stepper.CHUNK_CELLS} a thread: "
                  f"{cells * a.steps / sec / 1e6:6.1f} Mcells/s "
                  f"({sec / a.steps * 1e3:.1f} ms/step), {st.memory_bytes() / cells:.1f} "
                  "bytes/cell held", flush=True)


if __name__ == "__main__":
    main()
