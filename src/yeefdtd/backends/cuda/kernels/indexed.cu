// The default 'indexed' variant: per-component material ids (uint8 or uint16) select rows of
// a small coefficient table (constant memory when it fits). Each half step moves its fields
// through DRAM once: the updated field read and written, the curl field read, one id byte
// (or two) per component; neighbours come from L1 and L2.
//
// Mapping: one thread per V consecutive cells along x (V = 1, 2 or 4; rows are padded to a
// multiple of 4 so that the V values are one aligned 4V- or 8V-byte access), a 2D block over
// (x, y), blockIdx.z the plane. Measured on an H200: the update is bound by how many bytes
// are in flight, not by how many are moved; one cell per thread (4-byte loads) reached 2.5
// TB/s with exactly the modelled traffic, 16-byte accesses keep several times more bytes in
// flight per thread. A thread marching along z with its z-neighbour in a register (the
// seeds' xy-mapping) needed 56 registers and did worse.
//
// Cells in the padding (i >= nx) are computed too: their ids are 0 (all coefficients zero),
// so they stay zero. The x-neighbour of the last cell of a row wraps to the first.
//
// With PML, the CPML correction is applied in the same pass: the differences are already
// in registers, so a cell in a layer only adds its auxiliary values' read and write (the
// faces are described in constant memory, see common.cuh). That path needs many more
// registers, so each half step launches the plain kernel on the interior box and the PML
// kernel on the boxes that hold the layers ([ilo, ihi) x [jlo, jhi) x [klo, klo + grid z));
// every cell is still updated once.
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
template <typename T, typename ID, bool CT, int V, bool PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h3(T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
           const T* __restrict__ ex, const T* __restrict__ ey, const T* __restrict__ ez,
           const ID* __restrict__ idx, const ID* __restrict__ idy, const ID* __restrict__ idz,
           const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
           int ilo, int ihi, int jlo, int jhi, int klo) {
    const int i0 = ilo + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = jlo + blockIdx.y * blockDim.y + threadIdx.y;
    const int k = klo + blockIdx.z;
    if (i0 >= ihi || j >= jhi) return;
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
        if (PML) {
            const int i = i0 + e;
            for (int q = 0; q < c_nfaces[1]; ++q) {
                const Face& f = c_faces[1][q];
                int u;
                idx_t at;
                if (!in_face(f, i, j, k, ny, px, u, at)) continue;
                if (f.axis == 0) {        // Hy: c-difference along x; Hz: b-difference
                    hy0.v[e] += coef<T, CT>(gtab, R, 4, my_, 2) * pml_term<T>(f.psi1, f, at, u, dezx);
                    hz0.v[e] += coef<T, CT>(gtab, R, 5, mz_, 1) * pml_term<T>(f.psi2, f, at, u, deyx);
                } else if (f.axis == 1) { // Hz: c-difference along y; Hx: b-difference
                    hz0.v[e] += coef<T, CT>(gtab, R, 5, mz_, 2) * pml_term<T>(f.psi1, f, at, u, dexy);
                    hx0.v[e] += coef<T, CT>(gtab, R, 3, mx_, 1) * pml_term<T>(f.psi2, f, at, u, dezy);
                } else {                  // Hx: c-difference along z; Hy: b-difference
                    hx0.v[e] += coef<T, CT>(gtab, R, 3, mx_, 2) * pml_term<T>(f.psi1, f, at, u, deyz);
                    hy0.v[e] += coef<T, CT>(gtab, R, 4, my_, 1) * pml_term<T>(f.psi2, f, at, u, dexz);
                }
            }
        }
    }
    store<T, V>(hx, c, hx0);
    store<T, V>(hy, c, hy0);
    store<T, V>(hz, c, hz0);
}

template <typename T, typename ID, bool CT, int V, bool PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e3(T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
           const T* __restrict__ hx, const T* __restrict__ hy, const T* __restrict__ hz,
           const ID* __restrict__ idx, const ID* __restrict__ idy, const ID* __restrict__ idz,
           const T* __restrict__ gtab, int R, int nx, int ny, int nz, int px, int py,
           int ilo, int ihi, int jlo, int jhi, int klo) {
    const int i0 = ilo + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = jlo + blockIdx.y * blockDim.y + threadIdx.y;
    const int k = klo + blockIdx.z;
    if (i0 >= ihi || j >= jhi) return;
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
        if (PML) {
            const int i = i0 + e;
            for (int q = 0; q < c_nfaces[0]; ++q) {
                const Face& f = c_faces[0][q];
                int u;
                idx_t at;
                if (!in_face(f, i, j, k, ny, px, u, at)) continue;
                if (f.axis == 0) {        // Ey: c-difference along x; Ez: b-difference
                    ey0.v[e] += coef<T, CT>(gtab, R, 1, my_, 2) * pml_term<T>(f.psi1, f, at, u, dhzx);
                    ez0.v[e] += coef<T, CT>(gtab, R, 2, mz_, 1) * pml_term<T>(f.psi2, f, at, u, dhyx);
                } else if (f.axis == 1) { // Ez: c-difference along y; Ex: b-difference
                    ez0.v[e] += coef<T, CT>(gtab, R, 2, mz_, 2) * pml_term<T>(f.psi1, f, at, u, dhxy);
                    ex0.v[e] += coef<T, CT>(gtab, R, 0, mx_, 1) * pml_term<T>(f.psi2, f, at, u, dhzy);
                } else {                  // Ex: c-difference along z; Ey: b-difference
                    ex0.v[e] += coef<T, CT>(gtab, R, 0, mx_, 2) * pml_term<T>(f.psi1, f, at, u, dhyz);
                    ey0.v[e] += coef<T, CT>(gtab, R, 1, my_, 1) * pml_term<T>(f.psi2, f, at, u, dhxz);
                }
            }
        }
    }
    store<T, V>(ex, c, ex0);
    store<T, V>(ey, c, ey0);
    store<T, V>(ez, c, ez0);
}

// ---------------------------------------------------------------------------- 2D TMz
// Ez, Hx, Hy. Hx: b = y (Ez along y); Hy: c = x (Ez along x); Ez: b = x (Hy), c = y (Hx).
template <typename T, typename ID, bool CT, int V, bool PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h_tmz(T* __restrict__ hx, T* __restrict__ hy, const T* __restrict__ ez,
              const ID* __restrict__ idx, const ID* __restrict__ idy,
              const T* __restrict__ gtab, int R, int nx, int ny, int px, int ilo, int ihi, int jlo,
              int jhi, int klo) {
    const int i0 = ilo + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = jlo + blockIdx.y * blockDim.y + threadIdx.y;
    if (i0 >= ihi || j >= jhi) return;
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
        if (PML) {
            for (int q = 0; q < c_nfaces[1]; ++q) {
                const Face& f = c_faces[1][q];
                int u;
                idx_t at;
                if (!in_face(f, i0 + e, j, 0, ny, px, u, at)) continue;
                if (f.axis == 0)   // Hy: c-difference along x
                    hy0.v[e] += coef<T, CT>(gtab, R, 4, my_, 2) * pml_term<T>(f.psi1, f, at, u, dezx);
                else               // Hx: b-difference along y
                    hx0.v[e] += coef<T, CT>(gtab, R, 3, mx_, 1) * pml_term<T>(f.psi2, f, at, u, dezy);
            }
        }
    }
    store<T, V>(hx, c, hx0);
    store<T, V>(hy, c, hy0);
}

template <typename T, typename ID, bool CT, int V, bool PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e_tmz(T* __restrict__ ez, const T* __restrict__ hx, const T* __restrict__ hy,
              const ID* __restrict__ idz, const T* __restrict__ gtab, int R, int nx, int ny,
              int px, int ilo, int ihi, int jlo,
              int jhi, int klo) {
    const int i0 = ilo + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = jlo + blockIdx.y * blockDim.y + threadIdx.y;
    if (i0 >= ihi || j >= jhi) return;
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
        if (PML) {
            for (int q = 0; q < c_nfaces[0]; ++q) {
                const Face& f = c_faces[0][q];
                int u;
                idx_t at;
                if (!in_face(f, i0 + e, j, 0, ny, px, u, at)) continue;
                if (f.axis == 0)   // Ez: b-difference along x
                    ez0.v[e] += coef<T, CT>(gtab, R, 2, m, 1) * pml_term<T>(f.psi2, f, at, u, dhyx);
                else               // Ez: c-difference along y
                    ez0.v[e] += coef<T, CT>(gtab, R, 2, m, 2) * pml_term<T>(f.psi1, f, at, u, dhxy);
            }
        }
    }
    store<T, V>(ez, c, ez0);
}

// ---------------------------------------------------------------------------- 2D TEz
// Hz, Ex, Ey. Hz: b = x (Ey), c = y (Ex); Ex: b = y (Hz); Ey: c = x (Hz).
template <typename T, typename ID, bool CT, int V, bool PML, int PF>
__global__ void __launch_bounds__(256)
indexed_h_tez(T* __restrict__ hz, const T* __restrict__ ex, const T* __restrict__ ey,
              const ID* __restrict__ idz, const T* __restrict__ gtab, int R, int nx, int ny,
              int px, int ilo, int ihi, int jlo,
              int jhi, int klo) {
    const int i0 = ilo + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = jlo + blockIdx.y * blockDim.y + threadIdx.y;
    if (i0 >= ihi || j >= jhi) return;
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
        if (PML) {
            for (int q = 0; q < c_nfaces[1]; ++q) {
                const Face& f = c_faces[1][q];
                int u;
                idx_t at;
                if (!in_face(f, i0 + e, j, 0, ny, px, u, at)) continue;
                if (f.axis == 0)   // Hz: b-difference along x
                    hz0.v[e] += coef<T, CT>(gtab, R, 5, m, 1) * pml_term<T>(f.psi2, f, at, u, deyx);
                else               // Hz: c-difference along y
                    hz0.v[e] += coef<T, CT>(gtab, R, 5, m, 2) * pml_term<T>(f.psi1, f, at, u, dexy);
            }
        }
    }
    store<T, V>(hz, c, hz0);
}

template <typename T, typename ID, bool CT, int V, bool PML, int PF>
__global__ void __launch_bounds__(256)
indexed_e_tez(T* __restrict__ ex, T* __restrict__ ey, const T* __restrict__ hz,
              const ID* __restrict__ idx, const ID* __restrict__ idy,
              const T* __restrict__ gtab, int R, int nx, int ny, int px, int ilo, int ihi, int jlo,
              int jhi, int klo) {
    const int i0 = ilo + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = jlo + blockIdx.y * blockDim.y + threadIdx.y;
    if (i0 >= ihi || j >= jhi) return;
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
        if (PML) {
            for (int q = 0; q < c_nfaces[0]; ++q) {
                const Face& f = c_faces[0][q];
                int u;
                idx_t at;
                if (!in_face(f, i0 + e, j, 0, ny, px, u, at)) continue;
                if (f.axis == 0)   // Ey: c-difference along x
                    ey0.v[e] += coef<T, CT>(gtab, R, 1, my_, 2) * pml_term<T>(f.psi1, f, at, u, dhzx);
                else               // Ex: b-difference along y
                    ex0.v[e] += coef<T, CT>(gtab, R, 0, mx_, 1) * pml_term<T>(f.psi2, f, at, u, dhzy);
            }
        }
    }
    store<T, V>(ex, c, ex0);
    store<T, V>(ey, c, ey0);
}
