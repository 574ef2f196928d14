"""Environment variables that run other kernels or settings than the defaults, for
comparisons (the README lists them; each is documented where it acts). Every one is read
here, and a value that is not understood raises a one-line SetupError that names the
variable and what it takes, rather than being ignored.

- ``YEEFDTD_FUSED``: 3D 'fused' kernel: ``block`` (march3), ``overlap`` (march3f with
  overlapping tiles), ``aligned`` (march3f with aligned tiles, 16-bit storage too).
- ``YEEFDTD_CPML``: where the marching variants update the CPML layers: ``slabs``,
  ``slabm`` ('fused' only), ``boxes``, ``xboxes``, ``inpass``.
- ``YEEFDTD_BOX_STREAMS``: the most streams the CPML boxes of a marching pass run on
  beside it (0 to 16; 0: after the pass, on its stream).
- ``YEEFDTD_STAGES``: march3f's shared-memory stages (3 to 8).
- ``YEEFDTD_SLAB``: ``V,B``, cells per thread and threads per block of the 'indexed' CPML
  boxes.
- ``YEEFDTD_LANE_SECTORS``: march3v's tiles that write whole sectors: ``on`` wherever they
  can run (4-byte values), ``off`` nowhere (default: where they take no more tiles).
- ``YEEFDTD_LANE_PITCH``: 3D 'temporal''s rows in float arithmetic padded to a multiple of
  this many cells (an even number from 2 to 256; default 8 over 4-byte values, 2 over
  16-bit ones).
- ``YEEFDTD_LEAN_FACES``: which of 3D 'temporal''s CPML boxes run on lean3f where they
  may: ``on`` (all, the default), ``off`` (march3 runs them), or axes (``x``, ``yz``,
  ...): the boxes whose CPML terms are those axes' alone.
- ``YEEFDTD_LEAN_SEGMENT``: the z segments of 3D 'temporal''s CPML boxes on lean3f that do
  not wrap along z: ``N`` planes for every such box, or ``X,N``: X for the x faces' box,
  N for the others (1 to 4096; default 64).
- ``YEEFDTD_LEAN_WALLS``: which of 3D 'temporal''s lean passes run their blocks at the
  grid's walls on the walls' march: ``cone`` (the default: where the grid is one material
  with walls, and where it holds objects of other materials each block whose cone is one
  material with walls), ``grid`` (only where the grid is one material with walls), ``off``
  (none).
- ``YEEFDTD_LEAN_FACE_WALLS``: ``on`` (the default) lets 3D 'temporal''s CPML boxes whose
  cone crosses an end of the grid without a layer (a ground plane, a symmetry plane) along
  an axis without their terms run on lean3f, the wall's masks taken; ``off`` leaves them
  to march3.
- ``YEEFDTD_NVRTC_OPTIONS``: more options for the run-time compiler (space-separated).
"""

from __future__ import annotations

import os

from ...exceptions import SetupError


def _raw(name: str) -> str:
    return os.environ.get(name, "").strip()


def choice(name: str, choices: tuple[str, ...]) -> str | None:
    """The value of ``name`` (one of ``choices``), or None when it is unset or empty."""
    raw = _raw(name)
    if not raw:
        return None
    if raw not in choices:
        raise SetupError(f"${name}: {raw!r} is not understood; set it to one of "
                         f"{', '.join(choices)}, or unset it")
    return raw


def integers(name: str, count: int, lo: int, hi: int) -> tuple[int, ...] | None:
    """``count`` comma-separated integers from ``lo`` to ``hi`` in ``name``, or None when it
    is unset or empty."""
    raw = _raw(name)
    if not raw:
        return None
    parts = [p.strip() for p in raw.split(",")]
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != count or not all(lo <= v <= hi for v in values):
        what = "an integer" if count == 1 else f"{count} comma-separated integers"
        raise SetupError(f"${name}: {raw!r} is not understood; set it to {what} from {lo} "
                         f"to {hi}, or unset it")
    return values


def fused_kernel() -> str | None:
    """$YEEFDTD_FUSED: another 3D 'fused' kernel than the default (see March.staged and
    March.aligned in variants.py)."""
    return choice("YEEFDTD_FUSED", ("block", "overlap", "aligned"))


#: where the marching variants may update the CPML layers (see march.cpml_mode)
CPML_PLACES = ("slabs", "slabm", "boxes", "xboxes", "inpass")


def cpml_place() -> str | None:
    """$YEEFDTD_CPML: where the marching variants update the CPML layers, when not the
    default."""
    return choice("YEEFDTD_CPML", CPML_PLACES)


def compiler_options() -> tuple[str, ...]:
    """The options $YEEFDTD_NVRTC_OPTIONS adds (none when unset)."""
    return tuple(_raw("YEEFDTD_NVRTC_OPTIONS").split())


def box_streams(default: int) -> int:
    """$YEEFDTD_BOX_STREAMS: the most streams the CPML boxes of a marching pass run on
    beside it (0: after the pass, on its stream), else ``default``."""
    got = integers("YEEFDTD_BOX_STREAMS", 1, 0, 16)
    return default if got is None else got[0]


def lane_sectors() -> str | None:
    """$YEEFDTD_LANE_SECTORS: ``on`` or ``off`` to run march3v's tiles that write whole
    sectors wherever they can or nowhere, rather than where they take no more tiles."""
    return choice("YEEFDTD_LANE_SECTORS", ("on", "off"))


def lane_pitch(default: int) -> int:
    """$YEEFDTD_LANE_PITCH: the multiple of cells 3D 'temporal''s rows are padded to in float
    arithmetic, else ``default``."""
    got = integers("YEEFDTD_LANE_PITCH", 1, 2, 256)
    if got is None:
        return default
    if got[0] % 2:
        raise SetupError(f"$YEEFDTD_LANE_PITCH: {_raw('YEEFDTD_LANE_PITCH')!r} is not "
                         "understood; set it to an even number from 2 to 256, or unset it")
    return got[0]


def lean_segment() -> tuple[int, int] | None:
    """$YEEFDTD_LEAN_SEGMENT: (the x faces' box's, the other boxes') z segments of lean3f
    over the CPML boxes that do not wrap along z, from ``N`` (both) or ``X,N``; None when
    unset."""
    raw = _raw("YEEFDTD_LEAN_SEGMENT")
    if not raw:
        return None
    try:
        got = tuple(int(p) for p in raw.split(","))
    except ValueError:
        got = ()
    if len(got) not in (1, 2) or not all(1 <= v <= 4096 for v in got):
        raise SetupError(f"$YEEFDTD_LEAN_SEGMENT: {raw!r} is not understood; set it to N or "
                         "X,N (planes, integers from 1 to 4096), or unset it")
    return (got[0], got[-1])


#: $YEEFDTD_LEAN_FACES's values besides on and off: the axes
FACE_SETS = ("x", "y", "z", "xy", "xz", "yz", "xyz")


def lean_walls() -> str:
    """$YEEFDTD_LEAN_WALLS: ``cone`` (the default), ``grid`` or ``off``: where the lean
    pass's blocks at the grid's walls take the walls' march (see MarchStepper.
    _lean_walls_mask)."""
    return choice("YEEFDTD_LEAN_WALLS", ("cone", "grid", "off")) or "cone"


def lean_face_walls() -> bool:
    """$YEEFDTD_LEAN_FACE_WALLS: ``on`` (the default) or ``off``: whether the CPML boxes of
    3D 'temporal' whose cone crosses an end of the grid without a layer (a wall there)
    along an axis without their terms may run on lean3f, with the walls' masks (see
    MarchStepper._lean_face_zw)."""
    return choice("YEEFDTD_LEAN_FACE_WALLS", ("on", "off")) != "off"


def lean_faces() -> tuple[int, ...]:
    """$YEEFDTD_LEAN_FACES: the axes (0 x, 1 y, 2 z) whose CPML terms 3D 'temporal''s boxes
    may take on lean3f (a box of those axes' terms alone runs there where it may; ``on``,
    the default: all; ``off``: none; or the axes' letters)."""
    got = choice("YEEFDTD_LEAN_FACES", ("on", "off", *FACE_SETS))
    if got in (None, "on"):
        return (0, 1, 2)
    return () if got == "off" else tuple("xyz".index(c) for c in got)
