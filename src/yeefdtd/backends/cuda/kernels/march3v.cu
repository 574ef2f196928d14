// march3v: march3's pass without CPML terms (march.cu), with V consecutive cells along x
// per lane. A block is BY warps, each one row of a tile of 32 V x BY cells; it marches along
// z through a segment of planes with NT steps in flight, as march3 does, and writes the
// same values (the same operations on the same operands).
//
// Why: march3's pass is bound by the instructions it issues between its barriers (see
// "What bounds the pass" in march.cu), and most of a cell's instructions besides its
// arithmetic are per thread, not per cell: the plane loads and their 64-bit addresses, the
// shared stores and loads of the neighbours, the ownership and event tests, the barriers.
// With V cells a lane they are issued once for V cells (vector loads, stores and shared
// accesses of V values), the x neighbours inside a lane are registers and those of the
// lane's edge cells come by shuffles (no shared plane of Ey and Hy), and the tile overlaps
// its neighbours along x by HX = NT rounded up to whole lanes, a smaller share of 32 V.
//
// Neighbouring blocks: halo recomputation with double buffering, as in march3. Along x a
// shuffle brings the next lane's value; the last lane's is its own (wrong), so a lane's
// values go wrong one cell further in at each half step from each edge of the tile, which
// is why the overlap is at least NT cells a side.
//
// Shared planes (MODE 1 of MarchPlanes, for the components read across rows only): E of
// step 0 (ex, ez), E of steps 1 .. NT - 1 by parity of their plane (stored where computed,
// read an iteration later behind the iteration's first barrier), H of steps 1 .. NT (hx,
// hz): NT + 1 barriers an iteration. Rows -1 and BY stay zero (the halo rows read them).
//
// Tried and dropped (H100, 512 float32, NT 2, 200 steps; docs/performance.md, "Three changes to the
// pass tried and dropped"; each commit holds its code): tiles of 2 or 4 blocks in a
// cluster, the rows at block boundaries through distributed shared memory (b7dc00e;
// bitwise the same, without layers 64 508 and 61 062 Mcells/s against 69 930); the
// coefficients of rows of id 0 at fixed offsets (88140ea; bitwise the same, 67 353
// against 67 616); E of step 0 of the row above loaded from the source set, so that rows
// wait on the row above only for the iteration before (632b94c; 61 386 against 69 961);
// the planes read ahead by cp.async into a ring of 2-4 slots of shared memory (abc525e;
// bitwise the same, 65 338-66 751 against 69 913: the loads' cost is not their latency).
//
// Vector accesses need the lane's first cell at a multiple of V on rows whose pitch is one
// (the host pads rows to a multiple of 8 cells over 4-byte values, of 2 over 16-bit ones,
// March.pitches in variants.py); lanes off that alignment (a pass whose x origin is odd) or
// whose cells wrap around the grid's x ends load and store cell by cell.
//
// Whole sectors (AL): a warp that writes part of a 32-byte sector makes the L2 read the
// sector from DRAM to merge it. With AL, the tiles own 56 cells from a multiple of 8 (the
// overlap 4 cells a side, lane_halo), so over 4-byte values on rows of 8 cells every owned
// row is written as whole sectors; the first tile starts at the multiple of 8 at or before
// the box's x origin and owns only the cells from there. The host runs them where they take
// no more tiles along x (March.lane_sectors). H100, dipole-cpml's scene 512 float32, 64 x
// 16, 200 steps: the pass 1.771 -> 1.600 ms a step on the same rows.
// The unsigned integer type of N bytes: a lane's V ids, loaded as one word.
template <int N> struct Word;
template <> struct Word<1> { typedef unsigned char type; };
template <> struct Word<2> { typedef unsigned short type; };
template <> struct Word<4> { typedef unsigned type; };

// A lane's V cells of one plane as loaded: the six fields, the ids and the plane's flags.
// The ids stay in whole registers, as loaded, until the plane is used (ids(): the id of
// cell v in bits 8 sizeof(ID) v on): any instruction on a loaded id where it was loaded
// makes the warp wait there for the load. Nsight Compute (H100, pec-box 512, 64 x 16)
// found three such: unpacking the ids (a fifth of the pass's stall samples), packing the
// ids of lanes that load cell by cell (9.8%, the tiles at the grid's x ends: a fifth of
// the warps) and merging the id word into a register shared with the flags (3.5%).
// m[0] holds a vector load's V ids as one word; a lane loading cell by cell holds cell
// v's id in m[v].
template <typename S, typename ID, int V>
struct PlaneV {
    static_assert(V * sizeof(ID) <= 4, "march3v: the lane's ids must fit one word");
    typedef typename Word<V * sizeof(ID)>::type W;
    S f[6][V];
    unsigned m[V];
    unsigned flags;
    __device__ __forceinline__ unsigned ids() const {
        unsigned w = m[0];
#pragma unroll
        for (int v = 1; v < V; ++v) w |= m[v] << (8 * sizeof(ID) * v);
        return w;
    }
};

#ifndef MARCH_UNIFORM_ROW
#define MARCH_UNIFORM_ROW 0   // see "One material" below
#endif
#ifndef MARCH_IDS_ROW
#define MARCH_IDS_ROW -1   // see lean3v_one
#endif
#ifndef MARCH_LEAN_IDS
#define MARCH_LEAN_IDS 1   // see lean3v_one
#endif
#ifndef MARCH_LEAN_ROUND
#define MARCH_LEAN_ROUND 1   // see stored in lean3v_run
#endif
#ifndef MARCH_WP_SCALE
#define MARCH_WP_SCALE 1   // see wimage in lean3v_run
#endif

template <typename S, typename ID, int V, bool U = false>
__device__ __forceinline__ void load_planev(PlaneV<S, ID, V>& p, const S* const (&fld)[6],
                                            const ID* __restrict__ cid, idx_t row, int gi,
                                            int nx, bool vec, int kw) {
    if (vec) {
        const idx_t c = row + gi;
#pragma unroll
        for (int a = 0; a < 6; ++a) {
            const Pack<S, V> x = load<S, V>(fld[a], c);
#pragma unroll
            for (int v = 0; v < V; ++v) p.f[a][v] = x.v[v];
        }
        if constexpr (U) {   // V ids of row MARCH_UNIFORM_ROW in one word
            p.m[0] = 0u;
#pragma unroll
            for (int v = 0; v < V; ++v)
                p.m[0] |= (unsigned)MARCH_UNIFORM_ROW << (8 * sizeof(ID) * v);
        } else {
            p.m[0] = *reinterpret_cast<const typename PlaneV<S, ID, V>::W*>(cid + c);
        }
#pragma unroll
        for (int v = 1; v < V; ++v) p.m[v] = 0u;
    } else {
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const idx_t c = row + wrap_any(gi + v, nx);
#pragma unroll
            for (int a = 0; a < 6; ++a) p.f[a][v] = fld[a][c];
            p.m[v] = U ? (unsigned)MARCH_UNIFORM_ROW : (unsigned)cid[c];
        }
    }
    p.flags = c_events.plane_flags[kw];
}

template <typename ID>
__device__ __forceinline__ unsigned id_of(unsigned w, int v) {
    constexpr unsigned B = 8 * sizeof(ID);
    return (w >> (B * v)) & ((1u << B) - 1u);
}

// The sources of kind K (0 E, 1 H) at plane kw added to a lane's V cells f[component][v]
// (row: j nx, the cells' first key; gi: the first cell's x, wrapped here).
template <typename T, typename S, int K, int V>
__device__ __forceinline__ void lane_sources(int kw, int row, int gi, int nx, long long n,
                                             T (&f)[3][V]) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
        T c[3] = {f[0][v], f[1][v], f[2][v]};
        sources3<T, S, K>(kw, row + wrap_any(gi + v, nx), n, c);
#pragma unroll
        for (int a = 0; a < 3; ++a) f[a][v] = c[a];
    }
}

template <typename T, int V>
__device__ __forceinline__ void sstore(T* p, const T (&x)[V]) {
    Pack<T, V> q;
#pragma unroll
    for (int v = 0; v < V; ++v) q.v[v] = x[v];
    *reinterpret_cast<Pack<T, V>*>(p) = q;
}

// V values of T stored as S at p (narrowed where S is 16 bits), one access
template <typename T, typename S, int V>
__device__ __forceinline__ void gstore(S* p, const T (&x)[V]) {
    Pack<T, V> q;
#pragma unroll
    for (int v = 0; v < V; ++v) q.v[v] = x[v];
    storef<T, S, V>(p, 0, q);
}

template <typename T, int V>
__device__ __forceinline__ Pack<T, V> sload(const T* p) {
    return *reinterpret_cast<const Pack<T, V>*>(p);
}

// march3v's barriers: the block's (__syncthreads) or, in instances of one block per SM (MB
// <= 1), each warp's own mbarriers in shared memory, so that a warp waits only on the rows
// it reads (see RowSync in march.cu for why that pays there). Warp g arrives on E[g] when
// it has stored E of step 0 (once an iteration; warp g - 1 reads it) and on H[t][g] when it
// has stored H of step t (warp g + 1 reads it), and waits on E[g + 1] and H[t][g - 1]. Each
// barrier completes once an iteration, and no warp arrives on one twice before its reader
// waited: warp g - 1 arrives on H[t][g - 1] again only after it waited on E[g] of the next
// iteration, which warp g arrives on only after its own iteration (with its wait on
// H[t][g - 1]) is done; likewise for E. So one parity bit per barrier is enough. The same
// argument makes the shared planes safe to overwrite, and the E of steps 1 .. NT - 1 read an
// iteration later is visible behind the wait on E[g + 1].
//
// at: the shared address of E[g]; H[t][g] is at + 8 t BY. With KEEP it is taken through a
// shuffle, so that the compiler keeps it in a register: a shared variable's address on sm_90
// is the CTA's window (S2R SR_CgaCtaId) plus an offset, which ptxas otherwise computes again
// at every arrive and wait at the register cap, 5 to 8 instructions each. The pass keeps it
// in its AL instances only (see "Lean" above march3v).
template <int BY, int NT, bool ON, bool KEEP = false>
struct LaneSync {
    unsigned at;
    int g;
    unsigned par;   // bit 0: E's phase parity, bit t: H[t]'s
    bool lead;
    __device__ __forceinline__ LaneSync(unsigned long long* mem, int ty, int tx)
        : at(0u), g(ty), par(0u), lead(tx == 0) {
        if constexpr (ON) {
            const unsigned bar = (unsigned)__cvta_generic_to_shared(mem);
            const int q = ty * 32 + tx;
            if (q < (NT + 1) * BY) mbar_init(bar + 8u * q);
            at = KEEP ? __shfl_sync(0xffffffffu, bar + 8u * ty, 0) : bar + 8u * ty;
        }
    }
    // E of step 0 stored; H of step 1 may read the row above
    __device__ __forceinline__ void before_h() {
        if constexpr (ON) {
            __syncwarp();
            if (g > 0 && lead) mbar_arrive(at);
            if (g < BY - 1) mbar_wait(at + 8u, par & 1u);
            par ^= 1u;
        } else {
            __syncthreads();
        }
    }
    // H of step t stored; E of step t may read the row below
    __device__ __forceinline__ void before_e(int t) {
        if constexpr (ON) {
            __syncwarp();
            const unsigned h = at + 8u * (t * BY);
            if (g < BY - 1 && lead) mbar_arrive(h);
            if (g > 0) mbar_wait(h - 8u, (par >> t) & 1u);
            par ^= 1u << t;
        } else {
            __syncthreads();
        }
    }
};

// The overlap along x on each side of a tile W cells wide: NT cells rounded up to whole
// lanes, and with AL as much more as makes the owned width a multiple of 8 cells.
// Whether a lane of a tile of 32 V x BY cells (overlap HX cells along x, NT rows along y)
// lies in the tile's owned rows and lanes, its row gj within the box's bny rows from oy.
template <int NT, int V, int BY, int HX>
__device__ __forceinline__ bool owned_lane(int tx, int ty, int gj, int oy, int bny) {
    return ty >= NT && ty < BY - NT && gj - oy < bny && tx * V >= HX && tx * V < 32 * V - HX;
}

// Bit v set where the lane's cell v (from x = gi) lies in the box's bnx cells from ox.
template <int V>
__device__ __forceinline__ int owned_bits(int gi, int ox, int bnx) {
    int om = 0;
#pragma unroll
    for (int v = 0; v < V; ++v)
        if (gi + v - ox >= 0 && gi + v - ox < bnx) om |= 1 << v;
    return om;
}

template <int NT, int V, int W, bool AL>
__host__ __device__ constexpr int lane_halo() {
    int h = (NT + V - 1) / V * V;
    while (AL && (W - 2 * h) % 8 != 0) h += V;
    return h;
}

// One material (U): a block whose cells all hold id 0 (march.py makes the grid's most common
// combination of materials row 0 of the table) runs the pass instance that loads no ids and
// takes every coefficient at its fixed offset in row 0: constant operands of the arithmetic
// instead of indexed constant loads behind the id's load and unpacking, and no id in the
// pipeline's registers. The same operations on the same values, so the same bits. Which
// blocks may is found once per launch shape and box by march3v_one, from the ids each
// block's pass would load at its most steps (lane_ids_zero), one byte a block (one, indexed
// as the blocks are numbered; march.py). Tested in the pass itself (__syncthreads_and over
// the block's ids before its march), it made ptxas spill 16 to 48 bytes at 128 registers
// (NVCC for sm_90, every instance), and so did a test in a call; a byte loaded from memory
// at the kernel's start spills nothing in the AL instances. Those alone take it: in the
// others (tiles of 60) it spilled 8 bytes and the pass over 512^3 with PEC walls ran at
// 81 410 Mcells/s against 84 810 without it (H200, 2,64,16,64, 400 steps).
// -DMARCH_UNIFORM=0 (through $YEEFDTD_NVRTC_OPTIONS) runs every block on the general
// instance; -DMARCH_UNIFORM_ROW=r makes the pass of one material take row r instead of 0
// (wrong fields: for a test to tell that blocks ran it).
// H200, 512 float32, 2,64,16,64, 400 steps, with every cell taken as row 0 whatever its
// id (1b0b169, timing only; docs/perf/march3v-one-material-probe-h200-2026-11-27.txt): the
// pass over 512^3 1.61 -> 1.35 ms a step, 84 540 -> 101 200 Mcells/s; dipole-cpml's scene
// 65 670 -> 68 840 (the pass 1.275 -> 1.18-1.22 ms, the CPML boxes beside it unchanged).
// Built (docs/perf/march3v-one-material-h100-2026-11-28.txt), dipole-cpml's scene, where
// 81% of the blocks are of one material, the same launch and steps: H100 58 233 / 58 210 /
// 58 158 / 58 127 Mcells/s against 57 815 / 57 778 / 57 748 / 57 771 with -DMARCH_UNIFORM=0
// (+0.7%); every block on this pass whatever its ids (wrong fields, timing only) 59 199 /
// 59 281, so the pass of one material gains less in the kernel beside the general one than
// the probe's kernel without it; H200 66 967 / 66 998 against 65 543 / 65 661 (+2.1%).
#ifndef MARCH_UNIFORM
#define MARCH_UNIFORM 1
#endif

// Whether every id a lane's pass loads (planes k0 .. k1, as load_planev reads them) is 0.
template <typename ID, int V>
__device__ __forceinline__ bool lane_ids_zero(const ID* __restrict__ cid, idx_t row,
                                              idx_t plane, int gi, int nx, bool vec, int nz,
                                              int k0, int k1) {
    unsigned any = 0u;
    for (int k = k0; k <= k1; ++k) {
        const idx_t c = row + plane * wrap_any(k, nz);
        if (vec) {
            any |= *reinterpret_cast<const typename Word<V * sizeof(ID)>::type*>(cid + c + gi);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v) any |= cid[c + wrap_any(gi + v, nx)];
        }
    }
    return any == 0u;
}

// A lane's place in march3v's pass: lane3v_at finds it, march3v_run marches.
struct Lane3v {
    idx_t row, plane;
    long long n0;
    int gi, j, nx, ny, nz, px, nt, kstart, kend, zown, z1, om, src;
    bool vec, whole;
};

// A lane's place in march3v's pass of nt steps (FULL: NT) with tiles of BY rows of 32 V
// cells, over the box (ox, oy, oz) + (bnx, bny, bnz) in segments of zlen planes.
template <int NT, int V, int BY, bool AL, bool FULL>
__device__ __forceinline__ Lane3v lane3v_at(int nx, int ny, int nz, int px, int py, int nt,
                                          int zlen, int ox, int oy, int oz, int bnx, int bny,
                                          int bnz, int src, long long n0) {
    constexpr int W = 32 * V;                       // tile width, cells
    constexpr int HX = lane_halo<NT, V, W, AL>();   // overlap along x on each side
    const int tx = threadIdx.x, ty = threadIdx.y;
    Lane3v L;
    // AL: the tiles' owned cells start on multiples of 8 cells (32-byte sectors of 4-byte
    // values on rows pitched to 8 cells), the first tile from the one at or before ox
    L.gi = (AL ? ox - (ox & 7) : ox) + (int)blockIdx.x * (W - 2 * HX) + tx * V - HX;
    const int gj = oy + (int)blockIdx.y * (BY - 2 * NT) + ty - NT;
    L.j = wrap_any(gj, ny);
    L.vec = L.gi % V == 0 && L.gi >= 0 && L.gi + V <= nx && px % V == 0;
    // owned cells of the lane, om: without AL, v < om (a lane owns all of its cells or, at
    // the box's x end, the first few); with AL, bit v of om (also the last few, in the
    // first tile, which starts before the box)
    L.om = 0;
    if (ty >= NT && ty < BY - NT && gj - oy < bny && tx * V >= HX && tx * V < W - HX) {
        if constexpr (AL) {   // (owned_bits, written out: the instances' code as measured)
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (L.gi + v - ox >= 0 && L.gi + v - ox < bnx) L.om |= 1 << v;
        } else {
            L.om = max(0, min(V, bnx - (L.gi - ox)));
        }
    }
    L.whole = AL ? L.om == (1 << V) - 1 : L.om == V;   // every cell of the lane
    const int z0 = oz + (int)blockIdx.z * zlen;
    L.z1 = min(oz + bnz, z0 + zlen);
    L.zown = L.om ? z0 : L.z1;
    L.row = (idx_t)px * L.j;
    L.plane = (idx_t)px * py;
    L.nt = FULL ? NT : nt;   // see FULL above march3v
    L.kstart = z0 - L.nt;
    L.kend = L.z1 + L.nt - 2;
    L.nx = nx; L.ny = ny; L.nz = nz; L.px = px; L.src = src; L.n0 = n0;
    return L;
}

// march3v_one: one byte a block of march3v's launch over the same box with the same shape,
// 1 where every id the block's pass of NT steps loads is 0 (a pass of fewer steps loads a
// part of those).
template <typename T, typename S, typename ID, bool CT, int NT, int V, int BY, int MB = 0,
          bool AL = false, bool FULL = false>
__global__ void __launch_bounds__(32 * BY)
march3v_one(const ID* __restrict__ cid, int nx, int ny, int nz, int px, int py, int zlen,
            int ox, int oy, int oz, int bnx, int bny, int bnz, unsigned char* __restrict__ one) {
    const Lane3v L = lane3v_at<NT, V, BY, AL, true>(nx, ny, nz, px, py, NT, zlen, ox, oy, oz,
                                                    bnx, bny, bnz, 0, 0);
    const bool zero = lane_ids_zero<ID, V>(cid, L.row, L.plane, L.gi, nx, L.vec, nz, L.kstart,
                                           L.kend + 1);
    if (__syncthreads_and(zero) && threadIdx.x == 0 && threadIdx.y == 0)
        one[blockIdx.x + gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z)] = 1;
}

// march3v's march along z for one lane (the kernel's pass; U: see "One material" above).
// lp: the lane's cells in a shared plane (see the kernel).
template <typename T, typename S, typename ID, bool CT, int NT, int V, int BY, bool AL,
          bool U, class Sync, class LP>
__device__ __forceinline__ void march3v_run(const Lane3v& L, const S* const (&fld)[6],
                                            S* const (&outs)[6], const ID* __restrict__ cid,
                                            const T* __restrict__ gtab, T* sh, Sync& sync,
                                            LP lp) {
    constexpr int W = 32 * V;                       // tile width, cells
    constexpr int SP = W * (BY + 2);                // a shared plane: rows -1 .. BY
    constexpr int E1 = 2, HP = E1 + 4 * (NT - 1);   // see the kernel
    const idx_t row = L.row, plane = L.plane;
    const long long n0 = L.n0;
    const int gi = L.gi, j = L.j, nx = L.nx, ny = L.ny, nz = L.nz, px = L.px, nt = L.nt;
    const int kstart = L.kstart, kend = L.kend, zown = L.zown, z1 = L.z1, om = L.om;
    const int src = L.src;
    const bool vec = L.vec, whole = L.whole;
    const auto owns = [&](int v) { return AL ? (om >> v & 1) != 0 : v < om; };
    T en[NT + 1][3][V], eo[NT + 1][3][V], hn[NT + 1][3][V], ho[NT + 1][3][V];
    unsigned mw[NT + 1];
    int fl[NT + 1];
#pragma unroll
    for (int t = 0; t <= NT; ++t) {
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v) en[t][a][v] = eo[t][a][v] = hn[t][a][v] = ho[t][a][v] = T(0);
        mw[t] = 0u;
        fl[t] = 0;
    }
    T slot[3][2][2];   // unused: no CPML terms (curl3's argument)
    PlaneV<S, ID, V> next;
    {
        const int kw = wrap_any(kstart, nz);
        PlaneV<S, ID, V> p;
        load_planev<S, ID, V, U>(p, fld, cid, row + plane * kw, gi, nx, vec, kw);
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                en[0][a][v] = Conv<T, S>::widen(p.f[a][v]);
                hn[0][a][v] = Conv<T, S>::widen(p.f[a + 3][v]);
            }
        mw[0] = p.ids();
        fl[0] = p.flags;
        const int kw1 = wrap_any(kstart + 1, nz);
        load_planev<S, ID, V, U>(next, fld, cid, row + plane * kw1, gi, nx, vec, kw1);
    }
    __syncthreads();
    for (int s = kstart; s <= kend; ++s) {
#pragma unroll
        for (int t = NT; t > 0; --t) {
            mw[t] = mw[t - 1];
            fl[t] = fl[t - 1];
        }
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                eo[0][a][v] = en[0][a][v];
                ho[0][a][v] = hn[0][a][v];
                en[0][a][v] = Conv<T, S>::widen(next.f[a][v]);
                hn[0][a][v] = Conv<T, S>::widen(next.f[a + 3][v]);
            }
        mw[0] = next.ids();
        fl[0] = next.flags;
        if (s < kend) {
            const int kw2 = wrap_any(s + 2, nz);
            load_planev<S, ID, V, U>(next, fld, cid, row + plane * kw2, gi, nx, vec, kw2);
        }
#pragma unroll
        for (int t = 1; t <= NT; ++t) {
            if (t > nt) break;
            const int k = s - t + 1;
            if (k < kstart) continue;
            const int kw = wrap_any(k, nz);
            const long long n = n0 + t - 1;
            const bool first = t == 1, last = t == nt;
            const bool own = k >= zown && k < z1;
            const int flags = fl[t];
            // ---- H of step t at plane k, from E of step t - 1 at planes k, k + 1
            T* const sE = sh + (t == 1 ? 0 : E1 + 4 * (t - 2) + 2 * (k & 1)) * SP;
            T* const sH = sh + (HP + 2 * (t - 1)) * SP;
            if (t == 1) {
                sstore<T, V>(lp(sE), eo[0][0]);
                sstore<T, V>(lp(sE + SP), eo[0][2]);
                sync.before_h();
            }
            T h[3][V];
            {
                const Pack<T, V> exu = sload<T, V>(lp(sE) + W), ezu = sload<T, V>(lp(sE + SP) + W);
                const T eyr = __shfl_down_sync(0xffffffffu, eo[t - 1][1][0], 1);
                const T ezr = __shfl_down_sync(0xffffffffu, eo[t - 1][2][0], 1);
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const T ex = eo[t - 1][0][v], ey = eo[t - 1][1][v], ez = eo[t - 1][2][v];
                    const T eyx = v + 1 < V ? eo[t - 1][1][v + 1] : eyr;
                    const T ezx = v + 1 < V ? eo[t - 1][2][v + 1] : ezr;
                    const T d[3][2] = {{ezu.v[v] - ez, en[t - 1][1][v] - ey},   // dEz/dy, dEy/dz
                                       {en[t - 1][0][v] - ex, ezx - ez},        // dEx/dz, dEz/dx
                                       {eyx - ey, exu.v[v] - ex}};              // dEy/dx, dEx/dy
                    const T old[3] = {ho[t - 1][0][v], ho[t - 1][1][v], ho[t - 1][2][v]};
                    T out[3];
                    curl3<T, S, CT, 0>(gtab, crow<T, 6>(id_of<ID>(mw[t], v)), 3, old, d, false,
                                       false, false, src, 0, j, kw, ny, px, first, last, own,
                                       slot, out, nullptr);
                    if (!AL && (flags & PLANE_SRC_H))
                        sources3<T, S, 1>(kw, j * nx + wrap_any(gi + v, nx), n, out);
#pragma unroll
                    for (int a = 0; a < 3; ++a) h[a][v] = out[a];
                }
                if (AL && (flags & PLANE_SRC_H))   // out of the loop: one test per half step
                    lane_sources<T, S, 1, V>(kw, j * nx, gi, nx, n, h);
            }
            sstore<T, V>(lp(sH), h[0]);
            sstore<T, V>(lp(sH + SP), h[2]);
            sync.before_e(t);
            // ---- E of step t at plane k, from H of step t at planes k, k - 1
            T e[3][V];
            {
                const Pack<T, V> hxd = sload<T, V>(lp(sH) - W), hzd = sload<T, V>(lp(sH + SP) - W);
                const T hyl = __shfl_up_sync(0xffffffffu, h[1][V - 1], 1);
                const T hzl = __shfl_up_sync(0xffffffffu, h[2][V - 1], 1);
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const T hyx = v > 0 ? h[1][v - 1] : hyl;
                    const T hzx = v > 0 ? h[2][v - 1] : hzl;
                    const T d[3][2] = {{h[2][v] - hzd.v[v], h[1][v] - hn[t][1][v]},   // dHz/dy, dHy/dz
                                       {h[0][v] - hn[t][0][v], h[2][v] - hzx},        // dHx/dz, dHz/dx
                                       {h[1][v] - hyx, h[0][v] - hxd.v[v]}};          // dHy/dx, dHx/dy
                    const T old[3] = {eo[t - 1][0][v], eo[t - 1][1][v], eo[t - 1][2][v]};
                    T out[3];
                    curl3<T, S, CT, 0>(gtab, crow<T, 6>(id_of<ID>(mw[t], v)), 0, old, d, false,
                                       false, false, src, 0, j, kw, ny, px, first, last, own,
                                       slot, out, nullptr);
                    if (!AL && (flags & PLANE_SRC_E))
                        sources3<T, S, 0>(kw, j * nx + wrap_any(gi + v, nx), n, out);
#pragma unroll
                    for (int a = 0; a < 3; ++a) e[a][v] = out[a];
                }
                if (AL && (flags & PLANE_SRC_E))   // out of the loop: one test per half step
                    lane_sources<T, S, 0, V>(kw, j * nx, gi, nx, n, e);
            }
            if (t < NT) {   // for H of step t + 1 at this plane, an iteration on
                T* const eb = sh + (E1 + 4 * (t - 1) + 2 * (k & 1)) * SP;
                sstore<T, V>(lp(eb), e[0]);
                sstore<T, V>(lp(eb + SP), e[2]);
            }
#pragma unroll
            for (int a = 0; a < 3; ++a)
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    ho[t][a][v] = hn[t][a][v]; hn[t][a][v] = h[a][v];
                    eo[t][a][v] = en[t][a][v]; en[t][a][v] = e[a][v];
                }
            if (own) {
                if (flags & PLANE_PROBE) {
#pragma unroll
                    for (int v = 0; v < V; ++v)
                        if (owns(v)) {
                            const T ev[3] = {e[0][v], e[1][v], e[2][v]};
                            const T hv[3] = {h[0][v], h[1][v], h[2][v]};
                            probes3<T>(kw, j * nx + wrap_any(gi + v, nx), n, ev, hv);
                        }
                }
                if (last) {
                    const idx_t c = row + plane * kw;
                    S* const (&out)[6] = outs;
                    if (vec && whole) {
#pragma unroll
                        for (int a = 0; a < 3; ++a) {
                            Pack<T, V> x, y;
#pragma unroll
                            for (int v = 0; v < V; ++v) { x.v[v] = e[a][v]; y.v[v] = h[a][v]; }
                            storef<T, S, V>(out[a], c + gi, x);
                            storef<T, S, V>(out[a + 3], c + gi, y);
                        }
                    } else {
#pragma unroll
                        for (int v = 0; v < V; ++v)
                            if (owns(v)) {
                                const idx_t cv = c + wrap_any(gi + v, nx);
#pragma unroll
                                for (int a = 0; a < 3; ++a) {
                                    storef<T, S, 1>(out[a], cv, Pack<T, 1>{{e[a][v]}});
                                    storef<T, S, 1>(out[a + 3], cv, Pack<T, 1>{{h[a][v]}});
                                }
                            }
                    }
                }
            }
        }
    }
}

// Lean: the AL instances keep the mbarriers' address (LaneSync's KEEP) and the lane's place
// in the shared planes (shm) in registers, and test a half step's source flag once for the
// lane's V cells, not once a cell; the others (tiles of 60, as pec-box's) keep the code
// before, which those ran faster (126 registers against 127-128 with the changes). H100, 512
// float32, 2,64,16,64, 500 steps (docs/perf/march3v-lean-h100-2026-11-26.txt): dipole-cpml
// (AL) 57 137 / 57 151 -> 58 250 / 58 164 Mcells/s; pec-box (not AL) with the first two
// changes 77 757 -> 75 727. Bit for bit the same fields either way. Tried and dropped: plane
// s + 1's H, ids and flags loaded an iteration later than its E, so that they skip hn[0],
// mw[0] and fl[0] (126 registers, 10 moves fewer an iteration; dipole-cpml 57 890, pec-box
// 77 260 against 78 350).
//
// FULL: every pass takes NT steps (as march2's FULL: the host launches it for those passes
// and the instance without it for shorter ones). Used with AL only (MarchStepper.full_pass):
// H100, 512 float32, 2,64,16,64, 500 steps, the switch compiled in and out in the same
// rounds (docs/perf/march3v-full-passes-h100-2026-11-26.txt): dipole-cpml (AL) 55 048 /
// 55 180 -> 56 762 / 56 774 Mcells/s; pec-box (tiles of 60, not AL) 77 793 / 77 786 ->
// 75 337 / 75 281, 126 registers -> 128.
//
// The bytes of march3v's shared planes (see the kernel), and whether they go in dynamic
// shared memory: where they and the barriers would pass the 48 kB of static shared memory
// (3 steps a pass, rows of 12: 57 344 bytes).
// The shared planes of march3v's and lean3v's march of NT steps (the x and z components):
// E of step 0, E of steps 1 .. NT - 1 by the parity of their plane, H of steps 1 .. NT.
template <int NT>
__host__ __device__ constexpr int march_planes() {
    return 2 + 4 * (NT - 1) + 2 * NT;
}
template <typename T, int NT, int V, int BY>
__host__ __device__ constexpr int march3v_plane_bytes() {
    return march_planes<NT>() * 32 * V * (BY + 2) * (int)sizeof(T);
}
template <typename T, int NT, int V, int BY>
__host__ __device__ constexpr bool march3v_dynamic() {
    return march3v_plane_bytes<T, NT, V, BY>() + 8 * (NT + 1) * BY > 48 * 1024;
}

// LEAN: the blocks whose byte in ``one`` is set return at once (lean3v, below, runs their
// tiles); the others run the general pass (no pass of one material).
template <typename T, typename S, typename ID, bool CT, int NT, int V, int BY, int MB = 0,
          bool AL = false, bool FULL = false, bool LEAN = false>
__global__ void __launch_bounds__(32 * BY, MB)
march3v(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
        const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
        S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
        S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
        const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz,
        int px, int py, int nt, int zlen, int ox, int oy, int oz, int bnx, int bny, int bnz,
        int src, long long n0, const unsigned char* __restrict__ one) {
    constexpr int W = 32 * V;                       // tile width, cells
    constexpr int SP = W * (BY + 2);                // a shared plane: rows -1 .. BY
    // shared planes (see above): E of step 0 at 0, E of steps 1 .. NT - 1 from E1, H from HP
    constexpr int E1 = 2, HP = E1 + 4 * (NT - 1), NPL = march_planes<NT>();
    // read first: later, it made ptxas spill 4 bytes in the AL instances (see "One material")
    const bool uni = (LEAN || MARCH_UNIFORM) && AL && one != nullptr &&
        one[blockIdx.x + gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z)];
    if (LEAN && uni) return;
    // the planes in dynamic shared memory where they and the barriers pass 48 kB (the host
    // sets the launch's bytes: lean_bytes in march.py)
    T* sh;
    if constexpr (march3v_dynamic<T, NT, V, BY>()) {
        extern __shared__ __align__(16) unsigned char march3v_mem[];
        sh = reinterpret_cast<T*>(march3v_mem);
    } else {
        __shared__ __align__(16) T planes[NPL * SP];
        sh = planes;
    }
    const int tx = threadIdx.x, ty = threadIdx.y;
    __shared__ unsigned long long sync_words[(NT + 1) * BY];
    LaneSync<BY, NT, MARCH_ROW_SYNC && MB <= 1 && BY >= 2, AL> sync(sync_words, ty, tx);
    const int me = (ty + 1) * W + tx * V;
    for (int q = ty * 32 + tx; q < NPL * SP; q += 32 * BY) sh[q] = T(0);
    // the lane's cells in a shared plane p (sh + p SP): lp(sh + p SP). With AL, from the
    // lane's place in plane 0 kept in a register, as LaneSync's KEEP keeps the mbarriers'
    T* const shm = !AL ? sh : static_cast<T*>(__cvta_shared_to_generic(__shfl_sync(
        0xffffffffu, (unsigned)__cvta_generic_to_shared(sh + me), tx)));
    const auto lp = [&](T* p) { return AL ? shm + (p - sh) : p + me; };
    const Lane3v lane = lane3v_at<NT, V, BY, AL, FULL>(nx, ny, nz, px, py, nt, zlen, ox, oy, oz,
                                                       bnx, bny, bnz, src, n0);
    const S* const fld[6] = {ex0, ey0, ez0, hx0, hy0, hz0};
    S* const outs[6] = {ex1, ey1, ez1, hx1, hy1, hz1};
    if constexpr (!LEAN) {   // (LEAN: those blocks returned above)
        if (uni) {
            march3v_run<T, S, ID, CT, NT, V, BY, AL, true>(lane, fld, outs, cid, gtab, sh, sync,
                                                           lp);
            return;
        }
    }
    march3v_run<T, S, ID, CT, NT, V, BY, AL, false>(lane, fld, outs, cid, gtab, sh, sync, lp);
}

// ---------------------------------------------------------------------------- lean3v
// lean3v: march3v's march with nothing but the update, for the blocks of a pass that need
// nothing else: every id their pass loads is 0 (row 0 of the table: the grid's most common
// combination of materials, whose coefficients are constant operands), no source or probe
// lies in the cells they compute, and none of those cells wraps around the grid's ends (see
// lean3v_one); every pass NT steps. The same tiles as march3v's whole-sector instance of NT
// steps and 32 x BY threads (the first tile from the multiple of 8 at or before the box's x
// origin, the overlap lane_halo<NT, V, 32 V, true>() cells along x and NT rows along y), so
// that the blocks of the two partition the box: the host finds which blocks may
// (lean3v_one) and runs the others on march3v with LEAN, over tiles of fewer rows whose
// owned rows split these (see MarchStepper in march.py).
//
// Why: march3v issues about 225 lane slots an owned cell-step, of which the update's
// arithmetic is a fifth; the rest is its generality and its pipeline (the planes of every
// step copied from one iteration's registers to the next). This pass keeps, for each step
// t < NT, E and H of its last plane, and for step NT the x and y components of H: 20
// values a cell at NT = 3 against march3v's 96 of en/eo/hn/ho, so that 3 steps fit 80
// registers and 24 rows (768 threads) run. Measured as benchmarks/lean_pass.py's lean3
// (H200, 512^3 float32 without layers, one material, segments of 128): 3 steps and 24 rows
// 177 195 Mcells/s, 1.99 times the single-step bound; march3v's pass 84 687.
// Shared planes (dynamic: 16 of 64 x 26 floats, 106 496 bytes at NT 3, BY 24; the x and
// z components, rows -1 .. BY): E of step 0, E of steps 1 .. NT - 1 by the parity of their
// plane (written where computed, read an iteration later), H of steps 1 .. NT. Rows -1
// and BY stay zero. Neighbouring blocks: halo recomputation, as march3v.
// The same operations on the same operands as march3v's pass of one material (curl3: C0
// old + C1 d0 + C2 d1, with the differences in the same order).
// An axis as a type, for the generic lambdas that take one face axis at a time (A: a
// compile-time constant inside them).
template <int N> struct Ax { static constexpr int value = N; };

// FM: the terms of the CPML faces normal to the axes of mask FM (1 x, 2 y, 4 z) as well
// (lean3f, below); 0 none (lean3v). Along x with FM & 1 (one cell a lane, V = 1) and along
// y with FM & 2 the tile's cells wrap around the grid's ends as march3's do; along z with
// FM & 4 the planes off the grid's ends are not loaded but taken as zero. Tiles of one cell
// a lane (V = 1) overlap by NT cells; those of 2 are lean3v's. ZW: the axes (none of FM's)
// along which a box's cone crosses an end of the grid without a CPML layer, a wall's
// (lean3f, MarchStepper._lean_face_zw): along z (4) the planes off the grid are taken as
// zero, no face's auxiliary value is read there, and each plane's zmask byte is kept, as
// with FM & 4; along x (1) and y (2) a lane off the grid reads the grid's first cells
// instead (as WL's), each cell's column's and row's zmask bytes are kept, and every
// component off the grid is set to zero after each half step.
template <typename T, typename S, typename ID, bool CT, int NT, int V, int BY, bool EDGE,
          int FM = 0, bool IDS = false, bool WL = false, int WP = 0, int ZW = 0>
__device__ __forceinline__ void
lean3v_run(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
           const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
           S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
           S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
           const T* __restrict__ gtab, int px, int py, int ox, int oy, int bnx, int bny,
           int z0, int z1, int nx = 0, int ny = 0, int nz = 0, int src = 0,
           const unsigned char* __restrict__ zmask = nullptr,
           const ID* __restrict__ cid = nullptr, int rows = 0) {
    static_assert(sizeof(T) == 4 && (sizeof(S) == 4 || sizeof(S) == 2),
                  "lean3v: float arithmetic, fields of float or half_t");
    static_assert(FM >= 0 && FM <= 7, "lean3v: a mask of face axes");
    static_assert(!(FM & 1) || V == 1, "lean3v: the x faces' terms take one cell a lane");
    constexpr bool ZF = FM != 0;   // with faces' terms
    constexpr int W = 32 * V, SP = W * (BY + 2);
    // (tiles of one cell a lane overlap by NT cells)
    constexpr int HX = lane_halo<NT, V, W, V != 1>();
    constexpr int E1 = 2, HP = E1 + 4 * (NT - 1), NPL = march_planes<NT>();
    static_assert(V == 2 || !EDGE, "lean3v: EDGE stores lanes of 2 cells");
    static_assert(!IDS || (FM == 0 && !EDGE), "lean3v: the ids' march takes whole lanes");
    static_assert(!WL || (FM == 0 && !EDGE && !IDS && V == 2),
                  "lean3v: the walls' march takes whole lanes of 2, no faces' terms, no ids");
    static_assert(WP == 0 || (WP <= 7 && (WL || (WP & ~(ZW | FM)) == 0)),
                  "lean3v: a PMC wall's doubled differences are the masks' along their axes");
    static_assert(ZW == 0 || (FM != 0 && (ZW & FM) == 0 && ZW <= 7 && !WL),
                  "lean3v: the walls' masks of a CPML box are along axes without its terms");
    constexpr bool ZZ = (FM & 4) != 0 || (ZW & 4) != 0;   // planes off the z ends zero
    constexpr bool ZX = (ZW & 1) != 0, ZY = (ZW & 2) != 0;
    extern __shared__ __align__(16) unsigned char lean_mem[];
    T* const sh = reinterpret_cast<T*>(lean_mem);
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int q = ty * 32 + tx; q < NPL * SP; q += 32 * BY) sh[q] = T(0);
    // IDS: the table's rows (6 components x 3 columns each, as crow lays them out) copied
    // after the planes, where lanes of different ids are served at once (constant memory
    // serves one address at a time), after the ids' ring (below), so that both lie at
    // offsets known when compiling: the march with ids then spills 24 bytes rather than 28
    // (NVCC 13.0 for sm_90), 12 local loads and stores an iteration rather than 14, and
    // with its planes addressed from cur its loop counts 490 instructions rather than 524
    // (the ring after a table of ``rows`` rows: 18 local loads and stores)
    typedef typename Word<V * sizeof(ID)>::type IW;
    constexpr int RING = (NT + 1) * 32 * BY * (int)sizeof(IW);
    static_assert(RING % sizeof(T) == 0, "lean3v: the table after the ring, aligned");
    T* const st = sh + NPL * SP + RING / (int)sizeof(T);
    if constexpr (IDS)
        for (int q = ty * 32 + tx; q < 18 * rows; q += 32 * BY)
            st[q] = tab_at<T, CT>(gtab, (unsigned)(q * sizeof(T)));
    const int gi = V == 1 ? ox + (int)blockIdx.x * (W - 2 * HX) + tx - HX
                          : ox - (ox & 7) + (int)blockIdx.x * (W - 2 * HX) + V * tx - HX;
    const int gj = oy + (int)blockIdx.y * (BY - 2 * NT) + ty - NT;
    // owned cells of the lane (bit v), as march3v's whole-sector tiles own them: at the box's
    // x ends a lane may own one of its 2 cells (a box's x end on an odd cell: dipole-cpml
    // 512 at 3 steps, x from 13, so that the x boxes are 26 cells thick, one tile of 32
    // each). The blocks with such lanes (byte 2, see lean3v_one) run the march with EDGE,
    // which stores cell by cell, each cell where its bit is set; the others (byte 1) store
    // a lane's cells as one 8-byte access. H200, dipole-cpml 512 float32, 3,64,24,64, ms a
    // step: one march storing a lane's 2 cells as one access where it owns both and cell by
    // cell otherwise made ptxas (NVCC for sm_90) spill 8 bytes, reloaded once an iteration
    // behind the next plane's loads (a load from local memory waits with them): lean3v
    // 0.965 against 0.615 at x from 14 with whole lanes only; every lane cell by cell (two
    // 4-byte stores a component): 0.765; EDGE as an instance of its own, launched after
    // the other (11% of the blocks, 216 on 132 SMs): 0.528 + 0.143.
    const int om = owned_lane<NT, V, BY, HX>(tx, ty, gj, oy, bny) ? owned_bits<V>(gi, ox, bnx)
                                                                  : 0;
    const idx_t pl = (idx_t)px * py;
    const int kstart = z0 - NT, kend = z1 + NT - 2;
    // gx, gy: the lane's first cell and row in the arrays (wrapped along x with FM & 1 and
    // along y with FM & 2; otherwise no cell wraps, the host's choice; WL: a lane off the
    // grid reads the grid's first two cells instead, whatever they hold: every value
    // computed from them is off the grid or a component kept zero, see WL in lean3v, so
    // that its loads need no test: with one, ptxas spilled 20 bytes at 80 registers)
    const bool lin = !WL || (gi >= 0 && gi < nx && gj >= 0 && gj < ny);
    // (ZW along x or y: a lane off the grid along that axis reads its first column or row)
    const int gx = (FM & 1) ? (gi < 0 ? gi + nx : (gi >= nx ? gi - nx : gi))
                            : (lin ? (ZX && !(gi >= 0 && gi < nx) ? 0 : gi) : 0);
    const int gy = (FM & 2) ? (gj < 0 ? gj + ny : (gj >= ny ? gj - ny : gj))
                            : (lin ? (ZY && !(gj >= 0 && gj < ny) ? 0 : gj) : 0);
    const idx_t c0 = (idx_t)gy * px + gx + pl * kstart;
    const auto on = [&](int p) { return !(ZZ || WL) || (p >= 0 && p < nz); };
    // WL (the walls' march, see WL in lean3v below): wz, the lane's cells' components kept
    // zero by their column and row, cell v's at bits 8 v .. 8 v + 5 (bits 0-2 E, 3-5 H),
    // every one off the grid; and their differences doubled (a PMC wall's image), cell v's
    // along x (the column's bits 6-7) at bits 16 + 4 v, along y (the row's) at 18 + 4 v
    unsigned wz = 0u;
    if constexpr (WL) {
        const unsigned r = gj >= 0 && gj < ny ? (unsigned)__ldg(zmask + nx + gj) : 63u;
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const int i = gi + v;
            const unsigned c = i >= 0 && i < nx ? (unsigned)__ldg(zmask + i) : 63u;
            wz |= ((c | r) & 63u) << (8 * v) | ((c >> 6) | (r >> 6) << 2) << (16 + 4 * v);
        }
    }
    // ZW along x or y: the lane's cells' components kept zero by their column (ZX) and row
    // (ZY), cell v's at bits 8 v .. 8 v + 5, every one off the grid (see zw below); with WP
    // their differences doubled, as wz's
    unsigned zxy = 0u;
    if constexpr (ZX || ZY) {
        const unsigned r = ZY ? (gj >= 0 && gj < ny ? (unsigned)__ldg(zmask + nx + gj) : 63u)
                              : 0u;
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const int i = gi + v;
            const unsigned c = ZX ? (i >= 0 && i < nx ? (unsigned)__ldg(zmask + i) : 63u) : 0u;
            zxy |= ((c | r) & 63u) << (8 * v);
            if constexpr (WP != 0) zxy |= ((c >> 6) | (r >> 6) << 2) << (16 + 4 * v);
        }
    }
    const S* const in[6] = {ex0 + c0, ey0 + c0, ez0 + c0, hx0 + c0, hy0 + c0, hz0 + c0};
    S* const out[6] = {ex1 + c0, ey1 + c0, ez1 + c0, hx1 + c0, hy1 + c0, hz1 + c0};
    T* const me = sh + (ty + 1) * W + V * tx;
    // row 0's coefficients, component c (E 0-2, H 3-5), column q (MARCH_UNIFORM_ROW: see
    // "One material" above; another row gives wrong fields, for a test to tell that blocks
    // ran this pass)
    const auto co = [&](int c, int q) {
        return cf<T, CT>(gtab, crow<T, 6>(MARCH_UNIFORM_ROW), c, q);
    };
    // IDS: the coefficient of the cell of id ``id`` from the table's copy (otherwise row 0's;
    // MARCH_IDS_ROW: see lean3v_one)
    const auto cq = [&](unsigned id, int c, int q) {
        if constexpr (IDS) {
            const unsigned r = MARCH_IDS_ROW >= 0 ? (unsigned)MARCH_IDS_ROW : id;
            return st[r * 18u + (unsigned)(c * 3 + q)];
        } else {
            return co(c, q);
        }
    };
    // IDS: the ids of the lane's V cells as one word; those of plane k in the lane's slot k
    // mod NT + 1 of a ring in shared memory after the planes (written and read by the lane
    // alone: in registers, 4 words at NT 3, ptxas spilled 48 bytes at 80 registers), mx
    // plane s + 2's, loaded an iteration ahead with its fields. The steps' planes before
    // kstart (whose values reach no owned cell) take id 0: kstart >= 0 (lean3v_one), so
    // k + NT + 1 > 0 for every plane k a step computes.
    IW* const ring = reinterpret_cast<IW*>(sh + NPL * SP) + ty * 32 + tx;
    const auto slot = [&](int k) { return ((k + NT + 1) % (NT + 1)) * 32 * BY; };
    unsigned mx = 0u;
    if constexpr (IDS) {
#pragma unroll
        for (int q = 0; q <= NT; ++q) ring[q * 32 * BY] = IW(0);
        ring[slot(kstart)] = *reinterpret_cast<const IW*>(cid + c0);
        mx = *reinterpret_cast<const IW*>(cid + c0 + pl);
    }
    const auto mt = [&](int k) -> unsigned { return ring[slot(k)]; };
    // e[t], h[t]: E and H of step t at its last plane (step t's plane at iteration s is
    // s - t + 1); nxt: plane s + 2 of step 0, loaded an iteration ahead
    T e[NT][3][V], h[NT + 1][3][V], nxt[6][V];
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
        for (int v = 0; v < V; ++v) {
#pragma unroll
            for (int t = 0; t < NT; ++t) e[t][a][v] = T(0);
#pragma unroll
            for (int t = 0; t <= NT; ++t) h[t][a][v] = T(0);
        }
    if (on(kstart)) {
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            const Pack<T, V> x = loadf<T, S, V>(in[a], 0), y = loadf<T, S, V>(in[a + 3], 0);
#pragma unroll
            for (int v = 0; v < V; ++v) { e[0][a][v] = x.v[v]; h[0][a][v] = y.v[v]; }
        }
    }
#pragma unroll
    for (int a = 0; a < 6; ++a) {
        Pack<T, V> x;
        if (on(kstart + 1)) x = loadf<T, S, V>(in[a], pl);
        else {
#pragma unroll
            for (int v = 0; v < V; ++v) x.v[v] = T(0);
        }
#pragma unroll
        for (int v = 0; v < V; ++v) nxt[a][v] = x.v[v];
    }
    // the face axes of FM in order (x, y, z: the order of curl3's terms, so the same
    // roundings), each as Ax<A>
    const auto each_axis = [&](auto body) {
        if constexpr ((FM & 1) != 0) body(Ax<0>{});
        if constexpr ((FM & 2) != 0) body(Ax<1>{});
        if constexpr ((FM & 4) != 0) body(Ax<2>{});
    };
    // ZF: the auxiliary values of axis A's faces, [A][h][w][v] (h: 0 E, 1 H; w: psi1 of
    // component P = A + 1, psi2 of Q = A + 2): zn the first step's at plane s, loaded at the
    // top of iteration s (loaded an iteration ahead, with the next plane's fields, the z
    // faces' box of dipole-cpml 512 took 0.140 ms a step against 0.132, H200, 3,64,24,64: 8
    // registers more, and ptxas spilled 48 bytes at 128); zc[t] step t's at its last plane
    // (t = 1 .. NT - 1), read by step t + 1 an iteration on; zu step t - 1's at plane k + 1,
    // this iteration's, moved into zc[t - 1] once step t has read that at k.
    T zn[3][2][2][V], zc[3][NT][2][2][V], zu[3][2][2][V];
    each_axis([&](auto ax) {
        constexpr int A = decltype(ax)::value;
#pragma unroll
        for (int hh = 0; hh < 2; ++hh)
#pragma unroll
            for (int w = 0; w < 2; ++w)
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    zu[A][hh][w][v] = T(0);
#pragma unroll
                    for (int t = 0; t < NT; ++t) zc[A][t][hh][w][v] = T(0);
                }
    });
    // ZF: the face of half step hh holding the lane's cells at plane k (null where none), its
    // profile there and the entry of the lane's first cell
    struct ZFace { const Face* f; T b, c, ki; idx_t at; };
    // A lane's column (x faces) or a warp's row (y faces), so its faces, depths and profile,
    // stay the same through the march. Found once, they are kept in shared memory and read
    // where used (volatile, so that the compiler does not hoist them into registers across
    // the march: in registers ptxas spilled 60 bytes at 128 with the y faces, NVCC for sm_90,
    // NT 3, BY 16). rel: an x face's entry at row 0 and plane 0 (the cell's x less the face's
    // base); zm: see zeros below.
    struct YRow { int side, u, rel; T b, c, ki; unsigned zm; };
    __shared__ YRow xrow[(FM & 1) ? 2 * 32 : 1], yrow[(FM & 2) ? 2 * BY : 1];
    if constexpr ((FM & 1) != 0) {
        if (ty < 2) {   // warp hh: the faces of half step hh, lane by lane
            int u;
            idx_t at;
            const Face* pair = &c_mfaces[src][ty][0][0];
            const Face* f = face_in<0>(pair, gx, 0, 0, ny, px, u, at);
            YRow r{-1, 0, 0, T(0), T(0), T(0), (unsigned)__ldg(zmask + gx)};
            if (f != nullptr)
                r = YRow{(int)(f - pair), u, gx - f->base, static_cast<const T*>(f->b)[u],
                         static_cast<const T*>(f->c)[u], static_cast<const T*>(f->k)[u], r.zm};
            xrow[2 * tx + ty] = r;
        }
    }
    if constexpr ((FM & 2) != 0) {
        if (tx < 2) {   // lane hh: the face of half step hh, for its warp's row
            int u;
            idx_t at;
            const Face* pair = &c_mfaces[src][tx][1][0];
            const Face* f = face_in<1>(pair, 0, gy, 0, ny, px, u, at);
            YRow r{-1, 0, 0, T(0), T(0), T(0), (unsigned)__ldg(zmask + nx + gy)};
            if (f != nullptr)
                r = YRow{(int)(f - pair), u, 0, static_cast<const T*>(f->b)[u],
                         static_cast<const T*>(f->c)[u], static_cast<const T*>(f->k)[u], r.zm};
            yrow[2 * ty + tx] = r;
        }
    }
    const auto zface = [&](auto ax, int hh, int k) {
        constexpr int A = decltype(ax)::value;
        ZFace q;
        q.b = q.c = q.ki = T(0);
        q.at = 0;
        if constexpr (A < 2) {   // (none off the grid's z ends: those planes stay zero)
            const volatile YRow& r = A == 0 ? xrow[2 * tx + hh] : yrow[2 * ty + hh];
            const int side = r.side;
            q.f = side < 0 || (ZZ && (k < 0 || k >= nz)) ? nullptr
                                                         : &c_mfaces[src][hh][A][side];
            if (q.f != nullptr) {
                if constexpr (A == 1)   // i + px (u + L k)
                    q.at = (idx_t)px * ((idx_t)r.u + (idx_t)q.f->L * k) + gx;
                else   // (i - base) + W (j + ny k)
                    q.at = (idx_t)r.rel + (idx_t)q.f->W * ((idx_t)gy + (idx_t)ny * k);
                q.b = r.b;
                q.c = r.c;
                q.ki = r.ki;
            }
        } else {   // i + px (j + ny u)
            int u;
            q.f = face_in<2>(&c_mfaces[src][hh][2][0], 0, gy, k, ny, px, u, q.at);
            q.at += gx;
            if (q.f != nullptr) {
                q.b = static_cast<const T*>(q.f->b)[u];
                q.c = static_cast<const T*>(q.f->c)[u];
                q.ki = static_cast<const T*>(q.f->k)[u];
            }
        }
        return q;
    };
    const auto zfetch = [&](int k) {
        each_axis([&](auto ax) {
            constexpr int A = decltype(ax)::value;
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                const ZFace q = zface(ax, hh, k);
#pragma unroll
                for (int w = 0; w < 2; ++w) {
                    Pack<T, V> x;
                    if (q.f != nullptr)
                        x = load<T, V>(static_cast<const T*>(w ? q.f->psi2 : q.f->psi1), q.at);
                    else {
#pragma unroll
                        for (int v = 0; v < V; ++v) x.v[v] = T(0);
                    }
#pragma unroll
                    for (int v = 0; v < V; ++v) zn[A][hh][w][v] = x.v[v];
                }
            }
        });
    };
    // ZF: the components kept zero at plane k (bits 0-2 E, 3-5 H): those whose coefficients
    // are all zero there (the host's zmask: one byte a column along x, then a row along y,
    // then a plane along z, for the axes of FM, and z with ZW), and off the grid's z ends
    // every one
    const auto zeros = [&](int k) -> unsigned {
        unsigned m = 0;
        if constexpr ((FM & 1) != 0) m |= static_cast<const volatile YRow&>(xrow[2 * tx]).zm;
        if constexpr ((FM & 2) != 0) m |= static_cast<const volatile YRow&>(yrow[2 * ty]).zm;
        if constexpr (ZZ)
            m |= (k < 0 || k >= nz) ? 63u : (unsigned)__ldg(zmask + nx + ny + k);
        return m;
    };
    // Each step's new values as they would be stored: rounded to S and back (with 16-bit
    // values, as march3 and march3v round every step's, and NumPy's emulation stores them;
    // nothing with S = T), the auxiliary values left as they are (-DMARCH_LEAN_ROUND=0:
    // not rounded, for timing; not the fields of march3v and NumPy's emulation)
    const auto stored = [&](T (&x)[3][V]) {
        if constexpr (sizeof(S) < sizeof(T) && MARCH_LEAN_ROUND)
#pragma unroll
            for (int a = 0; a < 3; ++a)
#pragma unroll
                for (int v = 0; v < V; ++v) x[a][v] = rnd<T, S>(x[a][v]);
    };
    // ZF: the components of bits 0-2 of zm set to zero
    const auto clear = [&](T (&x)[3][V], unsigned zm) {
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (zm >> a & 1u) x[a][v] = T(0);
    };
    // WL: the components kept zero at plane k, cell v's at bits 8 v .. 8 v + 5: its
    // column's and row's (wz) and the plane's, every one off the grid's z ends; the
    // differences doubled as in wz, and along z (the plane's bits 6-7) at bits 24-25
    const auto wplane = [&](int k) -> unsigned {
        const unsigned p = k >= 0 && k < nz ? (unsigned)__ldg(zmask + nx + ny + k) : 63u;
        return wz | (p & 63u) * 0x0101u | (p >> 6) << 24;
    };
    // WL: whether E component a's difference j (0: along b = a + 1, at axis b's first bit;
    // 1: along c = a + 2, at axis c's second; march.py's WALL_DOUBLES) is doubled in cell v
    // by wplane's mask m (a PMC wall's image): 2 d exactly, so C (2 d) is (2 C) d, the
    // PMC wall's row's product, bit for bit
    // (only along WP's axes, those of the walls whose masks double some)
    const auto wdouble = [&](unsigned m, int v, int a, int j) -> bool {
        const int s = (a + 1 + j) % 3;   // the difference's axis
        if (!(WP >> s & 1)) return false;
        const int at = s == 2 ? 24 + j : 16 + 4 * v + 2 * s + j;
        return m >> at & 1u;
    };
    // d doubled where wdouble says. In the walls' march over 4-byte values, along x and y
    // (the lane's own bits, the same at every plane), as d times 1 or 2 (exact, so the
    // same bits as d + d) rather than a conditional add: NVCC 13, sm_90, 80 registers, WP
    // 1 spills (stores) 16 bytes and loops over 515 instructions against 28 and 532, WP 3
    // 32 and 527 against 48 and 574, WP 7 32 and 548 against 52 and 597; H200, pec-box 512
    // float32 at 3,64,24,64 (docs/perf/lean-walls-pmc-scale-h200-2026-11-30.txt): PMC at
    // x_min 146 775 Mcells/s against 139 912, at x_min and y_min 139 785 against 128 850,
    // on every face 109 947 against 103 379. Over 16-bit values it ran 0.7% slower
    // (108 874 against 109 601 at x_min and y_min), and along z (WP 4) it took more
    // instructions and spilled more (loads of 16 bytes against 4), so those keep the add. -DMARCH_WP_SCALE=0: the add
    // everywhere.
    const auto wimage = [&](T& d, unsigned m, int v, int a, int j) {
        if (!(WP >> ((a + 1 + j) % 3) & 1)) return;
#if MARCH_WP_SCALE
        if (WL && sizeof(S) == 4 && (a + 1 + j) % 3 != 2) {
            d *= __uint_as_float(0x3f800000u + ((unsigned)wdouble(m, v, a, j) << 23));
            return;
        }
#endif
        if (wdouble(m, v, a, j)) d += d;
    };
    // ZW along x or y: the components kept zero at plane k, cell v's at bits 8 v .. 8 v + 5
    // (see wclear): zeros' (the axes of FM and the plane) and the lane's column's and row's
    const auto zw = [&](int k) -> unsigned {
        return zeros(k) * (V == 2 ? 0x0101u : 1u) | zxy;
    };
    // lean3f with WP: the differences doubled at plane k, as wplane's (the lane's columns'
    // and rows' bits 6-7, along ZW's axes from zxy and along FM's from xrow and yrow, and
    // along z the plane's)
    const auto zdouble = [&](int k) -> unsigned {
        unsigned m = zxy;
        if constexpr ((FM & 1) != 0 && (WP & 1) != 0)   // (V = 1)
            m |= (static_cast<const volatile YRow&>(xrow[2 * tx]).zm >> 6 & 3u) << 16;
        if constexpr ((FM & 2) != 0 && (WP & 2) != 0) {
            const unsigned r = static_cast<const volatile YRow&>(yrow[2 * ty]).zm >> 6 & 3u;
#pragma unroll
            for (int v = 0; v < V; ++v) m |= r << (18 + 4 * v);
        }
        if constexpr (ZZ && (WP & 4) != 0)
            m |= k >= 0 && k < nz ? ((unsigned)__ldg(zmask + nx + ny + k) >> 6) << 24 : 0u;
        return m;
    };
    // WL: the components of mask m (see wplane) set to zero, cell by cell (h 0: E, 3: H);
    // nothing to do on most of a block's lanes and planes
    const auto wclear = [&](T (&x)[3][V], unsigned m, int h) {
        if ((m & 0xffffu) == 0u) return;
#pragma unroll
        for (int v = 0; v < V; ++v)
#pragma unroll
            for (int a = 0; a < 3; ++a)
                if (m >> (8 * v + h + a) & 1u) x[a][v] = T(0);
    };
    // One half step's terms of axis A's faces (as curl_face in march.cu: component P by its
    // c-difference, Q by its b-difference; the z faces: x by d/dz of y, y by d/dz of x) at
    // step t for cell v: the face q, the differences d, the new values out, and the
    // auxiliary values z (this step's, for the moves and stores below).
    const auto terms = [&](auto ax, int hh, int t, int v, const ZFace& q, const T (&d)[3][2],
                           T (&outv)[3][V], T (&z)[3][2][V]) {
        constexpr int A = decltype(ax)::value, P = (A + 1) % 3, Q = (A + 2) % 3;
        z[A][0][v] = z[A][1][v] = T(0);
        if (q.f != nullptr) {
            z[A][0][v] = mpml_step(q.b, q.c, t == 1 ? zn[A][hh][0][v] : zc[A][t - 1][hh][0][v],
                                   d[P][1]);
            z[A][1][v] = mpml_step(q.b, q.c, t == 1 ? zn[A][hh][1][v] : zc[A][t - 1][hh][1][v],
                                   d[Q][0]);
            outv[P][v] += co(3 * hh + P, 2) * mpml_out(q.ki, d[P][1], z[A][0][v]);
            outv[Q][v] += co(3 * hh + Q, 1) * mpml_out(q.ki, d[Q][0], z[A][1][v]);
        }
    };
    idx_t off = 2 * pl;
    // CUR: the planes' loads and stores addressed from the kernel's arrays and one running
    // index, cur, the lane's cell of the plane loaded next (c0 + off, the same integers),
    // rather than from the lane's six pointers in and out, which ptxas rebuilt at every
    // plane (their 12 registers are not to be had at 80). Counted (NVCC 13.0 for sm_90,
    // benchmarks/sass_loops.py, 3 steps, the loop's instructions): lean3v's march 381 ->
    // 350 (its 8-byte spill gone too), the x faces' box 586 -> 570, the z faces' 1102 ->
    // 1012, no spill; the march with ids with its ring first (see st above), 524 -> 490.
    // H200, dipole-cpml 512 float32, 3,64,24,64, 300 steps: 1.245 / 1.238 ms a step
    // against 1.262 / 1.257 with the pointers. Not in EDGE's march (its loop took 4 local
    // loads and stores an iteration).
    constexpr bool CUR = !EDGE;
    idx_t cur = c0 + off;
    const S* const inb[6] = {ex0, ey0, ez0, hx0, hy0, hz0};
    S* const outb[6] = {ex1, ey1, ez1, hx1, hy1, hz1};
    __syncthreads();
    for (int s = kstart; s <= kend; ++s) {
        if constexpr (ZF) zfetch(s);
        // step 0 at plane s + 1: what step 1 reads as the plane ahead
        T eu[3][V], hu[3][V];
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int v = 0; v < V; ++v) { eu[a][v] = nxt[a][v]; hu[a][v] = nxt[a + 3][v]; }
        if constexpr (IDS) ring[slot(s + 1)] = (IW)mx;
        if (s < kend) {
            if constexpr (IDS) mx = *reinterpret_cast<const IW*>(cid + (CUR ? cur : c0 + off));
            const bool live = on(s + 2);
#pragma unroll
            for (int a = 0; a < 6; ++a) {
                Pack<T, V> x;
                if (live) x = CUR ? loadf<T, S, V>(inb[a], cur) : loadf<T, S, V>(in[a], off);
                else {
#pragma unroll
                    for (int v = 0; v < V; ++v) x.v[v] = T(0);
                }
#pragma unroll
                for (int v = 0; v < V; ++v) nxt[a][v] = x.v[v];
            }
        }
        off += pl;
        cur += pl;
        sstore<T, V>(me, e[0][0]);
        sstore<T, V>(me + SP, e[0][2]);
        __syncthreads();
#pragma unroll
        for (int t = 1; t <= NT; ++t) {
            const int k = s - t + 1;
            // H of step t at plane k: E of step t - 1 at k (e[t - 1]) and k + 1 (eu), H of
            // step t - 1 at k (h[t - 1])
            const int se = (t == 1 ? 0 : E1 + 4 * (t - 2) + 2 * (k & 1)) * SP;
            const Pack<T, V> exu = sload<T, V>(me + se + W), ezu = sload<T, V>(me + se + SP + W);
            const T eyr = __shfl_down_sync(0xffffffffu, e[t - 1][1][0], 1);
            const T ezr = __shfl_down_sync(0xffffffffu, e[t - 1][2][0], 1);
            T hn[3][V], zh[3][2][V];   // zh: ZF, this step's auxiliary values of H at k
            ZFace fh[3] = {};
            each_axis([&](auto ax) { fh[decltype(ax)::value] = zface(ax, 1, k); });
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const unsigned id = id_of<ID>(mt(k), v);
                const T ex = e[t - 1][0][v], ey = e[t - 1][1][v], ez = e[t - 1][2][v];
                const T eyx = v + 1 < V ? e[t - 1][1][v + 1] : eyr;
                const T ezx = v + 1 < V ? e[t - 1][2][v + 1] : ezr;
                const T d[3][2] = {{ezu.v[v] - ez, eu[1][v] - ey},   // dEz/dy, dEy/dz
                                   {eu[0][v] - ex, ezx - ez},        // dEx/dz, dEz/dx
                                   {eyx - ey, exu.v[v] - ex}};       // dEy/dx, dEx/dy
#pragma unroll
                for (int a = 0; a < 3; ++a)
                    hn[a][v] = cq(id, 3 + a, 0) * h[t - 1][a][v] + cq(id, 3 + a, 1) * d[a][0]
                             + cq(id, 3 + a, 2) * d[a][1];
                each_axis([&](auto ax) {
                    terms(ax, 1, t, v, fh[decltype(ax)::value], d, hn, zh);
                });
            }
            stored(hn);
            if constexpr (ZX || ZY) wclear(hn, zw(k), 3);
            else if constexpr (ZF) clear(hn, zeros(k) >> 3);
            const unsigned wm = WL ? wplane(k) : WP ? zdouble(k) : 0u;
            if constexpr (WL) wclear(hn, wm, 3);
            const int shp = (HP + 2 * (t - 1)) * SP;
            sstore<T, V>(me + shp, hn[0]);
            sstore<T, V>(me + shp + SP, hn[2]);
            __syncthreads();
            // E of step t at plane k: H of step t at k (hn) and k - 1 (h[t]), E of step
            // t - 1 at k (e[t - 1])
            const Pack<T, V> hxd = sload<T, V>(me + shp - W), hzd = sload<T, V>(me + shp + SP - W);
            const T hyl = __shfl_up_sync(0xffffffffu, hn[1][V - 1], 1);
            const T hzl = __shfl_up_sync(0xffffffffu, hn[2][V - 1], 1);
            T en[3][V], ze[3][2][V];   // ze: ZF, this step's auxiliary values of E at k
            ZFace fe[3] = {};
            each_axis([&](auto ax) { fe[decltype(ax)::value] = zface(ax, 0, k); });
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const unsigned id = id_of<ID>(mt(k), v);
                const T hyx = v > 0 ? hn[1][v - 1] : hyl, hzx = v > 0 ? hn[2][v - 1] : hzl;
                const T d[3][2] = {{hn[2][v] - hzd.v[v], hn[1][v] - h[t][1][v]},   // dHz/dy, dHy/dz
                                   {hn[0][v] - h[t][0][v], hn[2][v] - hzx},        // dHx/dz, dHz/dx
                                   {hn[1][v] - hyx, hn[0][v] - hxd.v[v]}};         // dHy/dx, dHx/dy
#pragma unroll
                for (int a = 0; a < 3; ++a) {
                    T d0 = d[a][0], d1 = d[a][1];
                    if constexpr (WP != 0) {   // a PMC wall's image (wdouble)
                        wimage(d0, wm, v, a, 0);
                        wimage(d1, wm, v, a, 1);
                    }
                    en[a][v] = cq(id, a, 0) * e[t - 1][a][v] + cq(id, a, 1) * d0
                             + cq(id, a, 2) * d1;
                }
                each_axis([&](auto ax) {
                    terms(ax, 0, t, v, fe[decltype(ax)::value], d, en, ze);
                });
            }
            stored(en);
            if constexpr (ZX || ZY) wclear(en, zw(k), 0);
            else if constexpr (ZF) clear(en, zeros(k));
            if constexpr (WL) wclear(en, wm, 0);
            if (t < NT) {   // read by step t + 1 an iteration on
                const int eb = (E1 + 4 * (t - 1) + 2 * (k & 1)) * SP;
                sstore<T, V>(me + eb, en[0]);
                sstore<T, V>(me + eb + SP, en[2]);
            } else if (om && k >= z0) {   // k < z1: s <= kend
                const idx_t o = (idx_t)(k - kstart) * pl;
                if constexpr (EDGE) {   // cell by cell: see om above
#pragma unroll
                    for (int a = 0; a < 3; ++a) {
                        if (om & 1) {
                            out[a][o] = Conv<T, S>::narrow(en[a][0]);
                            out[a + 3][o] = Conv<T, S>::narrow(hn[a][0]);
                        }
                        if (om & 2) {
                            out[a][o + 1] = Conv<T, S>::narrow(en[a][1]);
                            out[a + 3][o + 1] = Conv<T, S>::narrow(hn[a][1]);
                        }
                    }
                } else {   // om: all V cells (lean3v_one)
                    const idx_t oc = cur - (NT + 2) * pl;   // CUR: c0 + o
#pragma unroll
                    for (int a = 0; a < 3; ++a) {
                        gstore<T, S, V>(CUR ? outb[a] + oc : out[a] + o, en[a]);
                        gstore<T, S, V>(CUR ? outb[a + 3] + oc : out[a + 3] + o, hn[a]);
                    }
                }
                // the auxiliary values, to the faces of the other set
                each_axis([&](auto ax) {
                    constexpr int A = decltype(ax)::value;
#pragma unroll
                    for (int hh = 0; hh < 2; ++hh) {
                        const ZFace& q = hh ? fh[A] : fe[A];
                        if (q.f == nullptr) continue;
                        const Face* g = q.f + (src ? -12 : 12);
#pragma unroll
                        for (int w = 0; w < 2; ++w) {
                            T* p = static_cast<T*>(w ? g->psi2 : g->psi1) + q.at;
                            const T(&x)[V] = hh ? zh[A][w] : ze[A][w];
                            if constexpr (EDGE) {
                                if (om & 1) p[0] = x[0];
                                if (om & 2) p[1] = x[1];
                            } else {
                                sstore<T, V>(p, x);
                            }
                        }
                    }
                });
            }
            each_axis([&](auto ax) {   // step t's auxiliary values move on (see zc above)
                constexpr int A = decltype(ax)::value;
#pragma unroll
                for (int w = 0; w < 2; ++w)
#pragma unroll
                    for (int v = 0; v < V; ++v) {
                        if (t > 1) {
                            zc[A][t - 1][0][w][v] = zu[A][0][w][v];
                            zc[A][t - 1][1][w][v] = zu[A][1][w][v];
                        }
                        zu[A][0][w][v] = ze[A][w][v];
                        zu[A][1][w][v] = zh[A][w][v];
                    }
            });
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
}
// IDS: the instance that runs the blocks of byte 3 alone, in a launch of its own beside the
// pass (MarchStepper._beside_launches). As a third branch beside the other two marches it
// made their blocks slower, though their instructions changed by a few moves (cause not
// found; not the shared memory): H200, dipole-cpml 512 float32, 3,64,24,64, the whole step
// with no block of byte 3 1.387-1.393 ms with the branch in, 1.358 with it compiled out.
// WL: likewise the instance that runs the blocks of byte 4 alone, the walls' march: on a
// grid of one material with walls (every cell's combination of materials row 0's, but for
// components whose coefficients are all zero, those its column's, its row's and its
// plane's, along no periodic axis: the host's zmask, nx + ny + nz bytes, as lean3f's with
// every axis), the blocks whose cone crosses the grid's ends or holds the walls' cells
// (lean3v_one). Their lanes off the grid read the grid's first two cells, whatever those
// hold, each step's components of zmask are set to zero (wclear in lean3v_run: a select,
// so that no value is multiplied into them), and the cells off the grid take every
// component zero. No value off the grid then reaches an owned cell: along an axis that is
// not periodic a value crosses the grid's end only where the first E node reads H before
// it (E looks back, H forward), which on a PEC wall is the tangential E, kept zero, and
// where the last H slot reads E past it, whose components offset by half a cell the grid
// keeps zero (the normal one reads no neighbour along the axis). A PMC wall's tangential E
// reads the zero slot by wrapping, with its difference across the wall's coefficient
// doubled (the image): the masks' bits 6-7 say which differences along their axis a cell
// doubles, and the instance with WP (the axes of the walls whose masks double some) doubles
// those (wdouble, wimage), which gives the row's product bit for bit (an instance of its
// own: NVCC for sm_90 spills 32 bytes at 80 registers with the doubling along every axis
// over float values, 52 before wimage's factors, none without, so grids without a PMC wall
// run the one without; along z alone, a PMC plane at z_min, 8 bytes). Without it
// pec-box's blocks at the grid's faces and ends of segments ran march3v: 44% of them at 3
// steps and segments of 64 (H200, 512 float32, 1.167 ms of the step against lean3v's
// 0.437 for the others); with it 0.881 ms the step.
template <typename T, typename S, typename ID, bool CT, int NT, int V, int BY, bool IDS = false,
          bool WL = false, int WP = 0>
__global__ void __launch_bounds__(32 * BY, 1)
lean3v(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
       const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
       S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
       S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
       const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz,
       int px, int py, int nt, int zlen, int ox, int oy, int oz, int bnx, int bny, int bnz,
       int src, long long n0, const unsigned char* __restrict__ lean, int rows,
       const unsigned char* __restrict__ zmask) {
    static_assert(!(IDS && WL), "lean3v: an instance runs the ids' blocks or the walls'");
    // the block's byte (lean3v_one): 1 lanes that own both cells or none, 2 some that own
    // one (see om in lean3v_run), 3 ids other than 0 (IDS in lean3v_run, the table's
    // ``rows`` rows, in the IDS instance), 4 the walls' (WL, zmask, in the WL instance); a
    // march each, so that none's registers hold another's
    const unsigned char b = lean[blockIdx.x + gridDim.x * (blockIdx.y + (size_t)gridDim.y *
                                                           blockIdx.z)];
    const int z0 = oz + (int)blockIdx.z * zlen, z1 = min(oz + bnz, z0 + zlen);
    if constexpr (IDS) {
        if (b == 3)
            lean3v_run<T, S, ID, CT, NT, V, BY, false, 0, true>(ex0, ey0, ez0, hx0, hy0, hz0,
                                                                ex1, ey1, ez1, hx1, hy1, hz1,
                                                                gtab, px, py, ox, oy, bnx, bny,
                                                                z0, z1, nx, ny, nz, src,
                                                                nullptr, cid, rows);
        return;
    }
    if constexpr (WL) {
        if (b == 4)
            lean3v_run<T, S, ID, CT, NT, V, BY, false, 0, false, true, WP>(
                ex0, ey0, ez0, hx0, hy0, hz0, ex1, ey1, ez1, hx1, hy1, hz1, gtab, px, py, ox,
                oy, bnx, bny, z0, z1, nx, ny, nz, src, zmask);
        return;
    }
    if (b == 1)
        lean3v_run<T, S, ID, CT, NT, V, BY, false>(ex0, ey0, ez0, hx0, hy0, hz0, ex1, ey1, ez1,
                                                   hx1, hy1, hz1, gtab, px, py, ox, oy, bnx,
                                                   bny, z0, z1);
    else if (b == 2)
        lean3v_run<T, S, ID, CT, NT, V, BY, true>(ex0, ey0, ez0, hx0, hy0, hz0, ex1, ey1, ez1,
                                                  hx1, hy1, hz1, gtab, px, py, ox, oy, bnx,
                                                  bny, z0, z1);
}

// ---------------------------------------------------------------------------- lean3f
// lean3f: lean3v's march with the terms of the CPML faces normal to the axes of FM (1 x,
// 2 y, 4 z), over one of the CPML boxes beside 3D 'temporal''s pass (MarchStepper.
// march_boxes): a face's box (the middle of the grid along the two other axes, along its
// own the span of each end, as one box that wraps past the grid's last cell to its first)
// or an edge's (two or three axes of terms). The host runs it where every cell of the
// box's cone holds a combination of materials whose coefficients are row 0's or zero,
// component by component, the zero ones given by the cell's column, row and plane along
// the axes of FM (zmask: one byte a column along x, then a row along y, then a plane along
// z, bits 0-2 E, 3-5 H; the tangential E of the grid's walls, the unused slots of its last
// cells), and no source or probe lies in the cone (MarchStepper._lean_face); otherwise
// march3 runs the box.
// Tiles of 32 lanes of one cell (V = 1) overlapping by NT cells, for the x terms (at NT 3
// one tile's 26 owned cells cover the 26 of dipole-cpml 512's x box) and the edges' (with
// 2 cells a lane the y and z terms spill 316 bytes at 128 registers), each lane's cell
// wrapping around the grid's x ends with FM & 1 as march3's do and its neighbours coming
// by shuffles, so that the lanes are consecutive in the wrapped order; otherwise lean3v's
// tiles of 2 cells a lane (the lanes that own one of their 2 cells, at an odd x end of the
// box, in the first and last columns of tiles, march with EDGE). Along y with FM & 2 the
// rows wrap likewise. Along z the box's planes from oz to the grid's last and those from
// the first on (where it wraps) are two pieces, each in segments of zlen planes (0: the
// whole piece); with FM & 4 (or ZW & 4: a box without the z terms that reaches a z wall,
// its planes' masks in zmask too) the march takes every value off the grid's z ends as
// zero; along x and y with ZW (a wall there, see lean3v_run) the cells off the grid too, as
// march3's wrapped cone finds them where an owned value depends on them (the last
// plane's, which stay zero, and none past it: E at plane 0 reads H at -1 only for the
// tangential components, zero at a PEC wall). At a PMC wall the tangential E reads the
// zero H past it with its difference across the wall doubled (the image), as its row's
// doubled coefficient gives in march3: the masks' bits 6-7 say which (along ZW's axes, and
// along FM's where the tiles wrap onto the wall), and the instance with WP (those axes,
// MarchStepper._lean_face_doubles) doubles them (wdouble in lean3v_run).
// Per cell and step of a face the same operations on the same operands as march3's
// (curl3, curl_face: psi <- b psi + c d, the component += its coefficient times
// (1/kappa - 1) d + psi, axis by axis in the order x, y, z), the auxiliary values read
// from the source set's faces at the first step and written to the other set's at the
// last (owned cells), carried in registers between the steps (zc in lean3v_run).
template <typename T, typename S, typename ID, bool CT, int NT, int V, int BY, int FM,
          int ZW = 0, int WP = 0>
__global__ void __launch_bounds__(32 * BY, 1)
lean3f(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
       const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
       S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
       S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
       const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz,
       int px, int py, int nt, int zlen, int ox, int oy, int oz, int bnx, int bny, int bnz,
       int src, long long n0, const unsigned char* __restrict__ zmask) {
    static_assert(FM > 0 && FM <= 7, "lean3f: a mask of face axes");
    const int hi = min(nz, oz + bnz), lo = oz + bnz - nz;   // the pieces: oz .. hi, 0 .. lo
    const int per = zlen > 0 ? zlen : max(hi - oz, max(lo, 1));
    const int nhi = (hi - oz + per - 1) / per;
    int z0, z1;
    if ((int)blockIdx.z < nhi) {
        z0 = oz + (int)blockIdx.z * per;
        z1 = min(hi, z0 + per);
    } else {
        z0 = ((int)blockIdx.z - nhi) * per;
        z1 = min(lo, z0 + per);
    }
    if (z0 >= z1) return;
    if constexpr (V == 2) {
        if ((blockIdx.x == 0 && (ox & 1)) || (blockIdx.x + 1 == gridDim.x && ((ox + bnx) & 1))) {
            lean3v_run<T, S, ID, CT, NT, V, BY, true, FM, false, false, WP, ZW>(
                ex0, ey0, ez0, hx0, hy0, hz0, ex1, ey1, ez1, hx1, hy1, hz1, gtab, px, py, ox, oy,
                bnx, bny, z0, z1, nx, ny, nz, src, zmask);
            return;
        }
    }
    lean3v_run<T, S, ID, CT, NT, V, BY, false, FM, false, false, WP, ZW>(
        ex0, ey0, ez0, hx0, hy0, hz0, ex1, ey1, ez1, hx1, hy1, hz1, gtab, px, py, ox, oy, bnx,
        bny, z0, z1, nx, ny, nz, src, zmask);
}

// lean3v_one: one byte a block of lean3v's launch (the same box, segment and tiles): 1
// where the block may run lean3v, 2 where it may and has a lane that owns some of its cells
// (at the box's x ends; lean3v marches it with EDGE), 3 where it may run lean3v's march
// with ids (IDS), 0 elsewhere. An owned cell's value
// after NT steps depends only on the values, ids, sources of the cells within NT cells of
// it along each axis (each step reaches one cell further each way): the block's cone, the
// owned cells widened by NT (along z exactly the planes kstart .. kend + 1 the pass reads,
// along y the tile's rows, along x the owned cells and NT of the HX cells on either side).
// So a block may where its cone lies in the grid without wrapping, every id in the cone is
// 0 (cid: the cells' ids, with every source's and probe's cell made ``mark`` in the host's
// copy, an id no cell holds, so that the blocks computing those run march3v), and every
// cell the tile reads lies in the arrays (of px py nz values: past a row's last column the
// tile reads the next row's first, past a plane's last row the next plane's first). What lean3v computes outside the
// cone (with row 0's coefficients, from whatever those cells hold) reaches no owned cell.
// dipole-cpml 512, 3 steps, segments of 64 (H200, bbcb745): 91.9% of the blocks, the pass
// 0.810 ms a step; with the ids of the whole tile checked 77.6% and 1.026 ms (the tiles of
// the first and last rows and columns read the CPML layers' cells, whose ids differ).
// Where the cone holds other ids but no ``mark`` (mark < 0: none, the ids take every
// value) and the block no lane owned in part, it may run the march with ids (byte 3).
// With ``walls`` (the host found the grid one material with walls, see WL in lean3v) a
// block that may not run lean3v's march, whose cone holds no ``mark`` (mark >= 0) and no
// lane owned in part, runs the walls' march (byte 4), whether its cone crosses the grid's
// ends or not (its lanes off the grid read the grid's first cells). With ``zrow`` as well (the grid holds
// other materials: $YEEFDTD_LEAN_WALLS=cone) only where each cell of the cone in the grid
// holds a combination whose code (zrow, per id: its zero components and doubled
// differences, march.py's wall_rows; 0xffff another material's) is its column's, row's
// and plane's in ``zmask`` (wall_code).
// -DMARCH_LEAN=0 (through $YEEFDTD_NVRTC_OPTIONS) leaves every block to march3v,
// -DMARCH_LEAN_IDS=0 those of other ids, -DMARCH_LEAN_WALLS=0 the walls'; -DMARCH_IDS_ROW=r
// gives every cell of the march with ids row r's coefficients (wrong fields, for a test to
// tell that those blocks ran).
#ifndef MARCH_LEAN
#define MARCH_LEAN 1
#endif
#ifndef MARCH_LEAN_WALLS
#define MARCH_LEAN_WALLS 1
#endif
// The code (march.py's wall_rows) of a cell whose column's, row's and plane's masks are
// c, r, p (bits 0-5 the components kept zero, 6-7 the differences along the axis doubled):
// the zero bits' union, each axis's doubled bits at 6 + 2 s, and those of each E component
// kept zero (WALL_DOUBLES: either way it stays zero)
__device__ __forceinline__ unsigned wall_code(unsigned c, unsigned r, unsigned p) {
    unsigned u = ((c | r | p) & 63u) | (c >> 6) << 6 | (r >> 6) << 8 | (p >> 6) << 10;
    if (u & 1u) u |= (1u << 8) | (1u << 11);
    if (u & 2u) u |= (1u << 10) | (1u << 7);
    if (u & 4u) u |= (1u << 6) | (1u << 9);
    return u;
}

template <typename ID, int NT, int V, int BY>
__global__ void __launch_bounds__(32 * BY)
lean3v_one(const ID* __restrict__ cid, int nx, int ny, int nz, int px, int py, int zlen,
           int ox, int oy, int oz, int bnx, int bny, int bnz, unsigned char* __restrict__ lean,
           int mark, int walls, const unsigned short* __restrict__ zrow,
           const unsigned char* __restrict__ zmask) {
    constexpr int W = 32 * V, HX = lane_halo<NT, V, W, true>();
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_x = ox - (ox & 7) + (int)blockIdx.x * (W - 2 * HX);   // first owned x
    const int tile_y = oy + (int)blockIdx.y * (BY - 2 * NT);            // first owned row
    const int gi = tile_x + V * tx - HX, gj = tile_y + ty - NT;
    const int z0 = oz + (int)blockIdx.z * zlen, z1 = min(oz + bnz, z0 + zlen);
    const int kstart = z0 - NT, kend = z1 + NT - 2;
    // the cone: [cx0, cx1] x [cy0, cy1] x [kstart, kend + 1]
    const int cx0 = max(tile_x, ox) - NT, cx1 = min(tile_x + W - 2 * HX, ox + bnx) - 1 + NT;
    const int cy0 = tile_y - NT, cy1 = min(tile_y + BY - 2 * NT, oy + bny) - 1 + NT;
    const idx_t pl = (idx_t)px * py;   // the lane's last read (plane kend + 1) in the arrays
    bool ok = cx0 >= 0 && cx1 < nx && cy0 >= 0 && cy1 < ny && kstart >= 0 && kend + 1 < nz &&
              gi >= 0 && (idx_t)gj * px + gi + V + pl * (kend + 1) <= pl * nz &&
              px % V == 0 && gi % V == 0;
    // the walls' march (byte 4): whole lanes on the row's words
    bool wl = walls && MARCH_LEAN_WALLS && mark >= 0 && px % V == 0 && gi % V == 0;
    bool zero = true, marked = false;   // every id in the lane's cone 0; one of them mark
    if ((ok || wl) && gj >= cy0 && gj <= cy1 && gi + V - 1 >= cx0 && gi <= cx1 &&   // in the
        gi >= 0 && gi < nx && gj >= 0 && gj < ny) {   // cone, the lane in the grid
        const idx_t row = (idx_t)px * gj + gi;
        for (int k = max(kstart, 0); k <= min(kend + 1, nz - 1); ++k) {
            const typename Word<V * sizeof(ID)>::type w =
                *reinterpret_cast<const typename Word<V * sizeof(ID)>::type*>(
                    cid + row + (idx_t)px * py * k);
            zero = zero && w == 0;
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const unsigned id = id_of<ID>(w, v);
                marked = marked || id == (unsigned)mark;
                if (zrow != nullptr && wl && id != (unsigned)mark && gi + v < nx)
                    wl = zrow[id] == wall_code(zmask[gi + v], zmask[nx + gj],
                                               zmask[nx + ny + k]);
            }
        }
    }
    bool part = false;   // a lane owning some of its cells: the block runs lean3v's EDGE
    if (owned_lane<NT, V, BY, HX>(tx, ty, gj, oy, bny)) {   // as lean3v finds it
        const int om = owned_bits<V>(gi, ox, bnx);
        part = om != 0 && om != (1 << V) - 1;
    }
    part = __syncthreads_or(part);
    ok = __syncthreads_and(ok);
    wl = __syncthreads_and(wl);
    zero = __syncthreads_and(zero);
    marked = __syncthreads_or(marked);
    if (MARCH_LEAN && tx == 0 && ty == 0) {
        unsigned char b = 0;
        if (ok && zero) b = part ? 2 : 1;
        else if (wl && !part && !marked) b = 4;
        else if (ok && !part && !marked && mark >= 0 && MARCH_LEAN_IDS) b = 3;
        lean[blockIdx.x + gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z)] = b;
    }
}
