"""The CUDA stepper: device arrays, precomputed launch lists, graph replay, monitors.

Everything a step launches is worked out once, at construction, as a list of
(kernel, grid, block, args, shared memory) tuples: the variant's H and E updates, one CPML
launch per face and half step, source injection, probe recording and the step counter's
tick. A step is that list, captured once as a CUDA graph and replayed. Sources and probes
read the step number from device memory, so the same graph serves every step; probe samples
collect in a ring buffer on the device and come back in chunks, snapshots in a frame buffer.
"""

from __future__ import annotations

import math

import numpy as np

from ...build.coefficients import CB, CC, SELF
from ...build.model import Model
from ...build.storage import STORAGE16, compute_dtype
from ...exceptions import KernelError, OutOfMemory
from ..base import Records, Stepper
from . import tuning
from .compile import id_name, kernel_version, load_module, type_name
from .compile import options as compile_options
from .variants import cpml_bytes, default_variant, make_variant

NULL = np.uint64(0)
COMP_INDEX = {c: i for i, c in enumerate(("ex", "ey", "ez", "hx", "hy", "hz"))}
#: grids smaller than this run with the default launch shapes instead of a tuning sweep
TUNE_MIN_CELLS = 4_000_000


def _i32(v) -> np.int32:
    return np.int32(v)


def _x_width(start: int, cells: int) -> int:
    """Entries per row of an x face's auxiliary arrays in the fused layout: from start
    rounded down to start + cells rounded up to multiples of 4 (see Face in common.cuh)."""
    return -(-(start + cells) // 4) * 4 - start // 4 * 4


def probe_ring_rows(records: int, channels: int) -> int:
    """Rows of a probe group's ring buffer on the device (the rest of its records wait on
    the host): 64 to 4096, about 16 MB of 8-byte values, no more than it records."""
    return max(1, min(records, max(64, min(4096, (16 << 20) // max(1, channels * 8)))))


def snapshot_slots(records: int, frame_bytes: int) -> int:
    """Frames a snapshot's buffer on the device holds: up to 64 MB of them."""
    return max(1, min(records, (64 << 20) // max(frame_bytes, 1)))


def configured_variant(spec: str, mode: str, dtype: str, x_layers: bool):
    """The variant ``spec`` set up for a grid of ``mode`` and storage ``dtype`` (16-bit
    storage or not, float arithmetic or not) with or without CPML layers on the x faces:
    what its pitches and kernels depend on."""
    variant = make_variant(spec)
    variant.half = dtype in STORAGE16
    variant.single = compute_dtype(dtype) == np.float32   # float arithmetic
    variant.mode = mode
    variant.x_layers = x_layers
    return variant


def psi_entries(slab, start: int, shape, pitch_x: int, fused: bool) -> int:
    """Auxiliary values of one CPML term of ``slab`` (its E or H profile beginning at
    ``start``): laid out as the separate CPML kernel walks them, or (``fused``) as the
    update kernels index them (see ``Face`` in common.cuh)."""
    s = slab.axis
    _, ny, nz = shape
    if not fused:
        others = [n for a, n in enumerate(shape) if a != s]
        return slab.cells * others[0] * others[1]
    if s:
        return slab.cells * (pitch_x * (nz if s == 1 else ny))
    return _x_width(start, slab.cells) * ny * nz




class CudaStepper(Stepper):
    """Time stepping on an NVIDIA GPU with a chosen kernel variant."""

    name = "cuda"
    #: the launches a step is made of, each tuned on its own
    roles = ("h", "e")
    #: the keys of a slab entry's auxiliary arrays (the marching variants keep two sets)
    psi_sets = ("psi",)

    def __new__(cls, model: Model, dtype: str = "float32", variant: str | None = None,
                *args, **kwargs):
        spec, note = _resolve_variant(model, str(dtype), variant)
        if cls is CudaStepper and spec.partition(":")[0] in ("fused", "temporal"):
            from .march import MarchStepper

            obj = super().__new__(MarchStepper)
        else:
            obj = super().__new__(cls)
        obj._spec = spec
        #: why 'auto' did not run the fastest variant (None when it did, or was not asked)
        obj.auto_note = note
        return obj

    def __init__(self, model: Model, dtype: str = "float32", variant: str | None = None,
                 tune: bool | None = None, graphs: bool = True,
                 launch: dict | None = None):
        super().__init__(model, dtype)
        g = model.grid
        self.variant = configured_variant(self._spec, g.mode, self.storage.name,
                                          any(slab.axis == 0 for slab in model.slabs))
        self.variant.check(g.mode, self.storage.name)   # (bfloat16: on numpy only)
        import cupy as cp

        self._cp = cp
        #: the dtype the field arrays are stored in (float16: scaled, see build/storage.py)
        self.field_dtype = np.dtype(np.float16) if self.storage.is16 else self.dtype
        self.shape = g.shape
        self.pitch = self.variant.pitches(g.shape)
        self._full = (*self.pitch, g.shape[2])
        self._stream = cp.cuda.Stream(non_blocking=True)
        self._held: list = []  # every device array, for memory_bytes
        self._graphs = graphs   # steps replayed as a CUDA graph (see tune_as_graph)
        try:
            with self._stream:
                self._allocate(model)
                self._plan_configs(tune, launch or {})
                names = self._names()
                self._kernel_names = frozenset(names)
                self._module = load_module(self.variant.files, names)
                self._upload_table()
                self._plans = {}
                self._choose_configs()
                self._step_plan = self._build_step_plan()
        except cp.cuda.memory.OutOfMemoryError as exc:
            raise OutOfMemory(f"the model does not fit in GPU memory ({exc}); use fewer cells, "
                              "float32, or the 'indexed' variant") from None
        self._graph = None
        self._n = 0
        #: max_abs's arguments (the fields' pointers, the results) by field set
        self._max_abs_args: dict = {}

    # ---- allocation -----------------------------------------------------------------
    def _dev(self, host: np.ndarray, order: str = "C"):
        """A device copy of ``host``; tables the kernels index row by row stay C-ordered."""
        a = self._cp.array(host, order=order)
        self._held.append(a)
        return a

    def _zeros(self, shape, dtype=None, order="F"):
        a = self._cp.zeros(shape, dtype=dtype or self.dtype, order=order)
        self._held.append(a)
        return a

    def _padded(self, host: np.ndarray, dtype):
        out = np.zeros(self._full, dtype=dtype, order="F")
        out[: self.shape[0], : self.shape[1], :] = host
        return self._dev(out, order="F")

    def _flat(self, index) -> int:
        px, py = self.pitch
        return int(index[0]) + px * (int(index[1]) + py * int(index[2]))

    def _allocate(self, model: Model) -> None:
        g = model.grid
        self._f = {c: self._zeros(self._full, self.field_dtype) for c in g.components}
        tables = model.tables
        self.R = max(len(t.table) for t in tables.values())
        self.id_dtype = np.dtype(np.uint8 if self.R <= 256 else np.uint16)
        table = np.zeros((6, self.R, 3))
        for c, t in tables.items():
            table[COMP_INDEX[c], : len(t.table)] = t.table[:, :3]
        if self.storage.is16:   # scaled fields: curl columns carry s_curl / s_field
            ratio = self.storage.scale_h / self.storage.scale_e
            table[:3, :, 1:] *= ratio
            table[3:, :, 1:] /= ratio
        self._table_host = table.astype(self.dtype)
        self.const_table = self._table_host.nbytes <= 61440  # c_tab in common.cuh
        self._gtab = self._dev(self._table_host.ravel())
        self._ids, self._coef = {}, {}
        if self.variant.form == "ids":
            for c, t in tables.items():
                self._ids[c] = self._padded(t.ids.astype(self.id_dtype), self.id_dtype)
        elif self.variant.form == "arrays":   # ('cell-ids': the marching stepper's own)
            for c, t in tables.items():
                self._coef[c] = [self._padded(t.per_cell(col).astype(self.dtype), self.dtype)
                                 for col in (SELF, CB, CC)]
        self._step_dev = self._zeros(1, np.int64)
        self._alloc_cpml(model)
        self._alloc_sources(model)
        self._alloc_monitors(model)

    def _alloc_cpml(self, model: Model) -> None:
        """Auxiliary arrays on the slabs: laid out as the separate CPML kernel walks them, or
        (fused) as the update kernels index them (see ``Face`` in common.cuh)."""
        self._slabs = []
        comps = model.grid.components
        for slab in model.slabs:
            s = slab.axis
            entry = {"slab": slab, "e": {}, "h": {}}
            for kind, prof in (("e", slab.e), ("h", slab.h)):
                size = psi_entries(slab, prof.start, self.shape, self.pitch[0],
                                   self.variant.fused_cpml) + self.psi_slack(slab)
                a1, a2 = f"{kind}{'xyz'[(s + 1) % 3]}", f"{kind}{'xyz'[(s + 2) % 3]}"
                entry[kind] = {
                    "start": prof.start,
                    "prof": [self._dev(p.astype(self.dtype)) for p in (prof.b, prof.c,
                                                                      prof.kinv_m1)],
                    "psi": [self._zeros(size) if a in comps else None for a in (a1, a2)],
                    "comps": (a1, a2),
                }
            self._slabs.append(entry)

    def psi_slack(self, slab) -> int:
        """Auxiliary values allocated past the last of ``slab``'s (none here)."""
        return 0

    def _alloc_sources(self, model: Model) -> None:
        self._sources = {"e": [], "h": []}
        for grp in model.sources:
            idx = np.unravel_index(grp.flat, model.grid.shape, order="F")
            where = np.array([self._flat(p) for p in zip(*idx, strict=True)], dtype=np.int64)
            with np.errstate(over="ignore"):
                values = (grp.values / self.storage.scale(grp.component)).astype(self.dtype)
            self._sources[grp.component[0]].append(
                (grp, self._dev(where), self._dev(values)))

    def _alloc_monitors(self, model: Model) -> None:
        self._probe_groups = []
        for grp in model.probes:
            comp = np.array([COMP_INDEX[ch.component] for ch in grp.channels], dtype=np.int32)
            where = np.array([self._flat(ch.index) for ch in grp.channels], dtype=np.int64)
            records = grp.records(model.steps)
            rows = probe_ring_rows(records, len(comp))
            self._probe_groups.append({
                "group": grp, "comp": self._dev(comp), "where": self._dev(where),
                "rows": rows, "ring": self._zeros((rows, len(comp)), order="C"),
                "host": np.zeros((records, len(comp)), dtype=self.dtype), "flushed": 0,
                "scale": np.array([self.storage.scale(ch.component) for ch in grp.channels],
                                  dtype=self.dtype),
            })
        self._snaps = []
        for plan in model.snapshots:
            slots = snapshot_slots(plan.records(model.steps),
                                   plan.shape[0] * plan.shape[1] * self.dtype.itemsize)
            self._snaps.append({
                "plan": plan, "slots": slots, "buf": self._zeros((slots, *plan.shape)),
                "host": np.zeros((plan.records(model.steps), *plan.shape), dtype=self.dtype),
                "flushed": 0,
            })

    # ---- kernels ----------------------------------------------------------------------
    def _names(self) -> list[str]:
        T, ID = type_name(self.dtype), id_name(self.id_dtype)
        S = "half_t" if self.storage.is16 else T
        CT = "true" if self.const_table else "false"
        # kernels with a storage type take it after the arithmetic type
        self._tparams = (self.model.grid.mode, f"{T}, {S}" if self.variant.storage16 else T,
                         ID, CT)
        names = self.variant.instances(*self._tparams)
        percell = "false" if self.variant.form == "ids" else "true"
        cid = ID if self.variant.form == "ids" else "id8_t"
        if self.variant.fused_cpml:
            masks = [self.layer_mask()] if self.model.grid.mode == "3d" else \
                sorted({mask for mask, _ in self.boxes() if mask})
            names = self.variant.instances(*self._tparams, masks=masks)
        self._cpml_names = {}
        for entry in self._slabs if not self.variant.fused_cpml else ():
            for kind in ("e", "h"):
                name = (f"cpml<{T}, {cid}, {CT}, {entry['slab'].axis}, "
                        f"{'true' if kind == 'e' else 'false'}, {percell}>")
                self._cpml_names[(entry["slab"].axis, kind)] = name
                names.append(name)
        self._inject_names = {h: f"inject<{T}, {S}, {str(h).lower()}>" for h in (False, True)}
        self._record_name = f"record<{T}, {S}>"
        return [*dict.fromkeys(names), *self._inject_names.values(), self._record_name, "tick",
                self._max_abs_name]

    @property
    def _max_abs_name(self) -> str:
        """The max_abs instance (support.cu) for this stepper's arithmetic and storage."""
        T = type_name(self.dtype)
        return f"max_abs<{T}, {'half_t' if self.storage.is16 else T}>"

    def _fn(self, name: str):
        """The compiled kernel ``name``; KernelError where the module does not hold it."""
        if name not in self._kernel_names:
            raise KernelError(f"kernel {name} was not compiled for this stepper")
        return self._module.get_function(name)

    def _upload_table(self) -> None:
        if self.const_table and self.variant.form == "ids":
            ptr = self._module.get_global("c_tab")
            host = np.ascontiguousarray(self._table_host.ravel())
            ptr.copy_from_host(host.ctypes.data, host.nbytes)
        if self.variant.fused_cpml:
            self._upload_faces()

    def _upload_faces(self) -> None:
        """The CPML faces, for the update kernels that apply the correction themselves."""
        faces = self._face_table("psi")
        self._module.get_global("c_faces").copy_from_host(faces.ctypes.data, faces.nbytes)

    def _face_table(self, psi_key: str) -> np.ndarray:
        """The faces as ``Face`` structs (common.cuh), [half step][axis][low, high], with the
        auxiliary arrays held under ``psi_key`` in each slab entry; L = 0 where none."""
        face = np.dtype([("psi1", "u8"), ("psi2", "u8"), ("b", "u8"), ("c", "u8"), ("k", "u8"),
                         ("base", "i4"), ("start", "i4"), ("L", "i4"), ("W", "i4")])
        faces = np.zeros((2, 3, 2), dtype=face)
        for kind, row in (("e", 0), ("h", 1)):
            for entry in self._slabs:
                part, slab = entry[kind], entry["slab"]
                at = (row, slab.axis, 0 if slab.side == "min" else 1)
                for name, arr in zip(("psi1", "psi2"), part[psi_key], strict=True):
                    faces[name][at] = 0 if arr is None else arr.data.ptr
                for name, arr in zip(("b", "c", "k"), part["prof"], strict=True):
                    faces[name][at] = arr.data.ptr
                faces["base"][at] = part["start"] // 4 * 4
                faces["start"][at] = part["start"]
                faces["L"][at] = slab.cells
                faces["W"][at] = _x_width(part["start"], slab.cells)
        return faces

    def boxes(self) -> list[tuple[int, tuple]]:
        """(mask, (ilo, ihi, jlo, jhi, klo, khi)) boxes that tile the grid: the interior (mask
        0) for the plain update kernel, the boxes holding CPML layers for the PML kernel, with
        the mask of axes (1 x, 2 y, 4 z) whose layers meet the box. x bounds are multiples
        of the variant's ``align`` (the widest access)."""
        nx, ny, nz = self.shape
        if not self._slabs:
            return [(0, (0, nx, 0, ny, 0, nz))]
        lo, hi = [0, 0, 0], [nx, ny, nz]
        for entry in self._slabs:
            slab = entry["slab"]
            a, n, L = slab.axis, self.model.grid.cells[slab.axis], slab.cells
            if slab.side == "min":
                lo[a] = max(lo[a], L)
            else:
                hi[a] = min(hi[a], n - L)
        al = self.variant.align
        lo[0] = -(-lo[0] // al) * al                # box starts must be aligned
        if hi[0] < nx:
            hi[0] = max(lo[0], hi[0] // al * al)
        out = []
        for a in range(3):  # peel x slabs off whole, then y within the x interior, then z
            box_lo = [0, 0, 0] if a == 0 else [lo[0], 0, 0] if a == 1 else [lo[0], lo[1], 0]
            box_hi = [nx, ny, nz] if a == 0 else [hi[0], ny, nz] if a == 1 \
                else [hi[0], hi[1], nz]
            for side_lo, side_hi in ((box_lo[a], lo[a]), (hi[a], box_hi[a])):
                b_lo, b_hi = list(box_lo), list(box_hi)
                b_lo[a], b_hi[a] = side_lo, side_hi
                if all(h > l for l, h in zip(b_lo, b_hi, strict=True)):
                    box = (b_lo[0], b_hi[0], b_lo[1], b_hi[1], b_lo[2], b_hi[2])
                    out.append((self._layer_mask(box), box))
        if all(h > l for l, h in zip(lo, hi, strict=True)):
            out.insert(0, (0, (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])))
        return out

    def layer_mask(self) -> int:
        """The axes (1 x, 2 y, 4 z) that have CPML layers."""
        return sum({1 << e["slab"].axis for e in self._slabs})

    def x_band(self, width: int) -> tuple[int, int]:
        """[xa, xb): the x range clear of the x layers, bounds multiples of ``width`` (the
        cells per thread of the launch); the whole row when there are none."""
        nx = self.shape[0]
        xa, xb = 0, nx
        for entry in self._slabs:
            slab = entry["slab"]
            if slab.axis == 0 and slab.side == "min":
                xa = -(-slab.cells // width) * width
            elif slab.axis == 0:
                xb = (self.model.grid.cells[0] - slab.cells) // width * width
        return xa, max(xa, xb)

    def _layer_mask(self, box) -> int:
        """The axes (1 x, 2 y, 4 z) whose CPML layers, E or H, hold a cell of ``box``."""
        mask = 0
        for entry in self._slabs:
            a, L = entry["slab"].axis, entry["slab"].cells
            first = min(entry["e"]["start"], entry["h"]["start"])
            last = max(entry["e"]["start"], entry["h"]["start"]) + L
            if first < box[2 * a + 1] and last > box[2 * a]:
                mask |= 1 << a
        return mask

    # ---- launch plans -------------------------------------------------------------------
    def _update_plan(self, role: str, cfg: tuple) -> list:
        from .launch import update_launches

        return update_launches(self, role, cfg)

    def _plan_configs(self, tune: bool | None, forced: dict) -> None:
        """Launch shapes known before compiling: forced ones, else cached (unless tune is
        False), else the variant's default where no sweep is asked (tune False, or None on a
        grid under TUNE_MIN_CELLS, where launch overhead dominates anyway: a shape that
        `yeefdtd tune` cached for it is still used); the roles left (large grids not in the
        cache, or tune True) are swept by _choose_configs. Where none is left, a stepper may
        compile only the instances those shapes launch (known_configs; the marching
        steppers do, see MarchStepper.compiled_configs)."""
        cp = self._cp
        big = self.model.grid.num_cells >= TUNE_MIN_CELLS
        use_cache = tune is not False
        tune = big if tune is None else tune
        device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
        device = device.decode() if isinstance(device, bytes) else device
        self.device_name = device
        cache = tuning.load_cache() if use_cache else {}
        self.configs, self.tuning = {}, {}
        self._sweeps: dict = {}   # role -> (cache key, candidates)
        #: the roles whose launch shapes came from the tuning cache
        self.cached_roles: set[str] = set()
        for role in self.roles:
            candidates = self.variant.configs(role, self.shape)
            key = "|".join([device, kernel_version(), " ".join(compile_options()),
                            self.variant.name, self.variant.tuning_tag(),
                            ",".join(f"{k}={v}" for k, v in sorted(self.variant.options.items())),
                            role, self.storage.name, str(self.id_dtype),
                            f"pml={self._pml_key()}",
                            self._shape_key(), tuning.digest(candidates),
                            "graph" if self.tune_as_graph else "launches"])
            if role in forced:
                self.configs[role] = tuple(forced[role])
            elif key in cache:
                self.configs[role] = tuple(cache[key]["best"])
                self.cached_roles.add(role)
            elif not tune:
                self.configs[role] = tuple(candidates[0])
            else:
                self._sweeps[role] = (key, candidates)

    @property
    def known_configs(self) -> dict | None:
        """Every role's launch shape where all were known before compiling (none swept),
        else None."""
        return None if self._sweeps else self.configs

    def _choose_configs(self) -> None:
        """A tuning sweep for each role _plan_configs left, then every role's launch plan."""
        cp = self._cp
        if self._sweeps:
            self._randomise()
        for role, (key, candidates) in self._sweeps.items():
            results = tuning.sweep(cp, lambda c, r=role: self._update_plan(r, c), candidates,
                                   graph=self.tune_as_graph,
                                   scale=lambda c, r=role: self._tune_scale(r, c))
            if not results:
                raise KernelError(f"variant {self.variant.name!r}: none of its {len(candidates)} "
                                  f"launch shapes for {role!r} runs on this GPU; use another "
                                  "variant (e.g. 'indexed')")
            best = min(results, key=lambda x: x[1])[0]
            timed = {tuple(c) for c, _ in results}
            more = [c for c in self._refinements(role, tuple(best)) if c not in timed]
            if more:   # timed beside the best, in one sweep, so that their times compare
                again = tuning.sweep(cp, lambda c, r=role: self._update_plan(r, c),
                                     [tuple(best), *more], graph=self.tune_as_graph,
                                     scale=lambda c, r=role: self._tune_scale(r, c))
                if any(tuple(c) == tuple(best) for c, _ in again):   # else: the first sweep's
                    results = [r for r in results if tuple(r[0]) != tuple(best)] + again
                    best = min(again, key=lambda x: x[1])[0]
            self.configs[role] = tuple(best)
            self.tuning[role] = [(list(c), ms) for c, ms in results]
            tuning.save_entry(key, {"best": list(best), "results": self.tuning[role]})
        if self._sweeps:   # the sweep advanced fields and auxiliary values: start from rest
            self.rest()
        for role in self.roles:
            self._plans[role] = self._update_plan(role, self.configs[role])

    def _tune_scale(self, role: str, cfg: tuple) -> float:
        """What the time of ``_update_plan(role, cfg)``'s launches is multiplied by to compare
        with the other candidates' (1 here: each runs one step; see MarchStepper's)."""
        return 1.0

    @property
    def tune_as_graph(self) -> bool:
        """Whether the tuner times candidates replayed as a CUDA graph: as this stepper runs
        its steps (see tuning.time_launches)."""
        return self._graphs

    def _shape_key(self) -> str:
        """What of the grid's shape the tuning cache keys on: its size class (see
        tuning.shape_class)."""
        return tuning.shape_class(self.shape)

    def _refinements(self, role: str, best: tuple) -> list[tuple]:
        """Launch shapes near the sweep's ``best`` for ``role`` that the variant's list could
        not name before compiling, timed in a second sweep beside it (none here; see
        MarchStepper's)."""
        return []

    def _pml_key(self) -> str:
        """What the tuned kernels' CPML handling depends on: the CPML axes when the update
        kernels apply the faces themselves (another kernel instance per mask)."""
        if not self.variant.fused_cpml:
            return "separate"
        if self.model.grid.mode == "3d":
            return str(self.layer_mask())
        return ",".join(str(m) for m, _ in self.boxes())

    def rest(self) -> None:
        """Every field, CPML auxiliary value and record back to zero (the state before step
        0), so that advance starts from step 0 again and fills the records from their first
        row (their counts of rows flushed to the host kept theirs: a second run's records
        went into the rows after the first's)."""
        self.steps_done = 0
        self._n = 0
        self._step_dev.fill(0)
        for pg in self._probe_groups:
            pg["ring"].fill(0)
            pg["host"][...] = 0
            pg["flushed"] = 0
        for snap in self._snaps:
            snap["buf"].fill(0)
            snap["host"][...] = 0
            snap["flushed"] = 0
        for f in (*self._f.values(), *getattr(self, "_g", {}).values()):
            f.fill(0)
        for entry in self._slabs:
            for kind in ("e", "h"):
                for psi in (p for key in self.psi_sets for p in entry[kind][key]):
                    if psi is not None:
                        psi.fill(0)

    def _randomise(self) -> None:
        """Fill the fields with small random values: tuning never times zeros."""
        rng = self._cp.random.default_rng(1)
        for f in self._f.values():
            f[...] = (rng.standard_normal(f.shape, dtype=np.float32) * 1e-3).astype(f.dtype)

    def _build_step_plan(self) -> list:
        from .launch import cpml_launches, inject_launches, record_launches

        steps = []
        for kind in ("h", "e"):
            steps += self._plans[kind]
            if not self.variant.fused_cpml:
                steps += cpml_launches(self, kind)
            steps += inject_launches(self, kind)
        steps += record_launches(self)
        steps.append((self._fn("tick"), (1,), (1,), (self._step_dev,), 0))
        return steps

    # ---- time stepping ------------------------------------------------------------------
    def _launch(self, launches) -> None:
        for fn, grid, block, args, smem in launches:
            fn(grid, block, args, shared_mem=smem)

    def _replay(self) -> None:
        if not self._graphs:
            self._launch(self._step_plan)
            return
        if self._graph is None:
            self._stream.begin_capture()
            try:
                self._launch(self._step_plan)
            finally:
                self._graph = self._stream.end_capture()
        self._graph.launch(self._stream)

    def advance(self, start: int, count: int) -> None:
        start, count = self.check_span(start, count)
        with self._stream:
            if start != self._n:
                self._step_dev.fill(start)
                self._n = start
            for n in range(start, start + count):
                self._replay()
                self._n = n + 1
                self._after_step(n + 1)
        self.steps_done = start + count

    def _after_step(self, done: int) -> None:
        for snap in self._snaps:
            plan = snap["plan"]
            if done % plan.every == 0:
                rec = done // plan.every - 1
                slot = rec - snap["flushed"]
                f = self._f[plan.component][: self.shape[0], : self.shape[1], :]
                snap["buf"][slot] = f[plan.region]
                if slot + 1 == snap["slots"]:
                    self._flush_snapshot(snap, rec + 1)
        for pg in self._probe_groups:
            every = pg["group"].every
            if done % every == 0 and done // every - pg["flushed"] == pg["rows"]:
                self._flush_probes(pg, done // every)

    # ``get()`` without a stream argument copies on the current stream (ours, inside
    # ``with self._stream``) and waits for it; with a stream argument it would return before
    # the copy is done.
    def _flush_probes(self, pg, upto: int) -> None:
        first = pg["flushed"]
        if upto <= first:
            return
        rows = pg["rows"]
        ring = pg["ring"].get()
        for r in range(first, upto):
            pg["host"][r] = ring[r % rows]
        if self.storage.is16:
            pg["host"][first:upto] *= pg["scale"]
        pg["flushed"] = upto

    def _flush_snapshot(self, snap, upto: int) -> None:
        first = snap["flushed"]
        if upto > first:
            snap["host"][first:upto] = snap["buf"][: upto - first].get()
            if self.storage.is16:
                snap["host"][first:upto] *= self.storage.scale(snap["plan"].component)
            snap["flushed"] = upto

    # ---- reading back -------------------------------------------------------------------
    def synchronize(self) -> None:
        self._stream.synchronize()

    def max_abs(self) -> float:
        """The largest |value| of any field in SI units, NaN where any value is NaN or
        infinite (max_abs in support.cu counts NaN as 3e300), in one launch over every
        component."""
        cp = self._cp
        comps = list(self._f)
        key = tuple(self._f[c].data.ptr for c in comps)   # the marching steppers swap sets
        with self._stream:
            if key not in self._max_abs_args:
                self._max_abs_args[key] = (cp.array(key, dtype=np.uint64),
                                           cp.zeros(len(comps), dtype=np.uint64))
            ptrs, out = self._max_abs_args[key]
            out.data.memset_async(0, out.nbytes)
            n = self._f[comps[0]].size
            blocks = int(min(1024, -(-n // 256)))
            self._fn(self._max_abs_name)((blocks, len(comps)), (256,), (ptrs, np.int64(n), out))
            got = out.get().view(np.float64)
        m = 0.0
        for c, v in zip(comps, got.tolist(), strict=True):
            if v >= _NAN_MARK:   # NaN, or infinite
                return math.nan
            m = max(m, v * self.storage.scale(c))
        return m

    def fields(self) -> dict[str, np.ndarray]:
        nx, ny, _ = self.shape
        with self._stream:
            out = {c: np.asfortranarray(f[:nx, :ny, :].get()) for c, f in self._f.items()}
        if self.storage.is16:   # stored scaled: the values in SI units, in float32
            out = {c: a.astype(self.dtype) * self.dtype.type(self.storage.scale(c))
                   for c, a in out.items()}
        return out

    def set_field(self, component: str, values: np.ndarray) -> None:
        self._store_field(component, self.field_values(component, values))

    def _store_field(self, component: str, values: np.ndarray) -> None:
        """Copies ``values`` (checked by field_values) into the device's field."""
        nx, ny, _ = self.shape
        scale = self.storage.scale(component)
        with self._stream:
            v = self._cp.asarray(values, dtype=self.dtype)
            if scale != 1.0:
                v *= self.dtype.type(1.0 / scale)   # a power of two: exact
            self._f[component][:nx, :ny, :] = v.astype(self.field_dtype)

    def collect(self) -> Records:
        with self._stream:
            for pg in self._probe_groups:
                self._flush_probes(pg, self._n // pg["group"].every)
            for snap in self._snaps:
                self._flush_snapshot(snap, self._n // snap["plan"].every)
        return Records(probes=[pg["host"][: pg["flushed"]].copy() for pg in self._probe_groups],
                       snapshots=[s["host"][: s["flushed"]].copy() for s in self._snaps])

    def memory_bytes(self) -> int:
        return int(sum(a.nbytes for a in self._held))

    # ---- description ---------------------------------------------------------------------
    def traffic_bytes_per_cell(self) -> float:
        """Bytes per cell per step in this variant's model, CPML included."""
        size, ids = self.dtype.itemsize, self.id_dtype.itemsize
        g = self.model.grid
        inner = self.variant.interior_bytes(g.mode, self.field_dtype.itemsize, ids)
        return inner + cpml_bytes(self.model, size, ids, self.variant.form,   # psi: float32
                                  self.variant.fused_cpml) / g.num_cells

    def describe(self) -> dict:
        return {
            "variant": self.variant.spec or self.variant.name,
            "device": self.device_name,
            "launch": {r: list(c) for r, c in self.configs.items()},
            "traffic_bytes_per_cell": self.traffic_bytes_per_cell(),
            "coefficient_table": "constant" if self.const_table else "global",
        }


def _resolve_variant(model: Model, dtype: str, variant: str | None) -> tuple[str, str | None]:
    """The variant spec to run ('auto' resolved; see default_variant) and the note to show."""
    spec = variant or getattr(model.scene.run, "variant", "auto")
    if spec != "auto":
        return spec, None
    g = model.grid
    size = 2 if dtype in STORAGE16 else compute_dtype(dtype).itemsize   # (refuses a bad one)
    field_bytes = len(g.components) * math.prod(g.shape) * size
    try:
        import cupy as cp

        free = int(cp.cuda.runtime.memGetInfo()[0])
        free += int(cp.get_default_memory_pool().free_bytes())
    except Exception:   # no device here: the constructor says so
        free = None
    return default_variant(g.mode, dtype, g.num_cells, bool(model.slabs), field_bytes, free,
                           device_feed(), g.shape, any(g.periodic))


#: CUDA device attributes (cudaDeviceAttr): SM clock (kHz), SM count, memory clock (kHz),
#: memory bus width (bits)
_ATTR_CLOCK, _ATTR_SMS, _ATTR_MEM_CLOCK, _ATTR_BUS = 13, 16, 36, 37


def device_feed() -> float | None:
    """The current device's peak memory bandwidth in bytes per SM clock cycle (double data
    rate: 2 x memory clock x bus width, over SMs x SM clock), or None where the device or
    an attribute cannot be read (then 'auto' decides without it)."""
    try:
        import cupy as cp

        dev = cp.cuda.Device().id
        clock, sms, mem, bus = (cp.cuda.runtime.deviceGetAttribute(a, dev) for a in
                                (_ATTR_CLOCK, _ATTR_SMS, _ATTR_MEM_CLOCK, _ATTR_BUS))
    except Exception:
        return None
    if min(clock, sms, mem, bus) <= 0:
        return None
    return 2.0 * mem * (bus / 8) / (sms * clock)


#: what a NaN maps to in max_abs (support.cu counts it as 3e300)
_NAN_MARK = 1e300


