"""The kernel variants of the CUDA backend, chosen by name.

Each variant says which dimensions it handles, how coefficients reach its kernels (material
ids and a table, or per-cell arrays), the array pitches it wants, the kernel instances it
launches, the launch shapes the tuner may try, and the bytes a cell moves per step in its
model (the figure the benchmark compares with the copy bandwidth).

Names may carry options after a colon: ``seed-xyz:pad32``, ``seed-xyz:noshared``,
``seed-multicell:consecutive``, ``seed-multicell:cells=8``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...build.storage import STORAGE16
from ...constants import KERNEL_VARIANTS as VARIANTS
from ...exceptions import SetupError, ValidationError

#: CUDA's limit on a launch's blocks along y and along z
MAX_GRID_YZ = 65535


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass
class Variant:
    name: str
    options: dict = field(default_factory=dict)
    #: 'ids' (material ids per component + table), 'cell-ids' (one id per cell for the
    #: combination of its components' materials + table) or 'arrays' (per-cell
    #: coefficient arrays)
    form: str = "ids"
    dims: tuple = ("3d", "tmz", "tez")
    files: tuple = ()
    spec: str = ""  #: the name as given, options included
    #: whether its kernels take a storage type after the arithmetic type (16-bit storage)
    storage16 = False
    #: set by the stepper: fields stored in 16 bits
    half = False
    #: set by the stepper: the grid's mode ('3d', 'tmz', 'tez')
    mode = "3d"
    #: set by the stepper: float (not double) arithmetic
    single = True

    def tuning_tag(self) -> str:
        """What else picks the kernels this variant runs (the tuning cache keeps its
        choices per tag): nothing, unless a variant says otherwise."""
        return ""

    @property
    def align(self) -> int:
        """x bounds of launch boxes and row pitches are multiples of this many cells."""
        return 4

    def check(self, mode: str, dtype: str | None = None) -> None:
        """That this variant, with its options, runs ``mode`` grids with fields stored as
        ``dtype`` (None: any); else a one-line error saying which variants do."""
        if mode not in self.dims:
            allowed = [v for v in VARIANTS if mode in make_variant(v).dims]
            raise SetupError(f"variant {self.name!r} does not run {mode} grids; use one of "
                             f"{', '.join(allowed)}")
        if dtype == "bfloat16":
            raise SetupError("dtype bfloat16 runs on the numpy backend only; on cuda use "
                             "float16 (16-bit storage with the smaller measured errors)")
        if dtype in STORAGE16 and not self.storage16:
            *rest, last = [repr(v) for v in VARIANTS if make_variant(v).storage16]
            raise SetupError(f"variant {self.name!r} stores float32 or float64 fields only; "
                             f"use variant {', '.join(rest)} or {last} for dtype {dtype}")

    def pitches(self, shape) -> tuple[int, int]:
        return shape[0], shape[1]

    # kernels: a dict role -> name expression; configs: role -> list of candidate shapes
    def kernels(self, mode: str, T: str, ID: str, CT: str) -> dict[str, str]:
        raise NotImplementedError

    #: whether the update kernels apply the CPML correction themselves (in the same pass)
    fused_cpml = False

    def kernel(self, role: str, cfg: tuple, mode: str, T: str, ID: str, CT: str,
               pml: int = 0) -> str:
        """The instance launched for ``role`` with launch shape ``cfg`` (``pml``: the mask of
        axes whose CPML layers the launch covers, for variants that apply them in place)."""
        return self.kernels(mode, T, ID, CT)[role]

    def instances(self, mode: str, T: str, ID: str, CT: str, masks=()) -> list[str]:
        """Every instance a stepper may launch (all are compiled up front)."""
        return list(self.kernels(mode, T, ID, CT).values())

    def configs(self, role: str, shape) -> list[tuple]:
        raise NotImplementedError

    def interior_bytes(self, mode: str, size: int, id_size: int) -> float:
        """Bytes one cell moves per step in the variant's model (CPML slabs excluded)."""
        if self.form == "ids":
            return (18 * size + 6 * id_size) if mode == "3d" else (9 * size + 3 * id_size)
        return 36 * size if mode == "3d" else 16 * size


class Indexed(Variant):
    def __init__(self, options=None):
        super().__init__("indexed", options or {}, "ids", ("3d", "tmz", "tez"), ("indexed.cu",))

    fused_cpml = True
    storage16 = True

    @property
    def widths(self) -> tuple[int, ...]:
        """Cells per thread along x, widest first: one access of up to 16 bytes per field
        (4 floats, 2 doubles, 8 float16 values); 1 is the x layers' width (3D)."""
        return (8, 4, 2, 1) if self.half else (4, 2, 1)

    @property
    def align(self) -> int:
        return self.widths[0]

    def pitches(self, shape):
        return _ceil(shape[0], self.align) * self.align, shape[1]   # rows start aligned

    #: L2 prefetch distances (planes ahead) tried for the 3D kernels
    PREFETCH = (0, 1, 2)

    def kernels(self, mode, T, ID, CT):
        return {r: self.kernel(r, (0, 0, 4), mode, T, ID, CT) for r in ("h", "e")}

    def kernel(self, role, cfg, mode, T, ID, CT, pml=0):
        suffix = "3" if mode == "3d" else f"_{mode}"
        pf = cfg[3] if len(cfg) > 3 and mode == "3d" else 0
        return f"indexed_{role}{suffix}<{T}, {ID}, {CT}, {cfg[2]}, {int(pml)}, {pf}>"

    def instances(self, mode, T, ID, CT, masks=()):
        """3D: every width and prefetch distance with the grid's one CPML mask (``masks``
        holds it; none: 0). 2D: every width without CPML, and the layer width with each
        mask of a box holding layers."""
        if mode == "3d":
            mask = max(masks, default=0)
            cfgs = [(0, 0, v, 0) for v in self.widths[:3]] + \
                [(0, 0, v, p) for v in self.widths[:2] for p in self.PREFETCH[1:]]
            return [self.kernel(r, c, mode, T, ID, CT, mask) for r in ("h", "e") for c in cfgs]
        out = [self.kernel(r, (0, 0, v, 0), mode, T, ID, CT) for r in ("h", "e")
               for v in self.widths[:3]]
        if masks:
            from .launch import slab_setting

            width = slab_setting()[0]
            out += [self.kernel(r, (0, 0, width, 0), mode, T, ID, CT, m) for r in ("h", "e")
                    for m in masks if m]
        return out

    def configs(self, role, shape):
        # (threads per block, 1, cells per thread along x, L2 prefetch distance in planes,
        # 3D only); 1D blocks of at most 256 threads (launch bounds)
        a, b, c = self.widths[:3]
        base = [(256, 1, a), (128, 1, a), (64, 1, a), (256, 1, b), (128, 1, b),
                (256, 1, c), (128, 1, c)]
        out = [(*c, 0) for c in base]
        if shape[2] > 1:
            out += [(*c, p) for c in base[:2] + base[3:5] for p in self.PREFETCH[1:]]
        return out

    @staticmethod
    def planes(nz: int) -> tuple[int, int]:
        """Grid y and z for ``nz`` planes (plane = blockIdx.y + gridDim.y * blockIdx.z)."""
        gy = min(nz, MAX_GRID_YZ)
        return gy, _ceil(nz, gy)

    def launch(self, cfg, shape):
        """(grid, block) of a launch with shape ``cfg`` over a box of ``shape`` cells (2D)."""
        bx, _, v = cfg[:3]
        nx, ny, nz = shape
        packs = _ceil(nx, v) * ny
        if packs + bx >= 2**31:
            raise SetupError(f"a plane of {nx} x {ny} cells has more than 2^31 cells; use "
                             "fewer cells per plane")
        return (_ceil(packs, bx), *self.planes(nz)), (bx, 1, 1)

    def launch3d(self, cfg, shape, xa: int, xb: int, mask: int):
        """(grid, block, blocks per plane for the packs over [xa, xb)) of the 3D launch:
        after those, one thread per cell of the x layers, [0, xa) and [xb, nx)."""
        bx, _, v = cfg[:3]
        nx, ny, nz = shape
        n_a = _ceil(_ceil(xb - xa, v) * ny, bx)
        n_b = _ceil((xa + nx - xb) * ny, bx) if mask & 1 else 0
        if (n_a + n_b) * bx >= 2**31:
            raise SetupError(f"a plane of {nx} x {ny} cells has more than 2^31 cells; use "
                             "fewer cells per plane")
        return (n_a + n_b, *self.planes(nz)), (bx, 1, 1), n_a


class SeedXyz(Variant):
    """One thread per cell over the padded x-y plane (seed 000's xyz-mapping)."""

    marching = False

    def __init__(self, name="seed-xyz", options=None):
        super().__init__(name, options or {}, "arrays", ("3d",), ("seed.cu",))

    @property
    def pad(self) -> int:
        return 32 if self.options.get("pad32") else 16

    @property
    def shared(self) -> bool:
        return not self.options.get("noshared")

    def pitches(self, shape):
        return _ceil(shape[0], self.pad) * self.pad, _ceil(shape[1], self.pad) * self.pad

    def kernels(self, mode, T, ID, CT):
        base = "seed_xy" if self.marching else "seed_xyz"
        sh = "true" if self.shared else "false"
        return {r: f"{base}_{r}<{T}, {sh}>" for r in ("h", "e")}

    def configs(self, role, shape):
        # seed 000's Fig. 6 sweep: 64 to 512 threads per block in steps of 64; xyz launches
        # a row of blocks per z plane (grid.y)
        if not self.marching:
            _within_grid_limit(self.name, shape[2], "z planes, one row of blocks each")
        return [(t,) for t in (128, 64, 192, 256, 320, 384, 448, 512)]


class SeedXy(SeedXyz):
    """One thread per (i, j) column marching in z (seed 000's xy-mapping)."""

    marching = True

    def __init__(self, options=None):
        super().__init__("seed-xy", options)


class SeedPlane(Variant):
    def __init__(self, options=None):
        super().__init__("seed-plane", options or {}, "arrays", ("3d",), ("seed.cu",))

    def kernels(self, mode, T, ID, CT):
        return {r: f"seed_plane_{r}<{T}>" for r in ("h", "e")}

    def configs(self, role, shape):
        return _rows_fit(self.name, [(32, 8), (32, 4), (64, 4), (16, 16), (128, 2), (32, 16),
                                     (256, 1)], shape[1])


class SeedMulticell(Variant):
    def __init__(self, options=None):
        super().__init__("seed-multicell", options or {}, "arrays", ("3d",), ("seed.cu",))

    @property
    def interleaved(self) -> bool:
        return not self.options.get("consecutive")

    def kernels(self, mode, T, ID, CT):
        il = "true" if self.interleaved else "false"
        return {r: f"seed_multicell_{r}<{T}, {il}>" for r in ("h", "e")}

    def configs(self, role, shape):
        _within_grid_limit(self.name, shape[2], "z planes, one row of blocks each")
        cells = int(self.options.get("cells", 0))
        if cells:
            return [(max(1, _ceil(shape[0], cells)),)]
        return [(t,) for t in (128, 64, 256, 32, 512) if t <= max(32, shape[0])]


class Tiled2d(Variant):
    def __init__(self, options=None):
        super().__init__("tiled-2d", options or {}, "arrays", ("tmz", "tez"), ("tiled2d.cu",))

    def kernels(self, mode, T, ID, CT):
        return {r: f"tiled_{r}_{mode}<{T}>" for r in ("h", "e")}

    def configs(self, role, shape):
        # Takada et al.'s Table 1 shapes and a few wider ones
        return _rows_fit(self.name, [(32, 4), (16, 16), (32, 8), (32, 16), (64, 4), (128, 2),
                                     (16, 8), (8, 8), (64, 8), (128, 4), (256, 1), (32, 2)],
                         shape[1])


def _within_grid_limit(name: str, count: int, what: str) -> None:
    """A one-line SetupError where a papers' kernel would launch more than MAX_GRID_YZ
    blocks along y (it maps ``count`` ``what`` to them)."""
    if count > MAX_GRID_YZ:
        raise SetupError(f"variant {name!r} launches its blocks over {count} {what}, more "
                         f"than CUDA's {MAX_GRID_YZ}; use 'indexed'")


def _rows_fit(name: str, shapes: list[tuple], ny: int) -> list[tuple]:
    """The tile shapes (bx, by) whose ceil(ny / by) rows of blocks CUDA launches along y
    (tiled-2d's first shape stopped past 262 140 rows); none is a SetupError."""
    fit = [c for c in shapes if _ceil(ny, c[1]) <= MAX_GRID_YZ]
    if not fit:
        _within_grid_limit(name, _ceil(ny, max(c[1] for c in shapes)), "rows of tiles")
    return fit


class March(Variant):
    """'fused' (one step per launch) and 'temporal' (several): H then E in one pass over
    device memory (see march.cu). 3D: blocks of BX x BY threads marching along z, launch
    shape (steps per pass, BX, BY, planes per z segment; 0: all); 'fused' runs march3f
    (staged loads, one barrier per plane, the CPML layers beside the pass), 'temporal'
    march3. 2D: warps owning 32 V
    cells along x marching along y, launch shape (steps per pass, V, warps per block, rows
    per y segment; 0: all)."""

    fused_cpml = True
    storage16 = True

    def __init__(self, name, options=None):
        super().__init__(name, options or {}, "cell-ids", ("3d", "tmz", "tez"),
                         ("march.cu", "march3v.cu"))

    #: 3D 'temporal': tiles this many cells wide run march3v (2 cells per lane, 32 lanes)
    #: where lane_pass allows it
    LANE_WIDTH = 64

    def lane_pass(self, cfg, pml: int = 0) -> bool:
        """Whether the pass with launch shape ``cfg`` runs march3v (march3v.cu: 2 cells per
        lane along x, 32 x BY threads for a tile of 64 x BY cells) rather than march3: 3D
        'temporal' with 2 steps a pass, float arithmetic (its shared planes of doubles
        would not fit 48 kB) and no CPML terms (the pass beside the CPML boxes), on tiles
        LANE_WIDTH cells wide. Bitwise the same fields and probes as march3. Measured on
        an H100 (512 float32, z segments of 64, 200 steps, benchmarks/cpml_placement_3d.py):
        64 x 16 cells (512 threads, one block per SM, 128 registers) without layers 67 051
        Mcells/s against 66 879 for march3 at 32 x 12; dipole-cpml's scene, the pass beside
        its CPML boxes, 51 225 against 46 445. Tuned, 1000 steps, the tuner picks 64 x 16:
        dipole-cpml 50 960, pec-box 68 591 (44 912 and 64 843 before). Nsight Compute, one
        pass on pec-box: 1.81 billion warp instructions against 2.49, 45% of issue slots
        busy against 58%."""
        return (self.mode == "3d" and self.name == "temporal" and not pml and self.single
                and cfg[1] == self.LANE_WIDTH
                and (cfg[0] == 2
                     or tuple(cfg[:3]) in (self.LEAN_SHAPE, self.lean_general(cfg)[:3])))

    #: 3D 'temporal''s launch shape (steps, BX, BY) of the lean pass (march3v.cu, lean3v):
    #: the blocks that need nothing but the update of one material run lean3v, 3 steps a
    #: pass over tiles of 64 x 24 cells (768 threads, 80 registers, 106 496 bytes of
    #: shared memory), and the others march3v over tiles of LEAN_GENERAL_ROWS rows, which
    #: split theirs (owning 6 rows of the lean tile's 18)
    LEAN_SHAPE = (3, 64, 24)
    LEAN_GENERAL_ROWS = 12

    def lean_shape(self, cfg) -> bool:
        """Whether launch shape ``cfg`` is the lean pass's (LEAN_SHAPE), on a grid where
        march3v runs."""
        return tuple(cfg[:3]) == self.LEAN_SHAPE and self.lane_pass(cfg)

    def lean_general(self, cfg) -> tuple:
        """The launch shape of march3v's tiles beside the lean pass of ``cfg`` (the same
        steps, width and segments, LEAN_GENERAL_ROWS rows)."""
        return (self.LEAN_SHAPE[0], self.LEAN_SHAPE[1], self.LEAN_GENERAL_ROWS, *cfg[3:])

    #: registers march3v takes (126-128 at 64 x 16, no spills): its blocks per SM follow
    LANE_REGISTERS = 128

    def lane_blocks(self, by: int) -> int:
        """Blocks per SM march3v's instance with BY rows is compiled to fit (at least 1):
        those LANE_REGISTERS allow (64 x 16: one block of 512 threads; 64 x 8: two)."""
        return max(1, 65536 // (self.LANE_REGISTERS * 32 * by))

    #: 4-byte values a 32-byte sector holds: march3v's rows are pitched to a multiple
    SECTOR_CELLS = 8

    @property
    def sector_cells(self) -> int:
        """Stored values a 32-byte sector holds: SECTOR_CELLS of 4 bytes, twice as many of
        16 bits."""
        return 2 * self.SECTOR_CELLS if self.half else self.SECTOR_CELLS

    @property
    def lane_pitch(self) -> int:
        """3D 'temporal''s rows in float arithmetic are padded to a multiple of this many
        cells: a sector's (sector_cells; over 16-bit values, where the lean pass runs too)
        ($YEEFDTD_LANE_PITCH overrides)."""
        from .experiments import lane_pitch

        return lane_pitch(self.sector_cells)

    def lane_owned(self, cfg, aligned: bool = False) -> int:
        """Cells a march3v tile owns along x: LANE_WIDTH less the overlap on each side
        (lane_halo in march3v.cu: NT rounded up to whole lanes of 2 cells, and for tiles
        that write whole sectors as much more as makes the rest a multiple of
        SECTOR_CELLS)."""
        h = _ceil(cfg[0], 2) * 2
        while aligned and (self.LANE_WIDTH - 2 * h) % self.SECTOR_CELLS:
            h += 2
        return self.LANE_WIDTH - 2 * h

    def lane_sectors(self, cfg, x0: int, nx: int, pml: int, pitch: int) -> bool:
        """Whether march3v's pass of launch shape ``cfg`` over the cells x0 .. x0 + nx - 1
        along x, on rows of ``pitch`` cells, runs tiles that write whole 32-byte sectors (AL
        in march3v.cu): on rows pitched to whole sectors, over 4-byte values, and over
        16-bit ones for the lean pass's shape alone (half sectors at its tiles' ends), where
        those tiles (56 cells owned from a multiple of 8, the first from the one at or
        before x0) take no more tiles along x than the tiles that overlap by NT cells (60
        owned). A warp writing part of a sector makes the
        L2 read it from DRAM to merge it: H100, 512 float32 without layers, 2,64,16,64, 200
        steps, the owned rows written as whole sectors (timing only: the wrong cells) 74 381
        Mcells/s against 69 954, DRAM reads 4.17 GB a pass (4.52-4.56 without, in the calls
        before). Tiles of 56 run over dipole-cpml's pass (489 cells from x = 12), where the
        pass took 1.600 ms a step against 1.771 with tiles of 60 on the same rows.
        $YEEFDTD_LANE_SECTORS (on, off) overrides the choice."""
        from .experiments import lane_sectors

        if not (self.mode == "3d" and self.lane_pass(cfg, pml)) or nx <= 0:
            return False
        if self.half and not self.lean_shape(cfg):   # 16-bit values: the lean pass's alone
            return False
        if pitch % self.sector_cells:   # rows not on sector boundaries
            return False
        env = lane_sectors()   # $YEEFDTD_LANE_SECTORS, for comparisons
        if env is not None:
            return env == "on"
        row = (nx, 1, 1)
        return self.launch(cfg, row, pml, x0)[0][0] <= self.launch(cfg, row, pml)[0][0]

    @staticmethod
    def max_steps(mode: str) -> int:
        """The most steps per pass: 3D keeps two planes per step in registers, 2D one row."""
        return 6 if mode == "3d" else 8

    def check(self, mode: str, dtype: str | None = None) -> None:
        super().check(mode, dtype)
        self._steps_option(mode)

    def _steps_option(self, mode: str) -> int | None:
        """The option ``steps`` (None where not given), within what a pass on ``mode`` grids
        keeps."""
        if "steps" not in self.options:
            return None
        n = int(self.options["steps"])   # (make_variant took only digits)
        if not 2 <= n <= self.max_steps(mode):
            raise ValidationError(f"variant: temporal steps must be an integer from 2 to "
                                  f"{self.max_steps(mode)} on {mode} grids, not {n}")
        return n

    @property
    def steps(self) -> tuple[int, ...]:
        """The steps per pass the tuner may choose from."""
        if self.name == "fused":
            return (1,)
        n = self._steps_option(self.mode)
        if n is not None:
            return (n,)
        return (2, 3, 4) if self.mode == "3d" else self.STEPS_2D   # first: the fastest

    #: whether the grid has CPML layers on x faces (set by the stepper, as ``mode`` is)
    x_layers = False

    #: 3D 'fused': rows are padded to, and the pass's x origin is, a multiple of this many
    #: cells (a 32-byte sector or more, whatever the storage type)
    ROW_CELLS = 16

    def pitches(self, shape):
        """3D 'fused': rows padded to a multiple of ROW_CELLS, so that they start on 32-byte
        sector boundaries: the aligned tiles of march3f write whole sectors only there, and
        so do slab3's x boxes (see MarchStepper._slab_boxes). The overlapping tiles
        ($YEEFDTD_FUSED=overlap) ran slower on padded rows (H100, pec-box 512: 39.7
        Gcells/s against 41.4), so they keep them unpadded unless the grid has x layers
        (dipole-cpml: 28.3 against 27.8, from slab3)."""
        if self.mode == "3d" and self.staged and (self.x_layers or self.aligned):
            return _ceil(shape[0], self.ROW_CELLS) * self.ROW_CELLS, shape[1]
        if self.mode == "3d" and self.name == "temporal" and self.single:
            # march3v reads and writes a lane's 2 cells as one access: even pitches keep
            # them aligned on every row (lanes whose first cell is odd go cell by cell);
            # over 4-byte values, rows of SECTOR_CELLS let its tiles write whole sectors
            return _ceil(shape[0], self.lane_pitch) * self.lane_pitch, shape[1]
        return super().pitches(shape)

    #: thread blocks (BX, BY) tried in 3D; the overlap is 2 NT cells per axis. 32 x 12 is
    #: for 'temporal' without CPML terms, where two blocks fit an SM (see min_blocks); tiles
    #: 64 cells wide are march3v's there (32 x BY threads, see lane_pass), and 64 x 16 only
    #: those (as march3's it would be 1024 threads)
    TILES = ((32, 16), (32, 8), (64, 8), (64, 4), (64, 7), (32, 12), (64, 16))
    #: 2D: steps per pass, cells per lane along x and warps per block tried. Measured on an
    #: H200 (tmz-2d 8192 float32, y segments of 128): NT 4 with V 4 fastest (276 Gcells/s,
    #: 168 registers), V 2 229, NT 3 241-249, NT 5 195-242, NT 6 and 8 slower (the overlap
    #: and the registers grow; 8 warps per block 221)
    STEPS_2D = (4, 3, 5)
    WIDTHS_2D = (4, 2)
    WARPS_2D = (4,)

    def kernels(self, mode, T, ID, CT):
        return {"pass": self.kernel("pass", self.configs("pass", (0, 0, 0))[0], mode, T, ID,
                                    CT)}

    #: 3D 'fused': shared-memory stages of march3f, one per plane in flight (the loads run
    #: STAGES - 1 planes ahead); $YEEFDTD_STAGES sets another number, for experiments
    STAGES_3D = 4

    @property
    def stages(self) -> int:
        from .experiments import integers

        return (integers("YEEFDTD_STAGES", 1, 3, 8) or (self.STAGES_3D,))[0]

    @property
    def staged(self) -> bool:
        """Whether passes run march3f (3D 'fused': staged loads, one barrier per plane)."""
        from .experiments import fused_kernel

        return self.mode == "3d" and self.name == "fused" and fused_kernel() != "block"

    @property
    def aligned(self) -> bool:
        """Whether march3f's tiles over the grid own whole 32-byte sectors along x (AL in
        march.cu: no overlap along x, an extra warp for the column behind the tile and the
        one ahead): 32- and 64-bit storage only. Measured on an H100 (512, 300 steps, 64 x
        7, before the halo's threads were lightened): float32 dipole-cpml 29.0 Gcells/s
        against 28.2 for the tiles that overlap by one cell on each side, pec-box 40.9-41.8
        against 41.3; float16 pec-box 44.1 against 50.0 (the halo columns cost as many L2
        requests as in float32, the rows half the sectors). Since (1000 steps, tuned): float32
        dipole-cpml 30.7, pec-box 44.1; float16 (300 steps) still slower aligned, pec-box
        48.5 (32 x 8) against 49.5 overlapping (64 x 8), dipole-cpml 33.7 against 33.9.
        $YEEFDTD_FUSED=overlap picks the overlapping tiles, =aligned the aligned ones for
        16-bit storage too, for comparison."""
        from .experiments import fused_kernel

        env = fused_kernel()
        return self.staged and env != "overlap" and (not self.half or env == "aligned")

    def tuning_tag(self) -> str:
        """The 3D kernel the passes run ('fused': march3f, its tiles and stages;
        'temporal': march3v's rows and whole-sector tiles; the environment variables above
        pick others, for comparison) and where the CPML is. 2D: "scaled", since a
        candidate's time is scaled to 12 steps from the whole passes it runs (entries from
        before, where 5 steps a pass ran 10 steps against the others' 12 and were compared
        unscaled, are tuned again)."""
        from .experiments import (
            cpml_place,
            lane_sectors,
            lean_face_walls,
            lean_faces,
            lean_segment,
            lean_walls,
        )

        if self.mode != "3d":
            return "scaled"
        kind = ("aligned" if self.aligned else "overlap") if self.staged else "block"
        lanes = f" rows={self.lane_pitch} sectors={lane_sectors() or ''}" \
            if self.name == "temporal" and self.single else ""
        if lanes and lean_faces() != (0, 1, 2):   # march3 over some faces' boxes (see
            # MarchStepper._lean_face)
            lanes += " lean_faces=" + "".join("xyz"[a] for a in lean_faces())
        if lanes and lean_segment() is not None:   # other segments of lean3f's boxes
            lanes += " lean_segment={},{}".format(*lean_segment())
        if lanes and lean_walls() != "cone":   # the walls' march on fewer blocks
            lanes += f" lean_walls={lean_walls()}"
        if lanes and not lean_face_walls():   # march3 over the boxes that reach a wall
            lanes += " lean_face_walls=off"
        return f"{kind} stages={self.stages} cpml={cpml_place() or ''}{lanes}"

    def aligned_for(self, pml: int) -> bool:
        """Whether a pass with the CPML terms of ``pml`` runs aligned tiles (only passes
        without them do: the pass over the grid when the layers are beside it)."""
        return self.aligned and not pml

    def shared_bytes(self, cfg, T: str, S: str, pml: int = 0) -> int:
        """Dynamic shared memory of a march3f pass (M3f in march.cu): the stages, each six
        fields of the padded tile and an id per thread (values under 4 bytes held in a 4-byte
        word) and a flags word, rounded to 16 bytes, then two H buffers of the arithmetic
        type."""
        if not self.staged:
            return 0
        a, b = cfg[1], cfg[2]
        size = {"float": 4, "double": 8}
        sp = (a + 2) * (b + 2)
        slot = 4 if S == "half_t" else size[S]
        stage = _ceil(6 * sp * slot + self.threads(cfg, pml) * 4 + 4, 16) * 16
        return self.stages * stage + 2 * 3 * sp * size[T]

    def kernel(self, role, cfg, mode, T, ID, CT, pml=0, sectors=False, full=False,
               lean=False):
        """The pass instance for launch shape ``cfg`` with the CPML terms of ``pml`` (3D
        march3: blocks per SM from min_blocks, terms inline from inline_axes; march3v with
        ``sectors``: tiles that write whole sectors, see lane_sectors; march2, and march3v
        with ``sectors``, with ``full``: for passes of exactly ``cfg[0]`` steps). The lean
        pass's shape (lean_shape) names march3v over its general tiles (lean_general), or
        with ``sectors``, ``full`` and ``lean`` lean3v, and with ``sectors`` and ``full``
        alone march3v beside it (LEAN: the blocks lean3v runs return)."""
        nt, a, b = cfg[:3]
        if mode == "3d" and self.lean_shape(cfg) and not pml:
            if sectors and full and lean:
                return f"lean3v<{T}, {ID}, {CT}, {nt}, 2, {b}>"
            g = self.lean_general(cfg)
            al = (", true, true, true" if full else ", true") if sectors else ""
            return f"march3v<{T}, {ID}, {CT}, {nt}, 2, {g[2]}, {self.lane_blocks(g[2])}{al}>"
        if mode == "3d" and self.staged:
            al = int(self.aligned_for(pml))
            return f"march3f<{T}, {ID}, {CT}, {a}, {b}, {self.stages}, {int(pml)}, {al}>"
        if mode == "3d" and self.lane_pass(cfg, pml):
            al = (", true, true" if full else ", true") if sectors else ""
            return f"march3v<{T}, {ID}, {CT}, {nt}, 2, {b}, {self.lane_blocks(b)}{al}>"
        if mode == "3d":
            mb = self.min_blocks(nt, a * b, T, pml)
            inl = self.inline_axes(pml)
            return f"march3<{T}, {ID}, {CT}, {nt}, {a}, {b}, {int(pml)}, {mb}, {inl}>"
        te = "true" if mode == "tez" else "false"
        fl = ", true" if full else ""
        return f"march2<{T}, {ID}, {CT}, {nt}, {a}, {b}, {int(pml)}, {te}{fl}>"

    #: registers in which march3 with 2 steps a pass, float arithmetic and no CPML terms
    #: fits without spilling (it took 88 when free to; since faac89a, with its planes in
    #: shared memory, 76; 32-bit and 16-bit storage alike)
    FIT_REGISTERS = 80

    def min_blocks(self, nt: int, threads: int, T: str, pml: int) -> int:
        """Blocks per SM march3's instance is compiled to fit (0: no minimum): as many as
        FIT_REGISTERS allow where the instance fits them, i.e. 2 steps, float arithmetic and
        no CPML terms (the others spill at 80: 104-182 bytes a thread). The kernel is bound
        by latency (each plane waits at its barriers), so the warps of a second block hide
        it: H100, 512 float32 without layers, NT 2, z segments of 64, 200 steps: 32 x 16 (one
        block of 512 threads, 88 registers) 44 494 Mcells/s; 32 x 8 (3 blocks) 48 396; 16 x
        16 (3 blocks) 49 301; 32 x 12 (2 blocks of 384, owning 28 x 8 cells a plane) 54 245
        (52 305 with segments of 128); 16 x 24 47 690, 64 x 6 35 774."""
        if nt != 2 or pml or not T.startswith("float"):
            return 0
        return 65536 // (self.FIT_REGISTERS * threads)

    @staticmethod
    def inline_axes(pml: int) -> int:
        """The axes whose CPML terms march3 compiles inline rather than as calls: those of
        an instance with one axis of terms alone. Measured on an H100 (512 float32, NT 2):
        z layers alone in the pass (32 x 16) 0.26 ms a step against 0.53 called; boxes
        over 32 x 12 tiles, x layers alone 0.549 against 0.626, y layers alone 0.334 against
        0.436. Every term inline took 156 registers; inline z terms beside called x and y
        ones made the pass slower (27.1 Gcells/s against 28.7), and so did each box's own
        axis inline beside the others called (dipole-cpml, the boxes 1.710 ms a step against
        1.554: 128 registers with spills)."""
        return pml if pml in (1, 2, 4) else 0

    def instances(self, mode, T, ID, CT, masks=(), *, configs):
        """The pass kernel of each launch shape in ``configs`` (MarchStepper.compiled_configs:
        the one it runs, or every candidate a sweep times), one per (steps, tile)."""
        mask = max(masks, default=0)
        shapes = dict.fromkeys(c[:3] for c in configs)
        if mode == "3d" or mask:
            return [self.kernel("pass", c, mode, T, ID, CT, mask) for c in shapes]
        # 2D without CPML terms: the instance for passes of all their steps too
        # (MarchStepper.full_pass); a pass of 1 step never takes fewer, so it has that one only
        out = [self.kernel("pass", c, mode, T, ID, CT, mask) for c in shapes if c[0] > 1]
        return out + [self.kernel("pass", c, mode, T, ID, CT, mask, full=True) for c in shapes]

    #: blocks the first launch shape (the one grids too small to tune run) gives at least,
    #: where whole columns give fewer: several per SM, so that every SM has work and the last
    #: wave is short. Whole columns left most of an H100 idle on small grids (tmz-2d 1024,
    #: 3 blocks: 2.5 Gcells/s against 78 for 'indexed')
    FILL_BLOCKS = 1024
    #: the shortest segment that first shape cuts (3D: planes; 2D: rows), as each segment
    #: recomputes about 2 NT of them
    MIN_SEGMENT_3D, MIN_SEGMENT_2D = 16, 32

    def configs(self, role, shape):
        out = []
        if self.mode != "3d":
            for nt in self.steps:
                for v in self.WIDTHS_2D:
                    for w in self.WARPS_2D:
                        out.append((nt, v, w, 0))
            if shape[1] >= 512:   # y segments: enough warps to fill the GPU (whole columns of
                # 8192 rows leave most SMs idle), overlap 2 NT rows per segment
                out += [(nt, v, w, y) for nt, v, w, _ in out[:4] for y in (128, 64)]
        else:
            for nt in self.steps:
                for bx, by in self.TILES:
                    if by - 2 * nt < 2 or (bx * by > 512 and
                                           not self.lane_pass((nt, bx, by, 0))):
                        continue
                    out.append((nt, bx, by, 0))
            if shape[2] >= 256:   # shorter z segments: more blocks, a smaller last wave
                out += [(nt, bx, by, z) for nt, bx, by, _ in out if nt == self.steps[0]
                        for z in (128, 64)]
            if self.LEAN_SHAPE[0] in self.steps and self.lane_pass((*self.LEAN_SHAPE, 0)):
                # the lean pass (lean_shape), in segments of 128 planes where the grid has
                # several (benchmarks/lean_pass.py: 512^3, 128 planes 177 195 Mcells/s,
                # 256 164 039)
                out += [(*self.LEAN_SHAPE, z) for z in ((128, 64) if shape[2] >= 256 else (0,))]
            # tiles whose rows of blocks CUDA launches along y (z segments grow in launch;
            # the lean pass's general tiles are the shorter)
            fit = [c for c in out if _ceil(shape[1], self.owned(
                self.lean_general(c) if self.lean_shape(c) else c)[1]) <= MAX_GRID_YZ]
            if not fit:
                raise SetupError(f"variant {self.name!r}: {shape[1]} cells along y take "
                                 f"more than {MAX_GRID_YZ} rows of its tiles; use 'indexed'")
            out = fit
        first = self._filled(out[0], shape)
        return [first] + [c for c in out if c != first]

    def _filled(self, cfg, shape) -> tuple:
        """``cfg`` with segments short enough for FILL_BLOCKS blocks over ``shape``, where
        whole columns give fewer (and no shorter than MIN_SEGMENT_*)."""
        if not all(shape):
            return cfg
        grid, _, _ = self.launch((*cfg[:3], 0), shape)
        across = grid[0] * grid[1]   # blocks per segment
        if across >= self.FILL_BLOCKS:
            return cfg
        extent, floor = ((shape[2], self.MIN_SEGMENT_3D) if self.mode == "3d"
                         else (shape[1], self.MIN_SEGMENT_2D))
        seg = max(floor, _ceil(extent, _ceil(self.FILL_BLOCKS, across)))
        return cfg if seg >= extent else (*cfg[:3], seg)

    def shape_help(self) -> tuple[str, str]:
        """What a launch shape holds, for messages: the tile's fields and the segment's."""
        return ("steps,BX,BY", "z-planes") if self.mode == "3d" else ("steps,V,warps", "y-rows")

    def launch(self, cfg, shape, pml: int = 0, sectors_from: int | None = None):
        """(grid, block, planes or rows per segment) of a pass with launch shape ``cfg`` (and
        the CPML terms of ``pml``). Aligned tiles run in one-dimensional blocks (the tile's
        threads, then the extra warp). ``sectors_from``: march3v's tiles that write whole
        sectors (see lane_sectors), over cells from this x."""
        nt, a, b, seg = cfg
        nx, ny, nz = shape
        if self.mode != "3d":
            # segments long enough for grid.y's limit (the x boxes' 4 rows: 262 140 rows)
            seg = max(seg or ny, _ceil(ny, MAX_GRID_YZ))
            tiles = _ceil(nx, 32 * a - 2 * nt)
            return (_ceil(tiles, b), _ceil(ny, seg), 1), (32 * b, 1, 1), seg
        seg = max(seg or nz, _ceil(nz, MAX_GRID_YZ))
        ox, oy = self.owned(cfg, pml, sectors_from is not None)
        if sectors_from is not None:   # the first tile starts at a multiple of SECTOR_CELLS
            nx += sectors_from % self.SECTOR_CELLS   # at or before sectors_from
        block = (self.threads(cfg, pml), 1, 1) if self.aligned_for(pml) else \
            (32, b, 1) if self.lane_pass(cfg, pml) else (a, b, 1)
        if _ceil(ny, oy) > MAX_GRID_YZ:   # configs offers none such over the grid
            raise SetupError(f"variant {self.name!r}: {ny} cells along y take more than "
                             f"{MAX_GRID_YZ} of its tiles of {oy} rows; use 'indexed'")
        return (_ceil(nx, ox), _ceil(ny, oy), _ceil(nz, seg)), block, seg

    def threads(self, cfg, pml: int = 0) -> int:
        if self.mode != "3d" or self.lane_pass(cfg, pml):   # warps of 32 lanes
            return 32 * cfg[2]
        return cfg[1] * cfg[2] + (32 if self.aligned_for(pml) else 0)

    def owned(self, cfg, pml: int = 0, sectors: bool = False) -> list[int]:
        """Cells a block writes per plane (3D: x, y) or a warp per row (2D: x); march3v's
        along x from lane_owned (``sectors``: its tiles that write whole sectors)."""
        nt, a, b = cfg[:3]
        if self.mode != "3d":
            return [32 * a - 2 * nt]
        if self.lane_pass(cfg, pml):
            return [self.lane_owned(cfg, sectors), b - 2 * nt]
        return [a if self.aligned_for(pml) else a - 2 * nt, b - 2 * nt]

    def interior_bytes(self, mode, size, id_size, steps: int = 1):
        """Each field read and written once per pass, and one id per cell."""
        if mode == "3d":
            return (12 * size + id_size) / steps
        return (6 * size + id_size) / steps


_CLASSES = {"indexed": Indexed, "seed-xyz": lambda o: SeedXyz(options=o), "seed-xy": SeedXy,
            "seed-plane": SeedPlane, "seed-multicell": SeedMulticell, "tiled-2d": Tiled2d,
            "fused": lambda o: March("fused", o), "temporal": lambda o: March("temporal", o)}
#: each variant's options: a switch (given alone) or an integer with its least value
_OPTIONS = {"indexed": {}, "seed-xyz": {"pad32": None, "noshared": None},
            "seed-xy": {"pad32": None, "noshared": None},
            "seed-plane": {}, "seed-multicell": {"consecutive": None, "cells": 1},
            "tiled-2d": {}, "fused": {}, "temporal": {"steps": 2}}


def make_variant(spec: str) -> Variant:
    """A variant from its name with options: 'seed-xyz:pad32,noshared'."""
    name, colon, opts = spec.partition(":")
    if name not in _CLASSES:
        raise ValidationError(f"variant: unknown kernel variant {name!r}; use one of "
                              f"{', '.join(VARIANTS)}")
    items = opts.split(",")
    if colon and (not opts or "" in items):
        raise ValidationError(f"variant: {spec!r} has an empty option (a ':' or ',' with "
                              f"nothing after it); write it as '{name}' or "
                              f"'{name}:option,option'")
    options = {}
    for item in filter(None, items):
        key, eq, value = item.partition("=")
        if key in options:
            raise ValidationError(f"variant: {spec!r} gives option {key!r} twice; give it "
                                  "once")
        if key not in _OPTIONS[name]:
            raise ValidationError(f"variant: {name!r} has no option {key!r}; its options are "
                                  f"{sorted(_OPTIONS[name]) or 'none'}")
        least = _OPTIONS[name][key]
        if least is None and eq:
            raise ValidationError(f"variant: {name!r} option {key!r} is a switch and takes "
                                  f"no value; write '{name}:{key}'")
        if least is not None and not (value.isascii() and value.isdigit()
                                      and int(value) >= least):
            raise ValidationError(f"variant: {name!r} option {key!r} takes an integer of at "
                                  f"least {least}, as in '{name}:{key}={max(least, 4)}', not "
                                  f"{value!r}")
        options[key] = value or True
    variant = _CLASSES[name](options)
    variant.spec = spec
    return variant


#: the fraction of the free device memory the marching variants' two sets of fields may
#: take before 'auto' runs 'indexed' instead (the rest: tables, CPML, monitors, CuPy's pool)
AUTO_MEMORY_SHARE = 0.8
#: the cells from which 'auto' runs a marching variant, by grid (3D or 2D) and whether it has
#: CPML layers: below them 'indexed' is faster. Crossovers measured on an H100 with the
#: kernels of f0f7245 (1000 steps, tuned where the grid has 4M cells or more; Mcells/s
#: 'indexed' / 'temporal'; docs/perf/auto-crossovers-h100-2026-11-26.txt): pec-box float32
#: 96^3 41 955 / 32 848, 104^3 38 684 / 38 707, 112^3 33 791 / 36 830, 128^3 30 151 / 40 862
#: (float64 112^3 14 623 / 25 832); dipole-cpml float32 192^3 25 177 / 25 087 and 25 171 /
#: 25 326, 208^3 26 159 / 28 766, 224^3 27 094 / 30 918, 256^3 28 445 / 38 504 (float64
#: 192^3 14 504 / 14 767, 224^3 15 281 / 17 374); tmz-2d float32 1024^2 83 517 / 81 798,
#: 1152^2 95 265 / 103 850, 1280^2 103 934 / 126 208 (float64 1280^2 36 863 / 71 673);
#: tmz-2d-cpml 1536^2 41 121 / 33 652, 1664^2 41 585 / 39 079, 1792^2 41 777 / 44 981.
#: Small grids lose more than the kernels' speed: the marching steppers launch each pass
#: from Python, where 'indexed' replays a CUDA graph. Until 2026-11-26 these were 4M cells
#: (3D and 2D) and 48M (3D with layers), measured on 2026-11-22 with the kernels then.
AUTO_MIN_CELLS = {("3d", False): 1_200_000, ("3d", True): 7_500_000,
                  ("2d", False): 1_200_000, ("2d", True): 3_000_000}
#: the same for 16-bit storage, where 'indexed' moves half the bytes and holds out to larger
#: grids. Measured on an H100 (float16, 1000 steps, tuned; Mcells/s 'indexed' /
#: 'temporal'): at a94b544, pec-box 128^3 60 174 / 36 954, 192^3 59 291 / 51 058, 256^3
#: 65 823 / 68 682, 320^3 68 523 / 74 910, 512^3 70 219 / 81 424; dipole-cpml 384^3 51 373
#: / 53 103, 448^3 53 658 / 54 973, 512^3 55 105 / 59 267; with the kernels of f0f7245
#: (docs/perf/auto-crossovers-h100-2026-11-26.txt), pec-box 224^3 63 810 / 58 271,
#: dipole-cpml 256^3 43 736 / 39 104, 320^3 48 308 / 46 736; tmz-2d 1536^2 165 796 /
#: 157 957, 1792^2 183 291 / 215 018, 2048^2 157 910 / 232 643; tmz-2d-cpml 2048^2 71 815 /
#: 57 422, 2560^2 77 480 / 91 218
AUTO_MIN_CELLS_16 = {("3d", False): 16 << 20, ("3d", True): 48 << 20,
                     ("2d", False): 3_000_000, ("2d", True): 6_000_000}
#: 3D with 16-bit storage on cards whose memory feeds each SM this many bytes per SM clock
#: cycle or more (peak, from the memory clock and bus width; see device_feed; the other
#: thresholds of such cards: AUTO_MIN_CELLS_FED): 'indexed', bound by memory, outran
#: 'temporal', bound by instruction issue, at every size measured without CPML layers
#: (since the walls' march only with a periodic axis), and with them below
#: AUTO_MIN_CELLS_16_FED's (the lean pass's, since 1155e99: below).
#: An H100 SXM feeds 12.8 (read from one: memory clock 2619 MHz, 5120 bits, 132 SMs at
#: 1980 MHz; docs/perf/cpml-face-sets-h100-2026-11-26.txt): dipole-cpml 512 float16
#: 'indexed' 54 895 against 'temporal' 59 793 Mcells/s (9fef8c0). An H200 feeds about 18.4
#: (its published 4.8 TB/s to the same 132 SMs): 'indexed' 70 086 against 'temporal'
#: 60 729 (c6732eb) and 60 908 (b3e0dda); the threshold lies between them. Not float32
#: ('temporal' 59 765 against 'indexed' 43 226 there), nor 2D (tmz-2d float16: 'temporal'
#: 394 554 against 200 792).
AUTO_FEED = 15.5
#: the thresholds of AUTO_MIN_CELLS and AUTO_MIN_CELLS_16 (2D) on cards whose memory feeds
#: each SM AUTO_FEED bytes per SM clock cycle or more, where 'indexed' holds out to larger
#: grids. Crossovers measured on an H200 (feed 18.4) with the kernels of f0f7245 (1000
#: steps, tuned from 4M cells; Mcells/s 'indexed' / 'temporal';
#: docs/perf/auto-crossovers-h200-2026-11-26.txt): pec-box float32 112^3 43 104 / 36 975,
#: 128^3 36 792 / 40 765; dipole-cpml float32 224^3 34 247 / 32 038, 256^3 36 185 / 41 433
#: (float64 224^3 19 388 / 19 555, level); tmz-2d float32 1024^2 89 364 / 81 778, 1152^2
#: 96 149 / 103 641 (as on the H100); tmz-2d-cpml float32 1792^2 49 126 / 45 030, 2048^2
#: 52 638 / 59 862; tmz-2d float16 1792^2 201 599 / 211 012 (as on the H100);
#: tmz-2d-cpml float16 2560^2 92 253 / 91 228, 3072^2 105 790 / 115 827.
#: float64 keeps AUTO_MIN_CELLS there: it favours 'temporal' more than float32 does where
#: measured (H100, pec-box 112^3 float64 14 623 / 25 832 against float32 33 791 / 36 830;
#: H200, dipole-cpml 224^3 float64 19 388 / 19 555, where float32 ran 'indexed' faster).
AUTO_MIN_CELLS_FED = {("3d", False): 1_750_000, ("3d", True): 14_000_000,
                      ("2d", False): 1_200_000, ("2d", True): 3_700_000}
#: 3D with layers, 16-bit storage, measured on an H200 at 755415c (300 steps, tuned; Mcells/s
#: 'indexed' / 'temporal'; docs/perf/auto-float16-h200-2026-11-29.txt): dipole-cpml 256^3
#: 54 198 / 57 585, 384^3 64 440 / 82 320, 512^3 (1000 steps) 70 019 (2026-11-26) / 95 661;
#: without layers 'indexed' stayed ahead until the walls' march (pec-box 192^3 74 102 /
#: 53 287, 256^3 82 798 / 69 103, 384^3 91 265 / 80 738, 512^3 94 589 / 82 767: the tiles
#: at the walls ran march3v); with it (a16a888, docs/perf/lean-walls-cone-h200-2026-11-29.txt)
#: pec-box 256^3 82 906 / 69 387, 288^3 85 988 / 87 817, 320^3 88 313 / 99 037, 384^3
#: 90 915 / 115 310, 512^3 (1000 steps) 94 304 (the table) / 117 618. A grid with a
#: periodic axis and no layers takes no walls' march: 'indexed' there, as before.
AUTO_MIN_CELLS_16_FED = {("3d", True): 16_000_000, ("3d", False): 20_000_000,
                         ("2d", False): 3_000_000, ("2d", True): 8_000_000}


def default_variant(mode: str, dtype: str = "float32", cells: int = 1 << 40,
                    cpml: bool = False, field_bytes: int = 0,
                    free_bytes: int | None = None,
                    feed: float | None = None, shape=None,
                    periodic: bool = False) -> tuple[str, str | None]:
    """The variant 'auto' runs, and why when it is not the fastest kind: 'temporal' on grids of
    AUTO_MIN_CELLS or more (16-bit storage: AUTO_MIN_CELLS_16; where the card's ``feed``, its
    memory's peak bytes per SM clock cycle, is AUTO_FEED or more, AUTO_MIN_CELLS_FED in
    float32 and AUTO_MIN_CELLS_16_FED, and with 16-bit storage in 3D without CPML layers
    on a ``periodic`` grid, which the walls' march refuses, never), 'indexed' otherwise.
    In 3D 'temporal' was measured faster than 'fused' (H100, at a4a4c79, 300-1000 steps,
    tuned: float32 pec-box 192 40.8 against 38.6, 512 54.4 against 48.0;
    dipole-cpml 384 37.1 against 32.7, 512 40.4 against 36.9; float64 dipole-cpml 512 23.1
    against 20.9; since f29dce0, 512: pec-box 60.9, dipole-cpml 45.9 against 37.0). With 16-bit
    storage in 3D 'indexed' stayed the choice until a94b544 (H100, dipole-cpml 512 float16: at
    f29dce0 55.1 Gcells/s against 51.8 for 'temporal', at faac89a 55.1 against 55.7, level; at
    a94b544 55.1 against 59.3, pec-box 70.2 against 81.4). The marching variants keep two sets
    of fields (``field_bytes`` each); where they would take more than AUTO_MEMORY_SHARE of
    ``free_bytes``, 'indexed' runs instead, as it does where no tile of theirs fits the
    grid's ``shape`` (nodes) within CUDA's launch limits."""
    grid = "3d" if mode == "3d" else "2d"
    fed = feed is not None and feed >= AUTO_FEED
    if dtype in STORAGE16:
        if fed and grid == "3d" and not cpml and periodic:
            return "indexed", None
        table = AUTO_MIN_CELLS_16_FED if fed else AUTO_MIN_CELLS_16
    else:   # float64 keeps AUTO_MIN_CELLS: see AUTO_MIN_CELLS_FED
        table = AUTO_MIN_CELLS_FED if fed and dtype == "float32" else AUTO_MIN_CELLS
    if cells < table[grid, bool(cpml)]:
        return "indexed", None
    best = "temporal"
    if free_bytes is not None and 2 * field_bytes > AUTO_MEMORY_SHARE * free_bytes:
        return "indexed", (f"variant 'auto': {best!r} keeps two copies of the fields "
                           f"({2 * field_bytes / 2**30:.1f} GiB) and the GPU has "
                           f"{free_bytes / 2**30:.1f} GiB free; using 'indexed'")
    if shape is not None:
        v = make_variant(best)
        v.mode = mode
        try:
            v.configs("pass", shape)
        except SetupError as exc:
            why = str(exc).removeprefix("variant ").replace("use 'indexed'", "using 'indexed'")
            return "indexed", f"variant 'auto': {why}"
    return best, None


def cpml_bytes(model, size: int, id_size: int, form: str, fused: bool = False) -> float:
    """Bytes the CPML corrections move per step over the whole grid: for each slab cell and
    each corrected component, psi read and written; a separate pass also reads and writes
    the field and reads the curl field and the coefficient (an id or a per-cell value)."""
    per = 2 * size if fused else 5 * size + (id_size if form == "ids" else size)
    total = 0.0
    for slab in model.slabs:
        comps = len(slab.terms(model.grid.components))
        others = math.prod(n for a, n in enumerate(model.grid.shape) if a != slab.axis)
        total += slab.cells * others * comps * per
    return total
