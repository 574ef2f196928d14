"""The stepper of the marching variants ('fused', 'temporal'): passes of NT steps.

A pass is one launch of ``march3`` (3D) or ``march2`` (2D; march.cu) that reads the
fields and CPML auxiliary values of step n from one set of device arrays and writes those
of step n + NT to the other; the sets swap after each pass (``_f`` is always the current
one, so snapshots, ``fields()`` and ``set_field`` see the newest values). Sources and
probes act inside the pass, from tables sorted by plane (3D: z; 2D: the row) and cell
(``MarchEvents`` in march.cu). Passes end at every snapshot step and before a probe ring
buffer would wrap, so the host sees every record. The kernels carry one id per cell, for
the combination of its components' material ids (``_cell_table``).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .stepper import COMP_INDEX, CudaStepper, _i32


class PassKernel(NamedTuple):
    """A pass instance's launch for one shape and box: its function, grid, block, z
    segment (or rows a segment), dynamic shared bytes, the arguments it takes after the
    common ones (march3v: its one-material bytes or a null pointer; lean3v: its bytes and
    the table's rows), and the bytes a block found by march3v_one or lean3v_one (None
    where none were)."""
    fn: Any
    grid: tuple
    block: tuple
    seg: int
    smem: int
    extra: tuple = ()
    blocks: Any = None


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


class MarchStepper(CudaStepper):
    roles = ("pass",)
    psi_sets = ("psi", "psi_b")
    #: steps a tuning candidate is timed over: a multiple of every steps-per-pass choice
    TUNE_STEPS = 12

    # ---- allocation -----------------------------------------------------------------
    def _allocate(self, model) -> None:
        nx, ny, _ = model.grid.shape
        if nx * ny >= 2**31:
            from ...exceptions import SetupError

            raise SetupError(f"variant {self.variant.name!r} needs planes of fewer than 2^31 "
                             f"cells; {nx} x {ny} is too many: use 'indexed'")
        super()._allocate(model)
        self._cell_table(model)
        self._g = {c: self._zeros(self._full, self.field_dtype) for c in model.grid.components}
        for entry in self._slabs:
            for kind in ("e", "h"):
                entry[kind]["psi_b"] = [None if p is None else self._zeros(p.size)
                                        for p in entry[kind]["psi"]]
        self._src = 0   # which psi set holds the current values (0: "psi", 1: "psi_b")
        self._sector_shapes: set = set()   # none compiled yet (see _names)
        self._side: list = []   # (stream, event) of the CPML boxes (see _side_streams)
        self._pass_start = None
        from .experiments import box_streams

        self._box_streams = box_streams(self.BOX_STREAMS)
        self._events = self._event_tables(model)
        #: where the CPML layers of a 3D pass are updated: "slabs" ('fused', the default):
        #: the pass runs without the CPML terms, then slab3 recomputes the layers (see
        #: march.cu), two launches per box (H, then E); "slabm": the same with slab3m, one
        #: launch per box (slower: see march.cu); "boxes": the pass runs without them, then
        #: the same kernel with them over a box around each layer, widened by the steps per
        #: pass (the default of the other 3D passes); "xboxes": the pass applies the y and z
        #: layers itself (uniform across its warps, which are rows along x) and the same
        #: kernel with every CPML term runs over a box around each x layer, widened by the
        #: steps per pass (the default in 2D); "inpass": the pass applies them itself.
        #: $YEEFDTD_CPML picks another, for comparison (measured: see march.cu). 'fused'
        #: with "boxes" over overlapping tiles (the boxes then on streams beside the pass)
        #: ran slower than its slabs: H100, dipole-cpml's scene 512 float32, 64 x 8, 200
        #: steps: 25 599 Mcells/s against 33 110 (the boxes 1.99 ms a step, the slabs 1.22);
        #: with the lighter boxes of f6668d8 and a94b544 (2026-11-25, 500 steps, tuned) 29 579
        #: against 37 036, slabm 31 024.
        self.cpml_mode = cpml_mode(self.variant, bool(self._slabs))
        #: whether passes run march3f (read once: its nt argument carries its shared bytes)
        self.staged = self.variant.staged
        self._inert = self._inert_ends(model)
        self._plan_boxes()

    def _plan_boxes(self) -> None:
        """The cells each kernel updates: slab3's boxes, and the pass's box (all the cells
        that need updating, less the slabs of them that slab3 recomputes in both half
        steps; see _pass_box). Launches built for other boxes are dropped."""
        #: the extent that needs updating: the grid less its inert last planes
        self.update_shape = tuple(n - 1 if inert else n
                                  for n, inert in zip(self.shape, self._inert, strict=True))
        self._boxes = self._slab_boxes() if self.slabs else {"h": [], "e": []}
        #: (origin, extent) of the cells the pass over the grid updates
        self.pass_box = self._pass_box()
        #: (launch shape, box, mask, full) -> PassKernel
        self._pass_kernels: dict = {}
        #: the same key -> march3v's launch beside lean3v's, as _pass_kernels holds them
        self._lean_side: dict = {}
        #: the same key -> lean3v's launch with ids (its blocks of byte 3), or None
        self._lean_ids: dict = {}
        #: the same key -> lean3v's walls' launch (its blocks of byte 4), or None
        self._lean_walls: dict = {}
        self._walls_mask = False   # _lean_walls_mask's, once found (False: not yet)
        self._walls_rows = None    # its table of each row's code (wall_rows), with "cone"
        self._walls_pmc = 0        # the axes along which its masks double some difference
        self._face_pmc = None      # the axes along which the table doubles one (lean3f)
        self._slab_plan: dict = {}      # source set -> slab3 launches less the step
        self._box_plan: dict = {}       # pass shape -> (launch shape, box, CPML mask) per box
        self._pass_boxes: dict = {}     # steps per pass -> the pass's box (see pass_box_of)
        self._disjoint: dict = {}       # steps per pass -> pass_disjoint
        self._full: dict = {}           # pass shape -> full_pass
        self._zlean: dict = {}          # (steps, box, CPML mask) -> _lean_face

    def psi_slack(self, slab) -> int:
        """A row of auxiliary values past a y face's last, so that the lanes of lean3f
        (march3v.cu) past a row's last cell read within the array (see
        _lean_face_geometry)."""
        return self.pitch[0] if slab.axis == 1 else 0

    @property
    def split_cpml(self) -> bool:
        """Whether the CPML layers are updated beside the pass rather than in it."""
        return self.cpml_mode != "inpass"

    @property
    def slabs(self) -> bool:
        """Whether slab kernels (slab3m or slab3) recompute the CPML layers after the pass."""
        return self.cpml_mode in ("slabs", "slabm")

    def _inert_ends(self, model) -> tuple[bool, bool, bool]:
        """Per axis, whether the grid's last plane (index N - 1 along a non-periodic axis)
        stays zero, so that no kernel needs to update it. It does where every E component
        there has id 0 (the tangential E on a PEC or CPML wall, the unused slot of the
        normal one), as do the H components offset by half a cell along the axis (their
        unused slot), and no source or probe lies in it: the normal H there then sees only
        those E, which are zero, and nothing outside the plane reads anything in it but
        those E (E looks back, H forward). Both sets of arrays start at zero there, and
        set_field turns this off where it writes anything else. Leaving the plane out of
        the pass spares a column of tiles and a segment of planes at N = 512 (513 nodes),
        and narrows slab3's last x boxes from 32 cells to 16. Measured on an H100 (512,
        'fused', 1000 steps): float32 pec-box 47.1 Gcells/s against 44.1, dipole-cpml 36.5
        against 34.2 (the slabs of the pass box alone)."""
        g = model.grid
        if g.mode != "3d":
            return (False, False, False)
        from ...build.grid import OFFSETS

        used = [np.unravel_index(grp.flat, g.shape, order="F") for grp in model.sources]
        used += [tuple(np.array([ch.index[a]]) for a in range(3))
                 for pg in self._probe_groups for ch in pg["group"].channels]
        out = []
        for a in range(3):
            n = g.shape[a] - 1
            if g.periodic[a] or any((idx[a] == n).any() for idx in used):
                out.append(False)
                continue
            sl = tuple(n if b == a else slice(None) for b in range(3))
            zero = [c for c in g.components if c[0] == "e" or OFFSETS[c][a] == 0.5]
            out.append(not any(model.tables[c].ids[sl].any() for c in zero))
        return tuple(out)

    def set_field(self, component: str, values: np.ndarray) -> None:
        v = self.field_values(component, values)
        self._store_field(component, v)
        inert = tuple(keep and not np.take(v, -1, axis=a).any()
                      for a, keep in enumerate(self._inert))
        if inert != self._inert:
            self._inert = inert
            self._plan_boxes()

    def pass_mask(self) -> int:
        """The CPML axes the pass kernel handles itself (none when split; all but x when
        the x layers are in boxes)."""
        if self.cpml_mode == "xboxes":
            return self.layer_mask() & ~1
        return 0 if self.split_cpml else self.layer_mask()

    def _slab_boxes(self) -> dict[str, list[tuple[int, ...]]]:
        """Boxes (origin x, y, z, extent x, y, z; wrapped by the kernel) that slab3 recomputes
        after each pass: H over each H face; E over each E face, each H face and the cell
        after it along the face's axis (E there reads the corrected H).

        Rows are written in whole 32-byte sectors where the pitch allows it (the pitch of
        'fused' with x layers is a multiple of 16 cells: see ``March.pitches``): the x
        boxes are widened to whole sectors (the cells added are recomputed exactly, as the
        pass computed them), and boxes that end at the grid's last x cell go on through the
        row's padding, which slab3 fills with zeros. A warp that writes part of a sector
        makes the L2 merge it with what DRAM holds. Measured on an H100 (dipole-cpml 512
        float32): the x boxes from 240 to 145 microseconds each.

        Where the E box reaches the grid's last cell along its axis, the H box does too
        (the last H cell is then recomputed with the others, typically one plane more), so
        that the pass can leave out every plane past both boxes' start (see pass_box)."""
        out: dict[str, list[tuple[int, ...]]] = {"h": [], "e": []}
        sector = max(1, 32 // self.field_dtype.itemsize)   # cells per 32-byte sector
        nx, px = self.shape[0], self.pitch[0]
        shape = self.update_shape   # less the inert last planes
        aligned = px % sector == 0   # rows start on sector boundaries
        for entry in self._slabs:
            a, L = entry["slab"].axis, entry["slab"].cells
            hs, es = entry["h"]["start"], entry["e"]["start"]
            e_lo, e_hi = min(es, hs), min(max(es + L, hs + L + 1), shape[a])
            h_hi = shape[a] if e_hi >= shape[a] else hs + L
            for kind, lo, hi in (("h", hs, h_hi), ("e", e_lo, e_hi)):
                if a == 0 and aligned:
                    lo, hi = lo - lo % sector, min(shape[0], -(-hi // sector) * sector)
                org, ext = [0, 0, 0], list(shape)
                org[a], ext[a] = lo, min(hi - lo, shape[a])
                if org[0] + ext[0] == nx and aligned:   # through the padding
                    ext[0] = px - org[0]
                if ext[0] * ext[1] >= 2**31 or ext[2] >= 2**16:
                    from ...exceptions import SetupError

                    raise SetupError(f"variant 'fused': a CPML layer of {ext[0]} x {ext[1]} x "
                                     f"{ext[2]} cells is too large for its kernel; use "
                                     "'temporal' or 'indexed'")
                out[kind].append((*org, *ext))
        if self.cpml_mode == "slabm":   # slab3m: H and E over each E box
            out["h"] = list(out["e"])
        return out

    def _pass_box(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """The box the pass over the grid updates: along each axis, the planes at either end
        that slab3 recomputes in both half steps (an H box and an E box of that axis holding
        them) are left out, since the pass's values there would be replaced. Along x the
        origin stays on a multiple of March.ROW_CELLS (the aligned tiles start on whole
        sectors).
        Measured on an H100 (dipole-cpml 512 float32, 1000 steps): 34.2 Gcells/s against
        30.7, the pass over 480 x 492 x 492 cells in 2.51 ms instead of 513^3 in 3.06."""
        shape = self.update_shape
        org, end = [0, 0, 0], list(shape)
        if not self.slabs:
            return tuple(org), tuple(end)
        for a in range(3):
            n = shape[a]
            spans = {kind: [(b[a], min(n, b[a] + b[a + 3])) for b in self._boxes[kind]
                            if b[3 + (a + 1) % 3] >= shape[(a + 1) % 3]
                            and b[3 + (a + 2) % 3] >= shape[(a + 2) % 3]]
                     for kind in ("h", "e")}
            lo = min(max((hi for lo_, hi in spans[k] if lo_ == 0), default=0) for k in "he")
            hi = max(min((lo_ for lo_, hi in spans[k] if hi >= n), default=n) for k in "he")
            if a == 0:
                lo -= lo % self.variant.ROW_CELLS
            if lo < hi:
                org[a], end[a] = lo, hi
        return tuple(org), tuple(e - o for o, e in zip(org, end, strict=True))

    def pass_box_of(self, nt: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(origin, extent) of the cells a pass of ``nt`` steps updates: ``pass_box``, less,
        in 3D with layers in boxes, the planes at either end along each axis that the boxes
        recompute (``layer_ends``): every cell outside this box lies in a box (see
        march_boxes). Measured on an H100 (dipole-cpml 512 float32 'temporal', NT 2, 32 x
        12): the pass 2.65 ms a step over the grid, 2.30 over this box."""
        if nt in self._pass_boxes:
            return self._pass_boxes[nt]
        org, ext = self.pass_box
        if self.cpml_mode in ("boxes", "xboxes") and self.model.grid.mode == "3d":
            lo_, hi_ = list(org), [o + e for o, e in zip(org, ext, strict=True)]
            for b, ends in enumerate(self.layer_ends(nt)):
                if ends is not None and (b == 0 or self.cpml_mode == "boxes"):
                    lo_[b], hi_[b] = max(lo_[b], ends[0]), min(hi_[b], ends[1])
            if self.variant.aligned_for(self.pass_mask()):   # aligned tiles: see _pass_box
                lo_[0] -= lo_[0] % self.variant.ROW_CELLS
            org, ext = tuple(lo_), tuple(max(0, h - o) for o, h in zip(lo_, hi_, strict=True))
        self._pass_boxes[nt] = (org, ext)
        return org, ext

    def pass_disjoint(self, nt: int) -> bool:
        """Whether a pass of ``nt`` steps leaves out every cell of the CPML boxes beside it,
        so that they may run at once (see _side_streams): in 3D with layers in boxes, over
        unaligned tiles (aligned ones start on a multiple of ROW_CELLS, inside the x
        boxes), where every axis with boxes has its spans at the grid's ends."""
        if nt not in self._disjoint:
            out = self.model.grid.mode == "3d" and self.cpml_mode in ("boxes", "xboxes") and \
                not self.variant.aligned_for(self.pass_mask())
            if out:
                ends = self.layer_ends(nt)
                axes = (0,) if self.cpml_mode == "xboxes" else (0, 1, 2)
                out = all(ends[b] is not None for b in axes if self.layer_mask() >> b & 1)
            self._disjoint[nt] = out
        return self._disjoint[nt]

    def layer_spans(self, nt: int) -> list[tuple[int, int, int]]:
        """(axis, lo, hi) of the cells around each CPML layer that a pass of ``nt`` steps
        without the CPML terms leaves inexact: the layer's E and H cells, the cell after
        the H layer (E there reads the corrected H), and nt - 1 cells more on each side
        (one step carries a difference one cell further each way), within the grid."""
        out = []
        for entry in self._slabs:
            a, L = entry["slab"].axis, entry["slab"].cells
            hs, es = entry["h"]["start"], entry["e"]["start"]
            out.append((a, max(0, min(hs, es) - (nt - 1)),
                        min(self.shape[a], max(es + L, hs + L + 1) + (nt - 1))))
        return out

    def layer_ends(self, nt: int) -> list[tuple[int, int] | None]:
        """Per axis, (l, h) where the spans of its layers (layer_spans) are [0, l) and
        [h, n) (l = 0, h = n where a grid end has none); None where a span lies off both
        ends of the grid, or where there are no layers."""
        out: list[tuple[int, int] | None] = []
        every = self.layer_spans(nt)
        for b in range(3):
            n = self.shape[b]
            spans = [(lo, hi) for a, lo, hi in every if a == b]
            if not spans or any(lo > 0 and hi < n for lo, hi in spans):
                out.append(None)
                continue
            lo = max((hi for lo, hi in spans if lo == 0), default=0)
            hi = min((lo for lo, hi in spans if hi >= n), default=n)
            out.append((lo, max(lo, hi)))
        return out

    def march_boxes(self, nt: int) -> list[tuple[tuple[int, int, int], tuple[int, int, int],
                                                  int, int]]:
        """(origin, extent, axis, mask) of the boxes that the CPML kernels recompute after a
        pass of ``nt`` steps without the CPML terms, which together hold every cell of the
        layers' spans (layer_spans); axis: the one the box is thin along (its launch shape
        follows it: see box_config); mask: the CPML axes (1 x, 2 y, 4 z) whose terms its
        kernel applies. Extents may run past the grid's last cell: the kernels wrap.

        By default one box per span, spanning the grid, with every axis's terms. With
        every layer in boxes in 3D ("boxes"), the grid is cut along each axis with layers
        into its ends E (the spans at both ends, as one box that wraps from the last cell
        to the first) and its middle M, and the cells outside M x M x M go to six boxes:
        E x M x M with the x terms alone, M x E x M the y terms, M x M x E the z terms (the
        faces, whose instances take their one axis's terms inline: see curl_face in
        march.cu), E x E x (the whole z extent) with every axis's terms, E x M x E the x and
        z terms, M x E x E the y and z terms (the edges). A kernel without an axis's terms
        is exact outside that axis's spans, as the pass is outside all of them."""
        full = self.layer_mask()
        spans = [(a, lo, hi) for a, lo, hi in self.layer_spans(nt)
                 if self.cpml_mode != "xboxes" or a == 0]   # xboxes: the pass applies y, z
        ends = self.layer_ends(nt)
        if self.cpml_mode != "boxes" or self.model.grid.mode != "3d" or \
                any(e is None for b, e in enumerate(ends) if full >> b & 1):
            out = []
            for a, lo, hi in spans:
                org, ext = [0, 0, 0], list(self.shape)
                org[a], ext[a] = lo, hi - lo
                out.append((tuple(org), tuple(ext), a, full))
            return out
        end, mid = [], []   # per axis, (origin, extent) of E (None: no layers) and of M
        for b in range(3):
            n = self.shape[b]
            if not full >> b & 1:
                end.append(None)
                mid.append((0, n))
                continue
            lo, hi = ends[b]
            end.append((hi, min(n, n - hi + lo)) if hi < n else (0, lo))
            mid.append((lo, max(0, hi - lo)))
        out = []
        for axes, mask in (((0,), 1), ((1,), 2), ((2,), 4), ((0, 1), full),
                           ((0, 2), 5), ((1, 2), 6)):
            if any(end[b] is None for b in axes):
                continue
            box = [end[b] if b in axes else mid[b] for b in range(3)]
            if axes == (0, 1):
                box[2] = (0, self.shape[2])   # with the corners
            org, ext = tuple(o for o, _ in box), tuple(e for _, e in box)
            if all(ext):
                out.append((org, ext, 2 if 2 in axes else axes[0], mask & full))
        return out

    def box_config(self, cfg: tuple, axis: int, ext: tuple) -> tuple:
        """The launch shape of the CPML kernel over a box thin along ``axis``: for z, tiles
        of 64 x 8 threads (one step per pass) or 32 x 16 and segments of the whole box; for
        x, the narrowest tile of 512 threads whose owned cells cover the box's thickness;
        for y, the same up to 16 rows (32 x 16 threads: rows of 32 cells, and a box
        thicker than their 16 - 2 NT owned rows takes several along y, unless one tile of 16
        x 32 computes fewer cells); in 2D (x boxes),
        the fewest cells per lane that do, one warp per block and segments of BOX_ROWS_2D
        rows."""
        nt = cfg[0]
        if self.model.grid.mode != "3d":
            # 2D (x boxes only): the fewest cells per lane whose tile owns the box's
            # width, a warp per block (one tile across the box) and short segments along y,
            # as each CPML row waits on its auxiliary values' loads
            v = next((v for v in (1, 2, 4, 8) if 32 * v - 2 * nt >= ext[0]), 8)
            return (nt, v, 1, self.BOX_ROWS_2D)
        if axis == 2:
            return (nt, 64, 8, 0) if nt == 1 else (nt, 32, 16, 0)
        sides = (16, 32, 64) if axis == 0 else (8, 16)
        if axis == 0:   # tiles owning 4 rows at least: 64 cells wide at 3 steps (512 // 64
            # = 8 rows, 2 owned) took dipole-cpml's x box of 27 cells 2.54 ms a step with the
            # others (H200, 512 float32) against 1.26 for 26 cells on tiles of 32
            sides = tuple(w for w in sides if max(512 // w, 2 * nt + 2) - 2 * nt >= 4)
        side = next((w for w in sides if w - 2 * nt >= ext[axis]), sides[-1])

        def cost(w):   # cells computed for each owned one, y boxes
            o = max(512 // w, 2 * nt + 2)
            return -(-ext[1] // (w - 2 * nt)) * w * o / (o - 2 * nt)

        if axis == 1 and 32 - 2 * nt >= ext[1] > side - 2 * nt and cost(32) < cost(side):
            # one tile of 16 x 32 where it computes fewer cells than several of 32 x 16:
            # dipole-cpml 512 at 3 steps, the y box 26 rows thick (1.97 cells an owned one
            # against 2.27); at 2 steps 24 rows take two of 32 x 16 (1.52 against 1.78)
            side = 32
        other = max(512 // side, 2 * nt + 2)
        # segments of 16 planes: a box one tile thick has few columns (x boxes of 'fused'
        # at 512 with segments of 64: 144 blocks for 132 SMs; dipole-cpml 7.1 ms a step,
        # with segments of 16 6.0, of 8 5.9)
        return (nt, side, other, 16) if axis == 0 else (nt, other, side, 16)

    #: 2D: rows per segment of the boxes around the x layers. Their rows wait on the
    #: auxiliary values' loads, so the shorter the segment the sooner the boxes are done,
    #: despite the 2 NT - 1 rows each recomputes. Measured on an H100 (tmz-2d-cpml 8192
    #: float32, NT 4, V 4, 300 steps): 4 rows 208 Gcells/s, 8 202, 16 189, 32 168
    BOX_ROWS_2D = 4

    def _box_configs(self) -> list[tuple]:
        """(launch shape, CPML mask) of the CPML kernels, over every pass shape the module
        holds (compiled_configs)."""
        if self.cpml_mode not in ("boxes", "xboxes"):
            return []
        out = []
        for cfg in self.compiled_configs():
            for _, ext, a, mask in self.march_boxes(cfg[0]):
                out.append((self.box_config(cfg, a, ext)[:3], mask))
        return list(dict.fromkeys(out))

    @property
    def order(self) -> tuple[str, ...]:
        """The components in the order the kernels take them (and the table's columns)."""
        return {"3d": ("ex", "ey", "ez", "hx", "hy", "hz"), "tmz": ("ez", "hx", "hy"),
                "tez": ("hz", "ex", "ey")}[self.model.grid.mode]

    def _cell_table(self, model) -> None:
        """One id per cell for the combination of every component's material id there, and
        the coefficients of each combination: row r holds component j's three columns at
        [r, j, :] (j in ``order``). A cell then carries one id through the pass instead of
        one per component, and a coefficient is one load at a fixed offset from its row.
        Row 0 is the grid's most common combination (see _combinations)."""
        from ...exceptions import SetupError

        ids = [model.tables[c].ids for c in self.order]
        cell, combos = _combinations(ids, self.R)
        if len(combos) > 65536:
            raise SetupError(f"variant {self.variant.name!r}: the grid holds {len(combos)} "
                             "distinct combinations of component materials, more than 65536; "
                             "use 'indexed'")
        full = self._table_host   # [component (ex .. hz), material row, column]
        rows = [full[COMP_INDEX[c]][combos[:, j]] for j, c in enumerate(self.order)]
        table = np.stack(rows, axis=1)
        if model.grid.mode != "3d":
            # march2's rows: each component's columns as (self, b, self, c), so that every
            # half step's pair of coefficients is one 8-byte aligned load (cf2, march.cu)
            table = table[:, :, [0, 1, 0, 2]]
        self._table_host = np.ascontiguousarray(table)
        self.const_table = self._table_host.nbytes <= 61440   # c_tab in common.cuh
        self._gtab = self._dev(self._table_host.ravel())
        self.R = len(combos)
        self.id_dtype = np.dtype(np.uint8 if self.R <= 256 else np.uint16)
        self._cells = self._padded(cell.astype(self.id_dtype, copy=False), self.id_dtype)

    @property
    def march_axis(self) -> int:
        """The axis the passes march along: z in 3D, y in 2D."""
        return 2 if self.model.grid.mode == "3d" else 1

    def _event_tables(self, model) -> dict:
        """Device tables of the sources and probes, sorted by plane (the marching axis's
        coordinate), then cell (its index within the plane)."""
        nx = self.shape[0]
        ax = self.march_axis
        nz = self.shape[ax]
        if ax == 2:
            def where(i, j, k):
                return k, np.asarray(j, dtype=np.int64) * nx + i
        else:
            def where(i, j, k):
                return j, np.asarray(i, dtype=np.int64)
        out = {}
        #: (i, j, k) of every source and probe cell: the blocks that compute one run march3v,
        #: not the lean pass (_lean_blocks)
        cells = [np.unravel_index(grp.flat, model.grid.shape, order="F")
                 for grp in model.sources]
        cells += [tuple(np.array([int(ch.index[a])]) for a in range(3))
                  for pg in self._probe_groups for ch in pg["group"].channels]
        self._event_cells = tuple(np.concatenate([c[a] for c in cells]).astype(np.int64)
                                  if cells else np.zeros(0, np.int64) for a in range(3))
        # per plane: E sources 1, H sources 2, probes 4, a CPML face normal to the marching
        # axis 8 (PLANE_* in march.cu)
        flags = np.zeros(nz, dtype=np.uint8)
        for kind, K in (("e", 0), ("h", 1)):
            rows, vals, col = [], [], 0
            for grp in model.sources:
                if grp.component[0] != kind:
                    continue
                i, j, k = np.unravel_index(grp.flat, model.grid.shape, order="F")
                comp = COMP_INDEX[grp.component] % 3
                hard = 1 if grp.kind == "hard" else 0
                n = len(grp.flat)
                meta = comp | (hard << 2) | ((col + np.arange(n)) << 3)
                rows.append(np.stack([*where(i, j, k), meta]).T)
                with np.errstate(over="ignore"):
                    vals.append((grp.values / self.storage.scale(grp.component))
                                .astype(self.dtype).reshape(grp.values.shape[0], n))
                col += n
            if not rows:
                out[f"src{K}"] = None
                continue
            table = np.concatenate(rows)
            order = np.lexsort((table[:, 1], table[:, 0]))   # stable: group order kept
            table = table[order]
            steps = min(v.shape[0] for v in vals)
            values = np.concatenate([v[:steps] for v in vals], axis=1)
            off = np.searchsorted(table[:, 0], np.arange(nz + 1)).astype(np.int32)
            flags[np.diff(off) > 0] |= 1 << K
            out[f"src{K}"] = {
                "off": self._dev(off),
                "cell": self._dev(table[:, 1].astype(np.int32)),
                "meta": self._dev(table[:, 2].astype(np.int32)),
                "val": self._dev(np.ascontiguousarray(values)), "cols": col,
            }
        rows = []
        for g, pg in enumerate(self._probe_groups):
            for q, ch in enumerate(pg["group"].channels):
                plane, cell = where(*(int(v) for v in ch.index))
                rows.append((int(plane), int(cell), COMP_INDEX[ch.component] | (g << 3), q))
        if rows:
            table = np.array(rows, dtype=np.int64)
            table = table[np.lexsort((table[:, 1], table[:, 0]))]
            off = np.searchsorted(table[:, 0], np.arange(nz + 1)).astype(np.int32)
            flags[np.diff(off) > 0] |= 4
            out["prb"] = {
                "off": self._dev(off),
                "cell": self._dev(table[:, 1].astype(np.int32)),
                "meta": self._dev(table[:, 2].astype(np.int32)),
                "col": self._dev(table[:, 3].astype(np.int32)),
                "ring": self._dev(np.array([pg["ring"].data.ptr for pg in self._probe_groups],
                                           dtype=np.uint64)),
                "every": self._dev(np.array([pg["group"].every for pg in self._probe_groups],
                                            dtype=np.int32)),
                "rows": self._dev(np.array([pg["rows"] for pg in self._probe_groups],
                                           dtype=np.int32)),
                "count": self._dev(np.array([len(pg["group"].channels)
                                             for pg in self._probe_groups], dtype=np.int32)),
            }
        else:
            out["prb"] = None
        for entry in self._slabs:
            if entry["slab"].axis == ax:
                for kind in ("e", "h"):
                    start = entry[kind]["start"]
                    flags[start:start + entry["slab"].cells] |= 8
        out["flags"] = self._dev(flags)
        return out

    # ---- kernels ----------------------------------------------------------------------
    def _names(self) -> list[str]:
        from .compile import id_name, type_name

        T, ID = type_name(self.dtype), id_name(self.id_dtype)
        S = "half_t" if self.storage.is16 else T
        CT = "true" if self.const_table else "false"
        self._tparams = (self.model.grid.mode, f"{T}, {S}", ID, CT)
        configs = self.compiled_configs()
        names = self.variant.instances(*self._tparams, masks=[self.pass_mask()],
                                       configs=configs)
        if self.cpml_mode == "slabs":
            names += [self._slab3(half) for half in (0, 1)]
        elif self.cpml_mode == "slabm":
            names += [self._slab3m(shape) for shape in self.SLAB3M_TILES]
        names += [self.variant.kernel("pass", c, *self._tparams, mask)
                  for c, mask in self._box_configs()]
        #: launch shapes (steps, BX, BY) whose whole-sector instance is compiled: those that
        #: run it over the pass box as planned now (a later set_field that widens the box
        #: may make others eligible; they keep the tiles of 60, see pass_sectors)
        self._sector_shapes = {c[:3] for c in configs if self._sectors_fit(c)}
        lean = [c for c in sorted(self._sector_shapes) if self.variant.lean_shape(c)]
        sector_names = [self.variant.kernel("pass", c, *self._tparams, self.pass_mask(), True, f)
                        for c in sorted(self._sector_shapes) if c not in lean
                        for f in (False, True)]
        names += sector_names + [one_material_kernel(n) for n in sector_names]
        for c in lean:   # the lean pass: lean3v (with the table in constant memory), its
            # finder, march3v beside it and march3v's passes of fewer steps
            names += [self.variant.kernel("pass", c, *self._tparams, self.pass_mask(), True, f)
                      for f in (False, True)]
            if self.const_table:
                lean_name = self.variant.kernel("pass", c, *self._tparams, self.pass_mask(),
                                                True, True, True)
                names += [lean_name, lean_ids_kernel(lean_name), self._lean_finder(c)]
                if self._walls_at_ends(c[0]) and self._lean_walls_mask() is not None:
                    names.append(lean_walls_kernel(lean_name, self._walls_pmc))
        if self.cpml_mode == "boxes":   # lean3f over the CPML boxes, at each pass's steps
            for nt in sorted({c[0] for c in configs} & set(self.LEAN_FACE_STEPS)):
                names += [self._lean_face_name(nt, mask, self._lean_face_zw(nt, (o, e), mask))
                          for o, e, _, mask in self.march_boxes(nt)
                          if self._lean_face_allowed(mask)]
        names.append(self._max_abs_name)
        return list(dict.fromkeys(names))

    def compiled_configs(self) -> list[tuple]:
        """The pass launch shapes whose kernels the modules hold: the one known before
        compiling where it was forced or is the untuned default, else every candidate: those
        a sweep times, and where the shape came from the tuning cache and this CuPy keeps
        such modules on disk (compile.cupy_caches_modules), the same modules again, which
        the sweep left there (so the run after a tuning compiles nothing, and runs the binary
        that was timed). Compiling every candidate took about 10 times as long as one on the
        grids too small to tune (NVRTC, sm_90, 3D 'temporal' float32: 2.7 s against 0.3)."""
        from .compile import cupy_caches_modules

        if self.known_configs and ("pass" not in self.cached_roles
                                   or not cupy_caches_modules()):
            return [self.known_configs["pass"]]
        return self.variant.configs("pass", self.shape)

    def _slab3(self, half: int) -> str:
        """The slab3 instance of half step ``half`` (1: H, 0: E) for this stepper's types."""
        return f"slab3<{self._tparams[1]}, {self._tparams[2]}, {self._tparams[3]}, {half}>"

    #: slab3m's tiles (x, y threads): 16-cell-wide x boxes take the narrow one
    SLAB3M_TILES = ((32, 7), (16, 15))
    #: slab3m's z segment: boxes at most this thick along z go in one, others in 16 planes
    SLAB3M_ZLEN = 24

    def _slab3m(self, tile: tuple[int, int]) -> str:
        """The slab3m instance with ``tile`` threads for this stepper's types."""
        return (f"slab3m<{self._tparams[1]}, {self._tparams[2]}, {self._tparams[3]}, "
                f"{tile[0]}, {tile[1]}>")

    def _upload_table(self) -> None:
        if self.const_table:   # the combinations' table (see _cell_table)
            ptr = self._module.get_global("c_tab")
            host = np.ascontiguousarray(self._table_host.ravel())
            ptr.copy_from_host(host.ctypes.data, host.nbytes)
        self._upload_mfaces()
        self._upload_events()

    def _upload_mfaces(self) -> None:
        """c_mfaces[buffer]: the faces with the first and with the second auxiliary set."""
        faces = np.stack([self._face_table(key) for key in self.psi_sets])
        self._module.get_global("c_mfaces").copy_from_host(faces.ctypes.data, faces.nbytes)

    def _upload_events(self) -> None:
        ev = np.dtype([("src_off", "u8", 2), ("src_cell", "u8", 2), ("src_meta", "u8", 2),
                       ("src_val", "u8", 2), ("src_cols", "i4", 2), ("prb_off", "u8"),
                       ("prb_cell", "u8"), ("prb_meta", "u8"), ("prb_col", "u8"),
                       ("grp_ring", "u8"), ("grp_every", "u8"), ("grp_rows", "u8"),
                       ("grp_count", "u8"), ("plane_flags", "u8")], align=True)
        host = np.zeros(1, dtype=ev)
        for K in (0, 1):
            t = self._events[f"src{K}"]
            if t is not None:
                for name in ("off", "cell", "meta", "val"):
                    host[f"src_{name}"][0, K] = t[name].data.ptr
                host["src_cols"][0, K] = t["cols"]
        p = self._events["prb"]
        if p is not None:
            for name in ("off", "cell", "meta", "col"):
                host[f"prb_{name}"] = p[name].data.ptr
            for name in ("ring", "every", "rows", "count"):
                host[f"grp_{name}"] = p[name].data.ptr
        host["plane_flags"] = self._events["flags"].data.ptr
        self._module.get_global("c_events").copy_from_host(host.ctypes.data, host.nbytes)

    # ---- launch plans -------------------------------------------------------------------
    def _sectors_fit(self, cfg: tuple) -> bool:
        """Whether march3v's tiles that write whole sectors suit the pass over the grid
        with launch shape ``cfg`` as its box is now (March.lane_sectors)."""
        org, ext = self.pass_box_of(cfg[0])
        return self.variant.lane_sectors(cfg, org[0], ext[0], self.pass_mask(), self.pitch[0])

    def pass_sectors(self, cfg: tuple) -> bool:
        """Whether the pass over the grid with launch shape ``cfg`` runs march3v's tiles
        that write whole sectors: where they suit its box and their instance was compiled
        (_names)."""
        return tuple(cfg[:3]) in self._sector_shapes and self._sectors_fit(cfg)

    def _pass_kernel(self, cfg: tuple, box: tuple | None = None, mask: int = 0,
                     full: bool | None = None) -> PassKernel:
        """The launch (PassKernel) of the pass with launch shape ``cfg`` (over ``box``,
        (origin, extent), with the CPML terms of ``mask``; over ``pass_box`` when None;
        ``full``: the instance for passes of cfg[0] steps, see full_pass; None: the one a
        pass of cfg[0] steps runs), worked out once per shape and box."""
        key = self._kernel_key(cfg, box, mask, full)
        full = key[3]
        if key not in self._pass_kernels:
            from ...exceptions import KernelError

            v = self.variant
            mask = self.pass_mask() if box is None else mask
            org, ext = box or self.pass_box_of(cfg[0])
            al = box is None and self.pass_sectors(cfg)
            shape = box is None and v.lean_shape(cfg)   # the lean pass's launch shape
            lean = shape and al and full and self.const_table and all(ext)
            name = v.kernel("pass", cfg, *self._tparams, mask, al, full, lean)
            try:
                fn = self._fn(name)
            except KernelError:
                if box is not None:   # the boxes' shapes follow the pass's: not a user's
                    raise
                raise KernelError(f"launch shape {','.join(map(str, cfg))} was not compiled "
                                  "for this stepper (it holds the pass of the shape it runs); "
                                  "build one with launch={'pass': shape} to run another") from None
            lcfg = v.lean_general(cfg) if shape and not lean else cfg
            grid, block, seg = v.launch(lcfg, ext, mask, org[0] if al else None)
            smem = v.shared_bytes(cfg, *self._tparams[1].split(", "), mask)   # march3f only
            smem += lean_bytes(name, self._tparams[1].split(", ")[0])
            extra, blocks = (), None
            if lean:   # lean3v's blocks, and march3v's beside them (see _lean_side)
                ids_smem = smem + self._lean_ids_bytes(cfg)   # lean3v's instance with ids
                mark = self._lean_mark(ids_smem, self._shared_limit())
                zmask = self._lean_walls_mask() if self._walls_at_ends(cfg[0]) else None
                blocks = self._lean_blocks(cfg, grid, block, seg, org, ext, mark,
                                           zmask is not None)
                self._lean_side[key] = self._lean_general(cfg, blocks, grid, org, ext)
                # and the table's rows (IDS), the walls' zmask (WL)
                extra = (blocks, _i32(self.R), np.uint64(0) if zmask is None else zmask)
                ids = walls = None
                if bool((blocks == 3).any()):   # lean3v's instance with ids (_lean_ids)
                    ids_fn = self._fn(lean_ids_kernel(name))
                    _allow_shared(ids_fn, ids_smem)
                    ids = PassKernel(ids_fn, grid, block, seg, ids_smem, extra, blocks)
                if bool((blocks == 4).any()):   # its walls' instance (_lean_walls)
                    walls_fn = self._fn(lean_walls_kernel(name, self._walls_pmc))
                    _allow_shared(walls_fn, smem)
                    walls = PassKernel(walls_fn, grid, block, seg, smem, extra, blocks)
                self._lean_ids[key] = ids
                self._lean_walls[key] = walls
            elif shape:   # march3v over the lean pass's general tiles alone
                extra = (np.uint64(0),)
            elif name.startswith("march3v<"):   # its last argument: the bytes, or a null pointer
                if al and all(grid):
                    blocks = self._one_material(name, grid, block, seg, org, ext)
                extra = (np.uint64(0),) if blocks is None else (blocks,)
            _allow_shared(fn, smem)
            self._pass_kernels[key] = PassKernel(fn, grid, block, seg, smem, extra, blocks)
        return self._pass_kernels[key]

    def _kernel_key(self, cfg: tuple, box: tuple | None, mask: int, full: bool | None) -> tuple:
        """The key of _pass_kernels and _lean_side for _pass_kernel's arguments (``full``
        None: that of the passes of cfg[0] steps over the grid)."""
        if full is None:
            full = box is None and self.full_pass(cfg)
        return (cfg, box, mask, full)

    def _lean_ids_bytes(self, cfg: tuple) -> int:
        """The dynamic shared memory lean3v's march with ids (IDS in march3v.cu) takes past
        its planes: the table's rows and a ring of cfg[0] + 1 words of 2 ids a lane."""
        return (self._table_host.nbytes
                + (cfg[0] + 1) * 32 * cfg[2] * 2 * self.id_dtype.itemsize)

    def _lean_mark(self, smem: int = 0, limit: int | None = None) -> int:
        """The id lean3v_one takes as a source's or probe's cell (one no cell holds: the
        table's row count), or -1 where no block may run lean3v's march with ids: where the
        ids take every value of their type, or where that instance's ``smem`` bytes of
        dynamic shared memory (and a kB for its static ones) pass ``limit``, the most a
        block may take on the device (None: no limit)."""
        if self.R >= 1 << 8 * self.id_dtype.itemsize:
            return -1
        if limit is not None and smem + 1024 > limit:
            return -1
        return self.R

    def _shared_limit(self) -> int:
        """The most shared memory a block may take on this stepper's device, when asked
        for (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 kB on an H100 or H200)."""
        cp = self._cp
        got = cp.cuda.Device().attributes.get("MaxSharedMemoryPerBlockOptin")
        if got is None:   # the attribute by its number in the runtime's enumeration
            got = cp.cuda.runtime.deviceGetAttribute(97, cp.cuda.Device().id)
        return int(got)

    def _lean_walls_mask(self):
        """The zmask of lean3v's walls' march (WL in march3v.cu: nx + ny + nz bytes, the
        components kept zero in each column along x, row along y and plane along z, and the
        differences along that axis doubled: wall_masks), or None where no block takes it:
        where an axis is periodic, and (with $YEEFDTD_LEAN_WALLS ``grid``) where the grid
        is not one material with walls: a cell holds a combination of materials with a
        component whose coefficients are neither row 0's nor all zero nor (E, a PMC wall's)
        row 0's with a difference's doubled, or whose zero components and doubled
        differences are not its column's, row's and plane's (wall_rows, wall_masks). With
        ``cone`` (the default), on such a grid, the masks of wall_masks' loose reading and,
        in _walls_rows, each combination's code (wall_rows: WALL_OTHER for those of other
        materials) for lean3v_one to check each block's cone against them. Found once,
        with _walls_pmc: the axes whose masks double some difference (a PMC wall's; the
        instance with WP runs the blocks then). (A pass takes it only where it reaches a
        grid end, _walls_at_ends.)"""
        from .experiments import lean_walls

        if self._walls_mask is False:
            out = rows = None
            how = lean_walls()
            if self.model.grid.mode == "3d" and not any(self.model.grid.periodic) and \
                    how != "off":
                nx, ny, nz = self.shape
                zr = wall_rows(self._table_host, self.order)
                cells = self._cells[:nx, :ny, :nz]
                parts = wall_masks(cells, zr)
                if parts is None and how == "cone":
                    parts = wall_masks(cells, zr, loose=True)
                    rows = self._dev(zr)
                if parts is not None:
                    host = [self._cp.asnumpy(p) for p in parts]
                    self._walls_pmc = sum(1 << b for b in range(3) if (host[b] >> 6).any())
                    host = np.concatenate(host)
                    out = self._dev(host)
            self._walls_mask, self._walls_rows = out, rows
        return self._walls_mask

    def _walls_at_ends(self, nt: int) -> bool:
        """Whether the pass of ``nt`` steps reaches an end of the grid that no CPML box
        takes (an end without a layer, or one pass_box_of does not take off: layer_ends):
        only there may a lean block's cone cross the grid's ends, the
        blocks the walls' march is for. Where it does not (3D layers in boxes on every
        face, as dipole-cpml's), the walls' instance is neither compiled nor launched: a
        block that it might also run is then the march with ids', exact either way."""
        if self.model.grid.mode != "3d":
            return False
        if self.cpml_mode not in ("boxes", "xboxes"):
            return True
        ends = self.layer_ends(nt)
        for b in range(3):
            inset = ends[b] is not None and (b == 0 or self.cpml_mode == "boxes")
            if not inset or ends[b][0] == 0 or ends[b][1] >= self.shape[b]:
                return True
        return False

    def _lean_finder(self, cfg: tuple) -> str:
        """The lean3v_one instance for the lean pass of launch shape ``cfg``."""
        return f"lean3v_one<{self._tparams[2]}, {cfg[0]}, 2, {cfg[2]}>"

    def _lean_blocks(self, cfg: tuple, grid: tuple, block: tuple, seg: int, org: tuple,
                     ext: tuple, mark: int, walls: bool = False):
        """One byte a block of lean3v's launch (grid, block, segment, box) of the lean
        pass of launch shape ``cfg``: nonzero where the block runs lean3v (every cell its
        owned cells' values depend on in the grid without wrapping, and none a source's or
        a probe's; every cell its tile reads in the arrays): 1 where those cells hold id 0,
        2 of those where a lane owns one of its 2 cells, 3 where they hold other ids and
        every lane owns both of its cells or none, 4 (with ``walls``: the grid is one
        material with walls, _lean_walls_mask) the other blocks whose cells hold no
        source's or probe's and whose lanes own both of their cells or none (lean3v_one in
        march3v.cu; ``mark``: see _lean_mark, -1 for none of byte 3 or 4: where the march
        with ids' shared memory does not fit, the walls' march is off too, a cost, not an
        error)."""
        cp = self._cp
        lean = cp.zeros(int(np.prod(grid)), dtype=cp.uint8)
        cells = self._cells
        if len(self._event_cells[0]):   # a copy, with those cells made the mark
            cells = cells.copy(order="F")   # the kernel reads the pitched layout
            cells[tuple(cp.asarray(a) for a in self._event_cells)] = mark if mark >= 0 else 1
        nx, ny, nz = self.shape
        px, py = self.pitch
        rows = self._walls_rows if walls else None   # with "cone": each cone checked
        null = np.uint64(0)
        args = (cells, *[_i32(q) for q in (nx, ny, nz, px, py, seg, *org, *ext)], lean,
                _i32(mark), _i32(int(walls)), null if rows is None else rows,
                null if rows is None else self._walls_mask)
        self._fn(self._lean_finder(cfg))(grid, block, args)
        cp.cuda.get_current_stream().synchronize()   # before a pass on any stream reads it
        return lean

    def _lean_general(self, cfg: tuple, lean, grid: tuple, org: tuple,
                      ext: tuple) -> PassKernel:
        """The launch of march3v (its last argument: a byte a block) beside the lean pass of
        launch shape ``cfg`` (its tiles of LEAN_GENERAL_ROWS rows, whose owned rows split
        those of lean3v's, ``grid``): a block's byte is its lean tile's, where lean3v runs
        it and march3v's block returns."""
        v = self.variant
        gcfg = v.lean_general(cfg)
        name = v.kernel("pass", cfg, *self._tparams, self.pass_mask(), True, True)
        fn = self._fn(name)
        ggrid, gblock, seg = v.launch(gcfg, ext, self.pass_mask(), org[0])
        per = v.owned(cfg, sectors=True)[1] // v.owned(gcfg, sectors=True)[1]
        skip = lean.reshape(grid[2], grid[1], grid[0]).repeat(per, axis=1)[:, :ggrid[1]]
        smem = lean_bytes(name, self._tparams[1].split(", ")[0])
        _allow_shared(fn, smem)
        return PassKernel(fn, ggrid, gblock, seg, smem,
                          (self._cp.ascontiguousarray(skip).ravel(),))

    def _block_bytes(self, cfg: tuple):
        """The bytes a block of the pass with launch shape ``cfg`` (march3v_one's or
        lean3v_one's), or None."""
        if not all(self.pass_box_of(cfg[0])[1]):
            return None
        blocks = self._pass_kernel(cfg).blocks
        return None if blocks is None or not blocks.size else blocks

    def one_material_share(self, cfg: tuple) -> float:
        """The share of the blocks of the pass with launch shape ``cfg`` whose cells all hold
        row 0 of the table: flagged to run as a pass of one material (march3v.cu, "One
        material"; its whole-sector tiles only), unless compiled with -DMARCH_UNIFORM=0."""
        blocks = self._block_bytes(cfg)
        if blocks is None:
            return 0.0
        return float(((blocks == 1) | (blocks == 2)).mean())   # march3v's: 1; lean3v's: 1, 2

    def lean_ids_share(self, cfg: tuple) -> float:
        """The share of the blocks of the lean pass with launch shape ``cfg`` that run
        lean3v's march with ids (byte 3 of lean3v_one; 0 for other passes)."""
        return self._lean_share(cfg, 3)

    def lean_walls_share(self, cfg: tuple) -> float:
        """The share of the blocks of the lean pass with launch shape ``cfg`` that run
        lean3v's walls' march (byte 4 of lean3v_one; 0 for other passes)."""
        return self._lean_share(cfg, 4)

    def _lean_share(self, cfg: tuple, byte: int) -> float:
        blocks = self._block_bytes(cfg)
        if blocks is None or not self.lean_pass(cfg):
            return 0.0
        return float((blocks == byte).mean())

    def _one_material(self, name: str, grid: tuple, block: tuple, seg: int, org: tuple,
                      ext: tuple):
        """One byte a block of the march3v launch ``name`` (grid, block, segment, box; its
        tiles that write whole sectors): 1 where every id the block's pass loads is 0, so
        that it runs the pass of one material ("One material" in march3v.cu); found by
        march3v_one over the same launch."""
        cp = self._cp
        one = cp.zeros(int(np.prod(grid)), dtype=cp.uint8)
        nx, ny, nz = self.shape
        px, py = self.pitch
        args = (self._cells, *[_i32(q) for q in (nx, ny, nz, px, py, seg, *org, *ext)], one)
        self._fn(one_material_kernel(name))(grid, block, args)
        cp.cuda.get_current_stream().synchronize()   # before a pass on any stream reads it
        return one

    def full_pass(self, cfg: tuple) -> bool:
        """Whether the passes over the grid with launch shape ``cfg`` that take all its
        steps run an instance with the steps as a constant (FULL in march.cu, march3v.cu):
        2D passes without CPML terms, and 3D passes of march3v's whole-sector tiles. With
        the y layers' terms march2 takes 180 registers against 168, and 2 blocks fit an SM
        instead of 3 (H100, tmz-2d-cpml 8192 float32: 244 212 Mcells/s tuned, against
        259 028 without FULL); march3v's tiles of 60 cells ran 3% slower with it."""
        if cfg not in self._full:   # asked at every pass: worked out once per shape and box
            self._full[cfg] = (self.pass_sectors(cfg) if self.model.grid.mode == "3d"
                               else not self.pass_mask())
        return self._full[cfg]

    def _pass_launch(self, cfg: tuple, nt: int, n0: int, src: int, f: dict, g: dict,
                     box: tuple | None = None, mask: int = 0, side: bool | str = False) -> tuple:
        """The launch of the pass with launch shape ``cfg`` (``side``: march3v's beside
        lean3v's, see _lean_side; "ids": lean3v's with ids, see _lean_ids; "walls": its
        walls' march, see _lean_walls)."""
        nx, ny, nz = self.shape
        px, py = self.pitch
        full = None if nt == cfg[0] else False
        k = self._pass_kernel(cfg, box, mask, full)
        if side:
            held = {"ids": self._lean_ids, "walls": self._lean_walls}.get(side, self._lean_side)
            k = held[self._kernel_key(cfg, box, mask, full)]
        fn, grid, block, seg, smem = k.fn, k.grid, k.block, k.seg, k.smem
        if self.model.grid.mode == "3d":
            org, ext = box or self.pass_box_of(cfg[0])
            sizes = (_i32(nx), _i32(ny), _i32(nz), _i32(px), _i32(py))
            where = (*[_i32(o) for o in org], *[_i32(e) for e in ext])
        else:   # the columns the tiles own
            org, ext = box or ((0, 0, 0), self.shape)
            sizes, where = (_i32(nx), _i32(ny), _i32(px)), (_i32(org[0]), _i32(ext[0]))
        if self.staged:   # march3f takes its shared bytes, for its check, for nt
            nt = smem
        args = (*[f[c] for c in self.order], *[g[c] for c in self.order], self._cells,
                self._gtab, *sizes, _i32(nt), _i32(seg), *where, _i32(src), np.int64(n0),
                *k.extra)
        return (fn, grid, block, args, smem)

    def _main_launch(self, cfg: tuple, nt: int, n0: int, src: int, f: dict,
                     g: dict) -> list:
        """The pass over pass_box_of(cfg[0]): one launch, or none where the boxes beside it
        hold every cell (a grid barely thicker than its layers)."""
        if not all(self.pass_box_of(cfg[0])[1]):
            return []
        out = [self._pass_launch(cfg, nt, n0, src, f, g)]
        if self._lean_side and self.lean_pass(cfg, nt):   # march3v beside lean3v
            out.append(self._pass_launch(cfg, nt, n0, src, f, g, side=True))
        return out

    def _beside_launches(self, cfg: tuple, nt: int, n0: int, src: int, f: dict,
                         g: dict) -> list:
        """The pass's launches that may run at once with its others, on the CPML boxes'
        streams where they have them, on streams of their own where the grid has no boxes
        (see advance): lean3v's instance with ids over its blocks of byte 3 (_lean_ids),
        its walls' instance over those of byte 4 (_lean_walls). As a launch of its own
        after lean3v's, on the same stream, the 8% of dipole-cpml's blocks with ids (two or
        three waves of one block an SM) took 0.16 ms a step, against 0.085 as a branch of
        lean3v's launch, which slowed the others' march (H200, 512 float32, 3,64,24,64; see
        lean3v in march3v.cu)."""
        if not (self._lean_side and self.lean_pass(cfg, nt)):
            return []
        key = self._kernel_key(cfg, None, 0, None)
        return [self._pass_launch(cfg, nt, n0, src, f, g, side=side)
                for side, held in (("ids", self._lean_ids), ("walls", self._lean_walls))
                if held[key] is not None]

    def lean_pass(self, cfg: tuple, nt: int | None = None) -> bool:
        """Whether a pass of ``nt`` steps (None: cfg[0]) with launch shape ``cfg`` runs
        lean3v over some of its blocks and march3v over the others (the lean pass:
        March.lean_shape, passes of all its steps, whole-sector tiles, the table in
        constant memory)."""
        nt = cfg[0] if nt is None else nt
        if nt != cfg[0] or not self.variant.lean_shape(cfg) or not all(self.pass_box_of(nt)[1]):
            return False
        self._pass_kernel(cfg)
        return self._kernel_key(cfg, None, 0, None) in self._lean_side

    def _box_launches(self, cfg: tuple, nt: int, n0: int, src: int, f: dict,
                      g: dict) -> list:
        """The CPML kernel over each box after a pass of ``nt`` steps without the CPML
        terms (same source and destination sets: it reads only the source set, so its
        result does not depend on the pass's, which it replaces in the box)."""
        if self.cpml_mode not in ("boxes", "xboxes"):
            return []
        if cfg not in self._box_plan:   # planned once per pass shape, not at every pass
            self._box_plan[cfg] = [(self.box_config(cfg, a, ext), (org, ext), mask)
                                   for org, ext, a, mask in self.march_boxes(cfg[0])]
        out = []
        for bcfg, box, mask in self._box_plan[cfg]:
            z = self._lean_face(nt, box, mask) if nt == cfg[0] else None
            if z is not None:   # lean3f over the box
                out.append(self._lean_face_launch(nt, box, n0, src, f, g, *z))
            else:
                out.append(self._pass_launch(bcfg, nt, n0, src, f, g, box, mask))
        return out

    #: lean3f (march3v.cu): the steps a pass it is compiled for, its tiles' rows (32 x
    #: LEAN_FACE_ROWS threads; the x faces' box LEAN_X_ROWS, 80 registers at 3 steps) and its
    #: z segments where a box does not wrap along z. The y faces' box of dipole-cpml 512
    #: took 0.139 ms a step with segments of 32, 64 and 128 alike (H200, alone). Beside the
    #: pass, long segments win though they leave a box few blocks: dipole-cpml 512 float32
    #: at 3,64,24,64 (H200, 300 steps, whole steps) took 1.306-1.309 ms a step with the x
    #: box and the edges (under 264 blocks at 64 planes) on segments of 16, 1.285 with the
    #: x box on 64, 1.279 on 128, 1.282 on 256, and 1.263-1.264 with every box on 64.
    LEAN_FACE_STEPS = (2, 3)
    LEAN_FACE_ROWS = 16
    LEAN_X_ROWS = 24
    LEAN_SEGMENT = 64

    def _lean_face_allowed(self, fm: int) -> bool:
        """Whether this stepper may run lean3f over its CPML box with the terms of ``fm`` (1
        x, 2 y, 4 z): 3D 'temporal' with its layers in boxes, float arithmetic (on float or
        16-bit values), the table in constant memory, layers on a face of each of fm's axes
        ($YEEFDTD_LEAN_FACES: the boxes whose axes it names)."""
        from .experiments import lean_faces

        if not (self.model.grid.mode == "3d" and self.variant.name == "temporal"
                and self.cpml_mode == "boxes"
                and self._tparams[1] in ("float, float", "float, half_t") and self.const_table):
            return False
        axes = [a for a in range(3) if fm >> a & 1]
        return bool(axes) and all(a in lean_faces() and
                                  any(e["slab"].axis == a for e in self._slabs) for a in axes)

    @staticmethod
    def _lean_face_lanes(fm: int) -> int:
        """Cells a lane of lean3f with the terms of ``fm``: one with the x terms or two axes
        of terms or more (2 with the y and z terms spilled 316 bytes at 128 registers),
        two for the y or the z terms alone."""
        return 2 if fm in (2, 4) else 1

    def _lean_face_name(self, nt: int, fm: int, zw: int = 0) -> str:
        """lean3f's instance for passes of ``nt`` steps with the terms of ``fm`` and the
        walls of ``zw`` (_lean_face_zw), with WP the axes along which it doubles the
        differences its masks say (_lean_face_doubles)."""
        rows = self.LEAN_X_ROWS if fm == 1 else self.LEAN_FACE_ROWS
        wp = self._lean_face_doubles(fm, zw)
        tail = f", {zw}, {wp}>" if wp else f", {zw}>" if zw else ">"
        return (f"lean3f<{self._tparams[1]}, {self._tparams[2]}, true, {nt}, "
                f"{self._lean_face_lanes(fm)}, {rows}, {fm}" + tail)

    def _lean_face_doubles(self, fm: int, zw: int) -> int:
        """WP of lean3f with the terms of ``fm`` and walls ``zw`` (march3v.cu): the axes of
        fm and zw (whose masks it reads) along which some row of the grid's table doubles a
        difference's coefficient (a PMC wall's, wall_rows), so that grids without a PMC wall
        keep the instances without the doubling's instructions. (A box with fm's axis
        reaches such a wall where its tiles wrap: the x or y layer at the other end.)"""
        if self._face_pmc is None:
            axes = 0
            for c in wall_rows(self._table_host, self.order):
                if c == WALL_OTHER:
                    continue
                real = int(c) & 0xFC0 & ~sum(bits for a, bits in enumerate(WALL_DOUBLES)
                                             if int(c) >> a & 1)
                axes |= sum(1 << s for s in range(3) if real >> (6 + 2 * s) & 3)
            self._face_pmc = axes
        return self._face_pmc & (zw | fm)

    def _lean_face_zw(self, nt: int, box: tuple, fm: int) -> int:
        """lean3f's ZW for ``box`` at ``nt`` steps with the terms of ``fm`` (see lean3v_run
        in march3v.cu): the axes without fm's terms along which the box's cone crosses an
        end of the grid (no CPML layer there: a wall's, such as a ground plane's or a
        symmetry plane's), or, along x, its tiles start before the grid (lean3v's tiles
        start on a multiple of 8 cells, less their halo): there the cells off the grid are
        taken as zero and the walls' masks kept. Never along a periodic axis (the wrapped
        values are the physics there), nor one the box itself crosses (its lanes off the
        grid would store through the first column or row). 0 with
        $YEEFDTD_LEAN_FACE_WALLS=off."""
        from .experiments import lean_face_walls

        if not lean_face_walls():
            return 0
        out = 0
        periodic = self.model.grid.periodic
        for b in range(3):
            o, e, n = box[0][b], box[1][b], self.shape[b]
            if fm >> b & 1 or periodic[b] or o < 0 or o + e > n:
                continue
            if o - nt < 0 or o + e + nt > n:
                out |= 1 << b
        if not fm & 1 and not periodic[0] and box[0][0] >= 0 and \
                box[0][0] + box[1][0] <= self.shape[0] and \
                self._lean_face_tiles_x(nt, box, fm)[1] < 0:   # lean3v's tiles before x = 0
            out |= 1
        return out

    def _lean_face_tiles_x(self, nt: int, box: tuple, fm: int) -> tuple[int, int, int]:
        """(tiles, first cell, last cell) along x of lean3f's launch over ``box`` at ``nt``
        steps with the terms of ``fm``: 32 lanes of one cell overlapping by nt, or lean3v's
        tiles of 2 cells a lane (from a multiple of 8 cells, less their halo)."""
        ox, bnx = box[0][0], box[1][0]
        if self._lean_face_lanes(fm) == 1:
            w = 32 - 2 * nt
            gx = _ceil(bnx, w)
            return gx, ox - nt, ox + (gx - 1) * w + 31 - nt
        by = self.LEAN_X_ROWS if fm == 1 else self.LEAN_FACE_ROWS
        w = self.variant.lane_owned((nt, 64, by, 0), True)
        hx = (64 - w) // 2
        gx = _ceil(bnx + ox % 8, w)
        return gx, ox - ox % 8 - hx, ox - ox % 8 + (gx - 1) * w + 63 - hx   # last lane's last

    def _lean_face(self, nt: int, box: tuple, fm: int) -> tuple | None:
        """(function, grid, block, z segment, dynamic shared bytes, zmask) of lean3f over the
        CPML box ``box`` (origin, extent; it wraps along the axes of ``fm``, its CPML mask)
        in passes of ``nt`` steps, or None where march3 runs it: lean3f's conditions (see
        lean3f in march3v.cu) checked on the host over the box's cone (the box widened by
        ``nt`` cells along each axis, within the grid along those not in fm): every cell of
        the cone holds a combination of materials whose coefficients are row 0's or all
        zero component by component, the zero ones a column's, a row's and a plane's along
        fm's axes (zmask), no source or probe lies in it, and every cell the tiles read lies
        in the fields' and the auxiliary values' arrays."""
        key = (nt, box, fm)
        if key in self._zlean:
            return self._zlean[key]
        out = None
        if nt in self.LEAN_FACE_STEPS and self._lean_face_allowed(fm):
            zw = self._lean_face_zw(nt, box, fm)
            grid, block, seg, fits = self._lean_face_geometry(nt, box, fm, zw)
            zmask = self._lean_face_mask(nt, box, fm, zw) if fits else None
            if zmask is not None:
                name = self._lean_face_name(nt, fm, zw)
                fn = self._fn(name)
                smem = lean_bytes(name, "float")
                _allow_shared(fn, smem)
                out = (fn, grid, block, seg, smem, zmask)
        self._zlean[key] = out
        return out

    def _lean_face_geometry(self, nt: int, box: tuple, fm: int, zw: int = 0) -> tuple:
        """(grid, block, z segment) of lean3f over ``box`` at ``nt`` steps with the terms of
        ``fm``, and whether every cell its tiles read lies in the arrays (see lean3f: the
        pieces along z, wrapping along x and y; with ``zw``, _lean_face_zw, no cell off the
        grid along its axes is read)."""
        (_, oy, oz), (_, bny, bnz) = box
        px, py = self.pitch
        nx, ny, nz = self.shape
        by = self.LEAN_X_ROWS if fm == 1 else self.LEAN_FACE_ROWS
        gx, first_x, last_x = self._lean_face_tiles_x(nt, box, fm)
        gy = _ceil(bny, by - 2 * nt)
        first_y, last_y = oy - nt, oy + (gy - 1) * (by - 2 * nt) + by - 1 - nt
        hi, lo = min(nz, oz + bnz), oz + bnz - nz   # the pieces along z: oz .. hi, 0 .. lo
        if fm & 4 and lo > 0:   # a box wrapping along z: its two pieces whole
            seg, per = 0, max(hi - oz, lo, 1)
        else:   # $YEEFDTD_LEAN_SEGMENT: others, for comparison
            from .experiments import lean_segment

            seg = per = (lean_segment() or (self.LEAN_SEGMENT,) * 2)[fm != 1]
        gz = _ceil(hi - oz, per) + (_ceil(lo, per) if lo > 0 else 0)   # both pieces'
        # (with zw along x or y, a lane or row off the grid reads the grid's first instead)
        fits = (first_x >= -nx and last_x < 2 * nx if fm & 1 else first_x >= 0 or zw & 1) and \
            (first_y >= -ny and last_y < 2 * ny if fm & 2 else first_y >= 0 or zw & 2)
        max_row = ny - 1 if fm & 2 or zw & 2 else last_y
        max_x = nx - 1 if fm & 1 or zw & 1 else last_x
        read = nz - 1 if fm & 4 else oz + bnz + nt - 1   # the last plane the tiles read
        done = nz - 1 if fm & 4 else read - 1            # the last they compute
        if zw & 4:   # (those off the grid are neither read nor their faces' values looked up)
            read, done = min(read, nz - 1), min(done, nz - 1)
        fits = fits and read < nz and max_row * px + max_x + 1 + px * py * read <= px * py * nz
        if fm & 1:   # the x faces' auxiliary values: (i - base) + W (j + ny k)
            fits = fits and max_row + ny * done < ny * nz
        if fm & 2:   # the y faces': i + px (u + L k), one row more (psi_slack)
            fits = fits and (max_x < 2 * px or done < nz - 1)
        if fm & 4:   # the z faces': i + px (j + ny u)
            fits = fits and max_row * px + max_x + 1 <= px * ny
        return (gx, gy, gz), (32, by, 1), seg, fits

    def _lean_face_mask(self, nt: int, box: tuple, fm: int, zw: int = 0):
        """lean3f's zmask over ``box`` at ``nt`` steps with the terms of ``fm`` (a device
        array of nx + ny + nz bytes: along each axis of fm, and z with ``zw``
        (_lean_face_zw), the components kept zero in each column, row or plane), or None
        where lean3f may not run it (see _lean_face; its tiles' reads,
        _lean_face_geometry, are checked there). With zw the cone's planes are those in
        the grid (the kernel takes the others as zero)."""
        org, ext = box
        if any(ext[b] > self.shape[b] for b in range(3)):
            return None
        span = []   # per axis, the cone's cells: along fm's axes wrapped, else in the grid
        for b in range(3):
            n, lo, hi = self.shape[b], org[b] - nt, org[b] + ext[b] + nt
            if b == 2 and fm & 4:   # each piece's planes in the grid (lean3f takes those off
                # its ends as zero): from oz, and from 0 where the box wraps
                wrap = org[2] + ext[2] - n
                planes = set(range(max(lo, 0), min(hi, n)))
                if wrap > 0:
                    planes |= set(range(min(wrap + nt, n)))
                span.append(np.array(sorted(planes)))
            elif fm >> b & 1:
                span.append(np.array(sorted({i % n for i in range(lo, hi)})))
            elif zw >> b & 1:
                span.append(np.arange(max(lo, 0), min(hi, n)))
            elif lo < 0 or hi > n:
                return None
            else:
                span.append(np.arange(lo, hi))
        ev = self._event_cells
        if len(ev[0]) and np.any(np.all([np.isin(ev[b], span[b]) for b in range(3)], axis=0)):
            return None
        cp = self._cp
        cells = cp.asnumpy(self._cells[cp.ix_(*[cp.asarray(s) for s in span])])
        parts = zero_masks(cells, self._table_host, self.order, fm | zw,
                           self._lean_face_doubles(fm, zw))
        if parts is None:
            return None
        mask = [np.zeros(n, dtype=np.uint8) for n in self.shape]
        for b in range(3):
            mask[b][span[b]] = parts[b]
        return self._dev(np.concatenate(mask))

    def _lean_face_launch(self, nt: int, box: tuple, n0: int, src: int, f: dict, g: dict,
                          fn, grid: tuple, block: tuple, seg: int, smem: int, zmask) -> tuple:
        """The launch of lean3f over ``box`` (see _lean_face) for a pass from set ``f``
        (auxiliary set ``src``) to ``g`` from step ``n0``."""
        nx, ny, nz = self.shape
        px, py = self.pitch
        org, ext = box
        args = (*[f[c] for c in self.order], *[g[c] for c in self.order], self._cells,
                self._gtab, *[_i32(q) for q in (nx, ny, nz, px, py, nt, seg, *org, *ext, src)],
                np.int64(n0), zmask)
        return (fn, grid, block, args, smem)

    def _slab_launches(self, n0: int, src: int, f: dict, g: dict) -> list:
        """The slab kernels over the boxes after a one-step pass from set f to set g: slab3,
        H from the old fields, then E from the old E and the new (corrected) H; or slab3m,
        both over each E box. The launches of each source set are built once; only the step
        changes."""
        if not self._boxes["h"]:
            return []
        if src not in self._slab_plan:
            nx, ny, nz = self.shape
            px, py = self.pitch
            common = (self._cells, self._gtab, _i32(nx), _i32(ny), _i32(nz), _i32(px),
                      _i32(py))
            plan = []
            if self.cpml_mode == "slabm":
                fields = [f[c] for c in self.order] + [g[c] for c in self.order]
                for box in self._boxes["e"]:
                    tile = self.SLAB3M_TILES[1 if box[3] <= 16 else 0]
                    zlen = box[5] if box[5] <= self.SLAB3M_ZLEN else 16
                    grid = (_ceil(box[3], tile[0]), _ceil(box[4], tile[1]),
                            _ceil(box[5], zlen))
                    threads = tile[0] * (tile[1] + 1) + 32   # the tile, its halo row, a warp
                    plan.append((self._fn(self._slab3m(tile)), grid, (threads,),
                                 (*fields, *common, *[_i32(b) for b in box], _i32(zlen),
                                  _i32(src))))
            else:
                for half, kind in ((1, "h"), (0, "e")):
                    fn = self._fn(self._slab3(half))
                    hin = f if half else g
                    out = ("hx", "hy", "hz") if half else ("ex", "ey", "ez")
                    fields = (f["ex"], f["ey"], f["ez"], hin["hx"], hin["hy"], hin["hz"],
                              *[g[c] for c in out])
                    for box in self._boxes[kind]:
                        plan.append((fn, (_ceil(box[3] * box[4], 256), box[5]), (256,),
                                     (*fields, *common, *[_i32(b) for b in box], _i32(src))))
            self._slab_plan[src] = plan
        n = np.int64(n0)
        return [(fn, grid, block, (*args, n), 0) for fn, grid, block, args in self._slab_plan[src]]

    #: the most streams the CPML boxes of a pass run on beside it (0: on the pass's stream,
    #: after it; $YEEFDTD_BOX_STREAMS overrides). The pass and the boxes read only the
    #: source set and write disjoint cells of the destination set (see pass_box_of), so
    #: they may run in any order or at once: the small edge boxes then fill the SMs that
    #: the others leave idle.
    BOX_STREAMS = 6

    def _side_streams(self, count: int) -> list:
        """(stream, event) of each stream that the ``count`` CPML box launches of a pass
        take in turn (where pass_disjoint allows it): up to $YEEFDTD_BOX_STREAMS or
        BOX_STREAMS, read when the stepper is built (created once); none where the boxes
        run on the pass's stream."""
        want = min(count, self._box_streams)
        if want <= 0:
            return []
        cp = self._cp
        while len(self._side) < want:
            self._side.append((cp.cuda.Stream(non_blocking=True),
                               cp.cuda.Event(block=False, disable_timing=True)))
        if self._pass_start is None:
            self._pass_start = cp.cuda.Event(block=False, disable_timing=True)
        return self._side[:want]

    def tune_steps(self, nt: int) -> int:
        """Steps a candidate of ``nt`` steps a pass is timed over: the whole passes that fit
        in TUNE_STEPS (one at least). Its times are scaled to TUNE_STEPS steps, since not
        every steps-per-pass choice divides it (2D: 5 a pass runs 10).
        Runs of fewer steps on large grids (4 at 512^3, 2.6 s less tuning from an empty
        cache) chose `fused` shapes 2% slower on an H200 in 3 of 7 sweeps against none of 6
        with 12 (docs/perf/tuner-short-runs-h200-2026-11-27.txt): a shape tuned once runs in
        every later run, so the runs stay long."""
        return nt * max(1, self.TUNE_STEPS // nt)

    def _tune_scale(self, role: str, cfg: tuple) -> float:
        return self.TUNE_STEPS / self.tune_steps(cfg[0])

    def _update_plan(self, role: str, cfg: tuple) -> list:
        """tune_steps steps in passes of the candidate's length (for timing a candidate)."""
        nt = cfg[0]
        out, f, g, src = [], self._f, self._g, self._src
        for _ in range(self.tune_steps(nt) // nt):
            out += self._main_launch(cfg, nt, 0, src, f, g)
            out += self._beside_launches(cfg, nt, 0, src, f, g)
            out += self._box_launches(cfg, nt, 0, src, f, g)
            out += self._slab_launches(0, src, f, g)
            f, g, src = g, f, 1 - src
        return out

    @property
    def tune_as_graph(self) -> bool:
        """Passes are launched from Python (advance), so candidates are timed that way."""
        return False

    def _plan_configs(self, tune, forced: dict) -> None:
        allowed = self.variant.configs("pass", self.shape)
        if "pass" in forced and tuple(forced["pass"])[:3] not in {c[:3] for c in allowed}:
            from ...exceptions import SetupError

            shapes = sorted({",".join(map(str, c[:3])) for c in allowed})
            tile, seg = self.variant.shape_help()
            raise SetupError(f"launch: {self.variant.name!r} has no shape "
                             f"{','.join(map(str, forced['pass']))}; use {tile},{seg} with "
                             f"{tile} one of {' '.join(shapes)}")
        super()._plan_configs(tune, forced)

    def _build_step_plan(self) -> list:
        return []

    def _alloc_sources(self, model) -> None:
        """None: the passes add sources from their event tables (_event_tables), which hold
        the values; the per-group tables of CudaStepper's inject kernel would be a second
        copy that no launch reads (40^3 cells, 200 sources, 5000 steps, float32: 4 MB of
        15.9 held, which build.memory.gpu_memory counts once)."""
        self._sources = {"e": [], "h": []}

    @property
    def steps_per_pass(self) -> int:
        return self.configs["pass"][0]

    # ---- time stepping ------------------------------------------------------------------
    def _steps_to_event(self, n: int) -> int:
        """Steps from n to the next snapshot or to a full probe ring (a pass ends there)."""
        out = 1 << 62
        for snap in self._snaps:
            every = snap["plan"].every
            out = min(out, every - n % every)
        for pg in self._probe_groups:
            out = min(out, (pg["flushed"] + pg["rows"]) * pg["group"].every - n)
        return max(1, out)

    def advance(self, start: int, count: int) -> None:
        start, count = self.check_span(start, count)
        cfg = self.configs["pass"]
        with self._stream:
            n, end = start, start + count
            while n < end:
                nt = min(cfg[0], end - n, self._steps_to_event(n))
                beside = self._beside_launches(cfg, nt, n, self._src, self._f, self._g)
                boxed = self._box_launches(cfg, nt, n, self._src, self._f, self._g)
                boxes = [*beside, *boxed]   # (the pass's blocks beside it: always disjoint)
                side = self._side_streams(len(boxes)) \
                    if self.pass_disjoint(cfg[0]) or not boxed else []
                if side:   # what the boxes wait for: the pass before, not this one
                    self._pass_start.record(self._stream)
                for sfn, sgrid, sblock, sargs, ssmem in (
                        *self._main_launch(cfg, nt, n, self._src, self._f, self._g),
                        *([] if side else boxes),
                        *self._slab_launches(n, self._src, self._f, self._g)):
                    sfn(sgrid, sblock, sargs, shared_mem=ssmem)
                if side:   # the boxes beside the pass, on streams of their own
                    for stream, _ in side:
                        stream.wait_event(self._pass_start)
                    for q, (sfn, sgrid, sblock, sargs, ssmem) in enumerate(boxes):
                        with side[q % len(side)][0]:
                            sfn(sgrid, sblock, sargs, shared_mem=ssmem)
                    for stream, done in side:
                        done.record(stream)
                        self._stream.wait_event(done)
                self._f, self._g = self._g, self._f
                self._src = 1 - self._src
                n += nt
                self._n = n
                self._after_step(n)
        self.steps_done = end

    # ---- description ---------------------------------------------------------------------
    def traffic_bytes_per_cell(self) -> float:
        from .variants import cpml_bytes

        size, ids = self.field_dtype.itemsize, self.id_dtype.itemsize
        steps = self.steps_per_pass
        g = self.model.grid
        passed = int(np.prod(self.pass_box_of(steps)[1])) / g.num_cells   # the pass's cells
        out = self.variant.interior_bytes(g.mode, size, ids, steps) * passed + \
            cpml_bytes(self.model, self.dtype.itemsize, ids, "ids", True) / g.num_cells / steps
        if g.mode == "3d":   # the blocks of one material read no ids (their share of blocks)
            out -= self.one_material_share(self.configs["pass"]) * passed * ids / steps
        # beside the pass: slab3's cells read six fields and an id and write three; the
        # boxes' cells are read and written as in the pass
        if self.cpml_mode == "slabm":   # slab3m: each box's six fields and id read, written
            boxed = sum(b[3] * b[4] * b[5] for b in self._boxes["e"])
            out += boxed * (12 * size + ids) / g.num_cells
        else:
            boxed = sum(b[3] * b[4] * b[5] for kind in ("h", "e") for b in self._boxes[kind])
            out += boxed * (9 * size + ids) / g.num_cells
        if self.cpml_mode in ("boxes", "xboxes"):
            cells = sum(e[0] * e[1] * e[2] for _, e, _, _ in self.march_boxes(steps))
            out += cells * self.variant.interior_bytes(g.mode, size, ids, steps) / g.num_cells
        return out

    def occupancy(self, cfg: tuple | None = None) -> dict:
        """Registers, shared memory and resident blocks per SM of the pass instance of
        ``cfg`` (None: the chosen one)."""
        cp = self._cp
        cfg = cfg or self.configs["pass"]
        # the instance of full passes, which the tuner times (the lean pass: lean3v's)
        k = self._pass_kernel(cfg)
        fn, block, dyn = k.fn, k.block, k.smem
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        threads = int(np.prod(block))
        regs = fn.num_regs
        per_warp = _ceil(max(regs, 1) * 32, 256) * 256
        warps = _ceil(threads, 32)
        by_regs = props["regsPerMultiprocessor"] // (per_warp * warps)
        smem = fn.shared_size_bytes + dyn
        by_smem = props["sharedMemPerMultiprocessor"] // max(smem + 1024, 1)
        by_threads = props["maxThreadsPerMultiProcessor"] // threads
        blocks = max(0, min(by_regs, by_smem, by_threads, 32))
        return {"registers": regs, "shared_bytes": smem, "local_bytes": fn.local_size_bytes,
                "blocks_per_sm": blocks, "sms": props["multiProcessorCount"],
                "occupancy": blocks * warps / (props["maxThreadsPerMultiProcessor"] // 32)}

    #: the segment lengths _refinements offers: from and to these fractions of the sweep's
    #: segments for the best tile, at most WAVE_CANDIDATES of them near each (the nearest),
    #: whose waves are on average at least WAVE_FILL full (blocks / (waves rounded up x
    #: blocks a wave): rows round up into whole segments, so a pass seldom makes a whole
    #: number of waves exactly)
    WAVE_SEGMENTS = (0.6, 1.6)
    WAVE_FILL = 0.9
    WAVE_CANDIDATES = 6

    def _shape_key(self) -> str:
        """2D passes key the tuning cache on the exact shape: the segments _refinements
        picks fit one number of rows (the size class of others would reuse them)."""
        if self.model.grid.mode == "3d":
            return super()._shape_key()
        return "x".join(map(str, self.shape))

    def _refinements(self, role: str, best: tuple) -> list[tuple]:
        """2D passes: the tile of the sweep's best shape with y segments that make the pass
        a whole number of waves of blocks (those resident at once on every SM), nearly:
        see WAVE_SEGMENTS. The sweep's segments (128, 64 rows) are fixed before compiling,
        when the blocks an SM holds are not known, and a last wave that fills part of the
        GPU leaves the rest idle. Measured on an H100 (tmz-2d 8192;
        docs/perf/tmz-2d-waves-h100-2026-11-26.txt): 4 steps a pass, 2 cells a lane and 4
        warps a block (4 blocks per SM): 128 rows make 2368 blocks, 4.48 waves, 285 400
        Mcells/s, and 144 rows 2109 blocks, 3.99 waves, 292 800; 4 cells a lane (3 blocks
        per SM), 128 rows 322 000 and 125 rows 329 000. 3D passes run many waves
        (dipole-cpml 512: about 22), whose last one matters less, beside CPML boxes that take
        the idle SMs, so they keep the sweep's segments."""
        if role != "pass" or self.model.grid.mode == "3d" or not best[3]:
            return []
        try:
            occ = self.occupancy(best)
        except Exception:   # attributes this CuPy does not expose (as in describe)
            return []
        per_wave = occ["blocks_per_sm"] * occ["sms"]
        if per_wave <= 0:
            return []
        grid = self._pass_kernel(best)[1]
        rows = self.pass_box_of(best[0])[1][1]
        across = grid[0] * grid[2]   # blocks a segment
        # around each segment the sweep timed with the best tile, not only the best one:
        # the sweep's short timings rank segments within a few percent of each other by
        # chance, and the best length may lie near another (H100, tmz-2d 8192 'fused',
        # 1000 steps: 53 rows 97 500 Mcells/s, 64 91 900, 128 89 400, 135 91 100; the
        # sweep picked 135 in one tuning and 64 in another, whose refinement found 53:
        # docs/perf/table-h100-2026-11-26-f51e61e.txt). With every anchor, tuned from an
        # empty cache: 'fused' 53 rows, 97 733; 'temporal' 125 as before; float16 once 94
        # rows (392 000 against 396 500 for 187 side by side, within what the short timings
        # tell apart), then 187 in four more tunings, 394 043 to 396 736
        # (docs/perf/tmz-2d-segment-anchors-h100-2026-11-26.txt)
        anchors = sorted({best[3], *(c[3] for c in self.variant.configs(role, self.shape)
                                     if tuple(c[:3]) == tuple(best[:3]) and c[3])})
        lo, hi = self.WAVE_SEGMENTS[0] * anchors[0], self.WAVE_SEGMENTS[1] * anchors[-1]
        fits = []
        for waves in range(1, _ceil(rows * across, per_wave) + 1):   # to segments of 1 row
            segments = waves * per_wave // across
            if segments < 1:
                continue
            seg = _ceil(rows, segments)
            if seg < lo:
                break
            blocks = _ceil(rows, seg) * across
            fill = blocks / (_ceil(blocks, per_wave) * per_wave)
            if seg <= hi and seg >= self.variant.MIN_SEGMENT_2D and fill >= self.WAVE_FILL:
                fits.append((*best[:3], seg))
        fits = list(dict.fromkeys(fits))
        out = []
        for a in [best[3], *(a for a in anchors if a != best[3])]:
            near = sorted(fits, key=lambda c, a=a: abs(math.log(c[3] / a)))
            out += near[:self.WAVE_CANDIDATES]
        return list(dict.fromkeys(out))

    def describe(self) -> dict:
        out = super().describe()
        cfg = self.configs["pass"]
        v = self.variant
        out["steps_per_pass"] = cfg[0]
        if self._slabs:
            out["cpml"] = {"boxes": "beside the pass (boxes)", "slabs": "beside the pass (slab3)",
                           "xboxes": "x layers beside the pass (boxes), the others in it",
                           "slabm": "beside the pass (slab3m)",
                           "inpass": "in the pass"}[self.cpml_mode]
            if self.cpml_mode in ("boxes", "xboxes"):
                out["cpml_boxes"] = []
                for o, e, a, mask in self.march_boxes(cfg[0]):
                    lean = self._lean_face(cfg[0], (o, e), mask)
                    threads = list(lean[2][:2]) if lean else \
                        list(self.box_config(cfg, a, e)[1:3])
                    out["cpml_boxes"].append(
                        {"origin": list(o), "extent": list(e), "threads": threads,
                         "cpml_axes": "".join(c for q, c in enumerate("xyz") if mask >> q & 1),
                         "kernel": "lean3f" if lean else "march3"})
        # the segment launched (March.launch lengthens short ones past CUDA's grid limits)
        org, ext = self.pass_box_of(cfg[0]) if self.model.grid.mode == "3d" else \
            ((0, 0, 0), self.shape)
        seg = v.launch(cfg, ext, self.pass_mask(),
                       org[0] if self.pass_sectors(cfg) else None)[2] if all(ext) else \
            (cfg[3] or self.shape[self.march_axis])
        if self.model.grid.mode == "3d":
            lanes = v.lane_pass(cfg, self.pass_mask())
            sectors = self.pass_sectors(cfg)
            out["tile"] = {"threads": [32 if lanes else cfg[1], cfg[2]],
                           "cells_per_thread": 2 if lanes else 1,
                           "owned_cells": v.owned(cfg, self.pass_mask(), sectors),
                           "z_segment": seg}
            if lanes:
                out["tile"]["whole_sectors"] = sectors
                out["tile"]["one_material_blocks"] = round(self.one_material_share(cfg), 4)
                if v.lean_shape(cfg):   # lean3v's blocks (the share above; those with ids
                    # apart), march3v's tiles
                    out["tile"]["lean_ids_blocks"] = round(self.lean_ids_share(cfg), 4)
                    out["tile"]["lean_walls_blocks"] = round(self.lean_walls_share(cfg), 4)
                    out["tile"]["lean_pass"] = self.lean_pass(cfg)
                    g = v.lean_general(cfg)
                    out["tile"]["general_tile"] = {"threads": [32, g[2]],
                                                   "owned_cells": v.owned(g, 0, sectors)}
            org, ext = self.pass_box_of(cfg[0])
            out["pass_box"] = {"origin": list(org), "extent": list(ext)}
        else:
            out["tile"] = {"cells_per_lane": cfg[1], "warps_per_block": cfg[2],
                           "cells": [32 * cfg[1]], "owned_cells": v.owned(cfg),
                           "y_segment": seg}
        try:
            out["occupancy"] = self.occupancy()
        except Exception:   # attributes this CuPy does not expose: leave them out
            pass
        return out


def _allow_shared(fn, smem: int) -> None:
    """Let kernel ``fn`` take ``smem`` bytes of dynamic shared memory where they and its
    static ones pass the 48 kB a launch gets without asking."""
    if smem + fn.shared_size_bytes > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = smem


#: wall_rows' code: bits 0-5 the components kept zero (0-2 E, 3-5 H); per axis s bits
#: 6 + 2 s (E component (s + 2) % 3's first difference, along s, doubled) and 7 + 2 s (E
#: component (s + 1) % 3's second difference, along s, doubled): the image of a PMC wall
#: normal to s. WALL_DOUBLES[a]: E component a's two bits, set where it is kept zero (either
#: way it stays zero), so that a mask's AND along a line is not cleared by such cells.
WALL_DOUBLES = ((1 << 8) | (1 << 11), (1 << 10) | (1 << 7), (1 << 6) | (1 << 9))
#: wall_rows' code for a row that is none of those (every bit: sets no bit of a mask apart)
WALL_OTHER = 0xFFFF


def _without_zero_doubles(m, s: int):
    """Axis s's mask ``m`` (bits 0-5 zero components, 6-7 differences along s doubled) less
    the doubled bits of E components the same mask keeps zero: they say nothing
    (wall_code_xp sets them again), so that only a PMC wall's masks hold bits 6-7."""
    return m & ~((m >> (s + 2) % 3 & 1) << 6 | (m >> (s + 1) % 3 & 1) << 7).astype(m.dtype)


def wall_code_xp(xp, col, row, plane):
    """The code (wall_rows) of the cells whose column's, row's and plane's masks
    (wall_masks: bits 0-5 zero components, 6-7 the axis's doubled differences) are given
    (broadcastable arrays of module ``xp``, NumPy or CuPy): the union of their zero bits,
    each axis's doubled bits at its place, and WALL_DOUBLES' bits of the E components kept
    zero (as lean3v_one finds it)."""
    col, row, plane = (x.astype(np.uint16) for x in (col, row, plane))
    code = ((col | row | plane) & 63) | (col >> 6) << 6 | (row >> 6) << 8 | (plane >> 6) << 10
    for a, bits in enumerate(WALL_DOUBLES):
        code = code | xp.where(code >> a & 1, bits, 0).astype(np.uint16)
    return code.astype(np.uint16)


def wall_rows(table: np.ndarray, order) -> np.ndarray:
    """Per row of ``table`` ([row, component in ``order``, column]) what lean3v's walls'
    march makes of it from row 0's coefficients (WALL_DOUBLES' code, uint16): the
    components whose coefficients are all zero, and the E components whose first (b) or
    second (c) difference's coefficient is exactly twice row 0's, the others row 0's (a
    PMC wall's tangential E, whose image doubles the difference across the wall: the
    march doubles the difference, which gives the same product bit for bit); WALL_OTHER
    where a component is none of those."""
    table = np.asarray(table)
    zero = ~table.any(axis=2)
    out = np.zeros(len(table), dtype=np.uint16)
    ok = np.ones(len(table), dtype=bool)
    for j, c in enumerate(order):
        same = table[:, j] == table[0, j]
        a = "xyz".index(c[1])
        if c[0] == "e":   # column 1 along b = a + 1, column 2 along c = a + 2
            twice = table[:, j] == 2 * table[0, j]
            b, cc = (a + 1) % 3, (a + 2) % 3
            good = same[:, 0] & (same[:, 1] | twice[:, 1]) & (same[:, 2] | twice[:, 2])
            out |= np.where(good & ~same[:, 1], 1 << (6 + 2 * b), 0).astype(np.uint16)
            out |= np.where(good & ~same[:, 2], 1 << (7 + 2 * cc), 0).astype(np.uint16)
        else:
            good = same.all(axis=1)
        bit = 3 * (c[0] == "h") + a
        out |= np.where(zero[:, j], 1 << bit, 0).astype(np.uint16)
        if c[0] == "e":
            out |= np.where(zero[:, j], WALL_DOUBLES[a], 0).astype(np.uint16)
        ok &= good | zero[:, j]
    return np.where(ok, out, WALL_OTHER).astype(np.uint16)


def zero_masks(cells: np.ndarray, table: np.ndarray, order, fm: int,
               doubles: int = 0) -> list | None:
    """lean3f's zero masks over a box's cone: ``cells`` the cone's cells' rows of
    ``table`` ([row, component in ``order``, column]), indexed [x, y, z]. Per axis (x, y,
    z) the components (bits 0-2 E, 3-5 H) kept zero in each of the cone's columns, rows or
    planes: zero along the axes not in ``fm``, and along those in fm the bits every cell of
    the column, row or plane shares; along the axes of ``doubles`` (some of fm's: WP in
    march3v.cu) also the differences along that axis every cell of it doubles (bits 6-7, as
    wall_masks': a PMC wall's image). None where a cell holds a combination with a
    component whose coefficients are neither row 0's nor all zero (nor, along the axes of
    doubles, an E component's with its difference across the axis's coefficient doubled),
    or where the code of some cell (wall_rows) is not its column's, row's and plane's
    (wall_code_xp)."""
    got = wall_rows(table, order)[cells]
    if (got == WALL_OTHER).any():
        return None
    parts = []
    for b in range(3):   # the bits every cell of a column, row or plane shares
        others = tuple(q for q in range(3) if q != b)
        part = np.zeros(got.shape[b], dtype=np.uint16)
        if fm >> b & 1:
            shared = np.bitwise_and.reduce(got, axis=others)
            part = shared & 63
            if doubles >> b & 1:
                part = _without_zero_doubles(part | (shared >> (6 + 2 * b) & 3) << 6, b)
        parts.append(part.astype(np.uint16))
    whole = wall_code_xp(np, parts[0][:, None, None], parts[1][None, :, None],
                         parts[2][None, None, :])
    return parts if np.array_equal(whole, got) else None


def wall_masks(cells, rows, chunk: int = 64, loose: bool = False) -> list | None:
    """The walls' march's masks (WL in march3v.cu) for the whole grid, on the cells' array's
    device: ``cells`` the cells' ids, indexed [x, y, z] (NumPy or CuPy), ``rows`` wall_rows
    of their table (host). Per axis (x, y, z) a byte per column, row or plane: bits 0-5
    the components every cell of it keeps zero, 6-7 the differences along that axis every
    cell of it doubles (wall_rows' bits 6 + 2 s, 7 + 2 s), the other axes' as zero_masks
    with every axis's; None where a cell's code is not its column's, row's and plane's
    union (wall_code), or holds a row of WALL_OTHER. Taken ``chunk`` planes at a time
    (fewer where a chunk would pass 16M cells), so that its temporaries take a few bytes a
    cell of a chunk, not of the grid. ``loose``: the bits every cell of a column, row or
    plane shares but those of WALL_OTHER (as if every bit were set), never None: where
    the cells are not such a union, each block's cone is checked instead (lean3v_one's
    ``zrow``)."""
    try:
        import cupy

        xp = cupy.get_array_module(cells)
    except ImportError:   # the NumPy backend's machines
        xp = np
    look = xp.asarray(np.asarray(rows, dtype=np.uint16))
    nz = cells.shape[2]
    chunk = max(1, min(chunk, (1 << 24) // max(1, cells.shape[0] * cells.shape[1])))

    def shared(g, axis, s):   # the bits every cell along ``axis`` holds, as axis s's byte
        out = xp.zeros([n for b, n in enumerate(g.shape) if b not in axis], np.uint8)
        for b, at in [(b, b) for b in range(6)] + [(6 + 2 * s, 6), (7 + 2 * s, 7)]:
            out |= ((g >> b) & 1).all(axis=axis).astype(np.uint8) << at
        return out

    col = xp.full(cells.shape[0], 255, np.uint8)
    row = xp.full(cells.shape[1], 255, np.uint8)
    plane = xp.zeros(nz, np.uint8)
    for z in range(0, nz, chunk):
        g = look[cells[:, :, z:z + chunk]]
        if not loose and bool((g == WALL_OTHER).any()):
            return None
        col &= shared(g, (1, 2), 0)
        row &= shared(g, (0, 2), 1)
        plane[z:z + chunk] = shared(g, (0, 1), 2)
    col, row, plane = (_without_zero_doubles(m, s) for s, m in enumerate((col, row, plane)))
    for z in range(0, 0 if loose else nz, chunk):
        g = look[cells[:, :, z:z + chunk]]
        whole = wall_code_xp(xp, col[:, None, None], row[None, :, None],
                             plane[None, None, z:z + chunk])
        if bool((whole != g).any()):
            return None
    return [col, row, plane]


#: the lean passes' kernels (march3v.cu), whose planes are in dynamic shared memory
LEAN_KERNELS = ("lean3v<", "lean3f<")


def lean_bytes(name: str, T: str) -> int:
    """The dynamic shared memory of the instance ``name`` (arithmetic type T): lean3v's
    planes, and march3v's where they go there (march3v_dynamic in march3v.cu); 0 for the
    others."""
    if not name.startswith((*LEAN_KERNELS, "march3v<")):
        return 0
    args = [a.strip() for a in name[name.index("<") + 1:-1].split(",")]
    nt, v, by = (int(a) for a in args[4:7])
    size = {"float": 4, "double": 8}[T]
    planes = (2 + 4 * (nt - 1) + 2 * nt) * 32 * v * (by + 2) * size
    if name.startswith(LEAN_KERNELS) or planes + 8 * (nt + 1) * by > 48 * 1024:
        return planes
    return 0


def lean_ids_kernel(name: str) -> str:
    """The instance of lean3v ``name`` that runs its blocks with ids (IDS in march3v.cu)."""
    return name[:-1] + ", true>"


def lean_walls_kernel(name: str, pmc: int = 0) -> str:
    """The instance of lean3v ``name`` that runs the walls' blocks (WL in march3v.cu), with
    ``pmc`` (a mask of axes) the one that doubles the differences the masks say along
    those axes (WP: a PMC wall's)."""
    return name[:-1] + (f", false, true, {int(pmc)}>" if pmc else ", false, true>")


def one_material_kernel(name: str) -> str:
    """The march3v_one instance of the march3v instance ``name`` (the same template
    arguments)."""
    return name.replace("march3v<", "march3v_one<", 1)


def cpml_mode(variant, layers: bool) -> str:
    """Where a marching stepper updates the CPML layers (see MarchStepper._allocate):
    $YEEFDTD_CPML, else the variant's default ("slabs" for 3D 'fused', "boxes" for the
    other 3D passes, "xboxes" in 2D); "inpass" where there are no layers. The slab kernels
    follow one-step passes of march3f only; 2D takes "xboxes" or "inpass". 3D 'temporal'
    on an H100 (dipole-cpml 512 float32, NT 2, 300 steps): the x layers in boxes 26 506
    Mcells/s against 24 917 with every layer in the pass; since, with a pass without CPML
    terms that fits two blocks per SM (32 x 12: see March.min_blocks) and boxes that leave
    out what the boxes of earlier axes hold (see march_boxes), every layer in boxes 33 283
    (200 steps; the pass 2.65 ms a step, the boxes 1.55) against 28 799 for the x layers
    alone in boxes (32 x 16: the pass 3.96 ms, the boxes 0.77). Then, the pass leaving out
    the boxes' cells (pass_box_of: 2.30 ms) 35 805; the boxes cut into faces with their
    own axis's terms inline and edges (march_boxes: 1.36 ms instead of 1.55, run one after
    another) 37 748; those boxes on streams beside the pass (_side_streams) 40 510."""
    from ...exceptions import SetupError
    from .experiments import cpml_place

    flat = variant.mode != "3d"
    place = cpml_place() or ("xboxes" if flat else "slabs" if variant.staged else "boxes")
    if not layers:
        return "inpass"
    if flat and place not in ("xboxes", "inpass"):
        raise SetupError(f"$YEEFDTD_CPML: {place!r} is for 3D grids; in 2D set it to xboxes "
                         "or inpass, or unset it")
    if place in ("slabs", "slabm") and not variant.staged:
        raise SetupError(f"$YEEFDTD_CPML: {place!r} follows one-step passes of 3D 'fused' "
                         f"only; for {variant.name!r} set it to boxes, xboxes or inpass, or "
                         "unset it")
    return place


def _most_common(keys: np.ndarray):
    """The most common value in a sample of about 65 536 of ``keys`` (None: no keys)."""
    if not keys.size:
        return None
    sample = keys.ravel(order="K")[:: max(1, keys.size // 65536)]
    vals, counts = np.unique(sample, return_counts=True)
    return vals[counts.argmax()]


def _factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of each key in the distinct keys, those keys: the most common in a sample
    first, then the others sorted). Grids are mostly one combination (the background), so
    the distinct keys come from a sample and the cells that differ from its most common
    key, not from sorting every cell."""
    common = _most_common(keys)
    other = keys != common
    rest = keys[other]
    others = np.unique(rest)
    distinct = np.concatenate([np.asarray([common], dtype=keys.dtype), others])
    index = np.zeros(keys.shape, dtype=np.int32)
    index[other] = np.searchsorted(others, rest) + 1
    return index, distinct


def _combinations16(ids: list[np.ndarray], bits: int) -> tuple[np.ndarray, np.ndarray]:
    """_combinations where all the ids pack into one 16-bit key (the common case: a few
    materials, say six ids of 2 bits): the distinct keys are marked in a table of 65536
    entries rather than sorted, and the arrays keep the ids' layout (x fastest), which the
    64-bit path does not. The same cells and combinations as that path, which took 7.0 s
    on dipole-cpml's scene at 512^3 (H100 host), then 0.7 s to lay the result out again;
    this one, 1.35 s in all (docs/perf/setup-time-h100-2026-11-26.txt). The keys are packed,
    marked and looked up in slabs along the last axis longer than one cell (z in 3D, y in
    2D) on threads (host.workers; NumPy works without the interpreter lock), each slab's
    keys found by values_present: 0.30 s with 8 threads on a 16-core host
    (docs/perf/cell-ids-threads-h200-2026-11-26.txt)."""
    from concurrent.futures import ThreadPoolExecutor

    from ... import host
    from ...build.coefficients import values_present

    shape = ids[0].shape
    ax = max((a for a, m in enumerate(shape) if m > 1), default=len(shape) - 1)
    n = shape[ax]
    slabs = host.workers(min(n, CELL_ID_SLABS), 4 * ids[0].size // CELL_ID_SLABS)
    edges = [n * k // slabs for k in range(slabs + 1)]
    parts = [(slice(None),) * ax + (slice(edges[k], edges[k + 1]),) for k in range(slabs)]
    key = np.zeros_like(ids[0], dtype=np.uint16)

    def mark(part):
        k = key[part]
        for a in ids:
            k <<= np.uint16(bits)
            np.bitwise_or(k, a[part], out=k, casting="unsafe")
        return values_present(k, 1 << 16)

    def look_up(part):
        # in the keys' layout, through a temporary of the slab's cells (the slabs together:
        # the cell array once more); np.take with out walks C order (7.6 s at 512^3 over
        # Fortran-ordered keys), and over flat views took 1.07 s against 0.33 (2-core host)
        cell[part] = lut[key[part]]

    with ThreadPoolExecutor(slabs) as pool:
        keys = np.unique(np.concatenate(list(pool.map(mark, parts))))
        common = _most_common(key)   # first: row 0 (see _combinations)
        if common is not None:
            keys = np.concatenate([np.asarray([common], dtype=keys.dtype),
                                   keys[keys != common]])
        lut = np.zeros(1 << 16, dtype=np.uint8 if len(keys) <= 256 else np.uint16)
        lut[keys] = np.arange(len(keys))
        cell = np.empty_like(key, dtype=lut.dtype)
        list(pool.map(look_up, parts))
    out = np.zeros((len(keys), len(ids)), dtype=np.int64)
    for j in reversed(range(len(ids))):   # the last id in the lowest bits
        out[:, j] = keys & ((1 << bits) - 1)
        keys = keys >> bits
    return cell, out


#: the most slabs _combinations16 cuts a grid into, one a thread
CELL_ID_SLABS = 8


def _combinations(ids: list[np.ndarray], rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(per cell, the index of its combination of ``ids`` values; per combination, the ids
    as a row). Every id is below ``rows``. The combination most common in a sample of the
    cells is the first (index 0: march3v runs blocks whose cells all hold it as a pass of
    one material), the others follow in the order of their keys (on the 16-bit path and
    where one 64-bit key holds every id, sorted by the ids). Ids are packed into
    64-bit keys while they fit; when the next would not, the key is replaced by its index
    among the distinct keys so far, and packing goes on above it."""
    bits = max(1, int(rows - 1).bit_length())
    if bits * len(ids) <= 16:
        return _combinations16(ids, bits)
    mask = np.uint64((1 << bits) - 1)
    key = np.zeros(ids[0].shape, dtype=np.uint64)
    used, count = 0, 0
    stages = []   # (ids packed in the stage, the distinct keys of the stage before it)
    before = None
    for a in ids:
        if used + bits > 63:
            idx, distinct = _factorize(key)
            stages.append((count, before))
            before = distinct
            key = idx.astype(np.uint64)
            used, count = max(1, int(len(distinct) - 1).bit_length()), 0
        key <<= np.uint64(bits)
        key |= a.astype(np.uint64)
        used += bits
        count += 1
    stages.append((count, before))
    cell, keys = _factorize(key)
    out = np.zeros((len(keys), len(ids)), dtype=np.int64)
    j = len(ids)
    for count, prev in reversed(stages):   # each stage's ids, last id in the lowest bits
        for _ in range(count):
            j -= 1
            out[:, j] = (keys & mask).astype(np.int64)
            keys = keys >> np.uint64(bits)
        if prev is not None:
            keys = prev[keys.astype(np.int64)]
    return cell, out
