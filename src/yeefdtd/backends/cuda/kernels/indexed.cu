// The default 'indexed' variant: per-component material ids (uint8 or uint16) select rows of
// a small coefficient table (constant memory when it fits). Each half step moves its fields
// through DRAM once: the updated field read and written, the curl field read, one id byte
// (or two) per component; neighbours come from L1 and L2.
//
// Fields are stored as S and computed in T (S = T, or float16 storage with float32
// arithmetic: see Conv in common.cuh); the coefficient table and the CPML auxiliary values
// are always T.
//
// Mapping: one thread per V consecutive cells along x (V = 1, 2 or 4, and 8 for float16;
// rows are padded to a multiple of the widest V so that the V values are one aligned access
// of up to 16 bytes), 1D blocks over the rows of packs flattened across y. Measured on an H200, pec-box 512 float32: 92% of
// the copy bandwidth, where 2D (x, y) blocks reached 86% (a row of 513 cells is 129 packs,
// so a 2D block along x left most lanes of its last block idle). One cell per thread
// (4-byte loads) reached 2.5 TB/s with exactly the modelled traffic; 16-byte accesses keep
// more bytes in flight per thread. A thread marching along z with its z-neighbour in a
// register (the seeds' xy-mapping) needed 56 registers and did worse.
//
// Cells in the padding (i >= nx) are computed too: their ids are 0 (all coefficients zero),
// so they stay zero. The x-neighbour of the last cell of a row wraps to the first.
//
// With PML, the CPML correction is applied in the same pass: the differences are already
// in registers, so a cell in a layer only adds its auxiliary values' read and write (the
// faces are described in constant memory, see common.cuh). PML is the mask of axes (1 x,
// 2 y, 4 z) that have faces. In 3D one launch covers the grid (see INDEXED3_DISPATCH); in
// 2D the plain kernel (PML = 0) runs on the interior box and the PML kernel on the boxes
// that hold the layers. Every cell is updated once.
//
// float16 storage, measured on an H200 (1000 steps): pec-box 512 at 93.5% of its bound with
// V = 8 (16-byte accesses), 1.90 times float32; dipole-cpml 512 at 75.0% with V = 4, 1.62
// times float32. There V = 8 ran at 67.6% (its CPML instances need 74-101 registers, 64
// with spills under launch bounds of 4 blocks per SM), and the x band aligned to 8 instead
// of the launch's V (32 layer cells per row instead of 24) at 71%. Converting two values
// per instruction on the way down (cvt.rn.f16x2.f32) gained 1.7% over one at a time.
//
// PF > 0 asks L2 for this thread's cells PF planes ahead before loading its own: requests in
// flight that hold no registers, for the blocks of that plane to find in L2. Capping the
// registers (launch bounds with a minimum number of blocks) to raise occupancy did not help.
// Mind the launch bounds: the same code with a minimum of one block per SM declared
// (``.minnctapersm 1``, same 64 registers) ran dipole-cpml 512 at 3.60 against 3.13 ms/step.
// A thread updating its cells in 2 or 4 consecutive planes, the curl field's shared values
// carried in registers (2 of its 7 curl-field loads saved per further plane), was slower:
// 78.1% of the bound (V = 2, 2 planes) and 76.6% (V = 4) against 83.0% (H200, 1000 steps).
// Neither did sharing y-neighbours between rows: warps of 32 / RW threads by RW rows
// passing them by shuffles cut L2 read sectors by 8% (RW = 4) but DRAM throughput fell from
// 74% to 64% of peak (shorter runs of consecutive addresses): 72.4% of the bound (RW = 4),
// 77.8% (RW = 2), 68.3% (RW = 8). Loads and stores of the once-touched values (updated
// field, ids) with the evict-first hint: 79.8%; stores only: 82.4%. Nsight Compute: DRAM
// bytes per cell match the model (41.5 for the E half step against 40.9), L2 read sectors
// are 1.6 times DRAM reads, L2 throughput 93% of peak.

// x-neighbour ahead of element e: the next element, the first element of the next pack,
// or (for the last cell of the row) the row's first cell.
template <typename T, int V>
__device__ __forceinline__ T ahead(const Pack<T, V>& p, int e, T next, T first, bool last) {
    return last ? first : (e + 1 < V ? p.v[e + 1] : next);
}

// x-neighbour behind element e: the previous element, the last element of the previous
// pack, or (for the first cell of the row) the row's last cell.
template <typename T, int V>
__device__ __forceinline__ T behind(const Pack<T, V>& p, int e, T prev) {
    return e > 0 ? p.v[e - 1] : prev;
}

// ---------------------------------------------------------------------------- 3D
// Second pass: the CPML faces are applied after the plain update has stored its packs, one
// component of one face at a time, reading back what each needs (L1 and L2 hits: the lines
// were touched a moment ago, so DRAM sees no extra bytes). A compiler fence before each,
// and pointers the compiler cannot see through, keep it from carrying values across in
// registers: applied in the same pass, the faces raised the kernel from 52-56 to 79-90
// registers. The x faces cut packs (each cell its own depth), so their cells are updated
// one per thread with the faces applied in the same pass (see INDEXED3_DISPATCH); applied
// a pack at a time in the second pass instead, they raised the kernel to 64-86 registers
// and were slower (dipole-cpml 512: 40.8 against 43.6 Gcells/s). Measured again with the
// profiles as packs (zero beyond the slab, so no per-cell branch): 68.8% of the bound
// against 83.4% (70-78 registers; 70.8% capped at 64): the 3 layer packs of a row sit in
// warps whose other lanes wait through the x-face pass. Layer cells two per thread instead
// of one: 82.4% against 83.0% (72 registers).
//
// Nsight Compute puts this kernel at 92-93% of the L2 throughput peak (75-79% of DRAM's),
// and under sustained load the H200 holds it at its 700 W power cap with the SM clock
// down to 1.4-1.7 GHz. A single pass with every face applied cell by cell (x layers in
// packs, auxiliary values staged in shared memory by cp.async; commit e4ed9d0) ran faster
// for 200 steps (85.3% of the bound against 82.3%) but slower over 1000 (78.8% against
// 82.8%): it needed V = 2 (at V = 4, 80-100 registers), twice the memory instructions.
__device__ __forceinline__ void compiler_fence() { asm volatile("" ::: "memory"); }

// The same pointer, as far as the compiler can tell a different one: loads through it are
// issued again rather than answered from registers (read-only data survives a fence).
template <typename P>
__device__ __forceinline__ P* opaque(P* p) {
    asm volatile("mov.b64 %0, %0;" : "+l"(p));
    return p;
}

// The CPML step of one component F over a pack of V cells on a y or z face, where the
// whole pack lies at one depth u and its auxiliary values are V consecutive, aligned entries
// from ``at``: with d = A[ca] - B[cb] (F's difference across the face, column q of its row),
//     psi <- b psi + c d,  F += C_q (kinv d + psi).
template <typename T, typename S, typename ID, bool CT, int V>
__device__ __forceinline__ void pml_pack(void* psi_v, const Face* f, idx_t at, int u,
                                         const T* __restrict__ gtab, int R, S* F,
                                         const ID* id, int comp, int q,
                                         const S* A, const S* B, idx_t c, idx_t ca, idx_t cb) {
    compiler_fence();
    F = opaque(F);
    id = opaque(id);
    A = opaque(A);
    B = opaque(B);
    T* psi = static_cast<T*>(psi_v);
    const T b = static_cast<const T*>(f->b)[u], cc = static_cast<const T*>(f->c)[u];
    const T ki = static_cast<const T*>(f->k)[u];
    Pack<T, V> p = load<T, V>(psi, at), x = loadf<T, S, V>(F, c);
    const Pack<T, V> a1 = loadf<T, S, V>(A, ca), b1 = loadf<T, S, V>(B, cb);
    const Pack<ID, V> m = load<ID, V>(id, c);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const T d = a1.v[e] - b1.v[e];
        p.v[e] = b * p.v[e] + cc * d;
        x.v[e] += coef<T, CT>(gtab, R, comp, m.v[e], q) * (ki * d + p.v[e]);
    }
    store<T, V>(psi, at, p);
    storef<T, S, V>(F, c, x);
}

// The H update of the V cells from (i0, j, k). CELLF: the axes whose CPML faces are
// applied cell by cell, in the same pass (used with V = 1); PACKF: the axes (y, z) applied
// a pack at a time, in the second pass.
template <typename T, typename S, typename ID, bool CT, int V, int CELLF, int PACKF, int PF>
__device__ __forceinline__ void h3_cells(
        S* __restrict__ hx, S* __restrict__ hy, S* __restrict__ hz,
        const S* __restrict__ ex, const S* __restrict__ ey, const S* __restrict__ ez,
        const ID* __restrict__ idx, const ID* __restrict__ idy, const ID* __restrict__ idz,
        const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
        int i0, int j, int k) {
    bool near[3];
    nearness<CELLF, V>(1, i0, j, k, near);
    const idx_t plane = (idx_t)px * py;
    const idx_t row = (idx_t)j * px + (idx_t)k * plane;
    const idx_t c = row + i0;
    const idx_t dy = (j + 1 == ny) ? (idx_t)(1 - ny) * px : (idx_t)px;
    const idx_t dz = (k + 1 == nz) ? (idx_t)(1 - nz) * plane : plane;
    if (PF > 0 && k + PF < nz) {
        const idx_t a = c + PF * plane;
        prefetch_l2(ex, a); prefetch_l2(ey, a); prefetch_l2(ez, a);
        prefetch_l2(hx, a); prefetch_l2(hy, a); prefetch_l2(hz, a);
    }
    const Pack<T, V> ex0 = loadf<T, S, V>(ex, c),
                     ey0 = loadf<T, S, V>(ey, c),
                     ez0 = loadf<T, S, V>(ez, c);
    const Pack<T, V> ezy = loadf<T, S, V>(ez, c + dy), exy = loadf<T, S, V>(ex, c + dy);
    const Pack<T, V> exz = loadf<T, S, V>(ex, c + dz), eyz = loadf<T, S, V>(ey, c + dz);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c), mz = load<ID, V>(idz, c);
    Pack<T, V> hx0 = loadf<T, S, V>(hx, c),
               hy0 = loadf<T, S, V>(hy, c),
               hz0 = loadf<T, S, V>(hz, c);
    const bool tail = i0 + V >= nx;   // this pack holds the row's last cell
    const T eyn = tail ? T(0) : getf<T, S>(ey, c + V), ezn = tail ? T(0) : getf<T, S>(ez, c + V);
    const T ey1 = tail ? getf<T, S>(ey, row) : T(0), ez1 = tail ? getf<T, S>(ez, row) : T(0);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const bool last = i0 + e + 1 == nx;
        const T dezy = ezy.v[e] - ez0.v[e], deyz = eyz.v[e] - ey0.v[e];
        const T dexz = exz.v[e] - ex0.v[e], dexy = exy.v[e] - ex0.v[e];
        const T dezx = ahead<T, V>(ez0, e, ezn, ez1, last) - ez0.v[e];
        const T deyx = ahead<T, V>(ey0, e, eyn, ey1, last) - ey0.v[e];
        const int mx_ = mx.v[e], my_ = my.v[e], mz_ = mz.v[e];
        hx0.v[e] = coef<T, CT>(gtab, R, 3, mx_, 0) * hx0.v[e]
                 + coef<T, CT>(gtab, R, 3, mx_, 1) * dezy + coef<T, CT>(gtab, R, 3, mx_, 2) * deyz;
        hy0.v[e] = coef<T, CT>(gtab, R, 4, my_, 0) * hy0.v[e]
                 + coef<T, CT>(gtab, R, 4, my_, 1) * dexz + coef<T, CT>(gtab, R, 4, my_, 2) * dezx;
        hz0.v[e] = coef<T, CT>(gtab, R, 5, mz_, 0) * hz0.v[e]
                 + coef<T, CT>(gtab, R, 5, mz_, 1) * deyx + coef<T, CT>(gtab, R, 5, mz_, 2) * dexy;
        if (near[0]) {   // Hy: c-difference along x; Hz: b-difference
            const Two<T> t = pml_pair<T, 0>(1, i0 + e, j, k, ny, px, dezx, deyx);
            hy0.v[e] += coef<T, CT>(gtab, R, 4, my_, 2) * t.a;
            hz0.v[e] += coef<T, CT>(gtab, R, 5, mz_, 1) * t.b;
        }
        if (near[1]) {   // Hz: c-difference along y; Hx: b-difference
            const Two<T> t = pml_pair<T, 1>(1, i0 + e, j, k, ny, px, dexy, dezy);
            hz0.v[e] += coef<T, CT>(gtab, R, 5, mz_, 2) * t.a;
            hx0.v[e] += coef<T, CT>(gtab, R, 3, mx_, 1) * t.b;
        }
        if (near[2]) {   // Hx: c-difference along z; Hy: b-difference
            const Two<T> t = pml_pair<T, 2>(1, i0 + e, j, k, ny, px, deyz, dexz);
            hx0.v[e] += coef<T, CT>(gtab, R, 3, mx_, 2) * t.a;
            hy0.v[e] += coef<T, CT>(gtab, R, 4, my_, 1) * t.b;
        }
    }
    storef<T, S, V>(hx, c, hx0);
    storef<T, S, V>(hy, c, hy0);
    storef<T, S, V>(hz, c, hz0);
    if (!PACKF) return;
    compiler_fence();
    int u;
    idx_t at;
    const Face* f;
    if ((PACKF & 2) && (f = face_at<1>(1, i0, j, k, ny, px, u, at))) {  // Hz (c), Hx (b) along y
        pml_pack<T, S, ID, CT, V>(f->psi1, f, at, u, gtab, R, hz, idz, 5, 2, ex, ex, c, c + dy, c);
        pml_pack<T, S, ID, CT, V>(f->psi2, f, at, u, gtab, R, hx, idx, 3, 1, ez, ez, c, c + dy, c);
    }
    compiler_fence();
    if ((PACKF & 4) && (f = face_at<2>(1, i0, j, k, ny, px, u, at))) {  // Hx (c), Hy (b) along z
        pml_pack<T, S, ID, CT, V>(f->psi1, f, at, u, gtab, R, hx, idx, 3, 2, ey, ey, c, c + dz, c);
        pml_pack<T, S, ID, CT, V>(f->psi2, f, at, u, gtab, R, hy, idy, 4, 1, ex, ex, c, c + dz, c);
    }
}

// The E update of the V cells from (i0, j, k); CELLF and PACKF as for h3_cells.
template <typename T, typename S, typename ID, bool CT, int V, int CELLF, int PACKF, int PF>
__device__ __forceinline__ void e3_cells(
        S* __restrict__ ex, S* __restrict__ ey, S* __restrict__ ez,
        const S* __restrict__ hx, const S* __restrict__ hy, const S* __restrict__ hz,
        const ID* __restrict__ idx, const ID* __restrict__ idy, const ID* __restrict__ idz,
        const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
        int i0, int j, int k) {
    bool near[3];
    nearness<CELLF, V>(0, i0, j, k, near);
    const idx_t plane = (idx_t)px * py;
    const idx_t row = (idx_t)j * px + (idx_t)k * plane;
    const idx_t c = row + i0;
    const idx_t dy = (j == 0) ? (idx_t)(ny - 1) * px : -(idx_t)px;
    const idx_t dz = (k == 0) ? (idx_t)(nz - 1) * plane : -plane;
    if (PF > 0 && k + PF < nz) {
        const idx_t a = c + PF * plane;
        prefetch_l2(ex, a); prefetch_l2(ey, a); prefetch_l2(ez, a);
        prefetch_l2(hx, a); prefetch_l2(hy, a); prefetch_l2(hz, a);
    }
    const Pack<T, V> hx0 = loadf<T, S, V>(hx, c),
                     hy0 = loadf<T, S, V>(hy, c),
                     hz0 = loadf<T, S, V>(hz, c);
    const Pack<T, V> hzy = loadf<T, S, V>(hz, c + dy), hxy = loadf<T, S, V>(hx, c + dy);
    const Pack<T, V> hyz = loadf<T, S, V>(hy, c + dz), hxz = loadf<T, S, V>(hx, c + dz);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c), mz = load<ID, V>(idz, c);
    Pack<T, V> ex0 = loadf<T, S, V>(ex, c),
               ey0 = loadf<T, S, V>(ey, c),
               ez0 = loadf<T, S, V>(ez, c);
    const idx_t back = (i0 == 0) ? row + nx - 1 : c - 1;   // wraps to the row's last cell
    const T hyp = getf<T, S>(hy, back), hzp = getf<T, S>(hz, back);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const T dhzy = hz0.v[e] - hzy.v[e], dhyz = hy0.v[e] - hyz.v[e];
        const T dhxz = hx0.v[e] - hxz.v[e], dhxy = hx0.v[e] - hxy.v[e];
        const T dhzx = hz0.v[e] - behind<T, V>(hz0, e, hzp);
        const T dhyx = hy0.v[e] - behind<T, V>(hy0, e, hyp);
        const int mx_ = mx.v[e], my_ = my.v[e], mz_ = mz.v[e];
        ex0.v[e] = coef<T, CT>(gtab, R, 0, mx_, 0) * ex0.v[e]
                 + coef<T, CT>(gtab, R, 0, mx_, 1) * dhzy + coef<T, CT>(gtab, R, 0, mx_, 2) * dhyz;
        ey0.v[e] = coef<T, CT>(gtab, R, 1, my_, 0) * ey0.v[e]
                 + coef<T, CT>(gtab, R, 1, my_, 1) * dhxz + coef<T, CT>(gtab, R, 1, my_, 2) * dhzx;
        ez0.v[e] = coef<T, CT>(gtab, R, 2, mz_, 0) * ez0.v[e]
                 + coef<T, CT>(gtab, R, 2, mz_, 1) * dhyx + coef<T, CT>(gtab, R, 2, mz_, 2) * dhxy;
        if (near[0]) {   // Ey: c-difference along x; Ez: b-difference
            const Two<T> t = pml_pair<T, 0>(0, i0 + e, j, k, ny, px, dhzx, dhyx);
            ey0.v[e] += coef<T, CT>(gtab, R, 1, my_, 2) * t.a;
            ez0.v[e] += coef<T, CT>(gtab, R, 2, mz_, 1) * t.b;
        }
        if (near[1]) {   // Ez: c-difference along y; Ex: b-difference
            const Two<T> t = pml_pair<T, 1>(0, i0 + e, j, k, ny, px, dhxy, dhzy);
            ez0.v[e] += coef<T, CT>(gtab, R, 2, mz_, 2) * t.a;
            ex0.v[e] += coef<T, CT>(gtab, R, 0, mx_, 1) * t.b;
        }
        if (near[2]) {   // Ex: c-difference along z; Ey: b-difference
            const Two<T> t = pml_pair<T, 2>(0, i0 + e, j, k, ny, px, dhyz, dhxz);
            ex0.v[e] += coef<T, CT>(gtab, R, 0, mx_, 2) * t.a;
            ey0.v[e] += coef<T, CT>(gtab, R, 1, my_, 1) * t.b;
        }
    }
    storef<T, S, V>(ex, c, ex0);
    storef<T, S, V>(ey, c, ey0);
    storef<T, S, V>(ez, c, ez0);
    if (!PACKF) return;
    compiler_fence();
    int u;
    idx_t at;
    const Face* f;
    if ((PACKF & 2) && (f = face_at<1>(0, i0, j, k, ny, px, u, at))) {  // Ez (c), Ex (b) along y
        pml_pack<T, S, ID, CT, V>(f->psi1, f, at, u, gtab, R, ez, idz, 2, 2, hx, hx, c, c, c + dy);
        pml_pack<T, S, ID, CT, V>(f->psi2, f, at, u, gtab, R, ex, idx, 0, 1, hz, hz, c, c, c + dy);
    }
    compiler_fence();
    if ((PACKF & 4) && (f = face_at<2>(0, i0, j, k, ny, px, u, at))) {  // Ex (c), Ey (b) along z
        pml_pack<T, S, ID, CT, V>(f->psi1, f, at, u, gtab, R, ex, idx, 0, 2, hy, hy, c, c, c + dz);
        pml_pack<T, S, ID, CT, V>(f->psi2, f, at, u, gtab, R, ey, idy, 1, 1, hx, hx, c, c, c + dz);
    }
}

// One launch per half step over the whole grid. Per plane (blockIdx.y + gridDim.y *
// blockIdx.z), blocks 0 .. nA-1 update the packs of V cells over [xa, xb) x [0, ny), with
// the y and z CPML faces applied a pack at a time; the blocks after them (PML with x faces)
// update the cells of the x layers, [0, xa) and [xb, nx), one cell per thread with every
// face applied cell by cell. Both kinds run in the same launch, plane by plane, so a cache
// line shared by a layer row and the interior row beside it is fetched from DRAM once (as
// separate launches the layer rows, a dozen cells wide, cost a whole line per array each
// and ran at half the bandwidth).
#define INDEXED3_DISPATCH(CELLS)                                                              \
    const int k = blockIdx.y + gridDim.y * blockIdx.z;                                       \
    if (k >= nz) return;                                                                     \
    if (!(PML & 1) || (int)blockIdx.x < nA) {                                                \
        const int ppr = (xb - xa + V - 1) / V;                                               \
        const int p = blockIdx.x * blockDim.x + threadIdx.x;                                 \
        const int r = p / ppr;                                                               \
        if (r >= ny) return;                                                                 \
        CELLS<T, S, ID, CT, V, 0, (PML & 6), PF>(a, b, cc, d, e, f, ia, ib, ic, gtab, R, nx, ny,  \
                                               nz, px, py, xa + (p - r * ppr) * V, r, k);    \
    } else {                                                                                 \
        const int w = xa + nx - xb;                                                          \
        const int p = (blockIdx.x - nA) * blockDim.x + threadIdx.x;                          \
        const int r = p / w;                                                                 \
        if (r >= ny) return;                                                                 \
        const int q = p - r * w;                                                             \
        CELLS<T, S, ID, CT, 1, PML, 0, 0>(a, b, cc, d, e, f, ia, ib, ic, gtab, R, nx, ny, nz,     \
                                       px, py, q < xa ? q : xb + q - xa, r, k);              \
    }

// Blocks per SM the 3D kernels ask the compiler to fit: only for 16-bit storage with 8
// cells per thread (without it, 74-101 registers); declaring a minimum for the others, even
// one block, made dipole-cpml 512 float32 15% slower.
template <typename S, int V> struct MinBlocks { static constexpr int value = 0; };
template <> struct MinBlocks<half_t, 8> { static constexpr int value = 4; };

template <typename T, typename S, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256, MinBlocks<S, V>::value)
indexed_h3(S* __restrict__ a, S* __restrict__ b, S* __restrict__ cc,
           const S* __restrict__ d, const S* __restrict__ e, const S* __restrict__ f,
           const ID* __restrict__ ia, const ID* __restrict__ ib, const ID* __restrict__ ic,
           const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
           int xa, int xb, int nA) {
    INDEXED3_DISPATCH(h3_cells)
}

template <typename T, typename S, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256, MinBlocks<S, V>::value)
indexed_e3(S* __restrict__ a, S* __restrict__ b, S* __restrict__ cc,
           const S* __restrict__ d, const S* __restrict__ e, const S* __restrict__ f,
           const ID* __restrict__ ia, const ID* __restrict__ ib, const ID* __restrict__ ic,
           const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
           int xa, int xb, int nA) {
    INDEXED3_DISPATCH(e3_cells)
}
#undef INDEXED3_DISPATCH

// ---------------------------------------------------------------------------- 2D TMz
// Ez, Hx, Hy. Hx: b = y (Ez along y); Hy: c = x (Ez along x); Ez: b = x (Hy), c = y (Hx).
template <typename T, typename S, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h_tmz(S* __restrict__ hx, S* __restrict__ hy, const S* __restrict__ ez,
              const ID* __restrict__ idx, const ID* __restrict__ idy,
              const T* __restrict__ gtab, int R, int nx, int ny, int px, int ilo, int ihi, int jlo,
              int jhi, int klo, int khi) {
    int i0, j, k;
    if (!place<V>(ilo, ihi, jlo, jhi, klo, khi, i0, j, k)) return;
    bool near[3];
    nearness<PML, V>(1, i0, j, k, near);
    const idx_t row = (idx_t)j * px;
    const idx_t c = row + i0;
    const idx_t dy = (j + 1 == ny) ? (idx_t)(1 - ny) * px : (idx_t)px;
    const Pack<T, V> ez0 = loadf<T, S, V>(ez, c), ezy = loadf<T, S, V>(ez, c + dy);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c);
    Pack<T, V> hx0 = loadf<T, S, V>(hx, c), hy0 = loadf<T, S, V>(hy, c);
    const bool tail = i0 + V >= nx;
    const T ezn = tail ? T(0) : getf<T, S>(ez, c + V), ez1 = tail ? getf<T, S>(ez, row) : T(0);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const bool last = i0 + e + 1 == nx;
        const T dezy = ezy.v[e] - ez0.v[e];
        const T dezx = ahead<T, V>(ez0, e, ezn, ez1, last) - ez0.v[e];
        const int mx_ = mx.v[e], my_ = my.v[e];
        hx0.v[e] = coef<T, CT>(gtab, R, 3, mx_, 0) * hx0.v[e] + coef<T, CT>(gtab, R, 3, mx_, 1) * dezy;
        hy0.v[e] = coef<T, CT>(gtab, R, 4, my_, 0) * hy0.v[e] + coef<T, CT>(gtab, R, 4, my_, 2) * dezx;
        if (near[0])   // Hy: c-difference along x
            hy0.v[e] += coef<T, CT>(gtab, R, 4, my_, 2)
                      * pml_pair<T, 0>(1, i0 + e, j, 0, ny, px, dezx, T(0)).a;
        if (near[1])   // Hx: b-difference along y
            hx0.v[e] += coef<T, CT>(gtab, R, 3, mx_, 1)
                      * pml_pair<T, 1>(1, i0 + e, j, 0, ny, px, T(0), dezy).b;
    }
    storef<T, S, V>(hx, c, hx0);
    storef<T, S, V>(hy, c, hy0);
}

template <typename T, typename S, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e_tmz(S* __restrict__ ez, const S* __restrict__ hx, const S* __restrict__ hy,
              const ID* __restrict__ idz, const T* __restrict__ gtab, int R, int nx, int ny,
              int px, int ilo, int ihi, int jlo,
              int jhi, int klo, int khi) {
    int i0, j, k;
    if (!place<V>(ilo, ihi, jlo, jhi, klo, khi, i0, j, k)) return;
    bool near[3];
    nearness<PML, V>(0, i0, j, k, near);
    const idx_t row = (idx_t)j * px;
    const idx_t c = row + i0;
    const idx_t dy = (j == 0) ? (idx_t)(ny - 1) * px : -(idx_t)px;
    const Pack<T, V> hx0 = loadf<T, S, V>(hx, c),
                     hy0 = loadf<T, S, V>(hy, c),
                     hxy = loadf<T, S, V>(hx, c + dy);
    const Pack<ID, V> mz = load<ID, V>(idz, c);
    Pack<T, V> ez0 = loadf<T, S, V>(ez, c);
    const T hyp = getf<T, S>(hy, (i0 == 0) ? row + nx - 1 : c - 1);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const int m = mz.v[e];
        const T dhyx = hy0.v[e] - behind<T, V>(hy0, e, hyp), dhxy = hx0.v[e] - hxy.v[e];
        ez0.v[e] = coef<T, CT>(gtab, R, 2, m, 0) * ez0.v[e] + coef<T, CT>(gtab, R, 2, m, 1) * dhyx
                 + coef<T, CT>(gtab, R, 2, m, 2) * dhxy;
        if (near[0])   // Ez: b-difference along x
            ez0.v[e] += coef<T, CT>(gtab, R, 2, m, 1)
                      * pml_pair<T, 0>(0, i0 + e, j, 0, ny, px, T(0), dhyx).b;
        if (near[1])   // Ez: c-difference along y
            ez0.v[e] += coef<T, CT>(gtab, R, 2, m, 2)
                      * pml_pair<T, 1>(0, i0 + e, j, 0, ny, px, dhxy, T(0)).a;
    }
    storef<T, S, V>(ez, c, ez0);
}

// ---------------------------------------------------------------------------- 2D TEz
// Hz, Ex, Ey. Hz: b = x (Ey), c = y (Ex); Ex: b = y (Hz); Ey: c = x (Hz).
template <typename T, typename S, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h_tez(S* __restrict__ hz, const S* __restrict__ ex, const S* __restrict__ ey,
              const ID* __restrict__ idz, const T* __restrict__ gtab, int R, int nx, int ny,
              int px, int ilo, int ihi, int jlo,
              int jhi, int klo, int khi) {
    int i0, j, k;
    if (!place<V>(ilo, ihi, jlo, jhi, klo, khi, i0, j, k)) return;
    bool near[3];
    nearness<PML, V>(1, i0, j, k, near);
    const idx_t row = (idx_t)j * px;
    const idx_t c = row + i0;
    const idx_t dy = (j + 1 == ny) ? (idx_t)(1 - ny) * px : (idx_t)px;
    const Pack<T, V> ex0 = loadf<T, S, V>(ex, c),
                     exy = loadf<T, S, V>(ex, c + dy),
                     ey0 = loadf<T, S, V>(ey, c);
    const Pack<ID, V> mz = load<ID, V>(idz, c);
    Pack<T, V> hz0 = loadf<T, S, V>(hz, c);
    const bool tail = i0 + V >= nx;
    const T eyn = tail ? T(0) : getf<T, S>(ey, c + V), ey1 = tail ? getf<T, S>(ey, row) : T(0);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const bool last = i0 + e + 1 == nx;
        const int m = mz.v[e];
        const T deyx = ahead<T, V>(ey0, e, eyn, ey1, last) - ey0.v[e], dexy = exy.v[e] - ex0.v[e];
        hz0.v[e] = coef<T, CT>(gtab, R, 5, m, 0) * hz0.v[e] + coef<T, CT>(gtab, R, 5, m, 1) * deyx
                 + coef<T, CT>(gtab, R, 5, m, 2) * dexy;
        if (near[0])   // Hz: b-difference along x
            hz0.v[e] += coef<T, CT>(gtab, R, 5, m, 1)
                      * pml_pair<T, 0>(1, i0 + e, j, 0, ny, px, T(0), deyx).b;
        if (near[1])   // Hz: c-difference along y
            hz0.v[e] += coef<T, CT>(gtab, R, 5, m, 2)
                      * pml_pair<T, 1>(1, i0 + e, j, 0, ny, px, dexy, T(0)).a;
    }
    storef<T, S, V>(hz, c, hz0);
}

template <typename T, typename S, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e_tez(S* __restrict__ ex, S* __restrict__ ey, const S* __restrict__ hz,
              const ID* __restrict__ idx, const ID* __restrict__ idy,
              const T* __restrict__ gtab, int R, int nx, int ny, int px, int ilo, int ihi, int jlo,
              int jhi, int klo, int khi) {
    int i0, j, k;
    if (!place<V>(ilo, ihi, jlo, jhi, klo, khi, i0, j, k)) return;
    bool near[3];
    nearness<PML, V>(0, i0, j, k, near);
    const idx_t row = (idx_t)j * px;
    const idx_t c = row + i0;
    const idx_t dy = (j == 0) ? (idx_t)(ny - 1) * px : -(idx_t)px;
    const Pack<T, V> hz0 = loadf<T, S, V>(hz, c), hzy = loadf<T, S, V>(hz, c + dy);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c);
    Pack<T, V> ex0 = loadf<T, S, V>(ex, c), ey0 = loadf<T, S, V>(ey, c);
    const T hzp = getf<T, S>(hz, (i0 == 0) ? row + nx - 1 : c - 1);
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const T dhzy = hz0.v[e] - hzy.v[e], dhzx = hz0.v[e] - behind<T, V>(hz0, e, hzp);
        const int mx_ = mx.v[e], my_ = my.v[e];
        ex0.v[e] = coef<T, CT>(gtab, R, 0, mx_, 0) * ex0.v[e] + coef<T, CT>(gtab, R, 0, mx_, 1) * dhzy;
        ey0.v[e] = coef<T, CT>(gtab, R, 1, my_, 0) * ey0.v[e] + coef<T, CT>(gtab, R, 1, my_, 2) * dhzx;
        if (near[0])   // Ey: c-difference along x
            ey0.v[e] += coef<T, CT>(gtab, R, 1, my_, 2)
                      * pml_pair<T, 0>(0, i0 + e, j, 0, ny, px, dhzx, T(0)).a;
        if (near[1])   // Ex: b-difference along y
            ex0.v[e] += coef<T, CT>(gtab, R, 0, mx_, 1)
                      * pml_pair<T, 1>(0, i0 + e, j, 0, ny, px, T(0), dhzy).b;
    }
    storef<T, S, V>(ex, c, ex0);
    storef<T, S, V>(ey, c, ey0);
}
