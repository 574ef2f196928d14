// The seed papers' 3D kernels, kept selectable so their claims can be checked on current
// GPUs. All read per-cell coefficient arrays (the papers' Chxh, Chxey, ... form): for each
// component a self, a b-difference and a c-difference array. Arrays may be padded to pitches
// (px, py) that are multiples of 16 or 32 (Demir and Elsherbeni's Fig. 5).
//
//   seed_xyz_*       one thread per cell: 1D blocks over the flattened (padded) x-y plane,
//                    grid.y over z (Listing 4); optional shared memory for the x-neighbour.
//   seed_xy_*        one thread per (i, j) column marching in z, z-neighbours in registers
//                    (Listing 5); optional shared memory for the x-neighbour.
//   seed_plane_*     one launch per z-plane with 2D blocks (the first approach of the 2012
//                    study).
//   seed_multicell_* blocks over (y, z), several cells along x per thread, interleaved
//                    (coalesced) or consecutive (uncoalesced) (the same study, Fig. 8).

#define H_COEFS const T* __restrict__ axs, const T* __restrict__ axb, const T* __restrict__ axc, \
                const T* __restrict__ ays, const T* __restrict__ ayb, const T* __restrict__ ayc, \
                const T* __restrict__ azs, const T* __restrict__ azb, const T* __restrict__ azc

// H at flat index c of cell (i, j, k), with the x-neighbours supplied by the caller.
template <typename T>
__device__ __forceinline__ void h_cell(T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
                                       const T* __restrict__ ex, const T* __restrict__ ey,
                                       const T* __restrict__ ez, H_COEFS, idx_t c, idx_t dy,
                                       idx_t dz, T ex_c, T ey_c, T ez_c, T ey_x, T ez_x,
                                       T ex_z, T ey_z) {
    hx[c] = axs[c] * hx[c] + axb[c] * (ez[c + dy] - ez_c) + axc[c] * (ey_z - ey_c);
    hy[c] = ays[c] * hy[c] + ayb[c] * (ex_z - ex_c) + ayc[c] * (ez_x - ez_c);
    hz[c] = azs[c] * hz[c] + azb[c] * (ey_x - ey_c) + azc[c] * (ex[c + dy] - ex_c);
}

template <typename T>
__device__ __forceinline__ void e_cell(T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
                                       const T* __restrict__ hx, const T* __restrict__ hy,
                                       const T* __restrict__ hz, H_COEFS, idx_t c, idx_t dy,
                                       T hx_c, T hy_c, T hz_c, T hy_x, T hz_x, T hx_z,
                                       T hy_z) {
    ex[c] = axs[c] * ex[c] + axb[c] * (hz_c - hz[c + dy]) + axc[c] * (hy_c - hy_z);
    ey[c] = ays[c] * ey[c] + ayb[c] * (hx_c - hx_z) + ayc[c] * (hz_c - hz_x);
    ez[c] = azs[c] * ez[c] + azb[c] * (hy_c - hy_x) + azc[c] * (hx_c - hx[c + dy]);
}

// ------------------------------------------------------------------ xyz-mapping
template <typename T, bool SHARED>
__global__ void seed_xyz_h(T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
                           const T* __restrict__ ex, const T* __restrict__ ey,
                           const T* __restrict__ ez, H_COEFS, int nx, int ny, int nz, int px,
                           int py) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sEy = reinterpret_cast<T*>(smem_raw);
    T* sEz = sEy + blockDim.x + 16;
    const idx_t plane = (idx_t)px * py;
    const idx_t ci = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int k = blockIdx.y;
    const idx_t c = ci + (idx_t)k * plane;
    const int j = (int)(ci / px);
    const int i = (int)(ci - (idx_t)j * px);
    if (SHARED) {
        const int si = threadIdx.x;
        sEy[si] = ci < plane ? ey[c] : T(0);
        sEz[si] = ci < plane ? ez[c] : T(0);
        if (threadIdx.x < 16) {
            const idx_t ce = ci + blockDim.x;
            sEy[blockDim.x + si] = ce < plane ? ey[c + blockDim.x] : T(0);
            sEz[blockDim.x + si] = ce < plane ? ez[c + blockDim.x] : T(0);
        }
        __syncthreads();
    }
    if (ci >= plane || i >= nx || j >= ny) return;
    const idx_t dy = (idx_t)(wrap_up(j, ny) - j) * px;
    const idx_t dz = (k + 1 == nz) ? -(idx_t)(nz - 1) * plane : plane;
    T ey_x, ez_x;
    if (SHARED && i + 1 < nx) {
        ey_x = sEy[threadIdx.x + 1];
        ez_x = sEz[threadIdx.x + 1];
    } else {
        const idx_t dx = (idx_t)(wrap_up(i, nx) - i);
        ey_x = ey[c + dx];
        ez_x = ez[c + dx];
    }
    h_cell<T>(hx, hy, hz, ex, ey, ez, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c, dy, dz,
              ex[c], ey[c], ez[c], ey_x, ez_x, ex[c + dz], ey[c + dz]);
}

template <typename T, bool SHARED>
__global__ void seed_xyz_e(T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
                           const T* __restrict__ hx, const T* __restrict__ hy,
                           const T* __restrict__ hz, H_COEFS, int nx, int ny, int nz, int px,
                           int py) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sHy = reinterpret_cast<T*>(smem_raw);       // [0] holds the element before the block
    T* sHz = sHy + blockDim.x + 1;
    const idx_t plane = (idx_t)px * py;
    const idx_t ci = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int k = blockIdx.y;
    const idx_t c = ci + (idx_t)k * plane;
    const int j = (int)(ci / px);
    const int i = (int)(ci - (idx_t)j * px);
    if (SHARED) {
        const int si = threadIdx.x + 1;
        sHy[si] = ci < plane ? hy[c] : T(0);
        sHz[si] = ci < plane ? hz[c] : T(0);
        if (threadIdx.x == 0) {
            sHy[0] = ci > 0 ? hy[c - 1] : T(0);
            sHz[0] = ci > 0 ? hz[c - 1] : T(0);
        }
        __syncthreads();
    }
    if (ci >= plane || i >= nx || j >= ny) return;
    const idx_t dy = (idx_t)(wrap_down(j, ny) - j) * px;
    const idx_t dz = (k == 0) ? (idx_t)(nz - 1) * plane : -plane;
    T hy_x, hz_x;
    if (SHARED && i > 0) {
        hy_x = sHy[threadIdx.x];
        hz_x = sHz[threadIdx.x];
    } else {
        const idx_t dx = (idx_t)(wrap_down(i, nx) - i);
        hy_x = hy[c + dx];
        hz_x = hz[c + dx];
    }
    e_cell<T>(ex, ey, ez, hx, hy, hz, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c, dy,
              hx[c], hy[c], hz[c], hy_x, hz_x, hx[c + dz], hy[c + dz]);
}

// ------------------------------------------------------------------ xy-mapping
template <typename T, bool SHARED>
__global__ void seed_xy_h(T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
                          const T* __restrict__ ex, const T* __restrict__ ey,
                          const T* __restrict__ ez, H_COEFS, int nx, int ny, int nz, int px,
                          int py) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sEy = reinterpret_cast<T*>(smem_raw);
    T* sEz = sEy + blockDim.x + 16;
    const idx_t plane = (idx_t)px * py;
    const idx_t ci = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int j = (int)(ci / px);
    const int i = (int)(ci - (idx_t)j * px);
    const bool live = ci < plane && i < nx && j < ny;
    const bool in_plane = ci < plane;
    const idx_t dy = (idx_t)(wrap_up(j, ny) - j) * px;
    const idx_t dx = (idx_t)(wrap_up(i, nx) - i);
    idx_t c = ci;
    T ex_c = in_plane ? ex[c] : T(0), ey_c = in_plane ? ey[c] : T(0);
    for (int k = 0; k < nz; ++k, c += plane) {
        const idx_t dz = (k + 1 == nz) ? -(idx_t)(nz - 1) * plane : plane;
        const T ex_z = in_plane ? ex[c + dz] : T(0), ey_z = in_plane ? ey[c + dz] : T(0);
        const T ez_c = in_plane ? ez[c] : T(0);
        if (SHARED) {
            __syncthreads();  // the previous iteration is done with the tiles
            sEz[threadIdx.x] = ez_c;
            sEy[threadIdx.x] = ey_c;
            if (threadIdx.x < 16) {
                const bool ok = ci + blockDim.x < plane;
                sEz[blockDim.x + threadIdx.x] = ok ? ez[c + blockDim.x] : T(0);
                sEy[blockDim.x + threadIdx.x] = ok ? ey[c + blockDim.x] : T(0);
            }
            __syncthreads();
        }
        if (live) {
            T ey_x, ez_x;
            if (SHARED && i + 1 < nx) {
                ey_x = sEy[threadIdx.x + 1];
                ez_x = sEz[threadIdx.x + 1];
            } else {
                ey_x = ey[c + dx];
                ez_x = ez[c + dx];
            }
            h_cell<T>(hx, hy, hz, ex, ey, ez, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c,
                      dy, dz, ex_c, ey_c, ez_c, ey_x, ez_x, ex_z, ey_z);
        }
        ex_c = ex_z;
        ey_c = ey_z;
    }
}

template <typename T, bool SHARED>
__global__ void seed_xy_e(T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
                          const T* __restrict__ hx, const T* __restrict__ hy,
                          const T* __restrict__ hz, H_COEFS, int nx, int ny, int nz, int px,
                          int py) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sHy = reinterpret_cast<T*>(smem_raw);
    T* sHz = sHy + blockDim.x + 1;
    const idx_t plane = (idx_t)px * py;
    const idx_t ci = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int j = (int)(ci / px);
    const int i = (int)(ci - (idx_t)j * px);
    const bool live = ci < plane && i < nx && j < ny;
    const bool in_plane = ci < plane;
    const idx_t dy = (idx_t)(wrap_down(j, ny) - j) * px;
    const idx_t dx = (idx_t)(wrap_down(i, nx) - i);
    idx_t c = ci;
    const idx_t top = (idx_t)(nz - 1) * plane;
    T hx_z = in_plane ? hx[c + top] : T(0), hy_z = in_plane ? hy[c + top] : T(0);
    for (int k = 0; k < nz; ++k, c += plane) {
        const T hx_c = in_plane ? hx[c] : T(0), hy_c = in_plane ? hy[c] : T(0);
        const T hz_c = in_plane ? hz[c] : T(0);
        if (SHARED) {
            __syncthreads();
            sHy[threadIdx.x + 1] = hy_c;
            sHz[threadIdx.x + 1] = hz_c;
            if (threadIdx.x == 0) {
                sHy[0] = ci > 0 ? hy[c - 1] : T(0);
                sHz[0] = ci > 0 ? hz[c - 1] : T(0);
            }
            __syncthreads();
        }
        if (live) {
            T hy_x, hz_x;
            if (SHARED && i > 0) {
                hy_x = sHy[threadIdx.x];
                hz_x = sHz[threadIdx.x];
            } else {
                hy_x = hy[c + dx];
                hz_x = hz[c + dx];
            }
            e_cell<T>(ex, ey, ez, hx, hy, hz, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c,
                      dy, hx_c, hy_c, hz_c, hy_x, hz_x, hx_z, hy_z);
        }
        hx_z = hx_c;
        hy_z = hy_c;
    }
}

// ------------------------------------------------------------------ one launch per plane
template <typename T>
__global__ void seed_plane_h(T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
                             const T* __restrict__ ex, const T* __restrict__ ey,
                             const T* __restrict__ ez, H_COEFS, int nx, int ny, int nz, int px,
                             int py, int k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const idx_t plane = (idx_t)px * py;
    const idx_t c = flat3(i, j, k, px, py);
    const idx_t dx = (idx_t)(wrap_up(i, nx) - i);
    const idx_t dy = (idx_t)(wrap_up(j, ny) - j) * px;
    const idx_t dz = (k + 1 == nz) ? -(idx_t)(nz - 1) * plane : plane;
    h_cell<T>(hx, hy, hz, ex, ey, ez, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c, dy, dz,
              ex[c], ey[c], ez[c], ey[c + dx], ez[c + dx], ex[c + dz], ey[c + dz]);
}

template <typename T>
__global__ void seed_plane_e(T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
                             const T* __restrict__ hx, const T* __restrict__ hy,
                             const T* __restrict__ hz, H_COEFS, int nx, int ny, int nz, int px,
                             int py, int k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const idx_t plane = (idx_t)px * py;
    const idx_t c = flat3(i, j, k, px, py);
    const idx_t dx = (idx_t)(wrap_down(i, nx) - i);
    const idx_t dy = (idx_t)(wrap_down(j, ny) - j) * px;
    const idx_t dz = (k == 0) ? (idx_t)(nz - 1) * plane : -plane;
    e_cell<T>(ex, ey, ez, hx, hy, hz, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c, dy,
              hx[c], hy[c], hz[c], hy[c + dx], hz[c + dx], hx[c + dz], hy[c + dz]);
}

// ------------------------------------------------------------------ several cells per thread
template <typename T, bool INTERLEAVED>
__global__ void seed_multicell_h(T* __restrict__ hx, T* __restrict__ hy, T* __restrict__ hz,
                                 const T* __restrict__ ex, const T* __restrict__ ey,
                                 const T* __restrict__ ez, H_COEFS, int nx, int ny, int nz,
                                 int px, int py, int per_thread) {
    const int j = blockIdx.x, k = blockIdx.y;
    const idx_t plane = (idx_t)px * py;
    const idx_t row = flat3(0, j, k, px, py);
    const idx_t dy = (idx_t)(wrap_up(j, ny) - j) * px;
    const idx_t dz = (k + 1 == nz) ? -(idx_t)(nz - 1) * plane : plane;
    for (int m = 0; m < per_thread; ++m) {
        const int i = INTERLEAVED ? threadIdx.x + m * blockDim.x : threadIdx.x * per_thread + m;
        if (i >= nx) continue;
        const idx_t c = row + i;
        const idx_t dx = (idx_t)(wrap_up(i, nx) - i);
        h_cell<T>(hx, hy, hz, ex, ey, ez, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c, dy,
                  dz, ex[c], ey[c], ez[c], ey[c + dx], ez[c + dx], ex[c + dz], ey[c + dz]);
    }
}

template <typename T, bool INTERLEAVED>
__global__ void seed_multicell_e(T* __restrict__ ex, T* __restrict__ ey, T* __restrict__ ez,
                                 const T* __restrict__ hx, const T* __restrict__ hy,
                                 const T* __restrict__ hz, H_COEFS, int nx, int ny, int nz,
                                 int px, int py, int per_thread) {
    const int j = blockIdx.x, k = blockIdx.y;
    const idx_t plane = (idx_t)px * py;
    const idx_t row = flat3(0, j, k, px, py);
    const idx_t dy = (idx_t)(wrap_down(j, ny) - j) * px;
    const idx_t dz = (k == 0) ? (idx_t)(nz - 1) * plane : -plane;
    for (int m = 0; m < per_thread; ++m) {
        const int i = INTERLEAVED ? threadIdx.x + m * blockDim.x : threadIdx.x * per_thread + m;
        if (i >= nx) continue;
        const idx_t c = row + i;
        const idx_t dx = (idx_t)(wrap_down(i, nx) - i);
        e_cell<T>(ex, ey, ez, hx, hy, hz, axs, axb, axc, ays, ayb, ayc, azs, azb, azc, c, dy,
                  hx[c], hy[c], hz[c], hy[c + dx], hz[c + dx], hx[c + dz], hy[c + dz]);
    }
}
