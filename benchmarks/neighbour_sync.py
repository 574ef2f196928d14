"""What a persistent kernel's handoff between neighbouring blocks costs, per iteration.

A design for 3D 'temporal' outside the march3 family (docs/performance.md) would keep
every block resident for a whole pass over the grid, each block owning a patch of the
plane, marching along z with the steps skewed, and would take the values at its patch's
edges from its neighbours' patches through global memory instead of recomputing an
overlap. Each plane's iteration then waits on the four neighbours' signals. This times that
wait alone: blocks on a torus of TX x TY patches, one or two a multiprocessor (all of them
resident, as such a kernel needs), each iteration a chain of W dependent FMAs per thread
(standing for the plane's update), a block barrier, a release store of the block's
iteration count, and an acquire spin until each of the four neighbours has reached the
iteration minus S (S = 0: lockstep; S = 1: a neighbour may lag one iteration, what a skew
of the steps allows), then a barrier. The same loop without the spin (each block still
signals) gives the work's own time; the difference is the handoff's cost.

Usage: python3 benchmarks/neighbour_sync.py [ITERATIONS] (default 20000; needs CuPy and a
GPU). Prints microseconds an iteration for each row.
"""

from __future__ import annotations

import sys

SRC = r"""
extern "C" __global__ void __launch_bounds__(512)
handoff(unsigned int* flags, int tx, int ty, int iters, int work, int slack, int wait,
        unsigned int* stuck, float* sink)
{
    const int b = blockIdx.x, bx = b % tx, by = b / tx;
    int n = b;
    if (threadIdx.x == 0) n = by * tx + (bx + tx - 1) % tx;
    if (threadIdx.x == 1) n = by * tx + (bx + 1) % tx;
    if (threadIdx.x == 2) n = ((by + ty - 1) % ty) * tx + bx;
    if (threadIdx.x == 3) n = ((by + 1) % ty) * tx + bx;
    float acc = threadIdx.x * 1e-3f;
    for (int it = 1; it <= iters; ++it) {
        for (int k = 0; k < work; ++k) acc = fmaf(acc, 0.9999f, 1e-4f);
        __syncthreads();
        if (threadIdx.x == 0)
            asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flags + b), "r"(it)
                         : "memory");
        if (wait && threadIdx.x < 4) {
            unsigned int v, polls = 0;
            const unsigned int need = it > slack ? it - slack : 0;
            do {
                asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flags + n)
                             : "memory");
                if (++polls > (1u << 26)) { atomicExch(stuck, 1u); break; }   // not resident
            } while (v < need);
        }
        __syncthreads();
    }
    if (acc == 12345.0f) sink[0] = acc;
}
"""


def main() -> None:
    import cupy as cp

    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    kernel = cp.RawKernel(SRC, "handoff", options=("-std=c++17",))
    dev = cp.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    name = cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()
    print(f"# {name}, {sms} SMs, {iters} iterations a run, 512 threads a block")
    print(f"{'patches':>10} {'blocks/SM':>9} {'W':>5} {'S':>2} {'work us':>8} "
          f"{'with waits us':>13} {'handoff us':>10}")
    # a torus as near square as the block count allows
    for per_sm in (1, 2):
        blocks = sms * per_sm
        tx = max(d for d in range(1, int(blocks ** 0.5) + 1) if blocks % d == 0)
        ty = blocks // tx
        for work in (0, 200, 1000):
            for slack in (0, 1):
                times = []
                for wait in (0, 1):
                    flags = cp.zeros(blocks, dtype=cp.uint32)
                    stuck = cp.zeros(1, dtype=cp.uint32)
                    sink = cp.zeros(1, dtype=cp.float32)
                    args = (flags, cp.int32(tx), cp.int32(ty), cp.int32(iters),
                            cp.int32(work), cp.int32(slack), cp.int32(wait), stuck, sink)
                    kernel((blocks,), (512,), args)   # warm-up
                    flags.fill(0)
                    cp.cuda.Device().synchronize()
                    start, end = cp.cuda.Event(), cp.cuda.Event()
                    start.record()
                    kernel((blocks,), (512,), args)
                    end.record()
                    end.synchronize()
                    if int(stuck.get()[0]):
                        print(f"{tx}x{ty}: a block was not resident; its row is void")
                    times.append(cp.cuda.get_elapsed_time(start, end) * 1e3 / iters)
                print(f"{f'{tx}x{ty}':>10} {per_sm:>9} {work:>5} {slack:>2} {times[0]:>8.3f} "
                      f"{times[1]:>13.3f} {times[1] - times[0]:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
