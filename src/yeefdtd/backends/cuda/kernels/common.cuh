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
// 64000 bytes of the 64 KB constant bank: 16000 floats or 8000 doubles (the rest holds the
// CPML face descriptors below).
__constant__ double c_tab[8000];

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

// CPML faces for the kernels that apply the correction in the same pass as the update.
// For face f of half step h (0: E, 1: H): the auxiliary arrays of its two components
// (a1 = axis+1, a2 = axis+2; null when absent), the profile arrays b, c, 1/kappa - 1 along
// the slab, and where the slab lies: indices start .. start + L - 1 along axis. psi is laid
// out x fastest: u + L (j + ny k) on an x face, i + px (u + L k) on a y face,
// i + px (j + ny u) on a z face.
struct Face {
    void* psi1;
    void* psi2;
    const void* b;
    const void* c;
    const void* k;
    int axis, start, L, pad;
};
__constant__ Face c_faces[2][6];
__constant__ int c_nfaces[2];

// psi <- b psi + c d; returns the correction factor (1/kappa - 1) d + psi, which the caller
// multiplies by its own coefficient for that difference.
template <typename T>
__device__ __forceinline__ T pml_term(void* psi_v, const Face& f, idx_t at, int u, T d) {
    T* psi = static_cast<T*>(psi_v);
    const T b = static_cast<const T*>(f.b)[u], cc = static_cast<const T*>(f.c)[u];
    const T ki = static_cast<const T*>(f.k)[u];
    const T p = b * psi[at] + cc * d;
    psi[at] = p;
    return ki * d + p;
}

// Where (i, j, k) falls in face f: its depth u and the index of its psi entry, or false.
__device__ __forceinline__ bool in_face(const Face& f, int i, int j, int k, int ny, int px,
                                        int& u, idx_t& at) {
    const int s = f.axis == 0 ? i : (f.axis == 1 ? j : k);
    u = s - f.start;
    if (u < 0 || u >= f.L) return false;
    if (f.axis == 0) at = (idx_t)u + (idx_t)f.L * ((idx_t)j + (idx_t)ny * k);
    else if (f.axis == 1) at = (idx_t)i + (idx_t)px * ((idx_t)u + (idx_t)f.L * k);
    else at = (idx_t)i + (idx_t)px * ((idx_t)j + (idx_t)ny * u);
    return true;
}
