// The 'fused' and 'temporal' variants: one launch advances the fields NT time steps (fused:
// NT = 1), H then E at each step, reading every field from DRAM once and writing it once
// per pass. In 3D, 'temporal' runs march3 (below) and 'fused' march3f (further down: the
// same tiles with staged loads and one barrier per plane, the CPML layers beside the pass).
//
// Mapping (3D): a block of BX x BY threads owns a column of BX x BY cells in x and y and
// marches along z through a segment of planes; the x and y neighbours pass through
// shared memory. The NT steps form a pipeline along z: in iteration s, step t (t = 1 ..
// NT) updates plane s - t + 1, one plane behind step t - 1, whose E at planes k and k + 1
// and H at plane k it needs. Where each step keeps its last two planes of E and H (in
// registers, or in shared memory by parity) and how many barriers a plane takes (2 NT or
// NT + 1): see MarchPlanes below.
//
// Neighbouring blocks (why nothing is read after another block overwrote it):
// - Halo recomputation. Step t at the tile's last column needs E of step t - 1 one column
//   further (H looks forward), and E at its first column needs H one column back, so the
//   cells a block can update exactly shrink by one on each side per step (a trapezoid):
//   blocks overlap by NT cells on each side, the overlap is computed by both, and only the
//   inner (BX - 2 NT) x (BY - 2 NT) cells are written. The same holds along z for the
//   segments. Recomputation was chosen over a wavefront order (blocks waiting on flags of
//   their neighbours) because it needs no inter-block synchronisation and no ordering of
//   the launch; its cost is the overlap, 2 NT / BX of the work per axis.
// - Double buffering. Blocks read the fields (and the CPML auxiliary values) of time step
//   n from one set of arrays and write those of step n + NT to another; the two swap after
//   each pass. With one set, a block could read a halo cell its neighbour had already
//   advanced. The cost is memory (twice the fields), not traffic: each value is still read
//   once and written once.
//
// Boundaries: a thread's column and every plane wrap modulo the grid's extent, exactly as
// the neighbour indices of the other kernels do (periodic axes, or a zero slot on the
// others; see common.cuh), so the halo of a tile at the edge holds what those kernels read.
//
// CPML: a cell in a layer advances its auxiliary values at every step. Step 1 reads them
// from the source set, step NT writes them (owned cells only) to the destination set; in
// between they stay in a per-thread ring indexed by plane (NT planes are in flight), which
// lives in local memory and is touched only by layer cells. Step 1's values are loaded
// into registers an iteration before their use (mfetch, below).
//
// Sources and probes act inside the pass: each plane's entries are sorted by cell, and a
// thread finds its own by binary search (a plane without entries costs one comparison).
// Sources apply after the update of their half step in every thread that computes the cell
// (overlap included, so the overlap stays exact); probes record from the owned cells.
//
// float16 storage: every value is rounded to float16 after each step, as if it had been
// stored (so results match the 'indexed' kernels and the NumPy emulation).
//
// Measured on an H200 (dipole-cpml 512 float32, 200-1000 steps; single-step bound 88.5
// Gcells/s): far from the goals. (One id per cell and the rare paths out of line, which
// made the 2D kernel 3 times faster, left 3D where it was: fused 26.5, temporal 25.0.) fused 24.6 Gcells/s (32 x 16 threads, z segments of 64),
// temporal 23.8 (NT = 2), 16.1 (NT = 3), 12.1 (NT = 4); pec-box 47.4 (fused). The first
// version, loading each plane just before its use and looking up the CPML faces and the
// source and probe tables for every cell, ran fused at 19.5 and temporal (NT = 2) at 14.0;
// loading the next plane an iteration ahead, carrying the ids down the pipeline packed in
// words, and per-plane flags for sources, probes and z faces took it here. Asking for 2
// blocks per SM (launch bounds) made temporal slower (14.4 against 23.1 at NT = 2). Whole-z
// columns (no segments) were slower than segments of 64-128 planes (a last wave of long
// blocks). With CPML the instances need 122-128 registers (spilling at NT >= 3), so one
// block of 256-512 threads runs per SM: latency and the two barriers per step and plane
// bound it, not DRAM (16-33% of the copy bandwidth). Since, the instance without CPML
// terms (NT 2, float arithmetic) is compiled to fit 80 registers, two blocks of 32 x 12
// threads per SM (MB, from March.min_blocks in variants.py): H100, 512 float32 without
// layers, 54.2 Gcells/s against 44.5 for one block of 32 x 16, though it owns 58% of its
// tile's cells against 66%; so 3D 'temporal' updates every CPML layer in boxes beside that
// pass by default (MarchStepper.march_boxes): dipole-cpml 33.3 against 28.7. Since, the
// pass leaves out the boxes' cells, which are cut into faces (one axis's terms, inline) and
// edges, and the boxes run on streams beside it: 40.4 (1000 steps, tuned); their warps
// wait only on their neighbours (RowSync, below): 41.5; the rare-path calls take the
// cell's values by value (sources3, below): 45.9 (pec-box 60.9); the pipeline's planes in
// shared memory (MarchPlanes, below): pec-box 64.1, dipole-cpml 44.7 (its CPML boxes,
// unchanged, bound it).
//
// Tried for 'temporal' and dropped (H100, 512 float32, NT 2, z segments of 64, 200 steps;
// docs/perf/march3-sync-h100-2026-11-22.txt): taller tiles, one block per SM, owning more
// of their cells than 32 x 12 (58%): without layers 32 x 24 (73%, 80 registers) 51 231
// Mcells/s, 32 x 20 (70%, 96) 49 792, 64 x 12 (62.5%, 80) 49 522, against 54 237 for two
// blocks of 32 x 12; dipole-cpml's scene 39.7, 38.6, 37.6 against 40.5. Fewer warps
// waiting at each barrier pays more than less overlap. The x CPML boxes over tiles of
// 16 x 32 threads (two tiles across the 24 wrapped columns, each owning one end's 12):
// 0.472 ms a step against 0.498 for 32 x 16, with segments of 8 0.513, of 32 0.488; the
// x-y edges with segments of 8 0.071 against 0.108; 1.334 ms against 1.398 for the boxes
// one after another, too little to carry another launch shape.
// Tried for 'temporal' and dropped (commit 9332efd holds them; H100, 512 float32, NT 2,
// pass 32 x 12, 200 steps; docs/perf/march3-boxes-stages-h100-2026-11-22.txt): the pass's
// planes read ahead by cp.async into stages of dynamic shared memory rather than one plane
// ahead in registers, bitwise the same: one plane ahead, without layers 64 973 Mcells/s
// against 63 756 (dipole-cpml's scene 45 409 against 45 258: noise), two 56 134, three
// 55 700. The CPML boxes with their planes in shared memory (MODE 2, block barriers) and
// 16 x 16 tiles, two blocks per SM: the boxes 1.335 ms a step against 1.189 (dipole-cpml
// 42 868 against 44 857); three blocks per SM (80 registers, spilling) 1.774. 16 x 16 box
// tiles as they are (two blocks per SM by their registers) 1.214, 32 x 8 z boxes 1.269.
// Nsight Compute (same scene, one pass): the face boxes issue 2.2-3.2 times the pass's
// instructions per owned cell, at one block per SM, stalled on loads and fixed-latency
// dependencies rather than barriers (the pass: barriers, 50% of samples); the x boxes move
// 150 bytes per owned cell (the y and z boxes 83-87, the pass 55), their rows split by the
// wrap into pieces of 12 cells. No clock throttling (1980 MHz, up to 690 W).
// What bounds the pass (H100, 512 float32, NT 2, 32 x 12; docs/perf/march3-skeleton-h100-
// 2026-11-22.txt): 316 warp instructions a warp and plane, 57% of issue slots busy, DRAM at
// 54%; its loads, stores and barriers without the update (benchmarks/access_patterns.py
// 512 skeleton) take 3.33 ms a pass against its 4.2, and with chains of dependent FMAs in
// the update's place 3.58 (about 240 instructions a plane) or 4.33 (375), reading planes
// further ahead no faster: instructions and their latency between barriers bound it, not
// DRAM. Tried and dropped (without layers, 63 792-64 000 Mcells/s before; bitwise the
// same): rows no owned cell needs left out of each step (H of step t on rows t - 1 .. BY -
// t - 1 only, E on t .. BY - t - 1; 38 of 48 row half steps) 61 948, whole warps idle at
// the barriers; the plane loop unrolled by two 62 099; a copy of the steps without the
// source and probe tests, for iterations that have none, 64 699 against 64 614.
// Since: march3v (march3v.cu), the same pass with 2 cells a lane along x on tiles of 64 x
// BY cells (32 x BY threads; the tuner's 64-wide 2-step shapes in float arithmetic, see
// March.lane_pass in variants.py), bitwise the same results. Nsight Compute, one pass on
// pec-box 512: 1.81 billion warp instructions against 2.49 (a computed cell-step costs 8%
// fewer, and a 64 x 16 tile owns 70% of its cells against 58% at 32 x 12), but at 126-128
// registers only one block of 512 threads fits an SM, so its warps wait on their
// neighbours by mbarriers (LaneSync) and 45% of issue slots are busy against 58%. H100, 512
// float32, 200 steps: without layers 67 051 Mcells/s against march3's 66 879 (32 x 12), the
// pass beside dipole-cpml's CPML boxes 51 225 against 46 445.
// Tried for 'temporal' and dropped: the fields loaded past the L1
// (ld.global.nc.L1::no_allocate), so that the streaming planes would not push the CPML
// rings and profiles out of it: H100, NT 2, 32 x 16, segments of 64, 150 steps: without
// layers 40.9 Gcells/s against 44.4, dipole-cpml 27.7 against 28.7 (pec-box tuned 41.0
// against 50.9).
// Tried for 'temporal' and dropped (commit f029ec9 holds it): march3s, the steps skewed by
// two planes each (in iteration s, step t updates H at plane s - 2t + 1 and E at s - 2t),
// so that everything read from shared memory was written in the iteration before, and
// double buffers of NT slots of six planes let one barrier per plane serve every step.
// Exact, but slower on an H100 (512 float32, 300 steps, same session): pec-box 40.1
// Gcells/s against this kernel's 44.6 (both NT 2, 32 x 16, segments of 128), dipole-cpml
// 23.5 (CPML boxes 22.0). Nsight Compute, one pass: fewer stalls (9.6 cycles between a
// warp's instructions against 12.5; no eligible warp 58% of cycles against 68%) but 42%
// more instructions (2.81 billion warp instructions a pass against 1.98: about 400 per
// thread and plane against 290), with 96 registers against 88, so one block of 512
// threads per SM either way. Computing the planes' wrapped indices only where a store,
// source or probe needs them changed nothing (2.85 billion). Within an iteration only H
// of step t waits on work of the same iteration (E of step t - 1 at the plane ahead), so
// more independent work per warp (triple buffers, a skew of three planes) would not help
// much; what bounds it is the instructions (the register rings' moves, 3 planes a step,
// and the index arithmetic of 2 NT planes an iteration), which the loop unrolled by the
// rings' period would cut.
//
// Tried for 'fused' and dropped (commit 6f0a507 holds it): warp tiles as in 2D. A warp
// owned 32 V cells along x by R rows along y, each lane holding its R rows in registers,
// x neighbours by shuffles, no barrier; with one step per pass only H needs recomputing,
// and only behind the tile (one row along y, one plane along z). Measured on an H100
// (runs of 300 steps, z segments of 32-64; the block kernel, 1000 steps: pec-box 512 35.4,
// dipole-cpml 512 22.7 Gcells/s): loads in registers one plane ahead, pec-box 31.2 (V 2,
// R 2), dipole-cpml 22.0 (V 1, R 2), 118-186 registers, Nsight Compute 22% of issue slots
// busy and 79% of stalls waiting on loads; cp.async into per-warp shared-memory stages
// 2-3 planes ahead, with the plane flags staged too (read at use, their latency stalled
// every iteration): pec-box 33.3 (V 2, R 2), dipole-cpml 20.1 (V 1, R 2, segments of 32).
// R = 4 was slower (23-25 and 16-17: 153-168 registers). The halo rows (R + 2 rows read
// for R owned) and 95-230 registers for R V cells a lane cost what the barriers saved.
// Next: the y neighbours from the warps above and below through shared memory (no halo
// rows), and a lighter CPML path.

// Values rounded to the storage type and back (identity when S = T).
template <typename T, typename S>
__device__ __forceinline__ T rnd(T v) { return Conv<T, S>::widen(Conv<T, S>::narrow(v)); }

// Stores a cell's three components v at entry c of the arrays a, b, d.
template <typename T, typename S>
__device__ __forceinline__ void store3(S* __restrict__ a, S* __restrict__ b,
                                       S* __restrict__ d, idx_t c, const T (&v)[3]) {
    storef<T, S, 1>(a, c, Pack<T, 1>{{v[0]}});
    storef<T, S, 1>(b, c, Pack<T, 1>{{v[1]}});
    storef<T, S, 1>(d, c, Pack<T, 1>{{v[2]}});
}

__device__ __forceinline__ int wrap_any(int g, int n) {
    if (g >= 0 && g < n) return g;
    const int r = g % n;
    return r < 0 ? r + n : r;
}

// Sources and probes of the marching kernels, sorted by plane (3D: z; 2D: the row, y) and,
// within a plane, by cell (3D: j nx + i; 2D: i). Offsets have one entry more than planes. Sources: kind 0 E, 1 H; meta = component
// (0..2 within the kind) | hard << 2 | column << 3, values[step * cols + column]. Probes:
// meta = component (0..5) | group << 3, column in col; a group's samples go to ring row
// ((n + 1) / every - 1) mod rows after step n when every divides n + 1.
struct MarchEvents {
    const int* src_off[2];
    const int* src_cell[2];
    const int* src_meta[2];
    const void* src_val[2];
    int src_cols[2];
    const int* prb_off;
    const int* prb_cell;
    const int* prb_meta;
    const int* prb_col;
    void* const* grp_ring;
    const int* grp_every;
    const int* grp_rows;
    const int* grp_count;
    const unsigned char* plane_flags;   // per plane: PLANE_* bits
};
__constant__ MarchEvents c_events;
// The CPML faces of the marching kernels: [buffer][half step][axis][side], laid out as Face
// in common.cuh; the two buffers differ only in their auxiliary arrays.
__constant__ Face c_mfaces[2][2][3][2];
// what a plane (3D) or row (2D) holds (c_events.plane_flags): E sources, H sources,
// probes, a CPML face normal to the marching axis (z in 3D, y in 2D)
constexpr int PLANE_SRC_E = 1, PLANE_SRC_H = 2, PLANE_PROBE = 4, PLANE_FACE = 8;

// Coefficients of the marching kernels: one table row per material combination (the ids of
// every component at a cell; march.py builds them), NC components x NQ columns (3, or 4 in
// march2's rows of pairs, see cf2), so that a cell carries one id and each coefficient is
// one load at a constant offset from its row. rb: the row's byte offset.
template <typename T, int NC, int NQ = 3>
__device__ __forceinline__ unsigned crow(unsigned id) {
    return id * (unsigned)(NC * NQ * sizeof(T));
}

// The table's value at byte offset off: from constant memory (CT) or global memory g.
template <typename T, bool CT>
__device__ __forceinline__ T tab_at(const T* __restrict__ g, unsigned off) {
    if (CT) return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(c_tab) + off);
    return __ldg(reinterpret_cast<const T*>(reinterpret_cast<const char*>(g) + off));
}

template <typename T, bool CT>
__device__ __forceinline__ T cf(const T* __restrict__ g, unsigned rb, int comp, int q) {
    return tab_at<T, CT>(g, rb + (unsigned)((comp * 3 + q) * sizeof(T)));
}

// march2's table rows (march.py): each of the 3 components' columns as (self, b, self, c),
// 16 bytes a component in float32, so that the pair of coefficients a half step multiplies
// (self with the b- or the c-difference) is one 8-byte aligned load (LDC.64 or LDG.64).
template <typename T>
struct alignas(2 * sizeof(T)) CPair { T s, d; };

template <typename T> struct Vec2;
template <> struct Vec2<float> { typedef float2 type; };
template <> struct Vec2<double> { typedef double2 type; };

// (self, column q) of component comp, q = 1 (b) or 2 (c)
template <typename T, bool CT>
__device__ __forceinline__ CPair<T> cf2(const T* __restrict__ g, unsigned rb, int comp, int q) {
    const unsigned off = rb + (unsigned)((comp * 4 + (q == 1 ? 0 : 2)) * sizeof(T));
    if (CT) return *reinterpret_cast<const CPair<T>*>(reinterpret_cast<const char*>(c_tab) + off);
    const typename Vec2<T>::type v =
        __ldg(reinterpret_cast<const typename Vec2<T>::type*>(reinterpret_cast<const char*>(g) + off));
    return {v.x, v.y};
}

// s old + b d, rounded as one fused multiply-add: fma(s, old, b d), the form the compiler
// chose for the expression before the pair loads (the pairs change its choice; this keeps
// the bits). fma(b, d, s old), which needs no neighbour for its first product, is no faster
// (H100, tmz-2d 8192: 358 000 against 359 500 Mcells/s).
template <typename T>
__device__ __forceinline__ T upd2(T s, T old, T b, T d) {
    return fma(s, old, b * d);
}

// column q (0, 1 or 2) of component comp alone
template <typename T, bool CT>
__device__ __forceinline__ T cf1(const T* __restrict__ g, unsigned rb, int comp, int q) {
    return tab_at<T, CT>(g, rb + (unsigned)((comp * 4 + (q == 2 ? 3 : q)) * sizeof(T)));
}

// Whether coordinate s along axis A lies in a CPML face of either half step.
template <int A>
__device__ __forceinline__ bool mnear(int s) {
    bool in = false;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int side = 0; side < 2; ++side) {
            const Face& f = c_mfaces[0][h][A][side];
            in |= s >= f.start && s < f.start + f.L;
        }
    return in;
}


// First index in [lo, hi) whose cell is >= key.
__device__ __forceinline__ int lower(const int* __restrict__ cell, int lo, int hi, int key) {
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (__ldg(cell + mid) < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// V values, passed to and returned from a function that is not inlined in registers (an
// array whose address reached it would live in local memory: see sources3 below).
template <typename X, int V>
struct Vals {
    X v[V];
};

// Adds (soft) or sets (hard) the sources of kind K at plane kw on this cell, at step n:
// the cell's three components in, the same with the sources applied out.
template <typename T, typename S, int K>
__device__ __noinline__ Vals<T, 3> march_sources(int kw, int key, long long n, Vals<T, 3> f) {
    const int* off = c_events.src_off[K];
    if (off == nullptr) return f;
    const int lo = __ldg(off + kw), hi = __ldg(off + kw + 1);
    if (lo == hi) return f;
    const int* cell = c_events.src_cell[K];
    const T* val = static_cast<const T*>(c_events.src_val[K]);
    const long long row = n * c_events.src_cols[K];
    for (int q = lower(cell, lo, hi, key); q < hi && __ldg(cell + q) == key; ++q) {
        const int m = __ldg(c_events.src_meta[K] + q);
        const T v = __ldg(val + row + (m >> 3));
        const int comp = m & 3;
#pragma unroll
        for (int a = 0; a < 3; ++a)
            if (a == comp) f.v[a] = rnd<T, S>((m & 4) ? v : f.v[a] + v);
    }
    return f;
}

// Records the probes at plane kw on this cell after step n.
template <typename T>
__device__ __noinline__ void march_probes(int kw, int key, long long n, Vals<T, 3> e,
                                          Vals<T, 3> h) {
    const int* off = c_events.prb_off;
    if (off == nullptr) return;
    const int lo = __ldg(off + kw), hi = __ldg(off + kw + 1);
    if (lo == hi) return;
    const long long done = n + 1;
    for (int q = lower(c_events.prb_cell, lo, hi, key);
         q < hi && __ldg(c_events.prb_cell + q) == key; ++q) {
        const int m = __ldg(c_events.prb_meta + q);
        const int g = m >> 3, comp = m & 7;
        const int every = __ldg(c_events.grp_every + g);
        if (done % every) continue;
        const long long r = (done / every - 1) % __ldg(c_events.grp_rows + g);
        T v = T(0);
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            if (comp == a) v = e.v[a];
            if (comp == a + 3) v = h.v[a];
        }
        static_cast<T*>(c_events.grp_ring[g])[r * __ldg(c_events.grp_count + g) +
                                              __ldg(c_events.prb_col + q)] = v;
    }
}

// The calls of the rare paths above, with the caller's values passed and returned by
// value, in registers. Passing the kernel's arrays by reference put them in local memory
// at every cell and step (Nsight Compute on march3: about 24 bytes of local-memory writes
// per thread and plane, which more than doubled the L2 write traffic); passing copies
// kept that store and reload inside the rare path, but the reload took the scoreboard of
// the plane loads issued ahead, so the store after the call waited for those loads at
// every plane (Nsight Compute, H100, 'temporal' on pec-box 512 at 32 x 12: a fifth of the
// pass's stall samples, at the first step's first shared store).
template <typename T, typename S, int K>
__device__ __forceinline__ void sources3(int kw, int key, long long n, T (&f)[3]) {
    const Vals<T, 3> t = march_sources<T, S, K>(kw, key, n, Vals<T, 3>{{f[0], f[1], f[2]}});
#pragma unroll
    for (int a = 0; a < 3; ++a) f[a] = t.v[a];
}

template <typename T>
__device__ __forceinline__ void probes3(int kw, int key, long long n, const T (&e)[3],
                                        const T (&h)[3]) {
    march_probes<T>(kw, key, n, Vals<T, 3>{{e[0], e[1], e[2]}},
                    Vals<T, 3>{{h[0], h[1], h[2]}});
}

// The face normal to axis A (compile-time) of half step h in buffer b holding the cell,
// with its depth u and entry at; null when none (see face_at in common.cuh).
template <int A>
__device__ __forceinline__ const Face* mface(int b, int h, int i, int j, int k, int ny, int px,
                                             int& u, idx_t& at) {
    return face_in<A>(&c_mfaces[b][h][A][0], i, j, k, ny, px, u, at);
}

// psi <- b psi + c d and the correction factor (1/kappa - 1) d + psi with their roundings
// fixed (fused multiply-adds written out rather than left to the compiler), so that every
// form of the update (mpml, mpml_pair_fixed) gives the same bits whatever code surrounds it.
template <typename T>
__device__ __forceinline__ T mpml_step(T b, T c, T p, T d) {
    return fma(b, p, c * d);
}

template <typename T>
__device__ __forceinline__ T mpml_out(T ki, T d, T p) {
    return fma(ki, d, p);
}

// One CPML auxiliary value of a marching step, given the face's profile at the cell (b, cc,
// ki): psi <- b psi + c d, read from face f (buffer src) at the first step of the pass (else
// from the ring slot), kept in the slot, and written to the same face in the other buffer,
// g, at the pass's last step when the cell is owned. Returns the correction factor
// (1/kappa - 1) d + psi.
template <typename T>
__device__ __forceinline__ T mpml_at(T b, T cc, T ki, const Face* f, const Face* g, int which,
                                     idx_t at, T d, bool first, bool last, bool own, T& slot,
                                     bool pre, T q) {
    T p = first ? (pre ? q : static_cast<const T*>(which ? f->psi2 : f->psi1)[at]) : slot;
    p = mpml_step(b, cc, p, d);
    slot = p;
    if (last && own) static_cast<T*>(which ? g->psi2 : g->psi1)[at] = p;
    return mpml_out(ki, d, p);
}

// mpml_at with the profile read at depth u (the other buffer's face: 12 faces further on or
// back).
template <typename T>
__device__ __forceinline__ T mpml(const Face* f, int which, idx_t at, int u, T d, bool first,
                                  bool last, bool own, int src, T& slot, bool pre = false,
                                  T q = T(0)) {
    const T b = static_cast<const T*>(f->b)[u], cc = static_cast<const T*>(f->c)[u];
    const T ki = static_cast<const T*>(f->k)[u];
    return mpml_at<T>(b, cc, ki, f, f + (src ? -12 : 12), which, at, d, first, last, own, slot,
                      pre, q);
}

// The pair of auxiliary values of the face normal to A (half step h) at this cell:
// differences d1 (component a1) and d2 (a2); corrections returned in r1, r2 (0 outside).
// pre: the first step's values were loaded ahead (q1, q2: see mfetch) instead of here.
template <typename T, int A>
__device__ __forceinline__ void mpml_pair_in(int src, int h, int i, int j, int k, int ny,
                                             int px, T d1, T d2, bool first, bool last,
                                             bool own, T* slots, T& r1, T& r2,
                                             bool pre = false, T q1 = T(0), T q2 = T(0)) {
    int u;
    idx_t at;
    r1 = T(0);
    r2 = T(0);
    const Face* f = mface<A>(src, h, i, j, k, ny, px, u, at);
    if (f == nullptr) return;
    if (f->psi1) r1 = mpml<T>(f, 0, at, u, d1, first, last, own, src, slots[0], pre, q1);
    if (f->psi2) r2 = mpml<T>(f, 1, at, u, d2, first, last, own, src, slots[1], pre, q2);
}

// The same out of line (a call), as most instances take it: inline, the terms of every
// face would cost registers that the passes cannot spare.
template <typename T, int A>
__device__ __noinline__ void mpml_pair(int src, int h, int i, int j, int k, int ny, int px,
                                          T d1, T d2, bool first, bool last, bool own,
                                          T* slots, T& r1, T& r2, bool pre = false,
                                          T q1 = T(0), T q2 = T(0)) {
    mpml_pair_in<T, A>(src, h, i, j, k, ny, px, d1, d2, first, last, own, slots, r1, r2, pre,
                       q1, q2);
}

// The face of half step h normal to axis A at a thread whose coordinate along A stays the
// same through its march (A = 0: its column's x; A = 1: its row's y), looked up once at the
// start: the profile at its depth and its psi entry at plane 0, the entry at plane k being
// at0 + dk k. Instances with one axis of terms, x or y (the x and y faces of the CPML boxes
// beside 3D 'temporal''s pass), take them so rather than finding the face, loading the
// profile and computing the entry at every plane and half step (mpml_pair_in), a chain of
// dependent constant and global loads at each layer cell. The same operations on the same
// values: -DMARCH_FIXED_FACES=0 looks them up at every cell, for comparison.
#ifndef MARCH_FIXED_FACES
#define MARCH_FIXED_FACES 1
#endif

template <typename T>
struct FixedFace {
    T b, c, ki;   // the profile at the thread's depth
    idx_t at0;    // the psi entry at plane 0
    int dk;       // entries from one plane to the next
    int side;     // the face's index in c_mfaces[src][h][A] (-1: none holds the thread)
};

template <typename T, int A>
__device__ __forceinline__ FixedFace<T> fixed_face(int src, int h, int i, int j, int ny,
                                                   int px) {
    static_assert(A == 0 || A == 1, "fixed_face: x or y");
    FixedFace<T> q;
    int u;
    idx_t at;
    const Face* pair = &c_mfaces[src][h][A][0];
    const Face* f = face_in<A>(pair, i, j, 0, ny, px, u, at);
    if (f == nullptr) {
        q.b = q.c = q.ki = T(0);
        q.at0 = 0;
        q.dk = 0;
        q.side = -1;
        return q;
    }
    q.b = static_cast<const T*>(f->b)[u];
    q.c = static_cast<const T*>(f->c)[u];
    q.ki = static_cast<const T*>(f->k)[u];
    q.at0 = at;
    q.dk = A == 0 ? f->W * ny : px * f->L;
    q.side = (int)(f - pair);
    return q;
}

// mpml_pair_in with a FixedFace.
template <typename T, int A>
__device__ __forceinline__ void mpml_pair_fixed(const FixedFace<T>& q, int src, int h, int k,
                                                T d1, T d2, bool first, bool last, bool own,
                                                T* slots, T& r1, T& r2, bool pre, T q1,
                                                T q2) {
    r1 = T(0);
    r2 = T(0);
    if (q.side < 0) return;
    const Face* f = &c_mfaces[src][h][A][q.side];
    const Face* g = &c_mfaces[src ^ 1][h][A][q.side];
    const idx_t at = q.at0 + (idx_t)q.dk * k;
    if (f->psi1) r1 = mpml_at<T>(q.b, q.c, q.ki, f, g, 0, at, d1, first, last, own, slots[0],
                                 pre, q1);
    if (f->psi2) r2 = mpml_at<T>(q.b, q.c, q.ki, f, g, 1, at, d2, first, last, own, slots[1],
                                 pre, q2);
}

// mfetch with a FixedFace.
template <typename T, int A>
__device__ __forceinline__ void mfetch_fixed(const FixedFace<T>& q, int src, int h, int k,
                                             T (&v)[2]) {
    if (q.side < 0) return;
    const Face& f = c_mfaces[src][h][A][q.side];
    const idx_t at = q.at0 + (idx_t)q.dk * k;
    if (f.psi1) v[0] = static_cast<const T*>(f.psi1)[at];
    if (f.psi2) v[1] = static_cast<const T*>(f.psi2)[at];
}

// 3D 'temporal': the auxiliary values that the first step of a pass reads at a cell (both
// half steps, every face holding it among the axes of PML; z only where the plane's flags
// say so), loaded into registers during the iteration before their use rather than read
// at use by each layer cell in turn. Loads issued inline stay in flight until the values
// are used; entries of faces that do not hold the cell are left as they are (mpml_pair
// does not read them). Measured on an H100 (dipole-cpml 512 float32, NT 2, 32 x 16, z
// segments of 64, ms a step): the pass with the y and z layers 4.149 -> 3.928, the x boxes
// 0.773 -> 0.626; 26.5 -> 28.7 Gcells/s tuned. The instance with y and z terms takes 128
// registers (106 before), still one block of 512 threads per SM. With the z layers alone
// the pass took 3.56 ms before and 3.59 after (3.05 without layers), with the y layers
// alone 3.77 and 3.80: what those layers cost the pass is not these loads' latency.
template <typename T, int A>
__device__ __forceinline__ void mfetch(int src, int h, int i, int j, int k, int ny, int px,
                                       T (&q)[2]) {
    int u;
    idx_t at;
    const Face* f = mface<A>(src, h, i, j, k, ny, px, u, at);
    if (f == nullptr) return;
    if (f->psi1) q[0] = static_cast<const T*>(f->psi1)[at];
    if (f->psi2) q[1] = static_cast<const T*>(f->psi2)[at];
}

// FA: the axis whose faces ff holds (see FixedFace), or -1.
template <typename T, int FA = -1>
__device__ __forceinline__ void mprefetch(int src, int i, int j, int kw, int ny, int px,
                                          bool in_x, bool in_y, bool in_z, T (&pf)[3][2][2],
                                          const FixedFace<T>* ff = nullptr) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        if (in_x) {
            if constexpr (FA == 0) mfetch_fixed<T, 0>(ff[h], src, h, kw, pf[0][h]);
            else mfetch<T, 0>(src, h, i, j, kw, ny, px, pf[0][h]);
        }
        if (in_y) {
            if constexpr (FA == 1) mfetch_fixed<T, 1>(ff[h], src, h, kw, pf[1][h]);
            else mfetch<T, 1>(src, h, i, j, kw, ny, px, pf[1][h]);
        }
        if (in_z) mfetch<T, 2>(src, h, i, j, kw, ny, px, pf[2][h]);
    }
}

// 2D: one auxiliary value (which: 0 psi1, 1 psi2) of the y face of half step h across this
// lane's V cells of a row (x at i.v[e]) that lies in the layers, with the differences
// d.v[e]: as mpml for each cell, but the face is looked up once for the row (its depth,
// profile values and entries' row are the same for every cell) and every load is issued
// before any value is used, so that the row waits on one load's latency rather than on V
// in turn. slots: cell e's ring slot at slots[8 e] (the ring's [V][2][2][2] layout); own:
// bit e when cell e is owned. Returns the correction factors (0 where the row is not in
// the face of this half step).
template <typename T, int V>
__device__ __noinline__ Vals<T, V> mpml_row(int src, int h, int which, Vals<int, V> i, int kw,
                                            int ny, int px, Vals<T, V> d, bool first,
                                            bool last, unsigned own, T* slots) {
    Vals<T, V> r;
    int u;
    idx_t at;   // the row's first entry (i = 0)
    const Face* f = face_in<1>(&c_mfaces[src][h][1][0], 0, kw, 0, ny, px, u, at);
    const T* ps = f == nullptr ? nullptr : static_cast<const T*>(which ? f->psi2 : f->psi1);
    if (ps == nullptr) {
#pragma unroll
        for (int e = 0; e < V; ++e) r.v[e] = T(0);
        return r;
    }
    const T b = static_cast<const T*>(f->b)[u], cc = static_cast<const T*>(f->c)[u];
    const T ki = static_cast<const T*>(f->k)[u];
    T p[V];
#pragma unroll
    for (int e = 0; e < V; ++e) p[e] = first ? ps[at + i.v[e]] : slots[8 * e];
    const Face* g = f + (src ? -12 : 12);   // the same face in the other buffer
    T* out = static_cast<T*>(which ? g->psi2 : g->psi1);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        p[e] = b * p[e] + cc * d.v[e];
        slots[8 * e] = p[e];
        r.v[e] = ki * d.v[e] + p[e];
        if (last && (own >> e & 1u)) out[at + i.v[e]] = p[e];
    }
    return r;
}

// mpml_row for the arrays of march2.
template <typename T, int V>
__device__ __forceinline__ void pml_row(int src, int h, int which, const int (&i)[V], int kw,
                                        int ny, int px, const T (&d)[V], bool first, bool last,
                                        unsigned own, T* slots, T (&r)[V]) {
    Vals<int, V> ic;
    Vals<T, V> dc;
#pragma unroll
    for (int e = 0; e < V; ++e) {
        ic.v[e] = i[e];
        dc.v[e] = d[e];
    }
    const Vals<T, V> rc = mpml_row<T, V>(src, h, which, ic, kw, ny, px, dc, first, last, own,
                                         slots);
#pragma unroll
    for (int e = 0; e < V; ++e) r[e] = rc.v[e];
}

// ---------------------------------------------------------------------------- 3D
// One half step of the 3D curl update at a cell, E (base 0) or H (base 3, the table's
// component): out[a] = C0 old[a] + C1 d[a][0] + C2 d[a][1], where d[a] holds component a's
// two differences in the order of its table columns. The face normal to axis A, where the
// cell lies in it, corrects component A + 1 through its c-difference d[A + 1][1] and
// component A + 2 through its b-difference d[A + 2][0] (indices mod 3): the same pattern
// for E and H. slot: the CPML ring slots of this cell and half step, [axis][which]; pf: the
// first step's auxiliary values loaded ahead (see mfetch), or null. INL: the face's terms
// inline rather than in a call; march3's instances with one axis of terms alone take them
// so (H100, 512 float32, NT 2: the z layers alone cost the pass 0.26 ms a step inline
// against 0.53 called; the others keep calls, which measured faster: see
// March.inline_axes in variants.py). FX: ff holds the thread's faces of this axis, one per
// half step (see FixedFace).
template <typename T, bool CT, int A, bool INL, bool FX = false>
__device__ __forceinline__ void curl_face(int src, int half, int i, int j, int kw, int ny,
                                          int px, const T (&d)[3][2], bool first, bool last,
                                          bool own, T* slots, const T* __restrict__ gtab,
                                          unsigned rb, int base, T (&out)[3],
                                          const T (*pf)[2][2],
                                          const FixedFace<T>* ff = nullptr) {
    constexpr int P = (A + 1) % 3, Q = (A + 2) % 3;
    T r1, r2;
    const bool pre = pf != nullptr;
    const T q1 = pre ? pf[A][half][0] : T(0), q2 = pre ? pf[A][half][1] : T(0);
    if constexpr (FX)
        mpml_pair_fixed<T, A>(ff[half], src, half, kw, d[P][1], d[Q][0], first, last, own,
                              slots, r1, r2, pre, q1, q2);
    else if (INL)
        mpml_pair_in<T, A>(src, half, i, j, kw, ny, px, d[P][1], d[Q][0], first, last, own,
                           slots, r1, r2, pre, q1, q2);
    else
        mpml_pair<T, A>(src, half, i, j, kw, ny, px, d[P][1], d[Q][0], first, last, own,
                        slots, r1, r2, pre, q1, q2);
    out[P] += cf<T, CT>(gtab, rb, base + P, 2) * r1;
    out[Q] += cf<T, CT>(gtab, rb, base + Q, 1) * r2;
}

// FA: the axis whose faces ff holds (see FixedFace), or -1.
template <typename T, typename S, bool CT, int INL = 0, int FA = -1>
__device__ __forceinline__ void curl3(const T* __restrict__ gtab, unsigned rb, int base,
                                      const T (&old)[3], const T (&d)[3][2], bool in_x,
                                      bool in_y, bool in_z, int src, int i, int j, int kw,
                                      int ny, int px, bool first, bool last, bool own,
                                      T (&slot)[3][2][2], T (&out)[3],
                                      const T (*pf)[2][2] = nullptr,
                                      const FixedFace<T>* ff = nullptr) {
    const int half = base ? 1 : 0;
#pragma unroll
    for (int a = 0; a < 3; ++a)
        out[a] = cf<T, CT>(gtab, rb, base + a, 0) * old[a]
               + cf<T, CT>(gtab, rb, base + a, 1) * d[a][0]
               + cf<T, CT>(gtab, rb, base + a, 2) * d[a][1];
    if (in_x) curl_face<T, CT, 0, (INL & 1) != 0, FA == 0>(src, half, i, j, kw, ny, px, d,
                                                           first, last, own, slot[0][half],
                                                           gtab, rb, base, out, pf, ff);
    if (in_y) curl_face<T, CT, 1, (INL & 2) != 0, FA == 1>(src, half, i, j, kw, ny, px, d,
                                                           first, last, own, slot[1][half],
                                                           gtab, rb, base, out, pf, ff);
    if (in_z) curl_face<T, CT, 2, (INL & 4) != 0>(src, half, i, j, kw, ny, px, d, first,
                                                  last, own, slot[2][half], gtab, rb, base,
                                                  out, pf);
#pragma unroll
    for (int a = 0; a < 3; ++a) out[a] = rnd<T, S>(out[a]);
}

// One plane of a cell column as stored: the six fields, the cell's id and the plane's flags
// (loaded an iteration before they are needed, so the loads are in flight meanwhile).
template <typename S, typename ID>
struct Plane {
    S f[6];
    ID m;
    unsigned char flags;
};

template <typename S, typename ID>
__device__ __forceinline__ void load_plane(Plane<S, ID>& p, const S* const (&fld)[6],
                                           const ID* __restrict__ cid, idx_t c, int kw) {
#pragma unroll
    for (int a = 0; a < 6; ++a) p.f[a] = fld[a][c];
    p.m = cid[c];
    p.flags = c_events.plane_flags[kw];
}

// march3's synchronisation between neighbouring warps rather than across the block, in
// instances of one block per SM (MB <= 1) whose BX divides 32, so that each warp holds
// whole rows (2 to 32 warps); the others keep __syncthreads. Each step of a plane has two
// points: before H, each warp waits until the warp above (the next rows along y) has
// written its E row to shared memory (H looks forward), and before E, until the warp
// below has written its H (E looks back); x neighbours lie in the warp itself (a
// __syncwarp). Each warp signals on two mbarriers of its own in shared memory (E written,
// H written; one arrival, by lane 0 after a __syncwarp, whose release covers the other
// lanes' stores) and waits on its neighbour's by phase parity.
// Why it is exact: a warp signals E of round r + 1 only after it waited (before its E of
// round r) on the H of the warp below, which that warp wrote after reading the E of round
// r; so no barrier runs two phases ahead of its waiter, and the one shared plane of each
// field is overwritten only after its readers are done with it (likewise for H, through
// the E of the warp above).
// Why: with one barrier across the block, every warp waits for the slowest at each of the
// 2 NT barriers of a plane. Measured on an H100 (512 float32, NT 2, z segments of 64, 200
// steps, benchmarks/cpml_placement_3d.py; docs/perf/march3-sync-h100-2026-11-22.txt): one
// block of 32 x 16 per SM without layers 44 494 -> 49 114 Mcells/s (98 registers); the
// CPML boxes of dipole-cpml's scene (32 x 16, one block per SM) 1.36 -> 1.27 ms a step,
// and with the pass of 32 x 12 beside them 40 532 -> 41 512. But that pass, two blocks of
// 32 x 12 per SM at 80 registers, went 54 237 -> 44 253 with it: the bookkeeping made it
// spill (36 bytes), and two blocks already fill each other's waits. So only instances of
// one block per SM (MB <= 1) take it. A leaner form, tried and dropped (same machine and
// scene; section 6 of that file): no branch (the edge warps wait on their own barrier,
// just completed), the warp index and barrier addresses recomputed from threadIdx rather
// than held. It spilled 4 bytes at 80 registers and gave the same bits, but the 32 x 12
// pass went 54 146 -> 51 031 with it, and the boxes took 1.28 ms (1.27 before).
// -DMARCH_BLOCK_BARRIERS (through $YEEFDTD_NVRTC_OPTIONS) keeps __syncthreads everywhere,
// for comparison. (Named barriers, bar.arrive and bar.sync, one per pair of
// neighbours, deadlocked: a barrier counts arrivals without telling one round from the
// next, so a warp's arrival and its own later wait completed a round without the other.)
#ifdef MARCH_BLOCK_BARRIERS
#define MARCH_ROW_SYNC 0
#else
#define MARCH_ROW_SYNC 1
#endif

// The mbarrier operations RowSync and march3v's LaneSync share, on a barrier's shared
// address a: set up for one arrival, arrive, and wait until the phase of parity p is done.
__device__ __forceinline__ void mbar_init(unsigned a) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(a) : "memory");
}

// (returns the barrier's state token, which the callers do not need)
__device__ __forceinline__ unsigned long long mbar_arrive(unsigned a) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
    return state;
}

__device__ __forceinline__ void mbar_wait(unsigned a, unsigned p) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n"
                 "}\n" :: "r"(a), "r"(p) : "memory");
}

template <int BX, int BY, int MB>
struct RowSync {
    static constexpr int WARPS = BX * BY / 32;
    static constexpr bool ON = MARCH_ROW_SYNC && MB <= 1 && 32 % BX == 0 &&
                               (BX * BY) % 32 == 0 && WARPS >= 2 && WARPS <= 32;
    static constexpr int G = ON ? WARPS : 1;
    // at: shared address of this warp's E mbarrier. The mbarriers: [0, G) E written, [G, 2G)
    // H written. Taken through a shuffle, so that the compiler keeps it in a register: a
    // shared variable's address on sm_90 is the CTA's window (S2R SR_CgaCtaId) plus an
    // offset, which ptxas otherwise computes again at every arrive and wait.
    unsigned at;
    int g;             // this thread's warp
    unsigned parity;   // of the round (plane and step) in progress
    bool lead;         // lane 0, which signals for its warp

    // mem: 2 G words of shared memory; call before the block's first __syncthreads
    __device__ __forceinline__ RowSync(unsigned long long* mem, int tid)
        : at(0u), g(tid >> 5), parity(0u), lead((tid & 31) == 0) {
        if constexpr (ON) {
            const unsigned bar = (unsigned)__cvta_generic_to_shared(mem);
            if (tid < 2 * G) mbar_init(bar + 8u * tid);
            at = __shfl_sync(0xffffffffu, bar + 8u * g, 0);
        }
    }
    // E written; H (reading E of the warp above) may start
    __device__ __forceinline__ void before_h() const {
        if constexpr (ON) {
            __syncwarp();
            if (g > 0 && lead) mbar_arrive(at);
            if (g < G - 1) mbar_wait(at + 8u, parity);
        } else {
            __syncthreads();
        }
    }
    // H written; E (reading H of the warp below) may start
    __device__ __forceinline__ void before_e() {
        if constexpr (ON) {
            __syncwarp();
            if (g < G - 1 && lead) mbar_arrive(at + 8u * G);
            if (g > 0) mbar_wait(at + 8u * (G - 1), parity);
            parity ^= 1u;
        } else {
            __syncthreads();
        }
    }
};

// The trapezoid of a pass (TRIM): which half steps some owned cell depends on. In a pass of
// nt steps over a tile of BY rows owning rows NT .. BY - NT - 1 and a segment owning planes
// z0 .. z1 - 1, E of the last step is needed on the owned rows and planes; E of step t at row
// j reads H of step t at rows j and j - 1 (E looks back), and H of step t at row j reads E
// of step t - 1 at rows j and j + 1 (H looks forward); likewise along z. So with d = nt - t
// steps after step t, E of step t is needed on rows NT - d .. BY - NT - 1 + d and planes
// z0 - d .. z1 - 1 + d, and H of step t on one row and one plane more before. The rest of
// the tile's work (at NT 2 and 16 rows, 10 of the 64 row half steps of a plane, and about
// 3 half steps of each segment's planes) changes nothing that is stored, and is left out
// where a warp holds whole rows and waits only on its neighbours (RowSync; the test is
// then uniform across the warp): the CPML boxes beside 3D 'temporal''s pass. The values
// left in its place are zeros, which only work that is itself left out reads.
// -DMARCH_TRIM=0 does all the work, for comparison; the fields and probes are the same bit
// for bit either way (test_warp_sync_gives_the_block_barriers_bits: the block-barrier
// instances do all of it). Measured on an H100 (dipole-cpml's scene 512 float32, pass
// 2,64,16,64, 200 steps, benchmarks/cpml_placement_3d.py, two runs each): the boxes timed
// one after another 1.217 -> 1.183 ms a step (the x faces 0.404 -> 0.385), the step 50 693
// and 50 727 -> 51 079 and 51 039 Mcells/s. In march3v (the pass) it was slower: 1.946 ->
// 1.978 ms a step without layers (128 registers and 4 bytes spilled, against 126), as
// that pass is bound by latency rather than by the instructions it issues.
#ifndef MARCH_TRIM
#define MARCH_TRIM 1
#endif

// In iteration s of a segment's march (from kstart = z0 - nt, step t at plane s - t + 1),
// the plane bounds read s >= kstart + 2 t - 2 (H) or - 1 (E); the upper one always holds.
template <int NT, int BY>
__device__ __forceinline__ bool needed(bool h, int t, int nt, int ty, int s, int kstart) {
    const int d = nt - t + (h ? 1 : 0);   // H: one row and one plane more before
    return ty >= NT - d && ty < BY - NT + nt - t && s >= kstart + 2 * t - (h ? 2 : 1);
}

// march3's planes in shared memory, as offsets in planes of one field (SP values each).
// MODE 0: one plane of each E component and one of each H component, two barriers a step
// (E of the step before is stored just before H reads it, H just before E reads it); the
// pipeline's planes stay in registers (en, eo, hn, ho).
// MODE 1, E carried: E of step t (0 .. NT - 1; 0: the planes as read) is stored where it is
// computed, into one of two planes by the parity of its plane k, and H of step t + 1 reads
// it an iteration later (the pipeline puts step t + 1 at plane k one iteration after step
// t), so that the barrier of the iteration's first step makes it visible: NT + 1 barriers
// an iteration rather than 2 NT. Each step stores its H in planes of its own, since no
// barrier now separates E of step t reading H from step t + 1 writing it. Why two planes
// of E: step t stores plane k + 1 in the iteration where step t + 1 still reads plane k;
// the plane k + 2 that overwrites k is stored after the next iteration's first barrier,
// which all reads of k precede. E of step 0 needs one plane: it is stored before that
// barrier and read before the next.
// MODE 2, resident: MODE 1, and each step t >= 1 also keeps its H in two planes by parity,
// so that the step after reads its old E (planes k and k + 1) and old H (plane k) there,
// and E of step t its H at plane k - 1, instead of registers carried from iteration to
// iteration: no register moves them down the pipeline, and 21 planes of 32 x 12 (40 kB)
// take the place of 15 registers. The same overwrite argument holds for H (plane k + 2
// after the next iteration's first barrier).
// Exact in every mode (the same values in the same operations). Measured on an H100
// (pec-box's grid without layers, 512 float32, NT 2, 32 x 12, two blocks per SM, z
// segments of 64, 200 steps, benchmarks/cpml_placement_3d.py; docs/perf/march3-resident-
// h100-2026-11-22.txt): MODE 0 57 659 Mcells/s, MODE 1 57 743 (one barrier fewer changed
// nothing), MODE 2 63 885 (76 registers, none spilled, against 80 with values rebuilt
// where they are used). Asked to fit three blocks per SM (56 registers, 28 bytes spilled)
// MODE 2 ran at 41 841. Nsight Compute on MODE 1 (pec-box, one pass): the busiest pipe is
// the ADU (52% of its peak: the indexed constant loads of the coefficients, barriers and
// branches); the coefficients read from global memory instead (through the L1) took the
// pass to 54 142. MODE 1 and 2 only in instances without RowSync whose planes fit 48 kB,
// MODE 2 only without CPML terms (the pass beside the CPML boxes; the others are not
// measured with it); -DMARCH_E_CARRIED=0 or -DMARCH_RESIDENT=0 turn them off.
#ifndef MARCH_E_CARRIED
#define MARCH_E_CARRIED 1
#endif
#ifndef MARCH_RESIDENT
#define MARCH_RESIDENT 1
#endif

template <int NT, int MODE>
struct MarchPlanes {
    // E of step 0, E of steps 1 .. NT - 1 (two each), H of steps 1 .. NT (one or two each)
    static constexpr int COUNT = MODE == 0 ? 6 : 3 + 6 * (NT - 1) + 3 * MODE * NT;
    __device__ __forceinline__ static int e(int t, int k) {
        return MODE == 0 || t == 0 ? 0 : 3 + 6 * (t - 1) + 3 * (k & 1);
    }
    __device__ __forceinline__ static int h(int t, int k) {
        return MODE == 0 ? 3
                         : 3 + 6 * (NT - 1) + 3 * MODE * (t - 1) + (MODE == 2 ? 3 * (k & 1) : 0);
    }
};

// Blocks per SM the compiler is asked to fit (0: no minimum); -DMARCH_MINB=n for experiments
// overrides every instance's own (march3's MB).
#ifndef MARCH_MINB
#define MARCH_MINB 0
#endif

// MB: blocks per SM the instance is compiled to fit (0: as many as its registers allow; the
// host picks it, see March.min_blocks in variants.py). INL: the axes among PML whose CPML
// terms are inline rather than called (see curl_face; the host picks them, see
// March.inline_axes).
template <typename T, typename S, typename ID, bool CT, int NT, int BX, int BY, int PML,
          int MB = 0, int INL = 0>
__global__ void __launch_bounds__(BX * BY, MARCH_MINB ? MARCH_MINB : MB)
march3(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
       const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
       S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
       S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
       const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz, int px, int py,
       int nt, int zlen, int ox, int oy, int oz, int bnx, int bny, int bnz, int src,
       long long n0) {
    constexpr int SW = BX + 2, SP = SW * (BY + 2);   // shared rows padded by one each side
    typedef RowSync<BX, BY, MARCH_MINB ? MARCH_MINB : MB> Rows;
    // EC: each step's E is stored to shared memory where it is computed (see MarchPlanes)
    constexpr bool EC = MARCH_E_CARRIED && !Rows::ON && NT >= 2 &&
                        MarchPlanes<NT, 1>::COUNT * SP * sizeof(T) <= 48 * 1024;
    constexpr bool RS = EC && MARCH_RESIDENT && PML == 0 &&
                        MarchPlanes<NT, 2>::COUNT * SP * sizeof(T) <= 48 * 1024;
    typedef MarchPlanes<NT, RS ? 2 : EC ? 1 : 0> Planes;
    constexpr bool TRIM = MARCH_TRIM && Rows::ON && BX == 32;   // see needed
    __shared__ T sh[Planes::COUNT * SP];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int me = (ty + 1) * SW + tx + 1;
    __shared__ unsigned long long sync_words[2 * Rows::G];
    Rows rows(sync_words, ty * BX + tx);
    for (int q = ty * BX + tx; q < Planes::COUNT * SP; q += BX * BY) sh[q] = T(0);   // padding
    const int gi = ox + (int)blockIdx.x * (BX - 2 * NT) + tx - NT;
    const int gj = oy + (int)blockIdx.y * (BY - 2 * NT) + ty - NT;
    const int i = wrap_any(gi, nx), j = wrap_any(gj, ny);
    const bool own_xy = tx >= NT && tx < BX - NT && ty >= NT && ty < BY - NT &&
                        gi - ox < bnx && gj - oy < bny;
    const bool in_x = (PML & 1) && mnear<0>(i), in_y = (PML & 2) && mnear<1>(j);
    // FA: the axis of an instance with the x or the y terms alone, inline, whose faces at
    // this thread are looked up once (see FixedFace)
    constexpr int FA = !MARCH_FIXED_FACES ? -1 : PML == 1 && (INL & 1) ? 0
                                               : PML == 2 && (INL & 2) ? 1 : -1;
    FixedFace<T> ff[2];
    if constexpr (FA >= 0) {
        ff[0] = fixed_face<T, FA < 0 ? 0 : FA>(src, 0, i, j, ny, px);
        ff[1] = fixed_face<T, FA < 0 ? 0 : FA>(src, 1, i, j, ny, px);
    }
    const int z0 = oz + (int)blockIdx.z * zlen, z1 = min(oz + bnz, z0 + zlen);
    // the first plane this thread owns (z1: none, where it owns no column), so that a step
    // tests its plane against two bounds rather than repeating the column's tests: 72
    // registers rather than 76 in the pass without layers, 122 rather than 124 in the x
    // boxes (H100, 512 float32 without layers, NT 2, 32 x 12: 64 614 Mcells/s against
    // 63 792-64 000 in four runs before, within 1%)
    const int zown = own_xy ? z0 : z1;
    const idx_t column = (idx_t)i + (idx_t)px * j;
    const idx_t plane = (idx_t)px * py;
    const int key = j * nx + i;
    const int kstart = z0 - nt, kend = z1 + nt - 2;   // iterations s = kstart .. kend
    const S* const fld[6] = {ex0, ey0, ez0, hx0, hy0, hz0};

    // per step: E at its last plane (en) and the one before (eo), H likewise (hn, ho), and
    // the cell's id at its plane with the plane's flags above (m: id | flags << 16); index 0
    // holds the planes as read
    T en[NT + 1][3], eo[NT + 1][3], hn[NT + 1][3], ho[NT + 1][3];
    unsigned m[NT + 1];
#pragma unroll
    for (int t = 0; t <= NT; ++t) {
#pragma unroll
        for (int a = 0; a < 3; ++a) en[t][a] = eo[t][a] = hn[t][a] = ho[t][a] = T(0);
        m[t] = 0u;
    }
    // CPML auxiliary values between steps: [plane mod NT][axis][half step][which]
    T ring[NT][3][2][2];
    // the first step's auxiliary values at its next plane, loaded ahead (see mfetch):
    // [axis][half step][which]
    T pf[3][2][2];
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
        for (int h = 0; h < 2; ++h) pf[a][h][0] = pf[a][h][1] = T(0);
    Plane<S, ID> next;   // plane s + 1, read during iteration s - 1
    {
        const int kw = wrap_any(kstart, nz);
        const idx_t c = column + plane * kw;
        Plane<S, ID> p;
        load_plane<S, ID>(p, fld, cid, c, kw);
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            en[0][a] = Conv<T, S>::widen(p.f[a]);
            hn[0][a] = Conv<T, S>::widen(p.f[a + 3]);
        }
        m[0] = (unsigned)p.m | ((unsigned)p.flags << 16);
        if (PML) mprefetch<T, FA>(src, i, j, kw, ny, px, in_x, in_y,
                                  (PML & 4) && (p.flags & PLANE_FACE), pf, ff);
        const int kw1 = wrap_any(kstart + 1, nz);
        load_plane<S, ID>(next, fld, cid, column + plane * kw1, kw1);
    }
    __syncthreads();
    for (int s = kstart; s <= kend; ++s) {
        // step 0 moves on to plane s + 1 (read an iteration ago); the ids move down the
        // pipeline; plane s + 2 is requested
#pragma unroll
        for (int t = NT; t > 0; --t) m[t] = m[t - 1];
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            eo[0][a] = en[0][a];
            ho[0][a] = hn[0][a];
            en[0][a] = Conv<T, S>::widen(next.f[a]);
            hn[0][a] = Conv<T, S>::widen(next.f[a + 3]);
        }
        m[0] = (unsigned)next.m | ((unsigned)next.flags << 16);
        if (s < kend) {
            const int kw2 = wrap_any(s + 2, nz);
            load_plane<S, ID>(next, fld, cid, column + plane * kw2, kw2);
        }
#pragma unroll
        for (int t = 1; t <= NT; ++t) {
            if (t > nt) break;
            const int k = s - t + 1;
            if (k < kstart) continue;
            const int kw = wrap_any(k, nz);
            const idx_t c = column + plane * kw;
            const long long n = n0 + t - 1;
            const bool first = t == 1, last = t == nt;
            const bool own = k >= zown && k < z1;
            const int flags = (int)(m[t] >> 16);
            const bool in_z = (PML & 4) && (flags & PLANE_FACE);
            T (&slot)[3][2][2] = ring[(k - kstart) % NT];
            // ---- H of step t at plane k, from E of step t - 1 at planes k, k + 1
            T* const sex = sh + Planes::e(t - 1, k) * SP;
            const T* const sey = sex + SP;
            const T* const sez = sex + 2 * SP;
            T* const shx = sh + Planes::h(t, k) * SP;
            T* const shy = shx + SP;
            T* const shz = shx + 2 * SP;
            if (!EC || t == 1) {   // (EC: step t - 1 stored it when it computed it)
                sex[me] = eo[t - 1][0]; sex[SP + me] = eo[t - 1][1]; sex[2 * SP + me] = eo[t - 1][2];
                rows.before_h();
            }
            if (RS && t > 1) {   // step t - 1's planes k and k + 1, from shared memory
                const T* const eb = sh + Planes::e(t - 1, k + 1) * SP;
                const T* const hb = sh + Planes::h(t - 1, k) * SP;
#pragma unroll
                for (int a = 0; a < 3; ++a) {
                    eo[t - 1][a] = sex[a * SP + me];
                    en[t - 1][a] = eb[a * SP + me];
                    ho[t - 1][a] = hb[a * SP + me];
                }
            }
            if (RS) {   // this step's H at plane k - 1
                const T* const hb = sh + Planes::h(t, k - 1) * SP;
#pragma unroll
                for (int a = 0; a < 3; ++a) hn[t][a] = hb[a * SP + me];
            }
            T h[3];
            const unsigned rb = crow<T, 6>(m[t] & 0xffffu);
            if (!TRIM || needed<NT, BY>(true, t, nt, ty, s, kstart)) {
                const T ex = eo[t - 1][0], ey = eo[t - 1][1], ez = eo[t - 1][2];
                const T d[3][2] = {{sez[me + SW] - ez, en[t - 1][1] - ey},    // dEz/dy, dEy/dz
                                   {en[t - 1][0] - ex, sez[me + 1] - ez},     // dEx/dz, dEz/dx
                                   {sey[me + 1] - ey, sex[me + SW] - ex}};    // dEy/dx, dEx/dy
                curl3<T, S, CT, INL & PML, FA>(gtab, rb, 3, ho[t - 1], d, in_x, in_y, in_z,
                                               src, i, j, kw, ny, px, first, last, own, slot,
                                               h, pf, ff);
                if (flags & PLANE_SRC_H) sources3<T, S, 1>(kw, key, n, h);
            } else {
                h[0] = h[1] = h[2] = T(0);
            }
            shx[me] = h[0]; shy[me] = h[1]; shz[me] = h[2];
            rows.before_e();
            // ---- E of step t at plane k, from H of step t at planes k, k - 1
            T e[3];
            if (!TRIM || needed<NT, BY>(false, t, nt, ty, s, kstart)) {
                const T d[3][2] = {{h[2] - shz[me - SW], h[1] - hn[t][1]},    // dHz/dy, dHy/dz
                                   {h[0] - hn[t][0], h[2] - shz[me - 1]},     // dHx/dz, dHz/dx
                                   {h[1] - shy[me - 1], h[0] - shx[me - SW]}};  // dHy/dx, dHx/dy
                curl3<T, S, CT, INL & PML, FA>(gtab, rb, 0, eo[t - 1], d, in_x, in_y, in_z,
                                               src, i, j, kw, ny, px, first, last, own, slot,
                                               e, pf, ff);
                if (flags & PLANE_SRC_E) sources3<T, S, 0>(kw, key, n, e);
            } else {
                e[0] = e[1] = e[2] = T(0);
            }
            if (EC && t < NT) {   // for H of step t + 1 at this plane, an iteration on
                T* const eb = sh + Planes::e(t, k) * SP;
                eb[me] = e[0]; eb[SP + me] = e[1]; eb[2 * SP + me] = e[2];
            }
            if (PML && first && s < kend) {   // the first step's values at plane s + 1
                const int kn = wrap_any(s + 1, nz);
                mprefetch<T, FA>(src, i, j, kn, ny, px, in_x, in_y,
                                 (PML & 4) && ((m[0] >> 16) & PLANE_FACE), pf, ff);
            }
            if (!RS) {
#pragma unroll
                for (int a = 0; a < 3; ++a) {
                    ho[t][a] = hn[t][a]; hn[t][a] = h[a];
                    eo[t][a] = en[t][a]; en[t][a] = e[a];
                }
            }
            if (own) {
                if (flags & PLANE_PROBE) probes3<T>(kw, key, n, e, h);
                if (last) {
                    store3<T, S>(ex1, ey1, ez1, c, e);
                    store3<T, S>(hx1, hy1, hz1, c, h);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------- 3D fused
// 'fused' in 3D (one step per pass): the block kernel above, restructured around what
// Nsight Compute showed of it on an H100 (pec-box 512: 22% of issue slots busy, 53% of
// stalls waiting on loads and 33% at the two barriers per plane; 62-80 registers):
// - Loads by cp.async into shared-memory stages, one per plane, D planes ahead of their
//   use (STAGES = D + 1), so that no register waits for them and their latency hides
//   behind D iterations. The neighbours of the old E are read straight from the stage.
// - One barrier per plane: iteration s updates H at plane s and E at plane s - 1, so E
//   reads the H that the block wrote in the iteration before (two H buffers, alternating).
//   The barrier at the top of iteration s makes plane s + 1's stage and H at plane s - 1
//   visible, and ends every read of the stage and the H buffer that this iteration
//   overwrites.
// Neighbouring blocks: halo recomputation with double buffering, as in march3 (NT = 1: one
// cell of overlap on each side along x and y, one plane along z; the aligned tiles below
// recompute along x only H at the column behind the tile).
// Measured on an H100 (512^3 float32, 300-1000 steps), after the local-memory mend above
// (sources3, probes3), which took march3 on pec-box from 26.3 to 37.6 Gcells/s (32 x 8):
// pec-box 41.5 (64 x 8, 2 blocks per SM) against march3's 41.1; 32 x 8 (5 stages) 34.8.
// Before the mend: STAGES 3 / 4 / 5 at 32 x 8 18.4 / 21.9 / 23.4, 32 x 16 19.7, 64 x 8 24.9. Nsight Compute (pec-box,
// before the mend): the link between the two L2 halves 91% busy (march3: 77%), 7% L1 hits
// (march3: 36%: the stages take most of the L1). dipole-cpml with the CPML in the pass
// (PML = 7): 24.4 (64 x 8) against march3's 23.6 (32 x 8); beside it (slab3 below): 27.9.
// Tried and dropped (not kept): the
// stages filled by the block together in aligned 16-byte pieces (rows padded to 16
// cells), one piece of each field per thread for the first threads. Nsight Compute: MIO
// queue stalls fell from 30% to 0.4%, but pec-box 512 ran at 29.3 Gcells/s (64 x 8), 29.8
// (64 x 16), 25.4 (128 x 8) against 41.4 here, with 55% of stalls at the barrier (the
// copying warps behind); holding the pieces' offsets across the march took 102 registers
// (capped at 64: spilled, 12 bytes of local loads per thread and plane). Wider tiles
// with this kernel (1024 threads, 58-64 registers): pec-box 64 x 16 41.4, 128 x 8 42.3,
// 32 x 32 27.9; dipole-cpml 64 x 16 27.8: the overlap is not what bounds it.
// Also tried and dropped (H100, pec-box 512 float32, 64 x 8, 300 steps; this kernel 41.4
// Gcells/s in the same session):
// - One cell of overlap along x and y instead of two (the last column and row read E one
//   cell ahead from copies into the stage's padding: 63 x 7 cells owned, not 62 x 6), the
//   plane indices moved on without remainders and the ownership and segment bounds held
//   in registers (the loop from 281 to 269 instructions per thread and plane, 18% fewer
//   per owned cell): 40.9; 64 x 4 40.4, 32 x 16 27.4.
// - Owned runs aligned to 32 bytes (56 of 64 columns): 40.0; 32 of 64 columns: 32.8,
//   1.8 times the blocks (16 tiles a row, not 9) for 25% more time, so the instructions
//   are not what bounds it either.
// - Rows moved by bulk copies (commit 024b0bb holds them, with the changes above):
//   cp.async.bulk, one instruction per row of a field, issued by one warp, the bytes
//   counted on a barrier word per stage; tiles owning 60 of 64 columns from multiples of
//   4, so that rows start on 16-byte boundaries; the x-edge tiles copying per thread.
//   40.9, against 38.7 for the same tiles copying per thread; dipole-cpml 27.5.
// - Deeper stages: 5 at 64 x 8 (still 2 blocks per SM) 40.8; 64 x 4 with 6 or 8 stages
//   36.7, 37.1; 32 x 8 with 6 28.9. The loads are not waited for.
// - Streaming stores (st.global.cs, so that the written fields leave the L2 first): 41.2,
//   dipole-cpml 27.7 against 27.8.
// - Rows padded to 16 cells (528 for the benchmark grids' 513), so that they start on
//   sector boundaries, the padding written as zeros by the last tile (so that no sector is
//   left part-written): 39.7 (39.5 without the zeros) against 41.4 unpadded; kept only for
//   'fused' with x layers, where slab3 gains more (see March.pitches in variants.py).
// - The x layers' CPML in the pass (PML = 1), the y and z layers beside it (slab3):
//   dipole-cpml 22.8 (z segments of 64), 24.7 (32), against slab3's 28.3.
// What the access pattern alone allows (benchmarks/access_patterns.py, H100, a grid of
// 512^3, the same loads and stores without the update; docs/perf/access-patterns-h100-*):
// 55 Gcells/s (49 bytes a cell, 89% of the copy bandwidth) for 64 x 8 tiles that own every
// column, with or without an overlap of 1-2 rows along y (those rows come from the L2);
// 23-25 with one column of overlap on each side along x as here (owned 62 x 6), and 32.5
// for tiles that own every column but start 1-2 cells off a 32-byte boundary. Nsight
// Compute: a warp that writes part of a 32-byte sector makes the L2 read it from DRAM to
// merge it (DRAM reads 5.8 GB against 3.4, writes 3.8 against 3.2). This kernel, with that
// overlap, ran at 41.4 in the same session (DRAM reads 3.75 GB, writes 3.26; 3.20 ms
// against the pattern's 2.38 without overlap).
// Nsight Compute on the overlapping tiles (pec-box, 64 x 8): DRAM 64% of its peak (2.14
// TB/s), reads 3.77 GB against 3.36 ideal, all of the excess from L2 read misses (write
// misses: 6 thousand sectors, so not partial-sector fills); 61% L2 hits; 41% of issue
// slots busy with 8 warps per scheduler (occupancy 50%: 64 registers and 87 kB of shared
// memory per block), 19.3 cycles between a warp's instructions, a third of them waiting
// on the MIO queue.
//
// Aligned tiles (AL = 1, the default for 32- and 64-bit storage over the grid): the tile's
// BX x BY threads own every column from a multiple of BX (rows padded to 16 cells, so
// that each warp's row starts on a sector), and one more warp serves the x halo: its
// lanes 0 .. BY - 1 act as a column at tx = -1 (they copy Ex, Ey, Ez, Hy, Hz and the id
// there into the stage's padding and update H there, which E at the tile's first column
// reads), lanes 16 .. 16 + BY - 1 as a column at tx = BX (they copy Ey and Ez, which H at
// the last column reads). The y overlap stays (one row on each side). No sector is then
// part-written, but the pass did not get the access pattern's 55 Gcells/s: H100, 512
// float32, 1000 steps, tuned (32 x 8, z segments of 64, 3 blocks of 9 warps per SM):
// pec-box 42.2 Gcells/s against 41.3 overlapping, dipole-cpml 29.6 against 28.2 (300
// steps: 64 x 7 pec-box 40.9-41.8, dipole-cpml 29.0; 64 x 8 31.4: 544 threads fit 56
// registers, with spills). float16 pec-box (300 steps, 64 x 7): 44.1 against 50.0
// overlapping, so 16-bit storage keeps the overlapping tiles. Nsight Compute (pec-box,
// one pass): what bounds every tile shape tried is the L2, not DRAM: the L2's throughput
// is that of the link between its two halves (lts__ltcfabric2ltc_cycles_active), 87%
// aligned 32 x 8 (3.18 ms), 80% aligned 64 x 7 (3.20 ms), 73% overlapping 64 x 8 (3.25
// ms) and 73% for the access pattern above (64 x 8 owning 64 x 6, 2.42 ms). What differs
// is the number of L2 requests: the pattern 54 million a pass (205 million sectors), the
// pass 131 million overlapping, 162 million aligned 32 x 8, 135 million aligned 64 x 7
// (296 million sectors): each halo value costs a request for its row (a sector for 4
// bytes), and the halo columns take a third of the aligned tiles' requests. With the
// halo's threads copying and computing only what owned cells read (above: the roles):
// pec-box 1000 steps 44.1 Gcells/s, dipole-cpml 30.7 (32 x 8, 3 blocks per SM); Nsight
// Compute, one pass: 32 x 8 3.02 ms, 138 million requests, the L2 link 86% busy, DRAM 70%
// of its peak, 0.58 instructions issued per scheduler and cycle (barrier, then not-selected
// and wait the most common stalls); 64 x 7 3.05 ms, 123 million requests, 81%. Next: fewer
// requests per owned cell (taller tiles with several rows per thread, which the 64
// registers of 2-3 blocks per SM do not leave room for today; the halo shared between the
// blocks of a cluster through distributed shared memory instead of loaded twice).
// A value of fewer than 4 bytes (float16, ids, flags) is copied as the aligned 4-byte word
// that holds it and picked out when read.
template <typename X, bool BIG = (sizeof(X) >= 4)>
struct Slot { typedef X type; };
template <typename X>
struct Slot<X, false> { typedef unsigned type; };

template <typename X>
__device__ __forceinline__ void cp_elem(typename Slot<X>::type* dst, const X* src) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    if constexpr (sizeof(X) >= 4) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
                     :: "r"(s), "l"(src), "n"((int)sizeof(X)) : "memory");
    } else {
        const void* w = reinterpret_cast<const void*>(reinterpret_cast<size_t>(src) & ~(size_t)3);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(w) : "memory");
    }
}

template <typename X>
__device__ __forceinline__ X from_bits(unsigned v) { return (X)v; }
template <>
__device__ __forceinline__ half_t from_bits<half_t>(unsigned v) {
    half_t h;
    h.bits = (unsigned short)v;
    return h;
}

// The value cp_elem copied from src into slot.
template <typename X>
__device__ __forceinline__ X rd_elem(const typename Slot<X>::type* slot, const X* src) {
    if constexpr (sizeof(X) >= 4) {
        return *slot;
    } else {
        return from_bits<X>(*slot >> (8 * (unsigned)(reinterpret_cast<size_t>(src) & 3)));
    }
}

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

// Shared memory of march3f (dynamic; the host asks for march3f_smem bytes): STAGES stages
// of [six fields][padded tile] | [ids by thread] | flags word, then two H buffers
// [buffer][component][padded tile] of T.
template <typename T, typename S, typename ID, int BX, int BY, int STAGES, int AL>
struct M3f {
    static constexpr int SW = BX + 2, SP = SW * (BY + 2);
    static constexpr int FIELDS = 6 * SP * (int)sizeof(typename Slot<S>::type);
    static constexpr int IDS = (BX * BY + 32 * AL) * (int)sizeof(typename Slot<ID>::type);
    static constexpr int STAGE = (FIELDS + IDS + 4 + 15) / 16 * 16;
    static constexpr int HBUF = 2 * 3 * SP * (int)sizeof(T);
    static constexpr int BYTES = STAGES * STAGE + HBUF;
};

template <typename T, typename S, typename ID, bool CT, int BX, int BY, int STAGES, int PML,
          int AL>
__global__ void __launch_bounds__(BX * BY + 32 * AL, MARCH_MINB)
march3f(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
        const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
        S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
        S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
        const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz, int px,
        int py, int smem, int zlen, int ox, int oy, int oz, int bnx, int bny, int bnz, int src,
        long long n0) {
    typedef M3f<T, S, ID, BX, BY, STAGES, AL> L;
    typedef typename Slot<S>::type SS;
    typedef typename Slot<ID>::type SI;
    constexpr int SW = L::SW, SP = L::SP, D = STAGES - 1;
    static_assert(STAGES >= 3, "march3f needs at least two planes in flight");
    static_assert(!AL || (BY <= 16 && PML == 0), "aligned tiles: BY <= 16, no CPML terms");
    extern __shared__ __align__(16) unsigned char m3f_sh[];
    if (smem < L::BYTES) __trap();   // the host asked for too little shared memory
    // AL: a 1D block, BX x BY tile threads then one warp whose lanes 0 .. BY - 1 take the
    // column behind the tile (tx = -1: loads, H) and lanes 16 .. 16 + BY - 1 the column
    // ahead (tx = BX: loads of E only); its other lanes idle
    const int tid = AL ? (int)threadIdx.x : (int)threadIdx.y * BX + (int)threadIdx.x;
    const bool xtra = AL && tid >= BX * BY;
    const int lane = tid - BX * BY;
    const bool ahead = xtra && lane >= 16;
    const int tx = !AL ? (int)threadIdx.x : !xtra ? tid % BX : ahead ? BX : -1;
    const int ty = !AL ? (int)threadIdx.y : !xtra ? tid / BX : ahead ? lane - 16 : lane;
    const bool idle = xtra && ty >= BY;
    const int me = (ty + 1) * SW + tx + 1;
    // (AL: ox is a multiple of 16 cells, so that each warp row still starts on a sector)
    const int gi = AL ? ox + (int)blockIdx.x * BX + tx : ox + (int)blockIdx.x * (BX - 2) + tx - 1;
    const int gj = oy + (int)blockIdx.y * (BY - 2) + ty - 1;
    const int i = wrap_any(gi, nx), j = wrap_any(gj, ny);
    const bool tile_x = AL ? !xtra : tx >= 1 && tx < BX - 1;   // the x of an owned cell
    const bool own_xy = tile_x && ty >= 1 && ty < BY - 1 && gi - ox < bnx && gj - oy < bny;
    // the row's padding (cells nx .. px - 1) of a pass that reaches the row's last cell:
    // zeros are written there, so that the last 32-byte sector of each row is written whole
    // (a part-written sector costs the L2 a read from DRAM to merge it)
    const bool pad_xy = ox + bnx == nx && gi >= nx && gi < px && tile_x &&
                        ty >= 1 && ty < BY - 1 && gj - oy < bny;
    // The halo's roles: a thread one cell behind the owned cells along x or y updates only
    // H (E at its cell is nobody's), one ahead of them only holds E for the H before it.
    // What it copies into the stage (bits 0 .. 5: Ex .. Hz, bit 6: the id): behind along x
    // no Hx (E at the first owned column reads Hy and Hz there), behind along y no Hy;
    // ahead along x Ey and Ez, along y Ex and Ez (what H before it reads), at the corner
    // ahead of both nothing. Each value there costs an L2 request for its row, and L2
    // requests bound this kernel (see above). Along x, only the aligned tiles' extra warp
    // copies less: the overlapping tiles' halo columns are lanes of warps that read their
    // rows' sectors anyway (a mask per lane took their loop from 327 to 368 instructions).
    // AL: the tile's threads past the cell after the row's last copy nothing either (no
    // owned cell reads their slots).
    const bool bx = AL ? xtra && !ahead : tx == 0, ax = AL ? ahead : tx == BX - 1;
    const bool by = ty == 0, ay = ty == BY - 1;
    const bool cx = AL && bx, dx = AL && ax;   // the x roles that copy less
    unsigned want = (dx || ay) ? (dx && ay ? 0u : dx ? 0x6u : 0x5u)
                               : 0x7fu & ~(cx ? 1u << 3 : 0u) & ~(by ? 1u << 4 : 0u);
    if (AL && (idle || gi > nx)) want = 0u;
    // the padding's threads compute (from whatever their slots hold, id 0) to write zeros
    const bool do_h = (want != 0u && !ax && !ay) || pad_xy;
    const bool do_e = (do_h && !bx && !by) || pad_xy;
    const bool in_x = (PML & 1) && mnear<0>(i), in_y = (PML & 2) && mnear<1>(j);
    const int z0 = oz + (int)blockIdx.z * zlen, z1 = min(oz + bnz, z0 + zlen);
    const idx_t column = (idx_t)i + (idx_t)px * j;
    const idx_t pad_column = (idx_t)gi + (idx_t)px * j;
    const idx_t plane = (idx_t)px * py;
    const int key = j * nx + i;
    const S* const fld[6] = {ex0, ey0, ez0, hx0, hy0, hz0};
    auto stage = [&](int p) -> unsigned char* { return m3f_sh + (p - z0 + 2 * STAGES) % STAGES * L::STAGE; };
    auto sf = [&](unsigned char* st, int a) -> SS* { return reinterpret_cast<SS*>(st) + a * SP; };
    auto sid = [&](unsigned char* st) -> SI* { return reinterpret_cast<SI*>(st + L::FIELDS); };
    auto sfl = [&](unsigned char* st) -> unsigned* { return reinterpret_cast<unsigned*>(st + L::FIELDS + L::IDS); };
    T* const hb = reinterpret_cast<T*>(m3f_sh + STAGES * L::STAGE);
    // planes z0 - 1 .. z1 are read; iteration s (z0 - 1 .. z1) updates H at s (s < z1) and
    // E at s - 1 (s > z0)
    const int first_p = z0 - 1, last_p = z1;
    auto copy = [&](int p) {
        if (p <= last_p) {
            const int pw = wrap_any(p, nz);
            const idx_t c = column + plane * pw;
            unsigned char* st = stage(p);
#pragma unroll
            for (int a = 0; a < 6; ++a)
                if (want >> a & 1u) cp_elem<S>(sf(st, a) + me, fld[a] + c);
            if (want & 64u) cp_elem<ID>(sid(st) + tid, cid + c);
            if (tid == 0) cp_elem<unsigned char>(sfl(st), c_events.plane_flags + pw);
        }
        cp_commit();   // every iteration commits one group, empty or not
    };
#pragma unroll
    for (int q = 0; q < D; ++q) copy(first_p + q);
    // the cells whose stage slots this thread reads besides its own: x + 1 and y + 1 (their
    // offsets from c pick a 16-bit value out of its word)
    const int dx1 = wrap_any(gi + 1, nx) - i;
    const idx_t dy1 = (idx_t)px * (wrap_any(gj + 1, ny) - j);
    T em[3], e0[3], h1[3], h2[3];   // own: old E at s - 1 and s; new H at s - 1 and s - 2
    unsigned mprev = 0u;             // id | flags << 16 at s - 1
#pragma unroll
    for (int a = 0; a < 3; ++a) em[a] = e0[a] = h1[a] = h2[a] = T(0);
    T slot[3][2][2];   // CPML slots (one step per pass: written, never read back)
    for (int s = first_p; s <= last_p; ++s) {
        cp_wait<D - 2>();   // plane s + 1 has landed (this thread's copies)
        __syncthreads();    // ... and every thread's; H at s - 1 written
        copy(s + D);
        unsigned char* st = stage(s);
        const int kw = wrap_any(s, nz);
        const idx_t c = column + plane * kw;
        const int flags = (int)rd_elem<unsigned char>(sfl(st), c_events.plane_flags + kw);
        // (a thread that loads nothing takes id 0: its stage slots hold no id of this plane,
        // and a stale one could index past the end of the coefficients' table)
        const unsigned mid = (want & 64u) ? (unsigned)rd_elem<ID>(sid(st) + tid, cid + c) : 0u;
        const unsigned mcur = mid | ((unsigned)flags << 16);
        if (s == first_p && do_h) {
#pragma unroll
            for (int a = 0; a < 3; ++a) e0[a] = Conv<T, S>::widen(rd_elem<S>(sf(st, a) + me, fld[a] + c));
        }
        T h[3] = {T(0), T(0), T(0)}, en[3] = {T(0), T(0), T(0)};
        if (s < z1 && do_h) {
            // ---- H at plane s, from old E at planes s (neighbours from the stage), s + 1
            unsigned char* sn = stage(s + 1);
            const idx_t cn = column + plane * wrap_any(s + 1, nz);
            T ho[3];
#pragma unroll
            for (int a = 0; a < 3; ++a) {
                en[a] = Conv<T, S>::widen(rd_elem<S>(sf(sn, a) + me, fld[a] + cn));
                ho[a] = Conv<T, S>::widen(rd_elem<S>(sf(st, a + 3) + me, fld[a + 3] + c));
            }
            const T ex = e0[0], ey = e0[1], ez = e0[2];
            const T ezy = Conv<T, S>::widen(rd_elem<S>(sf(st, 2) + me + SW, fld[2] + c + dy1));
            const T ezx = Conv<T, S>::widen(rd_elem<S>(sf(st, 2) + me + 1, fld[2] + c + dx1));
            const T eyx = Conv<T, S>::widen(rd_elem<S>(sf(st, 1) + me + 1, fld[1] + c + dx1));
            const T exy = Conv<T, S>::widen(rd_elem<S>(sf(st, 0) + me + SW, fld[0] + c + dy1));
            const T d[3][2] = {{ezy - ez, en[1] - ey},    // dEz/dy, dEy/dz
                               {en[0] - ex, ezx - ez},    // dEx/dz, dEz/dx
                               {eyx - ey, exy - ex}};     // dEy/dx, dEx/dy
            const bool in_z = (PML & 4) && (flags & PLANE_FACE);
            const bool own = own_xy && s >= z0;
            curl3<T, S, CT>(gtab, crow<T, 6>(mcur & 0xffffu), 3, ho, d, in_x, in_y, in_z, src, i,
                            j, kw, ny, px, true, true, own, slot, h);
            if (flags & PLANE_SRC_H) sources3<T, S, 1>(kw, key, n0, h);
            T* hw = hb + (s & 1) * 3 * SP;
            hw[me] = h[0]; hw[SP + me] = h[1]; hw[2 * SP + me] = h[2];
            if (own) {
                store3<T, S>(hx1, hy1, hz1, c, h);
            } else if (pad_xy && s >= z0) {
                const idx_t cp = pad_column + plane * kw;
                store3<T, S>(hx1, hy1, hz1, cp, {T(0), T(0), T(0)});
            }
        }
        if (s > z0 && do_e) {
            // ---- E at plane s - 1 (z0 .. z1 - 1), from new H at planes s - 1 (neighbours
            // from the buffer written last iteration) and s - 2
            const int k = s - 1, kwe = wrap_any(k, nz);
            const idx_t ce = column + plane * kwe;
            const int fl = (int)(mprev >> 16);
            const T* hr = hb + ((s - 1) & 1) * 3 * SP;
            const T d[3][2] = {{h1[2] - hr[2 * SP + me - SW], h1[1] - h2[1]},   // dHz/dy, dHy/dz
                               {h1[0] - h2[0], h1[2] - hr[2 * SP + me - 1]},    // dHx/dz, dHz/dx
                               {h1[1] - hr[SP + me - 1], h1[0] - hr[me - SW]}}; // dHy/dx, dHx/dy
            const bool in_z = (PML & 4) && (fl & PLANE_FACE);
            T e[3];
            curl3<T, S, CT>(gtab, crow<T, 6>(mprev & 0xffffu), 0, em, d, in_x, in_y, in_z,
                            src, i, j, kwe, ny, px, true, true, own_xy, slot, e);
            if (fl & PLANE_SRC_E) sources3<T, S, 0>(kwe, key, n0, e);
            if (own_xy) {
                if (fl & PLANE_PROBE) probes3<T>(kwe, key, n0, e, h1);
                store3<T, S>(ex1, ey1, ez1, ce, e);
            } else if (pad_xy) {
                const idx_t cp = pad_column + plane * kwe;
                store3<T, S>(ex1, ey1, ez1, cp, {T(0), T(0), T(0)});
            }
        }
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            h2[a] = h1[a];
            h1[a] = h[a];
            em[a] = e0[a];
            e0[a] = en[a];
        }
        mprev = mcur;
    }
}

// ---------------------------------------------------------------------------- 3D slabs
// The CPML of 'fused' in 3D, beside the pass: march3f updates every cell without the CPML
// terms (PML = 0: no per-cell face tests, no auxiliary traffic, no divergent warps in the
// pass), then these kernels recompute, from the same source set, the cells that the terms
// reach: H over each H face (from the old E and H; HALF = 1), then E over each E face and
// over each H face and the cell after it along the face's axis (E there reads the
// corrected H; HALF = 0, from the old E and the new H). A recomputed value replaces the
// pass's, sources and probes are applied and recorded again for those cells, and the
// auxiliary values go from one buffer to the other, so boxes that overlap (edges and
// corners) compute the same values twice, which is exact. Measured on an H100
// (512 float32, 'fused', 64 x 8): pec-box 41.5 Gcells/s, dipole-cpml with the CPML inside
// the pass 24.4, beside it 27.9 (the blocks with layer cells slowed every plane of their
// column).
// Tried against slab3, and kept as an option ($YEEFDTD_CPML=boxes): the pass kernel itself
// with the CPML terms over a box around each layer (march3f / march3 take a box: origin
// ox, oy, oz and extent bnx, bny, bnz; the grid's for the pass), widened by NT - 1 cells
// each way so that it also serves 'temporal'. Exact (GPU tests, both variants), but on an
// H100 (dipole-cpml 512 float32) slower: 'fused' 22.5 Gcells/s against slab3's 27.7; per
// step, an x box 0.56 ms, y 0.41, z 0.36, where slab3 takes 0.21 + 0.24 (H, E), 0.08 +
// 0.08 and 0.07 + 0.08. Nsight Compute on the boxes: one block of 512 threads per SM (86
// registers), no eligible warp 68-77% of cycles: each plane of a layer cell waits on its
// auxiliary values' loads (the CPML path reads them at use, out of line). 'temporal' (NT
// 2, 32 x 16) 25.0 with boxes against 24.9 in the pass; NT 3 with boxes 18.1. slab3's x
// faces cost 60% of its time: rows of 10 cells touch 2-3 sectors of 32 bytes each. With
// rows padded to 16 cells and the x boxes widened to whole sectors (16 cells; the box that
// ends at the last cell, through the padding, zeroed: see _slab_boxes in march.py), an x
// box takes 0.145 ms against 0.240 (the padded box 0.26), and dipole-cpml ran at 28.3
// Gcells/s against 27.2 on unpadded rows with the boxes widened, 27.8 before.
// Since, the pass leaves out the slabs of planes these kernels recompute in both half
// steps and the grid's last planes where they stay zero (MarchStepper._pass_box and
// _inert_ends): on an H100 (dipole-cpml 512 float32, 32 x 8 aligned tiles, per step) the
// pass 2.48 ms against 3.06, slab3 1.22 ms against 1.35; 36.5 Gcells/s against 30.7.
// Nsight Compute on slab3 (before): L2 throughput 76-85% of its peak, DRAM 53-58%, about
// one L2 request per cell, so it too is bound by the L2. Tried and dropped (H100, same
// scene, per step): each thread walking 8 or 16 planes along z, the z neighbours carried
// from one plane to the next (2 of 9 E or H loads saved): 4.38 and 4.59 ms against 3.98
// (and 4.07 walking one plane, 62 registers against 48); the last x boxes 24 cells wide (to
// the end of the last cell's sector, not the pitch) instead of 32: 0.253 ms against 0.256
// (a warp's cost follows the rows it touches). Also tried and dropped (H100, same scene,
// 3.726 ms a step): blocks as tiles of 32 x 8 cells of the box's (x, y) plane instead of
// runs along x, so that the y neighbours come from the L1 (z boxes 0.074 ms against 0.078,
// y boxes 1% slower; the step 3.713 ms); each box's E right after its H, in reverse block
// order, so that E finds in the L2 what H left there (3.72-3.76 ms: no gain, this kernel
// being bound by L2 throughput rather than DRAM); one launch for both halves (slab3m below);
// the y and z layers in the pass (aligned tiles with those terms: a warp is a row along x,
// so their tests are uniform across it; commit 5dd593f holds it), slab3 over the x layers
// only: exact, but 4.191 ms a step against 3.677 (the pass 1.1 ms slower for the 0.64 ms
// of slab3 it spared: in the pass, each layer plane waits on its auxiliary values, read
// at use; hot loop 376 SASS instructions a plane against 327, 72 registers against 70).
// One thread per cell of the box bx0 + [0, bnx) x by0 + [0, bny) x bz0 + [0, bnz), wrapped
// modulo the grid's extent; the launch's grid is (ceil(bnx bny / 256), bnz).
template <typename T, typename S, typename ID, bool CT, int HALF>
__global__ void __launch_bounds__(256)
slab3(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
      const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
      S* __restrict__ ox, S* __restrict__ oy, S* __restrict__ oz,
      const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz, int px,
      int py, int bx0, int by0, int bz0, int bnx, int bny, int bnz, int src, long long n) {
    // threads over the box's (x, y) plane (fewer than 2^31 cells: checked by the host),
    // blockIdx.y the plane
    const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= (unsigned)bnx * (unsigned)bny) return;
    const int qx = (int)(q % (unsigned)bnx), qy = (int)(q / (unsigned)bnx);
    const int qz = (int)blockIdx.y;
    const int i = wrap_any(bx0 + qx, nx), j = wrap_any(by0 + qy, ny), k = wrap_any(bz0 + qz, nz);
    if (bx0 + qx >= nx) {
        // the row's padding (boxes that end at nx reach the pitch): zeros, so that every
        // 32-byte sector of the row is written whole (see _slab_boxes in march.py)
        if (bx0 + qx < px) {
            const idx_t cp = flat3(bx0 + qx, j, k, px, py);
            store3<T, S>(ox, oy, oz, cp, {T(0), T(0), T(0)});
        }
        return;
    }
    const idx_t c = flat3(i, j, k, px, py);
    const unsigned rb = crow<T, 6>((unsigned)cid[c]);
    const int flags = c_events.plane_flags[k];
    const int key = j * nx + i;
    T slot[3][2][2];   // one step: written, never read back
    const bool in_x = mnear<0>(i), in_y = mnear<1>(j), in_z = mnear<2>(k);
    if (HALF) {
        const idx_t cx = flat3(wrap_up(i, nx), j, k, px, py);
        const idx_t cy = flat3(i, wrap_up(j, ny), k, px, py);
        const idx_t cz = flat3(i, j, wrap_up(k, nz), px, py);
        const T ex = getf<T, S>(ex0, c), ey = getf<T, S>(ey0, c), ez = getf<T, S>(ez0, c);
        const T d[3][2] = {{getf<T, S>(ez0, cy) - ez, getf<T, S>(ey0, cz) - ey},
                           {getf<T, S>(ex0, cz) - ex, getf<T, S>(ez0, cx) - ez},
                           {getf<T, S>(ey0, cx) - ey, getf<T, S>(ex0, cy) - ex}};
        const T old[3] = {getf<T, S>(hx0, c), getf<T, S>(hy0, c), getf<T, S>(hz0, c)};
        T h[3];
        curl3<T, S, CT>(gtab, rb, 3, old, d, in_x, in_y, in_z, src, i, j, k, ny, px, true, true,
                        true, slot, h);
        if (flags & PLANE_SRC_H) sources3<T, S, 1>(k, key, n, h);
        store3<T, S>(ox, oy, oz, c, h);
    } else {
        const idx_t cx = flat3(wrap_down(i, nx), j, k, px, py);
        const idx_t cy = flat3(i, wrap_down(j, ny), k, px, py);
        const idx_t cz = flat3(i, j, wrap_down(k, nz), px, py);
        const T h[3] = {getf<T, S>(hx0, c), getf<T, S>(hy0, c), getf<T, S>(hz0, c)};
        const T d[3][2] = {{h[2] - getf<T, S>(hz0, cy), h[1] - getf<T, S>(hy0, cz)},
                           {h[0] - getf<T, S>(hx0, cz), h[2] - getf<T, S>(hz0, cx)},
                           {h[1] - getf<T, S>(hy0, cx), h[0] - getf<T, S>(hx0, cy)}};
        const T old[3] = {getf<T, S>(ex0, c), getf<T, S>(ey0, c), getf<T, S>(ez0, c)};
        T e[3];
        curl3<T, S, CT>(gtab, rb, 0, old, d, in_x, in_y, in_z, src, i, j, k, ny, px, true, true,
                        true, slot, e);
        if (flags & PLANE_SRC_E) sources3<T, S, 0>(k, key, n, e);
        if (flags & PLANE_PROBE) probes3<T>(k, key, n, e, h);
        store3<T, S>(ox, oy, oz, c, e);
    }
}

// slab3m: both half steps over one box in one launch (H then E), for the same cells as
// slab3's E box and the H box inside it. A block of TX x TY threads owns a tile of the
// box's (x, y) plane and marches along z through a segment of zlen planes; new H passes
// to the E of the next cells along x and y through shared memory (one barrier per plane,
// two buffers), and along z in registers. E at the tile's first column and row reads new H
// one cell behind, which no other block can be waited for: a row of TX threads behind the
// tile (ty = -1) and one more warp (lanes 0 .. TY - 1: the column tx = -1) recompute it,
// and the segment starts with H one plane behind (halo recomputation, as in march3f).
// Everything is recomputed from the source set, so the boxes stay independent of one
// another and of the pass, which they follow. Against slab3 (two launches per box), each
// value of the box is read from DRAM once rather than twice.
// Measured on an H100 (dipole-cpml 512 float32, 32 x 8 aligned pass, per step) and kept
// only as an option ($YEEFDTD_CPML=slabm), as it is slower: 4.39 ms a step against 3.70
// with slab3; an x box 0.42 ms against 0.15 + 0.15 (H, E), y 0.29 against 0.08 + 0.08, z
// 0.24-0.25 against 0.08 + 0.08 (72 registers, 3 blocks of 288 threads per SM). Like the
// pass kernel over boxes, it waits on its loads: each plane chains the loads of the
// fields, then of the auxiliary values (read at use, out of line) for H, a barrier, the
// auxiliary values for E. Loading each plane's fields and id an iteration ahead made it
// slower still (94 registers, 2 blocks per SM: x box 0.47 ms, z 0.28-0.30); with that,
// segments of 32 planes were slower again (x box 0.56) and of 8 planes 4% faster than 16.
// slab3's thread per cell and half step keeps many more loads in flight. Next: the
// auxiliary values staged ahead like the fields (cp.async), so that no load waits in the
// chain.
template <typename T, typename S, typename ID, bool CT, int TX, int TY>
__global__ void __launch_bounds__(TX * (TY + 1) + 32)
slab3m(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
       const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
       S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
       S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
       const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int nz, int px,
       int py, int bx0, int by0, int bz0, int bnx, int bny, int bnz, int zlen, int src,
       long long n) {
    constexpr int SW = TX + 1, SP = SW * (TY + 1);
    __shared__ T hs[2][3][SP];
    const int tid = (int)threadIdx.x;
    const bool xtra = tid >= TX * (TY + 1);
    const int tx = xtra ? -1 : tid % TX;
    const int ty = xtra ? tid - TX * (TY + 1) : tid / TX - 1;   // the extra warp: >= TY idle
    const int gi = bx0 + (int)blockIdx.x * TX + tx, gj = by0 + (int)blockIdx.y * TY + ty;
    const bool inx = gi - bx0 < bnx, iny = gj - by0 < bny;
    const bool pad = gi >= nx;   // the row's padding (boxes that end at nx reach the pitch)
    const bool own = tx >= 0 && ty >= 0 && inx && iny && !pad;
    const bool pad_own = tx >= 0 && ty >= 0 && inx && iny && pad;
    // the halo: behind the tile along x (column) or y (row), for an owned cell's E
    const bool halo = (xtra && ty < TY && iny) || (ty == -1 && inx && !pad);
    const bool do_h = own || halo;
    const int i = wrap_any(gi, nx), j = wrap_any(gj, ny);
    const int me = (ty + 1) * SW + tx + 1;
    const int zb = bz0 + (int)blockIdx.z * zlen, ze = min(bz0 + bnz, zb + zlen);
    const idx_t column = (idx_t)i + (idx_t)px * j;
    const idx_t pad_column = (idx_t)gi + (idx_t)px * j;
    const idx_t plane = (idx_t)px * py;
    const idx_t dx1 = wrap_up(i, nx) - i, dy1 = (idx_t)px * (wrap_up(j, ny) - j);
    const int key = j * nx + i;
    const bool in_x = mnear<0>(i), in_y = mnear<1>(j);
    T slot[3][2][2];   // one step: written, never read back
    T e0[3] = {T(0), T(0), T(0)}, hp[3] = {T(0), T(0), T(0)};   // old E at s, new H at s - 1
    if (do_h) {
        const idx_t c = column + plane * wrap_any(zb - 1, nz);
        e0[0] = getf<T, S>(ex0, c); e0[1] = getf<T, S>(ey0, c); e0[2] = getf<T, S>(ez0, c);
    }
    for (int s = zb - 1; s < ze; ++s) {
        const int kw = wrap_any(s, nz);
        const idx_t c = column + plane * kw;
        const int flags = c_events.plane_flags[kw];
        const bool in_z = mnear<2>(kw);
        T h[3] = {T(0), T(0), T(0)}, en[3] = {T(0), T(0), T(0)};
        unsigned rb = 0u;   // the cell's table row (H and E)
        // H at plane s (the segment's first iteration: one plane behind, for E at zb)
        if (do_h) {
            const idx_t cn = column + plane * wrap_any(s + 1, nz);
            en[0] = getf<T, S>(ex0, cn); en[1] = getf<T, S>(ey0, cn); en[2] = getf<T, S>(ez0, cn);
            rb = crow<T, 6>((unsigned)cid[c]);
        }
        if (do_h && (s >= zb || own)) {
            const T d[3][2] = {{getf<T, S>(ez0, c + dy1) - e0[2], en[1] - e0[1]},
                               {en[0] - e0[0], getf<T, S>(ez0, c + dx1) - e0[2]},
                               {getf<T, S>(ey0, c + dx1) - e0[1],
                                getf<T, S>(ex0, c + dy1) - e0[0]}};
            const T old[3] = {getf<T, S>(hx0, c), getf<T, S>(hy0, c), getf<T, S>(hz0, c)};
            curl3<T, S, CT>(gtab, rb, 3, old, d, in_x, in_y, in_z, src, i, j, kw, ny, px, true,
                            true, own && s >= zb, slot, h);
            if (flags & PLANE_SRC_H) sources3<T, S, 1>(kw, key, n, h);
        }
        if (s < zb) {   // uniform over the block: no barrier yet
#pragma unroll
            for (int a = 0; a < 3; ++a) { hp[a] = h[a]; e0[a] = en[a]; }
            continue;
        }
        T* hw = &hs[s & 1][0][0];
        if (ty < TY) { hw[me] = h[0]; hw[SP + me] = h[1]; hw[2 * SP + me] = h[2]; }
        if (own) {
            store3<T, S>(hx1, hy1, hz1, c, h);
        } else if (pad_own) {
            store3<T, S>(hx1, hy1, hz1, pad_column + plane * kw, {T(0), T(0), T(0)});
        }
        __syncthreads();   // new H of plane s in shared memory
        if (own) {
            // E at plane s, from new H at s (x - 1, y - 1: shared memory) and s - 1
            const T d[3][2] = {{h[2] - hw[2 * SP + me - SW], h[1] - hp[1]},   // dHz/dy, dHy/dz
                               {h[0] - hp[0], h[2] - hw[2 * SP + me - 1]},    // dHx/dz, dHz/dx
                               {h[1] - hw[SP + me - 1], h[0] - hw[me - SW]}}; // dHy/dx, dHx/dy
            T e[3];
            curl3<T, S, CT>(gtab, rb, 0, e0, d, in_x, in_y, in_z, src, i, j, kw, ny, px, true,
                            true, true, slot, e);
            if (flags & PLANE_SRC_E) sources3<T, S, 0>(kw, key, n, e);
            if (flags & PLANE_PROBE) probes3<T>(kw, key, n, e, h);
            store3<T, S>(ex1, ey1, ez1, c, e);
        } else if (pad_own) {
            store3<T, S>(ex1, ey1, ez1, pad_column + plane * kw, {T(0), T(0), T(0)});
        }
#pragma unroll
        for (int a = 0; a < 3; ++a) { hp[a] = h[a]; e0[a] = en[a]; }
    }
}

// ---------------------------------------------------------------------------- 2D
// TMz (Ez, Hx, Hy) and TEz (Hz, Ex, Ey), marching along y. A warp owns a tile of 32 V cells
// along x, lane l holding cells l, l + 32, .., l + 32 (V - 1) of it (so each load or store
// of a row is one run of 32 consecutive values per warp, at any alignment), and marches
// along y through a segment of rows. x neighbours pass between lanes by shuffles: warps
// never wait for one another (no shared memory, no barrier), so a block is WARPS
// independent warps.
//
// The NT steps form a pipeline along y as in 3D: in iteration s, step t updates row
// s - t + 1, one row behind step t - 1. Each step keeps one row of its three fields in
// registers, D[t] = (F, P, Q): TMz (Ez, Hx, Hy), TEz (Hz, Ex, Ey); D[0] is the row as read.
// Step t at row k needs D[t - 1] at rows k (read last iteration) and k + 1 (F in TMz, P in
// TEz: the y-difference looking forward), and its own P (TMz) or F (TEz) at row k - 1 (the
// y-difference looking back).
//
// Neighbouring warps: halo recomputation and double buffering, as in 3D (tiles overlap by
// NT cells on each side along x, segments by NT rows along y).
//
// Measured on an H200 (tmz-2d 8192 float32, 1000 steps; single-step bound 177 Gcells/s,
// indexed 109): NT = 4, V = 4, y segments of 128 rows: 278 Gcells/s (1.57 times the bound),
// 168 registers, 3 blocks of 4 warps per SM; bound by issue and latency (Nsight Compute at
// V = 2: 43% of issue slots busy; stalls on fixed-latency dependencies 29%, memory 21%,
// MIO 16%, instruction fetch 10%), 41% of the copy bandwidth. On the way there:
// - whole columns (no y segments): 5-13 Gcells/s, 18 blocks for 132 SMs;
// - sources, probes and CPML pairs inlined at every cell and step: the NT = 6, V = 4
//   instance held 163 kB of code and ran at 61 Gcells/s (segments of 256); out of line, the
//   best shape reached 164 (NT = 4, V = 2);
// - one id per cell for the combination of component materials instead of three, each
//   coefficient one load at a fixed offset: 164 -> 190;
// - later (H100, 329 000 Mcells/s at NT 4, V 4): the pair of coefficients each half step
//   multiplies as one 8-byte load (cf2; 4 constant loads a cell and step instead of 7):
//   359 500, bitwise the same fields;
// - the rare paths tested once per step instead of once per cell: 190 -> 229 (V = 2) and
//   276 (V = 4);
// - NT = 6 and 8 are slower (141 and 102 at V = 2: more registers, wider overlap), as are
//   8 warps per block (221 against 229), y segments of 256 (145 against 164) and launch
//   bounds asking for 5 or 6 blocks per SM (174 and 190 against 229: spills).
// float16 storage does not help (272 against 278): the kernel is not bound by DRAM.
//
// CPML (H100, 8192^2 float32, 10-cell layers, NT 4, V 4, y segments of 128, 300 steps;
// without layers 268.8 Gcells/s): with every layer in the pass, 69-73 (114 at V 2, 125
// tuned at NT 3), though the layers hold 0.5% of the cells. Two causes:
// - The x layers: the tiles at either end of each row run the CPML path for their first
//   or last cells at every row and step, and the instance needs 182-188 registers against
//   168 (2 blocks per SM instead of 3). x layers alone: 77. So the pass leaves them out
//   (the instance with y terms only: 168 registers) and the same kernel with every term
//   recomputes a box around each x layer (MarchStepper.march_boxes: one tile across, in
//   segments of 4 rows), exact as in 3D: x layers alone 213.5.
// - The y layers: a layer row called the out-of-line CPML pair once per cell, each call
//   waiting on its loads in turn (V per step and half step). mpml_row does the row's V
//   cells in one call, its loads issued together: y layers alone 164 -> 242 (the end
//   segments dispatched first, so that their slow rows did not form the last wave,
//   changed nothing: 174 against 164, dropped).
// Both: 208.4 Gcells/s (1.66 times the single-step bound; 300-step runs, box segments of 2
// rows 197.8, 4 208.4, 8 201.7, 16 188.9, 32 167.6).

// The value one cell ahead along x (lane + 1; lane 31: lane 0's next element). The last
// element of lane 31 has none in the tile (the overlap absorbs it).
template <typename T, int V>
__device__ __forceinline__ void shfl_ahead(const T (&x)[V], T (&out)[V], int lane) {
    T r[V];
#pragma unroll
    for (int m = 0; m < V; ++m) r[m] = __shfl_sync(0xffffffffu, x[m], (lane + 1) & 31);
#pragma unroll
    for (int m = 0; m < V; ++m) out[m] = (lane == 31) ? r[m + 1 < V ? m + 1 : m] : r[m];
}

// The value one cell behind along x (lane - 1; lane 0: lane 31's previous element).
template <typename T, int V>
__device__ __forceinline__ void shfl_behind(const T (&x)[V], T (&out)[V], int lane) {
    T r[V];
#pragma unroll
    for (int m = 0; m < V; ++m) r[m] = __shfl_sync(0xffffffffu, x[m], (lane + 31) & 31);
#pragma unroll
    for (int m = 0; m < V; ++m) out[m] = (lane == 0) ? r[m > 0 ? m - 1 : 0] : r[m];
}

// The ids of N cells packed into words (4 8-bit or 2 16-bit ids to a word), so that the
// pipeline can carry them along.
template <typename ID, int N>
struct IdPack {
    static constexpr int PER = 4 / (int)sizeof(ID), BITS = 8 * (int)sizeof(ID);
    static constexpr int WORDS = (N + PER - 1) / PER;
    unsigned w[WORDS];
    __device__ __forceinline__ void set(const ID (&m)[N]) {
#pragma unroll
        for (int q = 0; q < WORDS; ++q) w[q] = 0u;
#pragma unroll
        for (int q = 0; q < N; ++q) w[q / PER] |= (unsigned)m[q] << ((q % PER) * BITS);
    }
    __device__ __forceinline__ int get(int q) const {
        return (w[q / PER] >> ((q % PER) * BITS)) & ((1u << BITS) - 1u);
    }
};

// One row of a tile as stored: the three fields and the id at each of V cells, and the
// row's flags (loaded an iteration before they are needed).
template <typename S, typename ID, int V>
struct Row {
    S f[3][V];
    ID m[V];
    unsigned char flags;
};

// The cells of this lane in a row: at x0 + 32 m when the tile does not wrap around the grid
// (x0: the lane's first cell; base(row) + 32 m, every address an immediate offset from one
// pointer a field), else at i[m] each (at(row, m)).
template <int V>
struct Cols {
    int x0;
    bool wraps;   // the same in every lane of the warp
    int i[V];
    __device__ __forceinline__ idx_t base(idx_t row) const { return row + x0; }
    __device__ __forceinline__ idx_t at(idx_t row, int m) const { return row + i[m]; }
};

template <typename S, typename ID, int V>
__device__ __forceinline__ void load_row(Row<S, ID, V>& r, const S* const (&fld)[3],
                                         const ID* __restrict__ cid, const Cols<V>& col,
                                         idx_t row, int kw) {
    if (!col.wraps) {
        // one address a field, each cell an immediate offset from it, rather than each
        // cell's address worked out in 64 bits (H100, tmz-2d 8192, 4 steps a pass; see
        // docs/perf/tmz-2d-waves-h100-2026-11-26.txt): at 2 cells a lane 2.7% fewer
        // instructions, 285 500 against 284 900 Mcells/s; at 4, 168 registers instead of
        // 178, so 3 blocks of 4 warps fit an SM instead of 2: 322 000 against 230 800
        const idx_t rc = col.base(row);
        const S* const p[3] = {fld[0] + rc, fld[1] + rc, fld[2] + rc};
        const ID* const q = cid + rc;
#pragma unroll
        for (int m = 0; m < V; ++m) {
#pragma unroll
            for (int a = 0; a < 3; ++a) r.f[a][m] = p[a][32 * m];
            r.m[m] = q[32 * m];
        }
        r.flags = c_events.plane_flags[kw];
        return;
    }
#pragma unroll
    for (int m = 0; m < V; ++m) {
#pragma unroll
        for (int a = 0; a < 3; ++a) r.f[a][m] = fld[a][col.at(row, m)];
        r.m[m] = cid[col.at(row, m)];
    }
    r.flags = c_events.plane_flags[kw];
}

// march2's y-layer term of a row: value `which` of half step h (see mpml_row) advanced
// with the differences dy, its correction times column q of component `comp`'s
// coefficients added to out.
template <typename T, typename ID, bool CT, int V>
__device__ __forceinline__ void row_face(int src, int h, int which, const int (&i)[V], int kw,
                                         int ny, int px, const T (&dy)[V], bool first,
                                         bool last, unsigned own, T (&slot)[V][2][2][2],
                                         const T* __restrict__ gtab, const IdPack<ID, V>& m,
                                         int comp, int q, T (&out)[V]) {
    T r[V];
    pml_row<T, V>(src, h, which, i, kw, ny, px, dy, first, last, own, &slot[0][1][h][which], r);
#pragma unroll
    for (int e = 0; e < V; ++e) out[e] += cf1<T, CT>(gtab, crow<T, 3, 4>(m.get(e)), comp, q) * r[e];
}

// Fields (a, b, c): TMz (Ez, Hx, Hy), TEz (Hz, Ex, Ey), columns 0, 1, 2 of the table rows.
// Blocks per SM the compiler is asked to fit (0: no minimum); -DMARCH2_MINB=n for experiments.
#ifndef MARCH2_MINB
#define MARCH2_MINB 0
#endif

// FULL: every pass takes NT steps (the host launches it for those, and the instance without
// FULL for the shorter passes before snapshots and at a run's end), so that the pipeline's
// bounds are constants rather than values rebuilt from the arguments at each step at the
// register cap (H100, tmz-2d 8192 float32, 1000 steps: 4,4,4,125 360 000 -> 371 000
// Mcells/s, 4,4,4,187 359 000 -> 365 000; docs/perf/tmz-2d-full-passes-h100-2026-11-26.txt).
// The host uses it for passes without CPML terms only: with the y layers' terms (PML 2)
// it takes 180 registers against 168 (MarchStepper.full_pass).
template <typename T, typename S, typename ID, bool CT, int NT, int V, int WARPS, int PML, bool TE,
          bool FULL = false>
__global__ void __launch_bounds__(32 * WARPS, MARCH2_MINB)
march2(const S* __restrict__ a0, const S* __restrict__ b0, const S* __restrict__ c0,
       S* __restrict__ a1, S* __restrict__ b1, S* __restrict__ c1,
       const ID* __restrict__ cid, const T* __restrict__ gtab, int nx, int ny, int px, int nt, int ylen,
       int ox, int bnx, int src, long long n0) {
    constexpr int W = 32 * V, OW = W - 2 * NT;   // tile width, owned width
    if (FULL) nt = NT;   // see FULL above
    const int lane = threadIdx.x & 31;
    const int tile = (int)blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (tile * OW >= bnx) return;   // the whole warp
    // the tiles own the columns ox .. ox + bnx - 1 (the grid's, or a box's around CPML layers)
    const int x0 = ox + tile * OW - NT;
    Cols<V> col;
    col.x0 = x0 + lane;
    col.wraps = x0 < 0 || x0 + W > nx;
    int (&i)[V] = col.i;
    bool own_x[V], in_x[V];
#pragma unroll
    for (int m = 0; m < V; ++m) {
        const int o = lane + 32 * m, gi = x0 + o;
        i[m] = wrap_any(gi, nx);
        own_x[m] = o >= NT && o < W - NT && gi - ox < bnx && gi < nx;
        in_x[m] = (PML & 1) && mnear<0>(i[m]);
    }
    const int y0 = (int)blockIdx.y * ylen, y1 = min(ny, y0 + ylen);
    const int kstart = y0 - nt, kend = y1 + nt - 2;   // iterations s = kstart .. kend
    const S* const fld[3] = {a0, b0, c0};

    T d[NT + 1][3][V];   // D[t]: the row step t did last
    IdPack<ID, V> m[NT + 1];
#pragma unroll
    for (int t = 0; t <= NT; ++t) {
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int e = 0; e < V; ++e) d[t][a][e] = T(0);
#pragma unroll
        for (int q = 0; q < IdPack<ID, V>::WORDS; ++q) m[t].w[q] = 0u;
    }
    int flags[NT + 1];
#pragma unroll
    for (int t = 0; t <= NT; ++t) flags[t] = 0;
    // CPML auxiliary values between steps: [row mod NT][cell][axis][half step][which]
    T ring[NT][V][2][2][2];
    Row<S, ID, V> next;   // row s + 1, read during iteration s - 1
    {
        const int kw = wrap_any(kstart, ny);
        Row<S, ID, V> r;
        load_row<S, ID, V>(r, fld, cid, col, (idx_t)px * kw, kw);
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int e = 0; e < V; ++e) d[0][a][e] = Conv<T, S>::widen(r.f[a][e]);
        m[0].set(r.m);
        flags[0] = r.flags;
        const int kw1 = wrap_any(kstart + 1, ny);
        load_row<S, ID, V>(next, fld, cid, col, (idx_t)px * kw1, kw1);
    }
    for (int s = kstart; s <= kend; ++s) {
        // step 0 moves on to row s + 1; the ids move down the pipeline; row s + 2 is requested
        T old[3][V];   // D[t - 1] at the row before its newest, for step t
#pragma unroll
        for (int t = NT; t > 0; --t) {
            m[t] = m[t - 1];
            flags[t] = flags[t - 1];
        }
#pragma unroll
        for (int a = 0; a < 3; ++a)
#pragma unroll
            for (int e = 0; e < V; ++e) {
                old[a][e] = d[0][a][e];
                d[0][a][e] = Conv<T, S>::widen(next.f[a][e]);
            }
        m[0].set(next.m);
        flags[0] = next.flags;
        if (s < kend) {
            const int kw2 = wrap_any(s + 2, ny);
            load_row<S, ID, V>(next, fld, cid, col, (idx_t)px * kw2, kw2);
        }
#pragma unroll
        for (int t = 1; t <= NT; ++t) {
            if (t > nt) break;
            const int k = s - t + 1;
            if (k < kstart) break;   // and so for every later step
            const int kw = wrap_any(k, ny);
            const idx_t row = (idx_t)px * kw;
            const long long n = n0 + t - 1;
            const bool first = t == 1, last = t == nt;
            const bool own_y = k >= y0 && k < y1;
            const int fl = flags[t];
            const bool in_y = (PML & 2) && (fl & PLANE_FACE);
            T (&slot)[V][2][2][2] = ring[(k - kstart) % NT];
            unsigned own_row = 0u;   // bit e: cell e owned (the y layers' writes)
#pragma unroll
            for (int e = 0; e < V; ++e) own_row |= (own_x[e] && own_y) ? 1u << e : 0u;
            T nf[V], np[V], nq[V];   // the new row of step t
            if (!TE) {
                // ---- TMz. H: Hx from Ez along y, Hy from Ez along x
                T ezx[V];
                shfl_ahead<T, V>(old[0], ezx, lane);
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    const unsigned rb = crow<T, 3, 4>(m[t].get(e));
                    const T dezy = d[t - 1][0][e] - old[0][e], dezx = ezx[e] - old[0][e];
                    const CPair<T> cp = cf2<T, CT>(gtab, rb, 1, 1), cq = cf2<T, CT>(gtab, rb, 2, 2);
                    np[e] = upd2(cp.s, old[1][e], cp.d, dezy);
                    nq[e] = upd2(cq.s, old[2][e], cq.d, dezx);
                    T r1, r2;
                    if (in_x[e]) {   // Hy: c-difference along x
                        mpml_pair<T, 0>(src, 1, i[e], kw, 0, ny, px, dezx, T(0), first, last,
                                        own_x[e] && own_y, slot[e][0][1], r1, r2);
                        nq[e] += cq.d * r1;
                    }
                }
                if (in_y) {   // Hx: b-difference along y
                    T dy[V];
#pragma unroll
                    for (int e = 0; e < V; ++e) dy[e] = d[t - 1][0][e] - old[0][e];
                    row_face<T, ID, CT, V>(src, 1, 1, i, kw, ny, px, dy, first, last, own_row,
                                           slot, gtab, m[t], 1, 1, np);
                }
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    np[e] = rnd<T, S>(np[e]);
                    nq[e] = rnd<T, S>(nq[e]);
                }
                if (fl & PLANE_SRC_H) {   // out of the loop: one test per step
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        T h[3] = {np[e], nq[e], T(0)};
                        sources3<T, S, 1>(kw, i[e], n, h);
                        np[e] = h[0];
                        nq[e] = h[1];
                    }
                }
                // ---- E: Ez from Hy along x and Hx along y
                T hyx[V];
                shfl_behind<T, V>(nq, hyx, lane);
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    const unsigned rb = crow<T, 3, 4>(m[t].get(e));
                    const T dhyx = nq[e] - hyx[e], dhxy = np[e] - d[t][1][e];
                    const CPair<T> cb = cf2<T, CT>(gtab, rb, 0, 1);
                    nf[e] = fma(cf1<T, CT>(gtab, rb, 0, 2), dhxy, upd2(cb.s, old[0][e], cb.d, dhyx));
                    T r1, r2;
                    if (in_x[e]) {   // Ez: b-difference along x
                        mpml_pair<T, 0>(src, 0, i[e], kw, 0, ny, px, T(0), dhyx, first, last,
                                        own_x[e] && own_y, slot[e][0][0], r1, r2);
                        nf[e] += cb.d * r2;
                    }
                }
                if (in_y) {   // Ez: c-difference along y
                    T dy[V];
#pragma unroll
                    for (int e = 0; e < V; ++e) dy[e] = np[e] - d[t][1][e];
                    row_face<T, ID, CT, V>(src, 0, 0, i, kw, ny, px, dy, first, last, own_row,
                                           slot, gtab, m[t], 0, 2, nf);
                }
#pragma unroll
                for (int e = 0; e < V; ++e) nf[e] = rnd<T, S>(nf[e]);
                if (fl & PLANE_SRC_E) {   // out of the loop: one test per step
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        T f3[3] = {T(0), T(0), nf[e]};
                        sources3<T, S, 0>(kw, i[e], n, f3);
                        nf[e] = f3[2];
                    }
                }
            } else {
                // ---- TEz. H: Hz from Ey along x and Ex along y
                T eyx[V];
                shfl_ahead<T, V>(old[2], eyx, lane);
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    const unsigned rb = crow<T, 3, 4>(m[t].get(e));
                    const T deyx = eyx[e] - old[2][e], dexy = d[t - 1][1][e] - old[1][e];
                    const CPair<T> cb = cf2<T, CT>(gtab, rb, 0, 1);
                    nf[e] = fma(cf1<T, CT>(gtab, rb, 0, 2), dexy, upd2(cb.s, old[0][e], cb.d, deyx));
                    T r1, r2;
                    if (in_x[e]) {   // Hz: b-difference along x
                        mpml_pair<T, 0>(src, 1, i[e], kw, 0, ny, px, T(0), deyx, first, last,
                                        own_x[e] && own_y, slot[e][0][1], r1, r2);
                        nf[e] += cb.d * r2;
                    }
                }
                if (in_y) {   // Hz: c-difference along y
                    T dy[V];
#pragma unroll
                    for (int e = 0; e < V; ++e) dy[e] = d[t - 1][1][e] - old[1][e];
                    row_face<T, ID, CT, V>(src, 1, 0, i, kw, ny, px, dy, first, last, own_row,
                                           slot, gtab, m[t], 0, 2, nf);
                }
#pragma unroll
                for (int e = 0; e < V; ++e) nf[e] = rnd<T, S>(nf[e]);
                if (fl & PLANE_SRC_H) {   // out of the loop: one test per step
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        T h[3] = {T(0), T(0), nf[e]};
                        sources3<T, S, 1>(kw, i[e], n, h);
                        nf[e] = h[2];
                    }
                }
                // ---- E: Ex from Hz along y, Ey from Hz along x
                T hzx[V];
                shfl_behind<T, V>(nf, hzx, lane);
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    const unsigned rb = crow<T, 3, 4>(m[t].get(e));
                    const T dhzy = nf[e] - d[t][0][e], dhzx = nf[e] - hzx[e];
                    const CPair<T> cp = cf2<T, CT>(gtab, rb, 1, 1), cq = cf2<T, CT>(gtab, rb, 2, 2);
                    np[e] = upd2(cp.s, old[1][e], cp.d, dhzy);
                    nq[e] = upd2(cq.s, old[2][e], cq.d, dhzx);
                    T r1, r2;
                    if (in_x[e]) {   // Ey: c-difference along x
                        mpml_pair<T, 0>(src, 0, i[e], kw, 0, ny, px, dhzx, T(0), first, last,
                                        own_x[e] && own_y, slot[e][0][0], r1, r2);
                        nq[e] += cq.d * r1;
                    }
                }
                if (in_y) {   // Ex: b-difference along y
                    T dy[V];
#pragma unroll
                    for (int e = 0; e < V; ++e) dy[e] = nf[e] - d[t][0][e];
                    row_face<T, ID, CT, V>(src, 0, 1, i, kw, ny, px, dy, first, last, own_row,
                                           slot, gtab, m[t], 1, 1, np);
                }
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    np[e] = rnd<T, S>(np[e]);
                    nq[e] = rnd<T, S>(nq[e]);
                }
                if (fl & PLANE_SRC_E) {   // out of the loop: one test per step
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        T f3[3] = {np[e], nq[e], T(0)};
                        sources3<T, S, 0>(kw, i[e], n, f3);
                        np[e] = f3[0];
                        nq[e] = f3[1];
                    }
                }
            }
#pragma unroll
            for (int e = 0; e < V; ++e) {
                old[0][e] = d[t][0][e]; old[1][e] = d[t][1][e]; old[2][e] = d[t][2][e];
                d[t][0][e] = nf[e]; d[t][1][e] = np[e]; d[t][2][e] = nq[e];
            }
            if (own_y && (fl & PLANE_PROBE)) {
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    if (!own_x[e]) continue;
                    const T ev[3] = {TE ? np[e] : T(0), TE ? nq[e] : T(0), TE ? T(0) : nf[e]};
                    const T hv[3] = {TE ? T(0) : np[e], TE ? T(0) : nq[e], TE ? nf[e] : T(0)};
                    probes3<T>(kw, i[e], n, ev, hv);
                }
            }
            if (own_y && last) {
                if (!col.wraps) {   // as in load_row
                    const idx_t rc = col.base(row);
                    S* const pa = a1 + rc;
                    S* const pb = b1 + rc;
                    S* const pc = c1 + rc;
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        if (!own_x[e]) continue;
                        pa[32 * e] = Conv<T, S>::narrow(nf[e]);
                        pb[32 * e] = Conv<T, S>::narrow(np[e]);
                        pc[32 * e] = Conv<T, S>::narrow(nq[e]);
                    }
                } else
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    if (!own_x[e]) continue;
                    const idx_t c = col.at(row, e);
                    a1[c] = Conv<T, S>::narrow(nf[e]);
                    b1[c] = Conv<T, S>::narrow(np[e]);
                    c1[c] = Conv<T, S>::narrow(nq[e]);
                }
            }
        }
    }
}
