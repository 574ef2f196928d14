"""What a 3D marching pass costs when it carries nothing but the update.

A probe for issue #4's `temporal` goal (2 times the single-step bound): `march3v`, the
pass `temporal` runs, issues about 225 lane slots an owned cell-step, of which the update's
float arithmetic is about a fifth; the rest is its generality (ids and coefficient rows,
sources and probes by plane flags, ownership tests, wrapped indices, passes of fewer
steps, row-wise barriers) and its pipeline (the planes of every step copied from one
iteration's registers to the next). This kernel, `lean3`, is the same march (tiles of 32
lanes x BY rows, V cells a lane along x, a z segment marched with NT steps in flight, the
overlap recomputed: NT rows along y, 4 cells along x so that the owned rows are whole
32-byte sectors) with none of that generality: one material whose coefficients sit at fixed
offsets of constant memory (or, with IDS, a material id a cell and the table's row for it,
as the variants take them), no sources or probes, an interior box (no wrapping), every pass
NT steps. And it keeps fewer planes in flight: for each step t < NT, E and H of its last
plane, and for step NT the x and y components of H (what the next plane's z derivative
reads): 20 values a cell at NT = 2 against march3v's 72 registers of en/eo/hn/ho at V = 2.

It is not a variant: it says what a pass of this tiling costs at least, and whether a
leaner pass for the blocks that hold only the background (81% of dipole-cpml's) could reach
the goal. Its fields are checked against NumPy (the same update, float32, relative L2 under
1e-5: float32 rounding over NT steps of a random field, where the FMA contractions differ
from NumPy's separate operations), so the timed kernel does the whole update.

With C > 1 (blocks a cluster along y, sm_90) a cluster marches one tile of C BY rows and
its blocks read each other's edge rows from their shared memory, behind the cluster's
barriers: the overlap along y is then NT rows at the cluster's ends alone.

Prints, for each NT, BY, V, MB (blocks an SM at least), TRIM, IDS, SHT and C: registers, spilled
bytes, shared memory, the error against NumPy, milliseconds a pass, and Mcells/s over the
owned box (N^3 cells, NT steps a pass), beside the device's copy bandwidth and the
single-step bound (copy bandwidth / 48 bytes).

Usage: python3 benchmarks/lean_pass.py [N] [--passes P] [--configs NT,BY,V,MB,TRIM,IDS,SHT[,C]
...] [--zlen L] (IDS: 0 none, 1 every cell's id 0, 2 ids of four materials at random; SHT 1:
the table in shared memory; C: 1 where not given)
(needs CuPy and a GPU).
"""

from __future__ import annotations

import argparse

import numpy as np

SRC = r"""
// the material: E and H coefficients [component][old, first difference, second]
__constant__ float CE[3][3], CH[3][3];
// with IDS, the table of materials: [id][E, H][component][old, first difference, second]
__constant__ float TAB[16][2][3][3];

template <int N> struct Word;
template <> struct Word<2> { typedef unsigned short type; };
template <> struct Word<4> { typedef unsigned type; };

// coefficient q of component a of field f (0 E, 1 H) of the cell of id ``id``: from TAB in
// constant memory, or with SHT from its copy in shared memory (st)
template <bool IDS, bool SHT>
__device__ __forceinline__ float co(const float* st, unsigned id, int f, int a, int q) {
    if constexpr (IDS && SHT) return st[id * 18 + f * 9 + a * 3 + q];
    if constexpr (IDS) return TAB[id][f][a][q];
    return f ? CH[a][q] : CE[a][q];
}

// V consecutive floats, loaded and stored as one vector access
template <int V> struct alignas(4 * V) Pack { float v[V]; };
template <int V>
__device__ __forceinline__ Pack<V> ldv(const float* p) {
    return *reinterpret_cast<const Pack<V>*>(p);
}
template <int V>
__device__ __forceinline__ void stv(float* p, const float (&x)[V]) {
    Pack<V> q;
#pragma unroll
    for (int v = 0; v < V; ++v) q.v[v] = x[v];
    *reinterpret_cast<Pack<V>*>(p) = q;
}

// A pass of NT steps over the box (ox, oy, oz) + (bnx, bny, bnz) of fields pitched px cells a
// row and py rows a plane. Tiles of 32 V x BY cells (V cells a lane), owning 32 V - 2 HX x
// BY - 2 NT; z segments of zlen planes, each marched from NT planes before it to NT - 1
// after. Shared planes (x and z components, rows -1 .. BY): E of step 0, E of steps 1 ..
// NT - 1 by the parity of their plane (written where computed, read an iteration later), H
// of steps 1 .. NT.
// TRIM: a warp computes step t only where an owned row needs it (H of step t at rows t - 1
// .. BY - t - 1, E at rows t .. BY - t - 1): the halo's rows idle at the later steps of a
// plane and leave the SM's issue slots to the others (all of them still load and meet
// every barrier).
// IDS: a byte a cell (cid, pitched as the fields), loaded with each plane, V to a word, and
// carried with the planes of each step (m[t]: the ids of step t's plane). SHT: the table's
// rows read from a copy in shared memory, where lanes of different ids are served at once
// (constant memory serves one address at a time).
// C > 1: a cluster of C blocks along y (sm_90) marches one tile of C BY rows, owning all
// but NT at each of its ends: a block's first and last rows read the rows of the blocks
// beside it in the cluster from their shared memory (distributed shared memory: every
// warp's neighbour-row loads become ld.shared::cluster, 32-bit addresses), and every
// barrier is the cluster's (barrier.cluster arrive and wait, release and acquire), so that
// only the cluster's outer rows are an overlap (6 of 48 rows at NT 3, C 2, BY 24, against
// 6 of 24 at C 1). The barriers' cost against the overlap saved is what it measures.
// LEAN_CLUSTER_SYNC=0 (timing only, the fields are then wrong): the block's barrier in
// place of the cluster's at every plane, to weigh what the cluster's barriers cost (the
// last one, before the blocks leave, stays the cluster's)
#ifndef LEAN_CLUSTER_SYNC
#define LEAN_CLUSTER_SYNC 1
#endif
// LEAN_CLUSTER_EDGE=1: only the block's first and last warps read through shared::cluster
// addresses (a branch uniform in a warp); 0: every warp does, its own rows included
#ifndef LEAN_CLUSTER_EDGE
#define LEAN_CLUSTER_EDGE 0
#endif
template <bool ALWAYS = false> __device__ __forceinline__ void cluster_sync() {
    if (!ALWAYS && !LEAN_CLUSTER_SYNC) { __syncthreads(); return; }
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// the shared::cluster address of shared p's counterpart in the cluster's block r (a
// block's own shared::cta addresses are shared::cluster addresses of its own planes too)
__device__ __forceinline__ unsigned cluster_peer(const float* p, int r) {
    unsigned q;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(q) : "r"((unsigned)__cvta_generic_to_shared(p)), "r"(r));
    return q;
}

// V floats at shared::cluster address a (+ 4 q bytes)
template <int V> __device__ __forceinline__ Pack<V> ldc(unsigned a);
template <> __device__ __forceinline__ Pack<1> ldc<1>(unsigned a) {
    Pack<1> x;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(x.v[0]) : "r"(a));
    return x;
}
template <> __device__ __forceinline__ Pack<2> ldc<2>(unsigned a) {
    Pack<2> x;
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];"
                 : "=f"(x.v[0]), "=f"(x.v[1]) : "r"(a));
    return x;
}
template <> __device__ __forceinline__ Pack<4> ldc<4>(unsigned a) {
    Pack<4> x;
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(x.v[0]), "=f"(x.v[1]), "=f"(x.v[2]), "=f"(x.v[3]) : "r"(a));
    return x;
}

template <int C> struct Cluster;
template <> struct Cluster<1> {
    static __device__ __forceinline__ int rank() { return 0; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};
template <int C> struct Cluster {
    static __device__ __forceinline__ int rank() { return (int)blockIdx.y % C; }
    static __device__ __forceinline__ void sync() { cluster_sync(); }
};

#define LEAN3_ARGS                                                                        \
    const float* __restrict__ ex0, const float* __restrict__ ey0,                         \
    const float* __restrict__ ez0, const float* __restrict__ hx0,                         \
    const float* __restrict__ hy0, const float* __restrict__ hz0, float* __restrict__ ex1, \
    float* __restrict__ ey1, float* __restrict__ ez1, float* __restrict__ hx1,             \
    float* __restrict__ hy1, float* __restrict__ hz1, const unsigned char* __restrict__ cid, \
    int px, int py, int ox, int oy, int oz, int bnx, int bny, int bnz, int zlen
#define LEAN3_PASS ex0, ey0, ez0, hx0, hy0, hz0, ex1, ey1, ez1, hx1, hy1, hz1, cid, px, py, \
    ox, oy, oz, bnx, bny, bnz, zlen

template <int NT, int BY, int V, int HX, bool TRIM, bool IDS, bool SHT, int C>
__device__ __forceinline__ void lean3_run(LEAN3_ARGS) {
    constexpr int W = 32 * V, SP = W * (BY + 2);
    constexpr int E1 = 2, HP = E1 + 4 * (NT - 1), NPL = HP + 2 * NT;
    static_assert(C >= 1 && C <= 8 && (C == 1 || !TRIM), "lean3: clusters of 1 to 8, no TRIM");
    extern __shared__ __align__(16) float sh[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int q = ty * 32 + tx; q < NPL * SP; q += 32 * BY) sh[q] = 0.f;
    const int rank = Cluster<C>::rank(), row = rank * BY + ty;   // row: in the cluster's tile
    float* const st = sh + NPL * SP;   // SHT: the table, after the planes
    if constexpr (SHT)
        for (int q = ty * 32 + tx; q < 16 * 18; q += 32 * BY) st[q] = (&TAB[0][0][0][0])[q];
    const int gi = ox - HX + (int)blockIdx.x * (W - 2 * HX) + V * tx;
    const int gj = oy - NT + (int)blockIdx.y / C * (C * BY - 2 * NT) + row;
    const int z0 = oz + (int)blockIdx.z * zlen, z1 = min(oz + bnz, z0 + zlen);
    const bool ownxy = row >= NT && row < C * BY - NT && gj < oy + bny && V * tx >= HX &&
                       V * tx < W - HX && gi < ox + bnx;
    const long long pl = (long long)px * py;
    const int kstart = z0 - NT, kend = z1 + NT - 2;
    const long long c0 = (long long)gj * px + gi + pl * kstart;
    const float* in[6] = {ex0 + c0, ey0 + c0, ez0 + c0, hx0 + c0, hy0 + c0, hz0 + c0};
    float* out[6] = {ex1 + c0, ey1 + c0, ez1 + c0, hx1 + c0, hy1 + c0, hz1 + c0};
    float* const me = sh + (ty + 1) * W + V * tx;
    // the rows above and below, o floats on (C > 1: through shared::cluster addresses, the
    // next and the previous block's in the cluster at its last and first row)
    unsigned up = 0u, dn = 0u;
    if constexpr (C > 1) {
        up = ty == BY - 1 && rank < C - 1 ? cluster_peer(sh + W + V * tx, rank + 1)
                                          : (unsigned)__cvta_generic_to_shared(me + W);
        dn = ty == 0 && rank > 0 ? cluster_peer(sh + BY * W + V * tx, rank - 1)
                                 : (unsigned)__cvta_generic_to_shared(me - W);
    }
    const auto above = [&](int o) {
        if constexpr (C > 1)
            if (!LEAN_CLUSTER_EDGE || ty == BY - 1) return ldc<V>(up + 4u * (unsigned)o);
        return ldv<V>(me + W + o);
    };
    const auto below = [&](int o) {
        if constexpr (C > 1)
            if (!LEAN_CLUSTER_EDGE || ty == 0) return ldc<V>(dn + 4u * (unsigned)o);
        return ldv<V>(me - W + o);
    };
    // e[t], h[t]: E and H of step t at its last plane (step t's plane at iteration s is
    // s - t + 1); nx: the plane loaded ahead
    float e[NT][3][V], h[NT + 1][3][V], nx[6][V];
    typedef typename Word<V>::type IW;
    const IW* const ids = reinterpret_cast<const IW*>(cid + c0);
    const long long ipl = pl / V;   // a plane, in words of V ids
    unsigned m[NT + 1], mx = 0u;
#pragma unroll
    for (int t = 0; t <= NT; ++t) m[t] = 0u;
    if constexpr (IDS) {
        m[0] = ids[0];
        mx = ids[ipl];
    }
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
        for (int v = 0; v < V; ++v) {
#pragma unroll
            for (int t = 0; t < NT; ++t) e[t][a][v] = 0.f;
#pragma unroll
            for (int t = 0; t <= NT; ++t) h[t][a][v] = 0.f;
        }
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        const Pack<V> x = ldv<V>(in[a]), y = ldv<V>(in[a + 3]);
#pragma unroll
        for (int v = 0; v < V; ++v) { e[0][a][v] = x.v[v]; h[0][a][v] = y.v[v]; }
    }
#pragma unroll
    for (int a = 0; a < 6; ++a) {
        const Pack<V> x = ldv<V>(in[a] + pl);
#pragma unroll
        for (int v = 0; v < V; ++v) nx[a][v] = x.v[v];
    }
    long long off = 2 * pl;
    Cluster<C>::sync();   // (with C > 1 also: every block of the cluster has zeroed its planes)
    for (int s = kstart; s <= kend; ++s) {
        // step 0 at plane s + 1: what step 1 reads as the plane ahead
        float eu[3][V], hu[3][V];
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v) { eu[a][v] = nx[a][v]; hu[a][v] = nx[a + 3][v]; }
#pragma unroll
        for (int t = NT; t > 0; --t) m[t] = m[t - 1];
        m[0] = mx;
        if (s < kend) {
#pragma unroll
            for (int a = 0; a < 6; ++a) {
                const Pack<V> x = ldv<V>(in[a] + off);
#pragma unroll
                for (int v = 0; v < V; ++v) nx[a][v] = x.v[v];
            }
            if constexpr (IDS) mx = ids[off / V];
        }
        off += pl;
        stv<V>(me, e[0][0]);
        stv<V>(me + SP, e[0][2]);
        Cluster<C>::sync();
#pragma unroll
        for (int t = 1; t <= NT; ++t) {
            const int k = s - t + 1;
            // H of step t at plane k: E of step t - 1 at k (e[t - 1]) and k + 1 (eu), H of
            // step t - 1 at k (h[t - 1])
            const int se = (t == 1 ? 0 : E1 + 4 * (t - 2) + 2 * (k & 1)) * SP;
            const Pack<V> exu = above(se), ezu = above(se + SP);
            const float eyr = __shfl_down_sync(0xffffffffu, e[t - 1][1][0], 1);
            const float ezr = __shfl_down_sync(0xffffffffu, e[t - 1][2][0], 1);
            float hn[3][V];
            if (!TRIM || (ty >= t - 1 && ty < BY - t)) {
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const unsigned id = (m[t] >> (8 * v)) & 255u;
                const float ex = e[t - 1][0][v], ey = e[t - 1][1][v], ez = e[t - 1][2][v];
                const float eyx = v + 1 < V ? e[t - 1][1][v + 1] : eyr;
                const float ezx = v + 1 < V ? e[t - 1][2][v + 1] : ezr;
                const float d[3][2] = {{ezu.v[v] - ez, eu[1][v] - ey},
                                       {eu[0][v] - ex, ezx - ez},
                                       {eyx - ey, exu.v[v] - ex}};
#pragma unroll
                for (int a = 0; a < 3; ++a)
                    hn[a][v] = co<IDS, SHT>(st, id, 1, a, 0) * h[t - 1][a][v]
                             + co<IDS, SHT>(st, id, 1, a, 1) * d[a][0]
                             + co<IDS, SHT>(st, id, 1, a, 2) * d[a][1];
            }
            } else {
#pragma unroll
                for (int a = 0; a < 3; ++a)
#pragma unroll
                    for (int v = 0; v < V; ++v) hn[a][v] = h[t][a][v];   // unused
            }
            const int shp = (HP + 2 * (t - 1)) * SP;
            stv<V>(me + shp, hn[0]);
            stv<V>(me + shp + SP, hn[2]);
            Cluster<C>::sync();
            // E of step t at plane k: H of step t at k (hn) and k - 1 (h[t]), E of step
            // t - 1 at k (e[t - 1])
            const Pack<V> hxd = below(shp), hzd = below(shp + SP);
            const float hyl = __shfl_up_sync(0xffffffffu, hn[1][V - 1], 1);
            const float hzl = __shfl_up_sync(0xffffffffu, hn[2][V - 1], 1);
            float en[3][V];
            if (!TRIM || (ty >= t && ty < BY - t)) {
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const unsigned id = (m[t] >> (8 * v)) & 255u;
                const float hyx = v > 0 ? hn[1][v - 1] : hyl, hzx = v > 0 ? hn[2][v - 1] : hzl;
                const float d[3][2] = {{hn[2][v] - hzd.v[v], hn[1][v] - h[t][1][v]},
                                       {hn[0][v] - h[t][0][v], hn[2][v] - hzx},
                                       {hn[1][v] - hyx, hn[0][v] - hxd.v[v]}};
#pragma unroll
                for (int a = 0; a < 3; ++a)
                    en[a][v] = co<IDS, SHT>(st, id, 0, a, 0) * e[t - 1][a][v]
                             + co<IDS, SHT>(st, id, 0, a, 1) * d[a][0]
                             + co<IDS, SHT>(st, id, 0, a, 2) * d[a][1];
            }
            } else {
#pragma unroll
                for (int a = 0; a < 3; ++a)
#pragma unroll
                    for (int v = 0; v < V; ++v) en[a][v] = e[t - 1][a][v];   // unused
            }
            if (t < NT) {   // read by step t + 1 an iteration on
                const int eb = (E1 + 4 * (t - 1) + 2 * (k & 1)) * SP;
                stv<V>(me + eb, en[0]);
                stv<V>(me + eb + SP, en[2]);
            } else if (ownxy && k >= z0) {
                const long long o = (long long)(k - kstart) * pl;
#pragma unroll
                for (int a = 0; a < 3; ++a) {
                    stv<V>(out[a] + o, en[a]);
                    stv<V>(out[a + 3] + o, hn[a]);
                }
            }
            // step t - 1's planes move on to k + 1; step t's become k
#pragma unroll
            for (int a = 0; a < 3; ++a)
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    e[t - 1][a][v] = eu[a][v];
                    h[t - 1][a][v] = hu[a][v];
                    eu[a][v] = en[a][v];
                    hu[a][v] = hn[a][v];
                }
        }
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v) h[NT][a][v] = hu[a][v];
    }
    if constexpr (C > 1) cluster_sync<true>();   // no block leaves while the others read its planes
}

template <int NT, int BY, int V, int HX, int MB, bool TRIM, bool IDS, bool SHT>
__global__ void __launch_bounds__(32 * BY, MB) lean3(LEAN3_ARGS) {
    lean3_run<NT, BY, V, HX, TRIM, IDS, SHT, 1>(LEAN3_PASS);
}

// the same pass marched by clusters of C blocks along y (see C above)
template <int NT, int BY, int V, int HX, int MB, bool TRIM, bool IDS, bool SHT, int C>
__global__ void __launch_bounds__(32 * BY, MB) __cluster_dims__(1, C, 1) lean3c(LEAN3_ARGS) {
    lean3_run<NT, BY, V, HX, TRIM, IDS, SHT, C>(LEAN3_PASS);
}
"""

Z0 = 376.730313   # the impedance of free space, ohms
TOLERANCE = 1e-5   # relative L2 against NumPy (see the module's docstring)

#: (NT, BY, V, blocks an SM at least, TRIM, IDS, SHT[, C]) timed by default (C, blocks a
#: cluster along y, 1 where not given)
CONFIGS = ((1, 8, 2, 2, 0, 0, 0), (2, 16, 2, 1, 0, 0, 0), (2, 24, 2, 1, 0, 0, 0),
           (2, 16, 4, 1, 0, 0, 0), (3, 16, 2, 1, 0, 0, 0), (3, 20, 2, 1, 0, 0, 0),
           (3, 24, 2, 1, 0, 0, 0), (4, 16, 2, 1, 0, 0, 0), (3, 16, 2, 1, 0, 1, 0),
           (3, 16, 2, 1, 0, 2, 0), (3, 16, 2, 1, 0, 1, 1), (3, 16, 2, 1, 0, 2, 1),
           (3, 20, 2, 1, 0, 0, 0, 2), (3, 20, 2, 1, 0, 0, 0, 4), (3, 24, 2, 1, 0, 0, 0, 2),
           (3, 24, 2, 1, 0, 0, 0, 4), (4, 16, 2, 1, 0, 0, 0, 4))
HX = 4   # the overlap along x on each side: 4 cells, so that the owned rows are whole sectors
MATERIALS = 4   # rows of the table that IDS = 2 draws the cells' ids from


def full(cfg: tuple[int, ...]) -> tuple[int, ...]:
    """The configuration with its cluster's size (1 where not given)."""
    if len(cfg) not in (7, 8):
        raise ValueError(f"{cfg!r}: give NT,BY,V,MB,TRIM,IDS,SHT and optionally C")
    return (*cfg, 1) if len(cfg) == 7 else tuple(cfg)


def name(cfg: tuple[int, ...]) -> str:
    nt, by, v, mb, trim, ids, sht, c = full(cfg)
    b = ("false", "true")
    args = f"{nt}, {by}, {v}, {HX}, {mb}, {b[bool(trim)]}, {b[bool(ids)]}, {b[bool(ids and sht)]}"
    return f"lean3c<{args}, {c}>" if c > 1 else f"lean3<{args}>"


def reference(f: list[np.ndarray], ce: np.ndarray, ch: np.ndarray, steps: int) -> list:
    """NT steps of the same update by NumPy over the whole array (periodic at its ends,
    which the box's cells never see), fields indexed [z, y, x]."""
    ex, ey, ez, hx, hy, hz = (a.copy() for a in f)

    def fwd(a, ax):
        return np.roll(a, -1, axis=ax) - a

    def bwd(a, ax):
        return a - np.roll(a, 1, axis=ax)

    X, Y, Z = 2, 1, 0
    for _ in range(steps):
        hx = ch[0, 0] * hx + ch[0, 1] * fwd(ez, Y) + ch[0, 2] * fwd(ey, Z)
        hy = ch[1, 0] * hy + ch[1, 1] * fwd(ex, Z) + ch[1, 2] * fwd(ez, X)
        hz = ch[2, 0] * hz + ch[2, 1] * fwd(ey, X) + ch[2, 2] * fwd(ex, Y)
        ex = ce[0, 0] * ex + ce[0, 1] * bwd(hz, Y) + ce[0, 2] * bwd(hy, Z)
        ey = ce[1, 0] * ey + ce[1, 1] * bwd(hx, Z) + ce[1, 2] * bwd(hz, X)
        ez = ce[2, 0] * ez + ce[2, 1] * bwd(hy, X) + ce[2, 2] * bwd(hx, Y)
    return [ex, ey, ez, hx, hy, hz]


class Pass:
    """One lean3 instance with its launch over an N^3 box."""

    def __init__(self, module, cfg: tuple[int, ...], n: int, zlen: int = 64):
        import cupy as cp

        nt, by, v, _, _, self.ids, _, c = full(cfg)
        self.nt, self.by, self.n, self.zlen = nt, by, n, zlen
        self.kernel = module.get_function(name(cfg))
        hx, w = HX, 32 * v
        # a tile: a cluster's C blocks along y (one block where C is 1)
        self.own_x, self.own_y = w - 2 * hx, c * by - 2 * nt
        tiles_y = -(-n // self.own_y)
        self.grid = (-(-n // self.own_x), c * tiles_y, -(-n // zlen))
        self.origin = (8, nt, nt)
        # every cell the tiles read, halo and overshoot included, lies in the arrays
        nx = self.origin[0] - hx + (self.grid[0] - 1) * self.own_x + w
        self.px = -(-nx // 8) * 8
        self.py = self.origin[1] - nt + (tiles_y - 1) * self.own_y + c * by
        self.pz = self.origin[2] + self.grid[2] * zlen + nt
        npl = 2 + 4 * (nt - 1) + 2 * nt
        self.shared = (npl * w * (by + 2) + 16 * 18) * 4
        self.kernel.max_dynamic_shared_size_bytes = self.shared
        self.cp = cp

    def shape(self) -> tuple[int, int, int]:
        return (self.pz, self.py, self.px)

    def cell_ids(self, rng) -> np.ndarray:
        """The cells' ids as this configuration takes them (IDS: 0 and 1, every id 0; 2,
        ids of MATERIALS materials at random)."""
        if self.ids == 2:
            return rng.integers(0, MATERIALS, self.shape()).astype(np.uint8)
        return np.zeros(self.shape(), np.uint8)

    def launch(self, src, dst, cid) -> None:
        cp = self.cp
        ox, oy, oz = self.origin
        n = self.n
        self.kernel(self.grid, (32, self.by, 1), (*src, *dst, cid, cp.int32(self.px),
                    cp.int32(self.py), cp.int32(ox), cp.int32(oy), cp.int32(oz), cp.int32(n),
                    cp.int32(n), cp.int32(n), cp.int32(self.zlen)),
                    shared_mem=self.shared)


def materials() -> np.ndarray:
    """The table [id, E or H, component, coefficient] of MATERIALS materials at Courant 0.99 /
    sqrt 3 of 1 mm cells, signs as the curl takes them: row 0 a lossy background, then
    eps_r 4, a conductor, and an anisotropic eps_r (2, 3, 5)."""
    s = 0.99 / 3 ** 0.5
    tab = np.zeros((16, 2, 3, 3), np.float32)
    tab[:, 1] = [[1.0, -s / Z0, s / Z0]] * 3
    tab[:, 0] = [[1.0, s * Z0, -s * Z0]] * 3
    tab[0, 0, :, 0] = 0.999
    tab[1, 0, :, 1:] /= 4.0
    tab[2, 0, :, 0] = 0.9
    tab[2, 0, :, 1:] *= 0.95
    tab[3, 0, :, 1:] /= np.array([2.0, 3.0, 5.0], np.float32)[:, None]
    return tab


def set_materials(module, tab: np.ndarray) -> None:
    """Row 0 of the table as the one material (CE, CH), the whole table as TAB, into the
    module's constant memory."""
    import cupy as cp

    for name, c in (("CE", tab[0, 0]), ("CH", tab[0, 1]), ("TAB", tab)):
        mem = module.get_global(name)
        cp.ndarray((c.size,), cp.float32, mem).set(np.ascontiguousarray(c, np.float32).ravel())


def check(module, cfg: tuple[int, ...], tab: np.ndarray) -> float:
    """Relative L2 of lean3's box against NumPy, on a small grid."""
    import cupy as cp

    nt = cfg[0]
    p = Pass(module, cfg, 40, zlen=16)
    rng = np.random.default_rng(7)
    # E in V/m, H as E over the impedance of free space, as a wave's are
    f0 = [(rng.standard_normal(p.shape()) / (1.0 if q < 3 else Z0)).astype(np.float32)
          for q in range(6)]
    ids = p.cell_ids(rng)
    src = [cp.asarray(a) for a in f0]
    dst = [cp.zeros(p.shape(), cp.float32) for _ in range(6)]
    p.launch(src, dst, cp.asarray(ids))
    # each cell's coefficients, [component, coefficient, z, y, x]
    ce, ch = (np.moveaxis(tab[ids][..., f, :, :], (-2, -1), (0, 1)) for f in (0, 1))
    ref = reference(f0, ce, ch, nt)
    ox, oy, oz = p.origin
    box = (slice(oz, oz + 40), slice(oy, oy + 40), slice(ox, ox + 40))
    got = np.stack([cp.asnumpy(a)[box] for a in dst])
    want = np.stack([a[box] for a in ref])
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def copy_bandwidth(nbytes: int = 1 << 30) -> float:
    import cupy as cp

    a = cp.ones(nbytes // 4, cp.float32)
    b = cp.empty_like(a)
    b[...] = a
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(20):
        b[...] = a
    end.record()
    end.synchronize()
    return 2 * nbytes * 20 / (cp.cuda.get_elapsed_time(start, end) * 1e-3)


def main() -> None:
    import cupy as cp

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("n", type=int, nargs="?", default=512)
    p.add_argument("--passes", type=int, default=40)
    p.add_argument("--configs", nargs="+", default=[",".join(map(str, c)) for c in CONFIGS],
                   help="NT,BY,V,MB,TRIM,IDS,SHT[,C] each (steps a pass, rows a block, cells "
                   "a lane, blocks an SM at least, 1 to trim the halo rows' steps; IDS: 0 "
                   "none, 1 every id 0, 2 ids at random; SHT 1: the table in shared memory; C: "
                   "blocks a cluster along y, sm_90)")
    p.add_argument("--zlen", type=int, default=128, help="planes a z segment")
    p.add_argument("--nvrtc", default="", help="more compiler options, space-separated "
                   "(e.g. -DLEAN_CLUSTER_EDGE=1)")
    a = p.parse_args()
    try:
        wanted = [full(tuple(int(x) for x in c.split(","))) for c in a.configs]
    except ValueError as e:
        p.error(f"--configs: {e}")
    module = cp.RawModule(code=SRC, options=("-std=c++17", *a.nvrtc.split()),
                          name_expressions=list(dict.fromkeys(name(c) for c in wanted)))
    tab = materials()
    set_materials(module, tab)
    dev = cp.cuda.Device()
    card = cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()
    bw = copy_bandwidth()
    bound = bw / 48 / 1e6
    print(f"# {card}; copy bandwidth {bw / 1e9:.0f} GB/s; single-step bound {bound:,.0f} "
          f"Mcells/s (float32, 48 bytes a cell)" + (f"; {a.nvrtc}" if a.nvrtc else ""))
    print(f"{'NT':>2} {'BY':>3} {'V':>2} {'MB':>2} {'TR':>2} {'ID':>2} {'SH':>2} {'C':>1} "
          f"{'regs':>4} {'spill B':>7} {'shared kB':>9} {'rel L2':>8} {'ms/pass':>8} "
          f"{'Mcells/s':>9} {'x bound':>7}")
    for cfg in wanted:
        nt, by, v, mb, trim, ids, sht, c = cfg
        err = check(module, cfg, tab)
        pa = Pass(module, cfg, a.n, a.zlen)
        k = pa.kernel
        regs, spill = k.num_regs, k.local_size_bytes
        bufs = [[cp.zeros(pa.shape(), cp.float32) for _ in range(6)] for _ in range(2)]
        for b in bufs[0]:
            b[...] = cp.random.standard_normal(b.shape, dtype=cp.float32) * 1e-3
        cid = cp.asarray(pa.cell_ids(np.random.default_rng(1)))
        for q in range(4):
            pa.launch(bufs[q % 2], bufs[1 - q % 2], cid)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for q in range(a.passes):
            pa.launch(bufs[q % 2], bufs[1 - q % 2], cid)
        end.record()
        end.synchronize()
        ms = cp.cuda.get_elapsed_time(start, end) / a.passes
        rate = a.n ** 3 * nt / (ms * 1e-3) / 1e6
        print(f"{nt:>2} {by:>3} {v:>2} {mb:>2} {trim:>2} {ids:>2} {sht:>2} {c:>1} {regs:>4} "
              f"{spill:>7} {pa.shared / 1024:>9.1f} {err:>8.1e} {ms:>8.3f} {rate:>9,.0f} "
              f"{rate / bound:>7.2f}"
              + ("" if err < TOLERANCE else "  WRONG: its fields differ from NumPy's"),
              flush=True)
        del bufs, cid
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
