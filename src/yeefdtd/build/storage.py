"""Field storage: the dtype the field arrays are kept in, and the one arithmetic runs in.

``float32`` and ``float64`` store and compute in that type. ``float16`` and ``bfloat16``
store each field value in 16 bits and compute in float32: half the memory traffic of
float32, at the price of one rounding to 16 bits each time a value is stored.

* ``bfloat16`` keeps float32's exponent (no overflow or underflow concerns) with 8
  significant bits (relative rounding error up to 2^-9).
* ``float16`` has 11 significant bits (up to 2^-12) but a narrow range: normal numbers from
  6.1e-5 to 65504. Fields are therefore stored scaled, E / s_E and H / s_H, with s_E the power
  of two that puts a bound on what the sources can write (``field_bound``) at 2^12, and
  s_H = s_E / 512 (close to the free-space impedance, 376.7 ohm, so that E and eta0 H share
  one range). Both scales are powers of two, so scaling itself is exact: only the 16-bit
  rounding remains.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import ValidationError

#: every dtype a run accepts, arithmetic type first
DTYPES = {"float32": "float32", "float64": "float64", "float16": "float32",
          "bfloat16": "float32"}
#: the 16-bit storage formats
STORAGE16 = ("float16", "bfloat16")
#: the largest finite float16
FLOAT16_MAX = 65504.0
#: s_E / s_H for float16 storage: 2^9, the power of two nearest the free-space impedance
H_SHIFT = 9


def compute_dtype(name: str) -> np.dtype:
    """The arithmetic dtype of a run whose fields are stored as ``name``."""
    try:
        return np.dtype(DTYPES[str(name)])
    except KeyError:
        raise ValidationError(f"dtype: {name!r} is not one of {', '.join(DTYPES)}") from None


@dataclass(frozen=True)
class Storage:
    """How a run stores its fields: ``name`` and, for float16, the scales (field = stored
    value * scale) of the E and H components."""

    name: str
    scale_e: float = 1.0
    scale_h: float = 1.0
    #: what a user should hear before the run: sources too weak for 32 or 16 bits
    note: str | None = field(default=None, compare=False)

    @property
    def is16(self) -> bool:
        return self.name in STORAGE16

    def scale(self, component: str) -> float:
        return self.scale_e if component[0] == "e" else self.scale_h

    def largest(self, component: str) -> float:
        """The largest |value| of ``component`` these fields hold (float16: 65504 times its
        scale; float64 and float32 their own)."""
        if self.name == "float16":
            return FLOAT16_MAX * self.scale(component)
        return np.inf if self.name == "float64" else float(np.finfo(np.float32).max)


#: below this field bound (V/m) 32- and 16-bit runs may lose the sources' values: float32's
#: arithmetic is normal down to about 1e-38 (Storage.note says so before such a run)
SMALLEST_BOUND = 1e-30
#: float16's scales stay within 2^-SHIFT_LIMIT .. 2^SHIFT_LIMIT, inside float32's normal range
#: with H's further 2^-H_SHIFT (a bound past them: the values are lost either way)
SHIFT_LIMIT = 100


def storage_for(model, name: str) -> Storage:
    """The storage of ``model``'s fields in ``name`` (see the module's docstring), with a note
    where the sources drive fields too weak for 32 or 16 bits to hold in the model's steps."""
    compute_dtype(name)
    peak = field_bound(model)
    note = strength_note(peak, model.steps, name)
    if name != "float16":
        return Storage(str(name), note=note)
    shift = math.ceil(math.log2(peak)) - HEADROOM if peak > 0 else 0
    shift = max(-SHIFT_LIMIT, min(SHIFT_LIMIT, shift))
    return Storage("float16", 2.0**shift, 2.0 ** (shift - H_SHIFT), note)


def strength_note(peak: float, steps: int, name: str) -> str | None:
    """The note for sources that drive fields of at most ``peak`` V/m (field_bound's) in
    ``steps`` steps stored as ``name``, where 32 or 16 bits may round them to zero; or, in
    any dtype, past the DIVERGENCE_LIMIT at which a run is stopped as diverged (an
    amplitude of 1e45 validated without a word, and the run stopped at its first check)."""
    from ..constants import DIVERGENCE_LIMIT

    if peak > DIVERGENCE_LIMIT:
        up = f"of up to {peak:.3g} V/m" if math.isfinite(peak) else "past any float's range"
        return (f"sources: in these {steps} steps they drive fields {up}, "
                f"past the {DIVERGENCE_LIMIT:.0e} V/m at which a run is stopped as diverged; "
                "lower their amplitudes (the fields are linear in them)")
    if name == "float64" or not 0 < peak < SMALLEST_BOUND:   # 0: no source drives anything
        return None
    return (f"sources: in these {steps} steps they drive fields of at most {peak:.3g} V/m, "
            f"below what {name} holds (about {SMALLEST_BOUND:.0e}), which may round them to "
            "zero or to noise larger than themselves; "
            "raise their amplitudes (the fields are linear in them) or use float64")


#: float16: the sources' field bound is stored at or below 2^12, 16 times below the largest
#: float16 (65504); normal numbers then reach down to about 1e-8 of it
HEADROOM = 12


def field_bound(model) -> float:
    """A bound on |E| (H counted as eta0 H) that the sources alone can produce at the points
    they drive: the sum over steps of what a soft source adds, the largest value a hard one
    sets. Resonances may go past it; float16's headroom above it is 16 times."""
    peak = 0.0
    for grp in model.sources:
        if not grp.values.size:
            continue
        v = np.abs(grp.values)
        with np.errstate(over="ignore"):   # a sum past float's range: not counted (inf)
            v = v.sum(axis=0) if grp.kind == "soft" else v.max(axis=0)
        v = float(v.max()) * (2.0**H_SHIFT if grp.component[0] == "h" else 1.0)
        if math.isfinite(v):
            peak = max(peak, v)
    return peak
