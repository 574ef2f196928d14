// The default 'indexed' variant: per-component material ids (uint8 or uint16) select rows of
// a small coefficient table (constant memory when it fits). Each half step moves its fields
// through DRAM once: the updated field read and written, the curl field read, one id byte
// (or two) per component; neighbours come from L1 and L2.
//
// Mapping: one thread per V consecutive cells along x (V = 1, 2 or 4; rows are padded to a
// multiple of 4 so that the V values are one aligned 4V- or 8V-byte access), 1D blocks over
// the rows of packs flattened across y. Measured on an H200, pec-box 512 float32: 92% of
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
// 2 y, 4 z) that have faces. In 3D one launch covers the grid (see the 3D section); in
// 2D the plain kernel (PML = 0) runs on the interior box and the PML kernel on the boxes
// that hold the layers. Every cell is updated once.
//
// PF > 0 asks L2 for this thread's cells PF planes ahead before loading its own: requests in
// flight that hold no registers, for the blocks of that plane to find in L2. Capping the
// registers (launch bounds with a minimum number of blocks) to raise occupancy did not help.

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
// One launch per half step covers the grid in packs of V cells, [0, nx) x [0, ny) x [0, nz),
// and applies every CPML face in the same pass, cell by cell, where the differences are
// already in registers. A pack's auxiliary values (two per face it lies on) are copied into
// shared memory with cp.async before its fields are read: they arrive in the same round
// trip to DRAM, hold no registers while in flight, and are read, advanced and written
// back there, then stored once. Each thread touches only its own slots, so no barrier is
// needed.
//
// Measured on an H200 (dipole-cpml 512 float32), the kernel is bound by L2 throughput (92-93%
// of its peak, against 75-79% of the DRAM bandwidth), so every byte read twice counts:
// applying the y and z faces in a second pass that read the fields back from L2, with the
// x layers one cell per thread in blocks of their own (12-cell row pieces, partly used
// sectors), ran at 43.6 Gcells/s; this single pass at 44.3 (V = 2: with V = 4 the staged
// values and the profiles push the kernel to 80-100 registers). Capping V = 2 at 48
// registers (five blocks of 256 per SM) spilled and fell to 39.5.
//
// The x faces are laid out for packs: their auxiliary rows and profiles run from ``base``
// (start rounded down to a multiple of 4) over W entries, zero outside the face, so a
// pack that straddles the face's edge needs no per-cell test (b = c = 1/kappa - 1 = 0 keep
// psi and the correction at zero there). The host makes sure the two x faces' padded
// ranges do not meet (at least 4 cells between the layers).

__device__ __forceinline__ void compiler_fence() { asm volatile("" ::: "memory"); }

extern __shared__ __align__(16) unsigned char psi_slots[];

// Slot q (0: psi1, 1: psi2) of this thread for the faces normal to axis A; the axes in
// PML are numbered in order (x, y, z) so only those get slots.
template <typename T, int V, int PML, int A>
__device__ __forceinline__ Pack<T, V>* slot(int q) {
    constexpr int n = (A > 0 && (PML & 1)) + (A > 1 && (PML & 2));
    return reinterpret_cast<Pack<T, V>*>(psi_slots) + (2 * n + q) * blockDim.x + threadIdx.x;
}

// dst (shared) <- src (global), sizeof(Pack) bytes, without passing through registers.
template <typename T, int V>
__device__ __forceinline__ void copy_async(Pack<T, V>* dst, const T* src) {
#if __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    constexpr int B = sizeof(Pack<T, V>);
    if (B >= 16) {
#pragma unroll
        for (int o = 0; o < B; o += 16)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s + o),
                         "l"(reinterpret_cast<const char*>(src) + o) : "memory");
    } else if (B == 8) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(src) : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(src) : "memory");
    }
#else
    *dst = *reinterpret_cast<const Pack<T, V>*>(src);
#endif
}

__device__ __forceinline__ void copy_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// The face normal to axis A of half step h that holds the pack of V cells from (i0, j, k),
// with the index of its profile entry (u: the depth on a y or z face, i0 - base on an x
// face) and of its first auxiliary entry; null when none.
template <int A>
__device__ __forceinline__ const Face* pack_face(int h, int i0, int j, int k, int ny, int px,
                                                 int& u, idx_t& at) {
    if (A != 0) return face_at<A>(h, i0, j, k, ny, px, u, at);
#pragma unroll
    for (int side = 0; side < 2; ++side) {
        const Face* f = &c_faces[h][0][side];
        if (f->L > 0 && i0 >= f->base && i0 < f->base + f->W) {
            u = i0 - f->base;
            at = (idx_t)u + (idx_t)f->W * ((idx_t)j + (idx_t)ny * k);
            return f;
        }
    }
    return nullptr;
}

// Start copying the auxiliary values of the pack's face normal to axis A into its slots;
// whether it lies on one.
template <typename T, int V, int PML, int A>
__device__ __forceinline__ bool stage(int h, int i0, int j, int k, int ny, int px) {
    if (!(PML & (1 << A))) return false;
    int u;
    idx_t at;
    const Face* f = pack_face<A>(h, i0, j, k, ny, px, u, at);
    if (f == nullptr) return false;
    copy_async<T, V>(slot<T, V, PML, A>(0), static_cast<const T*>(f->psi1) + at);
    copy_async<T, V>(slot<T, V, PML, A>(1), static_cast<const T*>(f->psi2) + at);
    return true;
}

// Store the advanced auxiliary values of the pack's face normal to axis A.
template <typename T, int V, int PML, int A>
__device__ __forceinline__ void unstage(int h, int i0, int j, int k, int ny, int px) {
    int u;
    idx_t at;
    const Face* f = pack_face<A>(h, i0, j, k, ny, px, u, at);
    store<T, V>(static_cast<T*>(f->psi1), at, *slot<T, V, PML, A>(0));
    store<T, V>(static_cast<T*>(f->psi2), at, *slot<T, V, PML, A>(1));
}

// The profile values (b, c, 1/kappa - 1) of a face at entry u.
template <typename T> struct Prof { T b, c, ki; };

template <typename T>
__device__ __forceinline__ Prof<T> prof_at(const Face* f, int u) {
    return {static_cast<const T*>(f->b)[u], static_cast<const T*>(f->c)[u],
            static_cast<const T*>(f->k)[u]};
}

// The profile of the pack's y or z face (one depth for the whole pack); zeros when none.
template <typename T, int PML, int A>
__device__ __forceinline__ Prof<T> pack_prof(int h, bool on, int j, int k) {
    if (!(PML & (1 << A)) || !on) return {T(0), T(0), T(0)};
    const int s = A == 1 ? j : k;
    const Face* f = &c_faces[h][A][0];
    if (s < f->start || s >= f->start + f->L) f = &c_faces[h][A][1];
    return prof_at<T>(f, s - f->start);
}

// The profile of the x face for the cell i of a pack on it.
template <typename T>
__device__ __forceinline__ Prof<T> cell_prof_x(int h, int i) {
    const Face* f = &c_faces[h][0][c_faces[h][0][1].L > 0 && i >= c_faces[h][0][1].base];
    return prof_at<T>(f, i - f->base);
}

// The CPML step of element e of a pack on the face normal to axis A, for both of its
// components: d1 (component a1's c-difference) and d2 (a2's b-difference) advance the
// staged psi1 and psi2, psi <- b psi + c d, and t1, t2 receive the correction factors
// (1/kappa - 1) d + psi, which the caller multiplies by its own coefficients.
template <typename T, int V, int PML, int A>
__device__ __forceinline__ void face_cell(const Prof<T>& p, int e, T d1, T d2, T& t1, T& t2) {
    Pack<T, V>* s1 = slot<T, V, PML, A>(0);
    Pack<T, V>* s2 = slot<T, V, PML, A>(1);
    const T p1 = p.b * s1->v[e] + p.c * d1, p2 = p.b * s2->v[e] + p.c * d2;
    s1->v[e] = p1;
    s2->v[e] = p2;
    t1 = p.ki * d1 + p1;
    t2 = p.ki * d2 + p2;
}

// The H update of the V cells from (i0, j, k), with the CPML faces of the axes in PML.
template <typename T, typename ID, bool CT, int V, int PML, int PF>
__device__ __forceinline__ void h3_cells(
        T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
        const T* __restrict__ ex, const T* __restrict__ ey, const T* __restrict__ ez,
        const ID* __restrict__ idx, const ID* __restrict__ idy, const ID* __restrict__ idz,
        const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
        int i0, int j, int k) {
    const bool on0 = stage<T, V, PML, 0>(1, i0, j, k, ny, px);
    const bool on1 = stage<T, V, PML, 1>(1, i0, j, k, ny, px);
    const bool on2 = stage<T, V, PML, 2>(1, i0, j, k, ny, px);
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
    const Pack<T, V> ex0 = load<T, V>(ex, c), ey0 = load<T, V>(ey, c), ez0 = load<T, V>(ez, c);
    const Pack<T, V> ezy = load<T, V>(ez, c + dy), exy = load<T, V>(ex, c + dy);
    const Pack<T, V> exz = load<T, V>(ex, c + dz), eyz = load<T, V>(ey, c + dz);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c), mz = load<ID, V>(idz, c);
    Pack<T, V> hx0 = load<T, V>(hx, c), hy0 = load<T, V>(hy, c), hz0 = load<T, V>(hz, c);
    const bool tail = i0 + V >= nx;   // this pack holds the row's last cell
    const T eyn = tail ? T(0) : ey[c + V], ezn = tail ? T(0) : ez[c + V];
    const T ey1 = tail ? ey[row] : T(0), ez1 = tail ? ez[row] : T(0);
    const Prof<T> py1 = pack_prof<T, PML, 1>(1, on1, j, k);
    const Prof<T> pz1 = pack_prof<T, PML, 2>(1, on2, j, k);
    if (PML) copy_wait();
#pragma unroll
    for (int e = 0; e < V; ++e) {
        if (PML) compiler_fence();   // one cell at a time: keeps the staged values in place
        const bool last = i0 + e + 1 == nx;
        const T dezy = ezy.v[e] - ez0.v[e], deyz = eyz.v[e] - ey0.v[e];
        const T dexz = exz.v[e] - ex0.v[e], dexy = exy.v[e] - ex0.v[e];
        const T dezx = ahead<T, V>(ez0, e, ezn, ez1, last) - ez0.v[e];
        const T deyx = ahead<T, V>(ey0, e, eyn, ey1, last) - ey0.v[e];
        const int mx_ = mx.v[e], my_ = my.v[e], mz_ = mz.v[e];
        // the differences as the coefficients see them, CPML corrections added
        T sx1 = dezy, sx2 = deyz, sy1 = dexz, sy2 = dezx, sz1 = deyx, sz2 = dexy;
        T t1, t2;
        if ((PML & 1) && on0) {   // Hy: c-difference along x; Hz: b-difference
            face_cell<T, V, PML, 0>(cell_prof_x<T>(1, i0 + e), e, dezx, deyx, t1, t2);
            sy2 += t1;
            sz1 += t2;
        }
        if ((PML & 2) && on1) {   // Hz: c-difference along y; Hx: b-difference
            face_cell<T, V, PML, 1>(py1, e, dexy, dezy, t1, t2);
            sz2 += t1;
            sx1 += t2;
        }
        if ((PML & 4) && on2) {   // Hx: c-difference along z; Hy: b-difference
            face_cell<T, V, PML, 2>(pz1, e, deyz, dexz, t1, t2);
            sx2 += t1;
            sy1 += t2;
        }
        hx0.v[e] = coef<T, CT>(gtab, R, 3, mx_, 0) * hx0.v[e]
                 + coef<T, CT>(gtab, R, 3, mx_, 1) * sx1 + coef<T, CT>(gtab, R, 3, mx_, 2) * sx2;
        hy0.v[e] = coef<T, CT>(gtab, R, 4, my_, 0) * hy0.v[e]
                 + coef<T, CT>(gtab, R, 4, my_, 1) * sy1 + coef<T, CT>(gtab, R, 4, my_, 2) * sy2;
        hz0.v[e] = coef<T, CT>(gtab, R, 5, mz_, 0) * hz0.v[e]
                 + coef<T, CT>(gtab, R, 5, mz_, 1) * sz1 + coef<T, CT>(gtab, R, 5, mz_, 2) * sz2;
    }
    store<T, V>(hx, c, hx0);
    store<T, V>(hy, c, hy0);
    store<T, V>(hz, c, hz0);
    if ((PML & 1) && on0) unstage<T, V, PML, 0>(1, i0, j, k, ny, px);
    if ((PML & 2) && on1) unstage<T, V, PML, 1>(1, i0, j, k, ny, px);
    if ((PML & 4) && on2) unstage<T, V, PML, 2>(1, i0, j, k, ny, px);
}

// The E update of the V cells from (i0, j, k), with the CPML faces of the axes in PML.
template <typename T, typename ID, bool CT, int V, int PML, int PF>
__device__ __forceinline__ void e3_cells(
        T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
        const T* __restrict__ hx, const T* __restrict__ hy, const T* __restrict__ hz,
        const ID* __restrict__ idx, const ID* __restrict__ idy, const ID* __restrict__ idz,
        const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
        int i0, int j, int k) {
    const bool on0 = stage<T, V, PML, 0>(0, i0, j, k, ny, px);
    const bool on1 = stage<T, V, PML, 1>(0, i0, j, k, ny, px);
    const bool on2 = stage<T, V, PML, 2>(0, i0, j, k, ny, px);
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
    const Pack<T, V> hx0 = load<T, V>(hx, c), hy0 = load<T, V>(hy, c), hz0 = load<T, V>(hz, c);
    const Pack<T, V> hzy = load<T, V>(hz, c + dy), hxy = load<T, V>(hx, c + dy);
    const Pack<T, V> hyz = load<T, V>(hy, c + dz), hxz = load<T, V>(hx, c + dz);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c), mz = load<ID, V>(idz, c);
    Pack<T, V> ex0 = load<T, V>(ex, c), ey0 = load<T, V>(ey, c), ez0 = load<T, V>(ez, c);
    const idx_t back = (i0 == 0) ? row + nx - 1 : c - 1;   // wraps to the row's last cell
    const T hyp = hy[back], hzp = hz[back];
    const Prof<T> py1 = pack_prof<T, PML, 1>(0, on1, j, k);
    const Prof<T> pz1 = pack_prof<T, PML, 2>(0, on2, j, k);
    if (PML) copy_wait();
#pragma unroll
    for (int e = 0; e < V; ++e) {
        if (PML) compiler_fence();   // one cell at a time: keeps the staged values in place
        const T dhzy = hz0.v[e] - hzy.v[e], dhyz = hy0.v[e] - hyz.v[e];
        const T dhxz = hx0.v[e] - hxz.v[e], dhxy = hx0.v[e] - hxy.v[e];
        const T dhzx = hz0.v[e] - behind<T, V>(hz0, e, hzp);
        const T dhyx = hy0.v[e] - behind<T, V>(hy0, e, hyp);
        const int mx_ = mx.v[e], my_ = my.v[e], mz_ = mz.v[e];
        T sx1 = dhzy, sx2 = dhyz, sy1 = dhxz, sy2 = dhzx, sz1 = dhyx, sz2 = dhxy;
        T t1, t2;
        if ((PML & 1) && on0) {   // Ey: c-difference along x; Ez: b-difference
            face_cell<T, V, PML, 0>(cell_prof_x<T>(0, i0 + e), e, dhzx, dhyx, t1, t2);
            sy2 += t1;
            sz1 += t2;
        }
        if ((PML & 2) && on1) {   // Ez: c-difference along y; Ex: b-difference
            face_cell<T, V, PML, 1>(py1, e, dhxy, dhzy, t1, t2);
            sz2 += t1;
            sx1 += t2;
        }
        if ((PML & 4) && on2) {   // Ex: c-difference along z; Ey: b-difference
            face_cell<T, V, PML, 2>(pz1, e, dhyz, dhxz, t1, t2);
            sx2 += t1;
            sy1 += t2;
        }
        ex0.v[e] = coef<T, CT>(gtab, R, 0, mx_, 0) * ex0.v[e]
                 + coef<T, CT>(gtab, R, 0, mx_, 1) * sx1 + coef<T, CT>(gtab, R, 0, mx_, 2) * sx2;
        ey0.v[e] = coef<T, CT>(gtab, R, 1, my_, 0) * ey0.v[e]
                 + coef<T, CT>(gtab, R, 1, my_, 1) * sy1 + coef<T, CT>(gtab, R, 1, my_, 2) * sy2;
        ez0.v[e] = coef<T, CT>(gtab, R, 2, mz_, 0) * ez0.v[e]
                 + coef<T, CT>(gtab, R, 2, mz_, 1) * sz1 + coef<T, CT>(gtab, R, 2, mz_, 2) * sz2;
    }
    store<T, V>(ex, c, ex0);
    store<T, V>(ey, c, ey0);
    store<T, V>(ez, c, ez0);
    if ((PML & 1) && on0) unstage<T, V, PML, 0>(0, i0, j, k, ny, px);
    if ((PML & 2) && on1) unstage<T, V, PML, 1>(0, i0, j, k, ny, px);
    if ((PML & 4) && on2) unstage<T, V, PML, 2>(0, i0, j, k, ny, px);
}

#define INDEXED3_KERNEL(NAME, CELLS)                                                          \
    template <typename T, typename ID, bool CT, int V, int PML, int PF>                       \
    __global__ void __launch_bounds__(256)                                                    \
    NAME(T* __restrict__ a, T* __restrict__ b, T* __restrict__ cc,                            \
         const T* __restrict__ d, const T* __restrict__ e, const T* __restrict__ f,           \
         const ID* __restrict__ ia, const ID* __restrict__ ib, const ID* __restrict__ ic,     \
         const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py) {         \
        int i0, j, k;                                                                         \
        if (!place<V>(0, nx, 0, ny, 0, nz, i0, j, k)) return;                                 \
        CELLS<T, ID, CT, V, PML, PF>(a, b, cc, d, e, f, ia, ib, ic, gtab, R, nx, ny, nz, px,  \
                                     py, i0, j, k);                                           \
    }

INDEXED3_KERNEL(indexed_h3, h3_cells)
INDEXED3_KERNEL(indexed_e3, e3_cells)
#undef INDEXED3_KERNEL

// ---------------------------------------------------------------------------- 2D TMz
// Ez, Hx, Hy. Hx: b = y (Ez along y); Hy: c = x (Ez along x); Ez: b = x (Hy), c = y (Hx).
template <typename T, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h_tmz(T* __restrict__ hx, T* __restrict__ hy, const T* __restrict__ ez,
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
    const Pack<T, V> ez0 = load<T, V>(ez, c), ezy = load<T, V>(ez, c + dy);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c);
    Pack<T, V> hx0 = load<T, V>(hx, c), hy0 = load<T, V>(hy, c);
    const bool tail = i0 + V >= nx;
    const T ezn = tail ? T(0) : ez[c + V], ez1 = tail ? ez[row] : T(0);
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
    store<T, V>(hx, c, hx0);
    store<T, V>(hy, c, hy0);
}

template <typename T, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e_tmz(T* __restrict__ ez, const T* __restrict__ hx, const T* __restrict__ hy,
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
    const Pack<T, V> hx0 = load<T, V>(hx, c), hy0 = load<T, V>(hy, c), hxy = load<T, V>(hx, c + dy);
    const Pack<ID, V> mz = load<ID, V>(idz, c);
    Pack<T, V> ez0 = load<T, V>(ez, c);
    const T hyp = hy[(i0 == 0) ? row + nx - 1 : c - 1];
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
    store<T, V>(ez, c, ez0);
}

// ---------------------------------------------------------------------------- 2D TEz
// Hz, Ex, Ey. Hz: b = x (Ey), c = y (Ex); Ex: b = y (Hz); Ey: c = x (Hz).
template <typename T, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h_tez(T* __restrict__ hz, const T* __restrict__ ex, const T* __restrict__ ey,
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
    const Pack<T, V> ex0 = load<T, V>(ex, c), exy = load<T, V>(ex, c + dy), ey0 = load<T, V>(ey, c);
    const Pack<ID, V> mz = load<ID, V>(idz, c);
    Pack<T, V> hz0 = load<T, V>(hz, c);
    const bool tail = i0 + V >= nx;
    const T eyn = tail ? T(0) : ey[c + V], ey1 = tail ? ey[row] : T(0);
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
    store<T, V>(hz, c, hz0);
}

template <typename T, typename ID, bool CT, int V, int PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e_tez(T* __restrict__ ex, T* __restrict__ ey, const T* __restrict__ hz,
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
    const Pack<T, V> hz0 = load<T, V>(hz, c), hzy = load<T, V>(hz, c + dy);
    const Pack<ID, V> mx = load<ID, V>(idx, c), my = load<ID, V>(idy, c);
    Pack<T, V> ex0 = load<T, V>(ex, c), ey0 = load<T, V>(ey, c);
    const T hzp = hz[(i0 == 0) ? row + nx - 1 : c - 1];
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
    store<T, V>(ex, c, ex0);
    store<T, V>(ey, c, ey0);
}
