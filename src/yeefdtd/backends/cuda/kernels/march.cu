// The 'fused' and 'temporal' variants: one launch advances the fields NT time steps (fused:
// NT = 1), H then E at each step, reading every field from DRAM once and writing it once
// per pass.
//
// Mapping (3D): a block of BX x BY threads owns a column of BX x BY cells in x and y and
// marches along z through a segment of planes. Each thread keeps its column's values in
// registers; the x and y neighbours pass through shared memory, one plane of E and one of
// H (two barriers per step and plane). The NT steps form a pipeline along z: in iteration
// s, step t (t = 1 .. NT) updates plane s - t + 1, one plane behind step t - 1, whose E
// at planes k and k + 1 and H at plane k it needs; each step keeps its last two planes
// of E and H in registers.
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
// lives in local memory and is touched only by layer cells.
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
// Gcells/s): far from the goals. fused 24.6 Gcells/s (32 x 16 threads, z segments of 64),
// temporal 23.8 (NT = 2), 16.1 (NT = 3), 12.1 (NT = 4); pec-box 47.4 (fused). The first
// version, loading each plane just before its use and looking up the CPML faces and the
// source and probe tables for every cell, ran fused at 19.5 and temporal (NT = 2) at 14.0;
// loading the next plane an iteration ahead, carrying the ids down the pipeline packed in
// words, and per-plane flags for sources, probes and z faces took it here. Asking for 2
// blocks per SM (launch bounds) made temporal slower (14.4 against 23.1 at NT = 2). Whole-z
// columns (no segments) were slower than segments of 64-128 planes (a last wave of long
// blocks). With CPML the instances need 122-128 registers (spilling at NT >= 3), so one
// block of 256-512 threads runs per SM: latency and the two barriers per step and plane
// bound it, not DRAM (16-33% of the copy bandwidth). Next: fewer registers (the CPML
// branch out of the main path), more independent work per thread (several cells along y
// per thread, neighbours by shuffles), and wider owned tiles.

// Values rounded to the storage type and back (identity when S = T).
template <typename T, typename S>
__device__ __forceinline__ T rnd(T v) { return Conv<T, S>::widen(Conv<T, S>::narrow(v)); }

__device__ __forceinline__ int wrap_any(int g, int n) {
    if (g >= 0 && g < n) return g;
    const int r = g % n;
    return r < 0 ? r + n : r;
}

// Sources and probes of the marching kernels, sorted by plane and, within a plane, by cell
// (j nx + i). Offsets have nz + 1 entries. Sources: kind 0 E, 1 H; meta = component
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
// what a plane holds (c_events.plane_flags): E sources, H sources, probes, a z CPML face
constexpr int PLANE_SRC_E = 1, PLANE_SRC_H = 2, PLANE_PROBE = 4, PLANE_ZFACE = 8;

// The six ids of a cell (ex ey ez hx hy hz) and its plane's flags, packed into words so
// that NT steps can carry them along the pipeline: 8-bit ids four to a word, the flags in
// the second word's upper half; 16-bit ids two to a word, the flags in a fourth.
template <typename ID> struct Ids;
template <> struct Ids<id8_t> {
    unsigned w[2];
    __device__ __forceinline__ void set(const id8_t (&m)[6], int flags) {
        w[0] = m[0] | (m[1] << 8) | (m[2] << 16) | ((unsigned)m[3] << 24);
        w[1] = m[4] | (m[5] << 8) | ((unsigned)flags << 16);
    }
    __device__ __forceinline__ int get(int q) const { return (w[q >> 2] >> ((q & 3) * 8)) & 0xff; }
    __device__ __forceinline__ int flags() const { return w[1] >> 16; }
};
template <> struct Ids<id16_t> {
    unsigned w[4];
    __device__ __forceinline__ void set(const id16_t (&m)[6], int flags) {
        w[0] = m[0] | ((unsigned)m[1] << 16);
        w[1] = m[2] | ((unsigned)m[3] << 16);
        w[2] = m[4] | ((unsigned)m[5] << 16);
        w[3] = (unsigned)flags;
    }
    __device__ __forceinline__ int get(int q) const { return (w[q >> 1] >> ((q & 1) * 16)) & 0xffff; }
    __device__ __forceinline__ int flags() const { return (int)w[3]; }
};

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

// Adds (soft) or sets (hard) the sources of kind K at plane kw on this cell, at step n.
template <typename T, typename S, int K>
__device__ __forceinline__ void march_sources(int kw, int key, long long n, T (&f)[3]) {
    const int* off = c_events.src_off[K];
    if (off == nullptr) return;
    const int lo = __ldg(off + kw), hi = __ldg(off + kw + 1);
    if (lo == hi) return;
    const int* cell = c_events.src_cell[K];
    const T* val = static_cast<const T*>(c_events.src_val[K]);
    const long long row = n * c_events.src_cols[K];
    for (int q = lower(cell, lo, hi, key); q < hi && __ldg(cell + q) == key; ++q) {
        const int m = __ldg(c_events.src_meta[K] + q);
        const T v = __ldg(val + row + (m >> 3));
        const int comp = m & 3;
#pragma unroll
        for (int a = 0; a < 3; ++a)
            if (a == comp) f[a] = rnd<T, S>((m & 4) ? v : f[a] + v);
    }
}

// Records the probes at plane kw on this cell after step n.
template <typename T>
__device__ __forceinline__ void march_probes(int kw, int key, long long n, const T (&e)[3],
                                             const T (&h)[3]) {
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
            if (comp == a) v = e[a];
            if (comp == a + 3) v = h[a];
        }
        static_cast<T*>(c_events.grp_ring[g])[r * __ldg(c_events.grp_count + g) +
                                              __ldg(c_events.prb_col + q)] = v;
    }
}

// The face normal to axis A (compile-time) of half step h in buffer b holding the cell,
// with its depth u and entry at; null when none (see face_at in common.cuh).
template <int A>
__device__ __forceinline__ const Face* mface(int b, int h, int i, int j, int k, int ny, int px,
                                             int& u, idx_t& at) {
    return face_in<A>(&c_mfaces[b][h][A][0], i, j, k, ny, px, u, at);
}

// One CPML auxiliary value of a marching step: psi <- b psi + c d, read from buffer src at
// the first step of the pass (else from the ring slot), kept in the slot, and written to
// the other buffer at the pass's last step when the cell is owned. Returns the correction
// factor (1/kappa - 1) d + psi.
template <typename T>
__device__ __forceinline__ T mpml(const Face* f, int which, idx_t at, int u, T d, bool first,
                                  bool last, bool own, int src, T& slot) {
    const T b = static_cast<const T*>(f->b)[u], cc = static_cast<const T*>(f->c)[u];
    const T ki = static_cast<const T*>(f->k)[u];
    T p = first ? static_cast<const T*>(which ? f->psi2 : f->psi1)[at] : slot;
    p = b * p + cc * d;
    slot = p;
    if (last && own) {
        // the same face in the other buffer: 12 faces further on or back
        const Face* g = f + (src ? -12 : 12);
        static_cast<T*>(which ? g->psi2 : g->psi1)[at] = p;
    }
    return ki * d + p;
}

// The pair of auxiliary values of the face normal to A (half step h) at this cell:
// differences d1 (component a1) and d2 (a2); corrections returned in r1, r2 (0 outside).
template <typename T, int A>
__device__ __forceinline__ void mpml_pair(int src, int h, int i, int j, int k, int ny, int px,
                                          T d1, T d2, bool first, bool last, bool own,
                                          T* slots, T& r1, T& r2) {
    int u;
    idx_t at;
    r1 = T(0);
    r2 = T(0);
    const Face* f = mface<A>(src, h, i, j, k, ny, px, u, at);
    if (f == nullptr) return;
    if (f->psi1) r1 = mpml<T>(f, 0, at, u, d1, first, last, own, src, slots[0]);
    if (f->psi2) r2 = mpml<T>(f, 1, at, u, d2, first, last, own, src, slots[1]);
}

// ---------------------------------------------------------------------------- 3D
// One plane of a cell column as stored: the six fields, the six ids and the plane's flags
// (loaded an iteration before they are needed, so the loads are in flight meanwhile).
template <typename S, typename ID>
struct Plane {
    S f[6];
    ID m[6];
    unsigned char flags;
};

template <typename S, typename ID>
__device__ __forceinline__ void load_plane(Plane<S, ID>& p, const S* const (&fld)[6],
                                           const ID* const (&ids)[6], idx_t c, int kw) {
#pragma unroll
    for (int a = 0; a < 6; ++a) {
        p.f[a] = fld[a][c];
        p.m[a] = ids[a][c];
    }
    p.flags = c_events.plane_flags[kw];
}

// Blocks per SM the compiler is asked to fit (0: no minimum); -DMARCH_MINB=n for experiments.
#ifndef MARCH_MINB
#define MARCH_MINB 0
#endif

template <typename T, typename S, typename ID, bool CT, int NT, int BX, int BY, int PML>
__global__ void __launch_bounds__(BX * BY, MARCH_MINB)
march3(const S* __restrict__ ex0, const S* __restrict__ ey0, const S* __restrict__ ez0,
       const S* __restrict__ hx0, const S* __restrict__ hy0, const S* __restrict__ hz0,
       S* __restrict__ ex1, S* __restrict__ ey1, S* __restrict__ ez1,
       S* __restrict__ hx1, S* __restrict__ hy1, S* __restrict__ hz1,
       const ID* __restrict__ iex, const ID* __restrict__ iey, const ID* __restrict__ iez,
       const ID* __restrict__ ihx, const ID* __restrict__ ihy, const ID* __restrict__ ihz,
       const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
       int nt, int zlen, int src, long long n0) {
    constexpr int SW = BX + 2, SP = SW * (BY + 2);   // shared rows padded by one each side
    __shared__ T sh[6 * SP];
    T* const sex = sh;
    T* const sey = sh + SP;
    T* const sez = sh + 2 * SP;
    T* const shx = sh + 3 * SP;
    T* const shy = sh + 4 * SP;
    T* const shz = sh + 5 * SP;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int me = (ty + 1) * SW + tx + 1;
    for (int q = ty * BX + tx; q < 6 * SP; q += BX * BY) sh[q] = T(0);   // the padding
    const int gi = (int)blockIdx.x * (BX - 2 * NT) + tx - NT;
    const int gj = (int)blockIdx.y * (BY - 2 * NT) + ty - NT;
    const int i = wrap_any(gi, nx), j = wrap_any(gj, ny);
    const bool own_xy = tx >= NT && tx < BX - NT && ty >= NT && ty < BY - NT && gi < nx &&
                        gj < ny;
    const bool in_x = (PML & 1) && mnear<0>(i), in_y = (PML & 2) && mnear<1>(j);
    const int z0 = (int)blockIdx.z * zlen, z1 = min(nz, z0 + zlen);
    const idx_t column = (idx_t)i + (idx_t)px * j;
    const idx_t plane = (idx_t)px * py;
    const int key = j * nx + i;
    const int kstart = z0 - nt, kend = z1 + nt - 2;   // iterations s = kstart .. kend
    const S* const fld[6] = {ex0, ey0, ez0, hx0, hy0, hz0};
    const ID* const ids[6] = {iex, iey, iez, ihx, ihy, ihz};

    // per step: E at its last plane (en) and the one before (eo), H likewise (hn, ho), and
    // the ids of its plane (m); index 0 holds the planes as read
    T en[NT + 1][3], eo[NT + 1][3], hn[NT + 1][3], ho[NT + 1][3];
    Ids<ID> m[NT + 1];
#pragma unroll
    for (int t = 0; t <= NT; ++t) {
#pragma unroll
        for (int a = 0; a < 3; ++a) en[t][a] = eo[t][a] = hn[t][a] = ho[t][a] = T(0);
#pragma unroll
        for (int w = 0; w < (int)(sizeof(Ids<ID>) / 4); ++w) m[t].w[w] = 0u;
    }
    // CPML auxiliary values between steps: [plane mod NT][axis][half step][which]
    T ring[NT][3][2][2];
    Plane<S, ID> next;   // plane s + 1, read during iteration s - 1
    {
        const int kw = wrap_any(kstart, nz);
        const idx_t c = column + plane * kw;
        Plane<S, ID> p;
        load_plane<S, ID>(p, fld, ids, c, kw);
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            en[0][a] = Conv<T, S>::widen(p.f[a]);
            hn[0][a] = Conv<T, S>::widen(p.f[a + 3]);
        }
        m[0].set(p.m, p.flags);
        const int kw1 = wrap_any(kstart + 1, nz);
        load_plane<S, ID>(next, fld, ids, column + plane * kw1, kw1);
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
        m[0].set(next.m, next.flags);
        if (s < kend) {
            const int kw2 = wrap_any(s + 2, nz);
            load_plane<S, ID>(next, fld, ids, column + plane * kw2, kw2);
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
            const bool own = own_xy && k >= z0 && k < z1;
            const int flags = m[t].flags();
            const bool in_z = (PML & 4) && (flags & PLANE_ZFACE);
            T (&slot)[3][2][2] = ring[(k - kstart) % NT];
            // ---- H of step t at plane k, from E of step t - 1 at planes k, k + 1
            sex[me] = eo[t - 1][0]; sey[me] = eo[t - 1][1]; sez[me] = eo[t - 1][2];
            __syncthreads();
            T h[3];
            {
                const T ex = eo[t - 1][0], ey = eo[t - 1][1], ez = eo[t - 1][2];
                const T dezy = sez[me + SW] - ez, deyz = en[t - 1][1] - ey;
                const T dexz = en[t - 1][0] - ex, dezx = sez[me + 1] - ez;
                const T deyx = sey[me + 1] - ey, dexy = sex[me + SW] - ex;
                const int mx = m[t].get(3), my = m[t].get(4), mz = m[t].get(5);
                h[0] = coef<T, CT>(gtab, R, 3, mx, 0) * ho[t - 1][0]
                     + coef<T, CT>(gtab, R, 3, mx, 1) * dezy + coef<T, CT>(gtab, R, 3, mx, 2) * deyz;
                h[1] = coef<T, CT>(gtab, R, 4, my, 0) * ho[t - 1][1]
                     + coef<T, CT>(gtab, R, 4, my, 1) * dexz + coef<T, CT>(gtab, R, 4, my, 2) * dezx;
                h[2] = coef<T, CT>(gtab, R, 5, mz, 0) * ho[t - 1][2]
                     + coef<T, CT>(gtab, R, 5, mz, 1) * deyx + coef<T, CT>(gtab, R, 5, mz, 2) * dexy;
                T r1, r2;
                if (in_x) {   // Hy: c-difference along x; Hz: b-difference
                    mpml_pair<T, 0>(src, 1, i, j, kw, ny, px, dezx, deyx, first, last, own,
                                    slot[0][1], r1, r2);
                    h[1] += coef<T, CT>(gtab, R, 4, my, 2) * r1;
                    h[2] += coef<T, CT>(gtab, R, 5, mz, 1) * r2;
                }
                if (in_y) {   // Hz: c-difference along y; Hx: b-difference
                    mpml_pair<T, 1>(src, 1, i, j, kw, ny, px, dexy, dezy, first, last, own,
                                    slot[1][1], r1, r2);
                    h[2] += coef<T, CT>(gtab, R, 5, mz, 2) * r1;
                    h[0] += coef<T, CT>(gtab, R, 3, mx, 1) * r2;
                }
                if (in_z) {   // Hx: c-difference along z; Hy: b-difference
                    mpml_pair<T, 2>(src, 1, i, j, kw, ny, px, deyz, dexz, first, last, own,
                                    slot[2][1], r1, r2);
                    h[0] += coef<T, CT>(gtab, R, 3, mx, 2) * r1;
                    h[1] += coef<T, CT>(gtab, R, 4, my, 1) * r2;
                }
#pragma unroll
                for (int a = 0; a < 3; ++a) h[a] = rnd<T, S>(h[a]);
                if (flags & PLANE_SRC_H) march_sources<T, S, 1>(kw, key, n, h);
            }
            shx[me] = h[0]; shy[me] = h[1]; shz[me] = h[2];
            __syncthreads();
            // ---- E of step t at plane k, from H of step t at planes k, k - 1
            T e[3];
            {
                const T dhzy = h[2] - shz[me - SW], dhyz = h[1] - hn[t][1];
                const T dhxz = h[0] - hn[t][0], dhxy = h[0] - shx[me - SW];
                const T dhzx = h[2] - shz[me - 1], dhyx = h[1] - shy[me - 1];
                const int mx = m[t].get(0), my = m[t].get(1), mz = m[t].get(2);
                e[0] = coef<T, CT>(gtab, R, 0, mx, 0) * eo[t - 1][0]
                     + coef<T, CT>(gtab, R, 0, mx, 1) * dhzy + coef<T, CT>(gtab, R, 0, mx, 2) * dhyz;
                e[1] = coef<T, CT>(gtab, R, 1, my, 0) * eo[t - 1][1]
                     + coef<T, CT>(gtab, R, 1, my, 1) * dhxz + coef<T, CT>(gtab, R, 1, my, 2) * dhzx;
                e[2] = coef<T, CT>(gtab, R, 2, mz, 0) * eo[t - 1][2]
                     + coef<T, CT>(gtab, R, 2, mz, 1) * dhyx + coef<T, CT>(gtab, R, 2, mz, 2) * dhxy;
                T r1, r2;
                if (in_x) {   // Ey: c-difference along x; Ez: b-difference
                    mpml_pair<T, 0>(src, 0, i, j, kw, ny, px, dhzx, dhyx, first, last, own,
                                    slot[0][0], r1, r2);
                    e[1] += coef<T, CT>(gtab, R, 1, my, 2) * r1;
                    e[2] += coef<T, CT>(gtab, R, 2, mz, 1) * r2;
                }
                if (in_y) {   // Ez: c-difference along y; Ex: b-difference
                    mpml_pair<T, 1>(src, 0, i, j, kw, ny, px, dhxy, dhzy, first, last, own,
                                    slot[1][0], r1, r2);
                    e[2] += coef<T, CT>(gtab, R, 2, mz, 2) * r1;
                    e[0] += coef<T, CT>(gtab, R, 0, mx, 1) * r2;
                }
                if (in_z) {   // Ex: c-difference along z; Ey: b-difference
                    mpml_pair<T, 2>(src, 0, i, j, kw, ny, px, dhyz, dhxz, first, last, own,
                                    slot[2][0], r1, r2);
                    e[0] += coef<T, CT>(gtab, R, 0, mx, 2) * r1;
                    e[1] += coef<T, CT>(gtab, R, 1, my, 1) * r2;
                }
#pragma unroll
                for (int a = 0; a < 3; ++a) e[a] = rnd<T, S>(e[a]);
                if (flags & PLANE_SRC_E) march_sources<T, S, 0>(kw, key, n, e);
            }
#pragma unroll
            for (int a = 0; a < 3; ++a) {
                ho[t][a] = hn[t][a]; hn[t][a] = h[a];
                eo[t][a] = en[t][a]; en[t][a] = e[a];
            }
            if (own) {
                if (flags & PLANE_PROBE) march_probes<T>(kw, key, n, e, h);
                if (last) {
                    storef<T, S, 1>(ex1, c, Pack<T, 1>{{e[0]}});
                    storef<T, S, 1>(ey1, c, Pack<T, 1>{{e[1]}});
                    storef<T, S, 1>(ez1, c, Pack<T, 1>{{e[2]}});
                    storef<T, S, 1>(hx1, c, Pack<T, 1>{{h[0]}});
                    storef<T, S, 1>(hy1, c, Pack<T, 1>{{h[1]}});
                    storef<T, S, 1>(hz1, c, Pack<T, 1>{{h[2]}});
                }
            }
        }
    }
}
