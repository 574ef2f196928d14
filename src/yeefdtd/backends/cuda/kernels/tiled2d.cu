// 2D kernels on 2D thread blocks with shared-memory tiles (Takada et al.; the tutorial's
// (BS+1) x (BS+1) tile loaded by BS x BS threads). Each block stages the curl field of its
// tile plus a one-cell halo (ahead of the tile for H, behind it for E) in shared memory, then
// updates its cells. Per-cell coefficient arrays as in the papers; the block shape is a
// launch parameter (Takada's sweep found 32 x 4 best on their GPU).

// Stage src over the (bx+1) x (by+1) tile whose first cell is (i0 + off, j0 + off), wrapping
// modulo (nx, ny). tile[(y) * (bx + 1) + x].
template <typename T>
__device__ __forceinline__ void stage(T* tile, const T* __restrict__ src, int i0, int j0,
                                      int off, int nx, int ny, int px) {
    const int bx = blockDim.x, by = blockDim.y;
    const int w = bx + 1, count = w * (by + 1);
    for (int e = threadIdx.y * bx + threadIdx.x; e < count; e += bx * by) {
        int gi = i0 + off + e % w, gj = j0 + off + e / w;
        gi = gi < 0 ? gi + nx : (gi >= nx ? gi - nx : gi);
        gj = gj < 0 ? gj + ny : (gj >= ny ? gj - ny : gj);
        tile[e] = src[(idx_t)gi + (idx_t)px * gj];
    }
}

template <typename T>
__global__ void tiled_h_tmz(T* __restrict__ hx, T* __restrict__ hy, const T* __restrict__ ez,
                            const T* __restrict__ hxs, const T* __restrict__ hxb,
                            const T* __restrict__ hys, const T* __restrict__ hyc, int nx,
                            int ny, int px) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* s = reinterpret_cast<T*>(smem_raw);
    const int i0 = blockIdx.x * blockDim.x, j0 = blockIdx.y * blockDim.y;
    stage<T>(s, ez, i0, j0, 0, nx, ny, px);
    __syncthreads();
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int w = blockDim.x + 1, e = threadIdx.y * w + threadIdx.x;
    const idx_t c = (idx_t)i + (idx_t)px * j;
    hx[c] = hxs[c] * hx[c] + hxb[c] * (s[e + w] - s[e]);
    hy[c] = hys[c] * hy[c] + hyc[c] * (s[e + 1] - s[e]);
}

template <typename T>
__global__ void tiled_e_tmz(T* __restrict__ ez, const T* __restrict__ hx,
                            const T* __restrict__ hy, const T* __restrict__ ezs,
                            const T* __restrict__ ezb, const T* __restrict__ ezc, int nx,
                            int ny, int px) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int w = blockDim.x + 1, count = w * (blockDim.y + 1);
    T* sx = reinterpret_cast<T*>(smem_raw);
    T* sy = sx + count;
    const int i0 = blockIdx.x * blockDim.x, j0 = blockIdx.y * blockDim.y;
    stage<T>(sx, hx, i0, j0, -1, nx, ny, px);
    stage<T>(sy, hy, i0, j0, -1, nx, ny, px);
    __syncthreads();
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int e = (threadIdx.y + 1) * w + threadIdx.x + 1;   // this cell in the tile
    const idx_t c = (idx_t)i + (idx_t)px * j;
    ez[c] = ezs[c] * ez[c] + ezb[c] * (sy[e] - sy[e - 1]) + ezc[c] * (sx[e] - sx[e - w]);
}

template <typename T>
__global__ void tiled_h_tez(T* __restrict__ hz, const T* __restrict__ ex,
                            const T* __restrict__ ey, const T* __restrict__ hzs,
                            const T* __restrict__ hzb, const T* __restrict__ hzc, int nx,
                            int ny, int px) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int w = blockDim.x + 1, count = w * (blockDim.y + 1);
    T* sx = reinterpret_cast<T*>(smem_raw);
    T* sy = sx + count;
    const int i0 = blockIdx.x * blockDim.x, j0 = blockIdx.y * blockDim.y;
    stage<T>(sx, ex, i0, j0, 0, nx, ny, px);
    stage<T>(sy, ey, i0, j0, 0, nx, ny, px);
    __syncthreads();
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int e = threadIdx.y * w + threadIdx.x;
    const idx_t c = (idx_t)i + (idx_t)px * j;
    hz[c] = hzs[c] * hz[c] + hzb[c] * (sy[e + 1] - sy[e]) + hzc[c] * (sx[e + w] - sx[e]);
}

template <typename T>
__global__ void tiled_e_tez(T* __restrict__ ex, T* __restrict__ ey, const T* __restrict__ hz,
                            const T* __restrict__ exs, const T* __restrict__ exb,
                            const T* __restrict__ eys, const T* __restrict__ eyc, int nx,
                            int ny, int px) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* s = reinterpret_cast<T*>(smem_raw);
    const int i0 = blockIdx.x * blockDim.x, j0 = blockIdx.y * blockDim.y;
    stage<T>(s, hz, i0, j0, -1, nx, ny, px);
    __syncthreads();
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int w = blockDim.x + 1, e = (threadIdx.y + 1) * w + threadIdx.x + 1;
    const idx_t c = (idx_t)i + (idx_t)px * j;
    ex[c] = exs[c] * ex[c] + exb[c] * (s[e] - s[e - w]);
    ey[c] = eys[c] * ey[c] + eyc[c] * (s[e] - s[e - 1]);
}
