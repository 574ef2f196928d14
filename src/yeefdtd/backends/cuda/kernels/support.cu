// Kernels every variant shares: the CPML correction, source injection, probe recording.

// One CPML kernel for all six faces and both half steps. AXIS is the face normal; the two
// components across it are a1 = AXIS+1 and a2 = AXIS+2 (cyclically). For a1 the derivative
// along AXIS is its c-difference (column 2) of the curl field's component a2; for a2 it is
// the b-difference (column 1) of component a1. E looks back (D = G[s] - G[s-1]), H forward
// (D = G[s+1] - G[s]). With u the depth index in the slab:
//     psi <- b[u] psi + c[u] D
//     F   += C (kinv_m1[u] D + psi)
// where C is F's own coefficient for that difference: from its material row (ids + table)
// or, for the per-cell variants, from its coefficient array. Absent components (2D) are
// null pointers. psi is laid out like the slab of the field: x fastest.
template <typename T, typename ID, bool CT, int AXIS, bool ELECTRIC, bool PERCELL>
__global__ void cpml(T* __restrict__ f1, T* __restrict__ f2,
                     const T* __restrict__ g1, const T* __restrict__ g2,
                     T* __restrict__ psi1, T* __restrict__ psi2,
                     const ID* __restrict__ id1, const ID* __restrict__ id2,
                     const T* __restrict__ gtab, int R,
                     const T* __restrict__ k1, const T* __restrict__ k2,
                     const T* __restrict__ pb, const T* __restrict__ pc,
                     const T* __restrict__ pk, int start, int L, int nx, int ny, int nz,
                     int px, int py) {
    const idx_t t = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
    int i, j, k, u;
    if (AXIS == 0) {
        const idx_t total = (idx_t)L * ny * nz;
        if (t >= total) return;
        u = (int)(t % L);
        const idx_t r = t / L;
        i = start + u; j = (int)(r % ny); k = (int)(r / ny);
    } else if (AXIS == 1) {
        const idx_t total = (idx_t)nx * L * nz;
        if (t >= total) return;
        i = (int)(t % nx);
        const idx_t r = t / nx;
        u = (int)(r % L);
        j = start + u; k = (int)(r / L);
    } else {
        const idx_t total = (idx_t)nx * ny * L;
        if (t >= total) return;
        i = (int)(t % nx);
        const idx_t r = t / nx;
        j = (int)(r % ny); u = (int)(r / ny);
        k = start + u;
    }
    const idx_t c = flat3(i, j, k, px, py);
    const int s = (AXIS == 0) ? i : (AXIS == 1 ? j : k);
    const int n = (AXIS == 0) ? nx : (AXIS == 1 ? ny : nz);
    const idx_t stride = (AXIS == 0) ? 1 : (AXIS == 1 ? (idx_t)px : (idx_t)px * py);
    const int s2 = ELECTRIC ? wrap_down(s, n) : wrap_up(s, n);
    const idx_t cn = c + (idx_t)(s2 - s) * stride;
    const T b = pb[u], cc = pc[u], kinv = pk[u];
    const int base = ELECTRIC ? 0 : 3;
    if (f1) {  // component AXIS+1: c-difference of curl component AXIS+2
        const T d = ELECTRIC ? (g1[c] - g1[cn]) : (g1[cn] - g1[c]);
        const T p = b * psi1[t] + cc * d;
        psi1[t] = p;
        const T C = PERCELL ? k1[c] : coef<T, CT>(gtab, R, base + (AXIS + 1) % 3, id1[c], 2);
        f1[c] += C * (kinv * d + p);
    }
    if (f2) {  // component AXIS+2: b-difference of curl component AXIS+1
        const T d = ELECTRIC ? (g2[c] - g2[cn]) : (g2[cn] - g2[c]);
        const T p = b * psi2[t] + cc * d;
        psi2[t] = p;
        const T C = PERCELL ? k2[c] : coef<T, CT>(gtab, R, base + (AXIS + 2) % 3, id2[c], 1);
        f2[c] += C * (kinv * d + p);
    }
}

// Sources and probes read the step number from device memory (advanced by tick at the end
// of every step), so that one step can be captured as a CUDA graph and replayed unchanged.

// Sources: values hold one row per step (already scaled by the local source coefficient
// for soft sources, and by the storage scale); soft sources add, hard sources set. S is the
// fields' storage type (see Conv in common.cuh).
template <typename T, typename S, bool HARD>
__global__ void inject(S* __restrict__ f, const idx_t* __restrict__ where,
                       const T* __restrict__ values, int count, const idx_t* __restrict__ step) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const T v = values[*step * count + t];
    const idx_t w = where[t];
    f[w] = Conv<T, S>::narrow(HARD ? v : Conv<T, S>::widen(f[w]) + v);
}

// Probes: after step n, when (n + 1) is a multiple of every, gather count samples
// (component comp[t] at where[t]) into row ((n + 1) / every - 1) mod rows of a ring buffer,
// as stored (the host applies the storage scale).
template <typename T, typename S>
__global__ void record(const S* __restrict__ f0, const S* __restrict__ f1,
                       const S* __restrict__ f2, const S* __restrict__ f3,
                       const S* __restrict__ f4, const S* __restrict__ f5,
                       const int* __restrict__ comp, const idx_t* __restrict__ where,
                       T* __restrict__ out, int count, const idx_t* __restrict__ step,
                       int every, int rows) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const idx_t done = *step + 1;
    if (t >= count || done % every != 0) return;
    const idx_t r = (done / every - 1) % rows;
    const int q = comp[t];
    const S* f = q == 0 ? f0 : q == 1 ? f1 : q == 2 ? f2 : q == 3 ? f3 : q == 4 ? f4 : f5;
    out[r * count + t] = getf<T, S>(f, where[t]);
}

__global__ void tick(idx_t* step) { *step += 1; }

// The largest |value| of each of K arrays (the fields, for the run's divergence check):
// array q of ``fields`` (n values each, stored as S) into out[q], as the bits of a
// non-negative double, whose order as unsigned integers is the values' order. A NaN counts
// as 3e300 and an infinity stays infinite, so the maximum keeps either. blockIdx.y is the
// array. Compiled with the stepper's other kernels: CuPy's reduction kernels would be
// compiled on their own at a run's first check (3.6 s of a first 64^3 run on an H100 host).
template <typename T, typename S>
__global__ void max_abs(const S* const* __restrict__ fields, idx_t n,
                        unsigned long long* __restrict__ out) {
    const S* __restrict__ a = fields[blockIdx.y];
    double m = 0.0;
    for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        const double v = (double)Conv<T, S>::widen(a[i]);
        m = fmax(m, v != v ? 3.0e300 : fabs(v));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0)
        atomicMax(out + blockIdx.y, (unsigned long long)__double_as_longlong(m));
}
