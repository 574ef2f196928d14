// Shared by every yeefdtd kernel: index arithmetic, neighbour wrapping, coefficient tables.
//
// Field arrays are stored x fastest with pitches (px, py) >= (nx, ny):
//     flat(i, j, k) = i + px * (j + py * k)
// and all products of dimensions are 64-bit (idx_t), so domains of more than 2^31 values
// work. Neighbour indices wrap modulo the logical extent on every axis: on a periodic axis
// that is the period, on any other axis the wrapped slot holds a field that is kept at zero
// (see build/grid.py), so no kernel needs a boundary branch beyond the wrap itself.

typedef long long idx_t;
typedef unsigned char id8_t;
typedef unsigned short id16_t;

__device__ __forceinline__ int wrap_up(int i, int n) { return (i + 1 == n) ? 0 : i + 1; }
__device__ __forceinline__ int wrap_down(int i, int n) { return (i == 0) ? n - 1 : i - 1; }

__device__ __forceinline__ idx_t flat3(int i, int j, int k, int px, int py) {
    return (idx_t)i + (idx_t)px * ((idx_t)j + (idx_t)py * (idx_t)k);
}

// Coefficient tables: for component c (0..5 = ex ey ez hx hy hz), material row r and
// column q (0 self, 1 b-difference, 2 c-difference) the value is at ((c * R) + r) * 3 + q.
// Small tables live in constant memory (one copy per loaded module, written by the host
// before the first step); large ones are read from global memory through the read-only
// cache.
// 61440 bytes of the 64 KB constant bank: 15360 floats or 7680 doubles (the rest holds the
// CPML face descriptors below and those of the marching kernels, march.cu).
__constant__ double c_tab[7680];

template <typename T, bool CT> struct Table;
template <typename T> struct Table<T, true> {
    static __device__ __forceinline__ T get(const T*, int off) {
        return reinterpret_cast<const T*>(c_tab)[off];
    }
};
template <typename T> struct Table<T, false> {
    static __device__ __forceinline__ T get(const T* __restrict__ g, int off) { return __ldg(g + off); }
};

template <typename T, bool CT>
__device__ __forceinline__ T coef(const T* __restrict__ g, int R, int comp, int row, int q) {
    return Table<T, CT>::get(g, (comp * R + row) * 3 + q);
}

// V consecutive values read or written with one access (16 bytes for 4 floats or 2 doubles).
// Arrays whose rows are padded to a multiple of V, starting V-aligned, allow it.
template <typename T, int V> struct alignas(sizeof(T) * V) Pack { T v[V]; };

template <typename T, int V>
__device__ __forceinline__ Pack<T, V> load(const T* __restrict__ p, idx_t c) {
    return *reinterpret_cast<const Pack<T, V>*>(p + c);
}

// Ask L2 for the line holding p[c], holding no register for the answer.
template <typename T>
__device__ __forceinline__ void prefetch_l2(const T* p, idx_t c) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + c));
}

template <typename T, int V>
__device__ __forceinline__ void store(T* __restrict__ p, idx_t c, const Pack<T, V>& x) {
    *reinterpret_cast<Pack<T, V>*>(p + c) = x;
}

// Field storage. Kernels that take a storage type S besides the arithmetic type T load
// fields as S and compute in T: S = T, or S = half_t (IEEE binary16, with T = float) for
// 16-bit storage, converted by the hardware's cvt instructions (round to nearest even on
// the way down, as NumPy's float16 cast). The host keeps half_t fields scaled by powers
// of two (see build/storage.py); the kernels never see the scale, only coefficient columns
// and source values that carry it.
struct half_t { unsigned short bits; };

template <typename T, typename S> struct Conv;
template <typename T> struct Conv<T, T> {
    static __device__ __forceinline__ T widen(T x) { return x; }
    static __device__ __forceinline__ T narrow(T x) { return x; }
};
template <> struct Conv<float, half_t> {
    static __device__ __forceinline__ float widen(half_t h) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
        return f;
    }
    static __device__ __forceinline__ half_t narrow(float f) {
        half_t h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
        return h;
    }
};

// V stored values at p[c], widened to T; V values of T narrowed and stored at p[c]; one
// stored value widened.
template <typename T, typename S, int V>
__device__ __forceinline__ Pack<T, V> loadf(const S* __restrict__ p, idx_t c) {
    const Pack<S, V> s = load<S, V>(p, c);
    Pack<T, V> out;
#pragma unroll
    for (int e = 0; e < V; ++e) out.v[e] = Conv<T, S>::widen(s.v[e]);
    return out;
}

template <typename T, typename S, int V> struct Narrow {
    static __device__ __forceinline__ Pack<S, V> pack(const Pack<T, V>& x) {
        Pack<S, V> s;
#pragma unroll
        for (int e = 0; e < V; ++e) s.v[e] = Conv<T, S>::narrow(x.v[e]);
        return s;
    }
};
// Two values per conversion instruction (cvt.rn.f16x2.f32, the same rounding): one
// instruction per value was measured slower (conversions have a fraction of the
// arithmetic throughput).
#ifndef YEEFDTD_CVT_SINGLE
template <int V> struct Narrow<float, half_t, V> {
    static __device__ __forceinline__ Pack<half_t, V> pack(const Pack<float, V>& x) {
        Pack<half_t, V> s;
        if constexpr (V == 1) {
            s.v[0] = Conv<float, half_t>::narrow(x.v[0]);
        } else {
#pragma unroll
            for (int e = 0; e < V; e += 2) {
                unsigned w;   // the lower half holds element e
                asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(x.v[e + 1]), "f"(x.v[e]));
                s.v[e].bits = (unsigned short)(w & 0xffffu);
                s.v[e + 1].bits = (unsigned short)(w >> 16);
            }
        }
        return s;
    }
};
#endif

template <typename T, typename S, int V>
__device__ __forceinline__ void storef(S* __restrict__ p, idx_t c, const Pack<T, V>& x) {
    store<S, V>(p, c, Narrow<T, S, V>::pack(x));
}

template <typename T, typename S>
__device__ __forceinline__ T getf(const S* __restrict__ p, idx_t c) {
    return Conv<T, S>::widen(p[c]);
}

// CPML faces for the kernels that apply the correction in the same pass as the update.
// c_faces[h][a][side] is the face of half step h (0: E, 1: H) normal to axis a on the low
// (0) or high (1) side; L = 0 where there is none. It holds the auxiliary arrays of its two
// components (a1 = axis+1, a2 = axis+2; null when absent), the profile arrays b, c and
// 1/kappa - 1 along the slab, and where the slab lies: indices start .. start + L - 1 along
// the axis. psi is laid out x fastest: (i - base) + W (j + ny k) on an x face, where base
// is start rounded down and base + W is start + L rounded up to a multiple of 4 (so that
// 4 cells along x have 4 aligned, consecutive entries), i + px (u + L k) on a y face,
// i + px (j + ny u) on a z face.
struct Face {
    void* psi1;
    void* psi2;
    const void* b;
    const void* c;
    const void* k;
    int base, start, L, W;
};
__constant__ Face c_faces[2][3][2];

// psi <- b psi + c d; returns the correction factor (1/kappa - 1) d + psi, which the caller
// multiplies by its own coefficient for that difference.
template <typename T>
__device__ __forceinline__ T pml_term(void* psi_v, const Face* f, idx_t at, int u, T d) {
    T* psi = static_cast<T*>(psi_v);
    const T b = static_cast<const T*>(f->b)[u], cc = static_cast<const T*>(f->c)[u];
    const T ki = static_cast<const T*>(f->k)[u];
    const T p = b * psi[at] + cc * d;
    psi[at] = p;
    return ki * d + p;
}

// Of the two faces normal to axis A (a compile-time constant) at pair[0] (low side) and
// pair[1] (high side), the one that holds (i, j, k), with its depth u and the index of its
// psi entry; null when the cell is in neither.
template <int A>
__device__ __forceinline__ const Face* face_in(const Face* pair, int i, int j, int k, int ny,
                                               int px, int& u, idx_t& at) {
    const int s = A == 0 ? i : (A == 1 ? j : k);
    const Face* f = pair;
    u = s - f->start;
    if (u < 0 || u >= f->L) {
        f = pair + 1;
        u = s - f->start;
        if (u < 0 || u >= f->L) return nullptr;
    }
    if (A == 0) at = (idx_t)(i - f->base) + (idx_t)f->W * ((idx_t)j + (idx_t)ny * k);
    else if (A == 1) at = (idx_t)i + (idx_t)px * ((idx_t)u + (idx_t)f->L * k);
    else at = (idx_t)i + (idx_t)px * ((idx_t)j + (idx_t)ny * u);
    return f;
}

// The face of half step h normal to axis A that holds (i, j, k) (see face_in).
template <int A>
__device__ __forceinline__ const Face* face_at(int h, int i, int j, int k, int ny, int px,
                                               int& u, idx_t& at) {
    return face_in<A>(&c_faces[h][A][0], i, j, k, ny, px, u, at);
}

// Whether the cells with coordinates lo .. hi along axis A meet a face of half step h.
template <int A>
__device__ __forceinline__ bool near_face(int h, int lo, int hi) {
    const Face& a = c_faces[h][A][0];
    const Face& b = c_faces[h][A][1];
    return (lo < a.start + a.L && hi >= a.start) || (lo < b.start + b.L && hi >= b.start);
}

// Which axes in MASK have a face of half step h that this thread's pack of V cells meets.
template <int MASK, int V>
__device__ __forceinline__ void nearness(int h, int i0, int j, int k, bool (&near)[3]) {
    near[0] = (MASK & 1) && near_face<0>(h, i0, i0 + V - 1);
    near[1] = (MASK & 2) && near_face<1>(h, j, j);
    near[2] = (MASK & 4) && near_face<2>(h, k, k);
}

template <typename T> struct Two { T a, b; };

// The CPML step of one cell for the face normal to axis A (half step h): both auxiliary
// values advanced with their differences d1 (component a1's c-difference) and d2 (a2's
// b-difference), and the two correction factors returned; (0, 0) outside the face.
// (Calling it out of line, so that the plain path keeps its registers, did not help: the
// values live across the call need registers of their own.)
template <typename T, int A>
__device__ __forceinline__ Two<T> pml_pair(int h, int i, int j, int k, int ny, int px, T d1, T d2) {
    int u;
    idx_t at;
    Two<T> r{T(0), T(0)};
    const Face* f = face_at<A>(h, i, j, k, ny, px, u, at);
    if (f == nullptr) return r;
    if (f->psi1) r.a = pml_term<T>(f->psi1, f, at, u, d1);
    if (f->psi2) r.b = pml_term<T>(f->psi2, f, at, u, d2);
    return r;
}

// Where this thread's pack of V cells lies in the box [ilo, ihi) x [jlo, jhi) x [klo, khi):
// (i0, j, k) of its first cell, or false when it has none. 1D blocks run over the box's rows
// of packs flattened across y (a block spans rows, so no lane idles at a row's end however
// narrow the box); the plane is blockIdx.y + gridDim.y * blockIdx.z. The host keeps the
// packs of a plane below 2^31.
template <int V>
__device__ __forceinline__ bool place(int ilo, int ihi, int jlo, int jhi, int klo, int khi,
                                      int& i0, int& j, int& k) {
    const int ppr = (ihi - ilo + V - 1) / V;
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = p / ppr;
    if (r >= jhi - jlo) return false;
    i0 = ilo + (p - r * ppr) * V;
    j = jlo + r;
    k = klo + blockIdx.y + gridDim.y * blockIdx.z;
    return k < khi;
}
