"""The streaming ceiling of the marching kernels' access patterns, without the FDTD update.

Each kernel reads six float32 fields and one byte id per cell and writes six fields (49
bytes per cell, as a fused step does), with a trivial update so that nothing is optimised
away. 'flat' gives every thread one cell, in order (what 'indexed' does per half step);
'march' gives a block of BX x BY threads a column of cells that it walks along z through a
segment of L planes, as march3f does, writing only the cells it owns (OX x OY of the tile:
the others are its overlap); 'march4' is the same with four cells along x per thread
(16-byte loads). Prints, per pattern, the owned cells per second and the bytes per second
of owned cells (49 bytes each) beside the device's copy bandwidth.

Then 'skeleton': the memory traffic and synchronisation of 3D 'temporal's pass (march3: NT
= 2 steps a pass, 32 x 12 threads owning 28 x 8, z segments of 64, the planes read D
ahead in registers, each plane's cells written after step NT) with none of its arithmetic:
loads and stores alone (mode 0); with NT + 1 barriers a plane exchanging values through
shared memory (mode 1); and with a chain of CH dependent FMAs after each barrier, three
chains side by side (mode 3), to stand for the update's work (the pass issues about 316
warp instructions a warp and plane; mode 3 with CH 20 about 240, with CH 35 about 375).
Some rows give each thread RY = 2 rows of the tile (half the threads, two chains each).
Prints milliseconds a pass, cell-steps per second, registers and blocks per SM.

Usage: python3 benchmarks/access_patterns.py [N [BX,BY,OX,OY,SX,LD | skeleton]] (N default
512; needs CuPy and a GPU). With a pattern, only that march kernel runs, three times (for a
profiler); with ``skeleton``, only the skeleton's table.
"""

from __future__ import annotations

import sys

SRC = r"""
// six fields one after another, `stride` cells apart
struct F6 {
    const float* base; long long stride;
    __device__ const float* a(int q) const { return base + q * stride; }
};
struct W6 {
    float* base; long long stride;
    __device__ float* a(int q) const { return base + q * stride; }
};

__device__ __forceinline__ void upd(const float (&v)[6], unsigned char m, float (&o)[6]) {
#pragma unroll
    for (int a = 0; a < 6; ++a) o[a] = 0.999f * v[a] + 0.001f * v[(a + 1) % 6] + 1e-7f * m;
}

extern "C" __global__ void flat(const float* fi, const unsigned char* __restrict__ id,
                                float* fo, long long stride, long long n) {
    const F6 in{fi, stride};
    const W6 out{fo, stride};
    for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < n;
         c += (long long)gridDim.x * blockDim.x) {
        float v[6], o[6];
#pragma unroll
        for (int a = 0; a < 6; ++a) v[a] = __ldg(in.a(a) + c);
        upd(v, __ldg(id + c), o);
#pragma unroll
        for (int a = 0; a < 6; ++a) out.a(a)[c] = o[a];
    }
}

// a tile of BX x BY threads, owning OX x OY cells from thread (SX, BY - OY); with LD = 0
// the threads outside the owned cells do not load either
template <int BX, int BY, int OX, int OY, int SX, int LD, int UN>
__global__ void __launch_bounds__(BX * BY)
march(const float* fi, const unsigned char* __restrict__ id, float* fo, long long stride,
      int nx, int ny, int nz, int L) {
    const F6 in{fi, stride};
    const W6 out{fo, stride};
    const int tx = threadIdx.x, ty = threadIdx.y;
    int i = (int)blockIdx.x * OX + tx - SX;
    int j = (int)blockIdx.y * OY + ty - (BY - OY);
    const bool own = tx >= SX && tx < SX + OX && ty >= BY - OY && i < nx && j < ny;
    if (!LD && !own) return;
    i = (i + nx) % nx;
    j = (j + ny) % ny;
    const long long col = i + (long long)nx * j, plane = (long long)nx * ny;
    const int z0 = blockIdx.z * L, z1 = min(nz, z0 + L);
#pragma unroll UN
    for (int k = z0; k < z1; ++k) {
        const long long c = col + plane * k;
        float v[6], o[6];
#pragma unroll
        for (int a = 0; a < 6; ++a) v[a] = __ldg(in.a(a) + c);
        upd(v, __ldg(id + c), o);
        if (own) {
#pragma unroll
            for (int a = 0; a < 6; ++a) out.a(a)[c] = o[a];
        }
    }
}

// four cells along x per thread; the tile is 4 BX cells wide, all owned along x
template <int BX, int BY, int OY, int UN>
__global__ void __launch_bounds__(BX * BY)
march4(const float* fi, const unsigned char* __restrict__ id, float* fo, long long stride,
       int nx, int ny, int nz, int L) {
    const F6 in{fi, stride};
    const W6 out{fo, stride};
    const int i = ((int)blockIdx.x * BX + (int)threadIdx.x) * 4;
    int j = (int)blockIdx.y * OY + (int)threadIdx.y - (BY - OY);
    const bool own = threadIdx.y >= BY - OY && i < nx && j < ny;
    j = (j + ny) % ny;
    const long long col = i + (long long)nx * j, plane = (long long)nx * ny;
    const int z0 = blockIdx.z * L, z1 = min(nz, z0 + L);
#pragma unroll UN
    for (int k = z0; k < z1; ++k) {
        const long long c = col + plane * k;
        float4 v[6];
#pragma unroll
        for (int a = 0; a < 6; ++a) v[a] = __ldg(reinterpret_cast<const float4*>(in.a(a) + c));
        const unsigned m4 = __ldg(reinterpret_cast<const unsigned*>(id + c));
        if (own) {
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float x[6], o[6];
#pragma unroll
                for (int a = 0; a < 6; ++a) x[a] = reinterpret_cast<float*>(&v[a])[q];
                upd(x, (unsigned char)(m4 >> (8 * q)), o);
#pragma unroll
                for (int a = 0; a < 6; ++a) reinterpret_cast<float*>(&v[a])[q] = o[a];
            }
#pragma unroll
            for (int a = 0; a < 6; ++a) *reinterpret_cast<float4*>(out.a(a) + c) = v[a];
        }
    }
}

// march3's pass without its update (see the module's docstring): NT steps a pass, the
// planes read D ahead, MODE bit 0 the barriers, bit 1 CH FMAs after each; the tile owns OX
// columns from thread SX (march3: BX - 2 NT from NT); each thread holds RY rows of the
// tile's BY (BX x BY / RY threads), at least MB blocks per SM
template <int MODE, int D, int BX, int BY, int NT, int CH, int OX, int SX, int RY, int MB>
__global__ void __launch_bounds__(BX * BY / RY, MB)
skeleton(const float* fi, const unsigned char* __restrict__ id, float* fo, long long stride,
         int nx, int ny, int nz, int L) {
    constexpr int SW = BX + 2, SP = SW * (BY + 2);
    __shared__ float sh[6 * SP];
    const F6 in{fi, stride};
    const W6 out{fo, stride};
    const int tx = threadIdx.x;
    int i = (int)blockIdx.x * OX + tx - SX;
    const bool own_x = tx >= SX && tx < SX + OX && i < nx;
    i = (i + nx) % nx;
    long long col[RY];
    bool own[RY];
    int me[RY];
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        const int ty = (int)threadIdx.y * RY + r;
        int j = (int)blockIdx.y * (BY - 2 * NT) + ty - NT;
        own[r] = own_x && ty >= NT && ty < BY - NT && j < ny;
        j = (j + ny) % ny;
        col[r] = i + (long long)nx * j;
        me[r] = (ty + 1) * SW + tx + 1;
    }
    const long long plane = (long long)nx * ny;
    const int z0 = (int)blockIdx.z * L, z1 = min(nz, z0 + L);
    const int kstart = z0 - NT, kend = z1 + NT - 2;
    float ahead[D][RY][7];
#pragma unroll
    for (int d = 0; d < D; ++d)
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            const long long c = col[r] + plane * ((kstart + d + nz) % nz);
#pragma unroll
            for (int a = 0; a < 6; ++a) ahead[d][r][a] = __ldg(in.a(a) + c);
            ahead[d][r][6] = __ldg(id + c);
        }
    float acc[RY][6];
#pragma unroll
    for (int r = 0; r < RY; ++r)
#pragma unroll
        for (int a = 0; a < 6; ++a) acc[r][a] = 0.f;
    for (int s = kstart; s <= kend; ++s) {
        float cur[RY][7];
#pragma unroll
        for (int r = 0; r < RY; ++r) {
#pragma unroll
            for (int a = 0; a < 7; ++a) cur[r][a] = ahead[0][r][a];
#pragma unroll
            for (int d = 0; d + 1 < D; ++d)
#pragma unroll
                for (int a = 0; a < 7; ++a) ahead[d][r][a] = ahead[d + 1][r][a];
            if (s + D <= kend) {
                const long long c = col[r] + plane * ((s + D + nz) % nz);
#pragma unroll
                for (int a = 0; a < 6; ++a) ahead[D - 1][r][a] = __ldg(in.a(a) + c);
                ahead[D - 1][r][6] = __ldg(id + c);
            }
#pragma unroll
            for (int a = 0; a < 6; ++a) acc[r][a] = 0.5f * acc[r][a] + cur[r][a] * cur[r][6];
        }
        if (MODE & 1) {
#pragma unroll
            for (int t = 0; t <= NT; ++t) {
                float* const p = sh + 3 * (t & 1) * SP;
#pragma unroll
                for (int r = 0; r < RY; ++r)
#pragma unroll
                    for (int a = 0; a < 3; ++a) p[a * SP + me[r]] = acc[r][a + 3 * (t & 1)];
                __syncthreads();
#pragma unroll
                for (int r = 0; r < RY; ++r) {
                    float* const v = acc[r] + 3 * (t & 1);
#pragma unroll
                    for (int a = 0; a < 3; ++a)
                        v[a] += p[a * SP + me[r] + 1] + p[a * SP + me[r] + SW];
                }
                if (MODE & 2) {
#pragma unroll
                    for (int q = 0; q < CH; ++q)
#pragma unroll
                        for (int r = 0; r < RY; ++r)
#pragma unroll
                            for (int a = 0; a < 3; ++a)
                                acc[r][a + 3 * (t & 1)] = fmaf(acc[r][a + 3 * (t & 1)], 0.999f,
                                                               0.001f * cur[r][a]);
                }
            }
        }
        const int k = s - NT + 1;
        if (k >= z0 && k < z1) {
#pragma unroll
            for (int r = 0; r < RY; ++r)
                if (own[r]) {
#pragma unroll
                    for (int a = 0; a < 6; ++a) out.a(a)[col[r] + plane * k] = acc[r][a];
                }
        }
    }
}
"""

# march3's pass without its update: (MODE, D, CH, OX, SX, RY, MB); see skeleton. OX 24 from
# 4: rows owned in whole 32-byte sectors (march3 owns 28 from 2, so that half its tiles
# begin or end inside a sector). RY 2: two rows a thread, 32 x 6 threads a tile of 32 x 12.
SKELETON = [(0, 1, 0, 28, 2, 1, 2), (0, 2, 0, 28, 2, 1, 2), (0, 3, 0, 28, 2, 1, 2),
            (1, 1, 0, 28, 2, 1, 2), (1, 2, 0, 28, 2, 1, 2), (1, 3, 0, 28, 2, 1, 2),
            (3, 1, 20, 28, 2, 1, 2), (3, 2, 20, 28, 2, 1, 2), (3, 1, 35, 28, 2, 1, 2),
            (3, 2, 35, 28, 2, 1, 2), (3, 3, 35, 28, 2, 1, 2),
            (0, 1, 0, 24, 4, 1, 2), (1, 1, 0, 24, 4, 1, 2), (3, 1, 20, 24, 4, 1, 2),
            (3, 1, 35, 24, 4, 1, 2),
            (1, 1, 0, 28, 2, 2, 2), (3, 1, 20, 28, 2, 2, 2), (3, 1, 35, 28, 2, 2, 2),
            (1, 1, 0, 28, 2, 2, 4), (3, 1, 20, 28, 2, 2, 4), (3, 1, 35, 28, 2, 2, 4)]

# (BX, BY, OX, OY, SX, LD): see march
MARCH = [
    (32, 8, 32, 8, 0, 1), (32, 8, 30, 6, 1, 1), (64, 8, 64, 8, 0, 1), (64, 8, 62, 6, 1, 1),
    (64, 8, 63, 7, 1, 1), (128, 4, 128, 4, 0, 1), (128, 4, 127, 3, 1, 1), (512, 1, 512, 1, 0, 1),
    (128, 8, 126, 6, 1, 1), (64, 16, 62, 14, 1, 1),
    # along x only: overlap, shifts, alignment, and whether the halo's loads matter
    (64, 8, 62, 8, 1, 1), (64, 8, 62, 8, 1, 0), (64, 8, 64, 8, 2, 1), (64, 8, 64, 8, 1, 1),
    (64, 8, 56, 8, 4, 1), (64, 8, 56, 8, 8, 1), (64, 8, 60, 8, 4, 1), (64, 8, 56, 8, 4, 0),
    (64, 8, 64, 6, 0, 1), (64, 8, 64, 7, 0, 1),
]
MARCH4 = [("4x(32x8) own 128x8", 32, 8, 8), ("4x(32x8) own 128x7", 32, 8, 7),
          ("4x(128x4) own 512x4", 128, 4, 4), ("4x(128x4) own 512x3", 128, 4, 3),
          ("4x(64x8) own 256x7", 64, 8, 7), ("4x(128x2) own 512x2", 128, 2, 2)]


def main(n: int = 512, only: tuple | None = None, skeleton_only: bool = False) -> None:
    import cupy as cp
    import numpy as np

    from yeefdtd.bench import copy_bandwidth

    cells = n ** 3
    fin = cp.random.random((6, cells), dtype=cp.float32)
    fout = cp.zeros((6, cells), dtype=cp.float32)
    ids = cp.zeros(cells, dtype=cp.uint8)

    st = np.int64(cells)
    names = ["flat"]
    names += [f"march<{','.join(map(str, b))},{u}>" for b in MARCH for u in (1, 4)]
    names += [f"march4<{b[1]},{b[2]},{b[3]},{u}>" for b in MARCH4 for u in (1, 4)]
    names += [f"skeleton<{m},{d},32,12,2,{ch},{ox},{sx},{ry},{mb}>"
              for m, d, ch, ox, sx, ry, mb in SKELETON]
    mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names)
    i32 = np.int32
    L = 64   # planes per z segment
    sizes = (i32(n), i32(n), i32(n), i32(L))
    if only is not None:   # one march pattern, three launches (for a profiler)
        bx, by, ox, oy, sx, ld = only
        fn = mod.get_function(f"march<{bx},{by},{ox},{oy},{sx},{ld},1>")
        grid = (-(-n // ox), -(-n // oy), -(-n // L))
        for _ in range(3):
            fn(grid, (bx, by), (fin, ids, fout, st, *sizes))
        cp.cuda.Device().synchronize()
        return

    def timed(launch, reps=20) -> float:
        """Seconds per call of launch() (after one untimed call)."""
        launch()
        cp.cuda.Device().synchronize()
        t0, t1 = cp.cuda.Event(), cp.cuda.Event()
        t0.record()
        for _ in range(reps):
            launch()
        t1.record()
        t1.synchronize()
        return cp.cuda.get_elapsed_time(t0, t1) / 1e3 / reps

    def kernel(name, grid, block, args):
        fn = mod.get_function(name)
        return lambda: fn(grid, block, args)

    copy_bw = copy_bandwidth()
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, N = {n}; "
          f"copy bandwidth {copy_bw / 1e9:.0f} GB/s (read + write); 49 bytes per owned cell")
    print(f"{'pattern':34s} {'L':>4s} {'unroll':>6s} {'Gcells/s':>9s} {'GB/s':>6s} {'%copy':>6s}")

    def row(label, planes, un, t):
        # the owned cells of a launch are the grid's cells: the tiles cover it once
        rate = cells / t
        print(f"{label:34s} {planes:4d} {un:6d} {rate / 1e9:9.2f} {rate * 49 / 1e9:6.0f} "
              f"{100 * rate * 49 / copy_bw:6.1f}", flush=True)

    props = cp.cuda.runtime.getDeviceProperties(0)
    sm = props["multiProcessorCount"]
    for blocks in (() if skeleton_only else (sm * 8, sm * 64, (cells + 255) // 256)):
        t = timed(kernel("flat", (blocks,), (256,), (fin, ids, fout, st, np.int64(cells))))
        row(f"flat 256 threads, {blocks} blocks", 0, 1, t)
    for bx, by, ox, oy, sx, ld in (() if skeleton_only else MARCH):
        label = f"{bx}x{by} own {ox}x{oy} from {sx}" + ("" if ld else " owned loads")
        for un in (1, 4):
            grid = (-(-n // ox), -(-n // oy), -(-n // L))
            t = timed(kernel(f"march<{bx},{by},{ox},{oy},{sx},{ld},{un}>", grid, (bx, by),
                             (fin, ids, fout, st, *sizes)))
            row(f"march {label}", L, un, t)
    for label, bx, by, oy in (() if skeleton_only else MARCH4):
        for un in (1, 4):
            grid = (-(-n // (4 * bx)), -(-n // oy), -(-n // L))
            t = timed(kernel(f"march4<{bx},{by},{oy},{un}>", grid, (bx, by),
                             (fin, ids, fout, st, *sizes)))
            row(f"march4 {label}", L, un, t)
    print(f"\n# skeleton of 3D 'temporal's pass: NT 2, tiles of 32 x 12 cells owning OX x 8 "
          f"from column SX, RY rows a thread, z segments of {L}")
    print(f"{'mode':>4s} {'ahead':>5s} {'FMAs':>4s} {'OX':>3s} {'SX':>3s} {'RY':>3s} "
          f"{'ms a pass':>9s} {'Gcell-steps/s':>13s} {'registers':>9s} {'blocks/SM':>9s}")
    for m, d, ch, ox, sx, ry, mb in SKELETON:
        name = f"skeleton<{m},{d},32,12,2,{ch},{ox},{sx},{ry},{mb}>"
        grid = (-(-n // ox), -(-n // 8), -(-n // L))
        t = timed(kernel(name, grid, (32, 12 // ry), (fin, ids, fout, st, *sizes)))
        fn = mod.get_function(name)
        warps = 12 // ry   # of 32 threads
        per_sm = min(props["regsPerMultiprocessor"] // (-(-fn.num_regs * 32 // 256) * 256 * warps),
                     props["maxThreadsPerMultiProcessor"] // (32 * warps),
                     props["sharedMemPerMultiprocessor"] // (fn.shared_size_bytes + 1024))
        print(f"{m:4d} {d:5d} {ch:4d} {ox:3d} {sx:3d} {ry:3d} {t * 1e3:9.3f} "
              f"{2 * cells / t / 1e9:13.1f} {fn.num_regs:9d} {per_sm:9d}", flush=True)


if __name__ == "__main__":
    which = sys.argv[2] if len(sys.argv) > 2 else None
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 512,
         None if which in (None, "skeleton") else tuple(int(v) for v in which.split(",")),
         which == "skeleton")
