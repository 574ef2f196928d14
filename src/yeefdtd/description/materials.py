"""Materials: diagonal anisotropic, lossy, electric and magnetic."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field, field_validator

from .base import StrictModel

#: names of the materials every scene has; a scene may not redefine them
BUILTIN_MATERIALS = ("vacuum", "pec", "pmc")
#: the largest relative permittivity or permeability taken (the coefficients square it: a
#: value of 1.4e154 on an object that cuts cells overflowed a float)
MAX_RELATIVE = 1e12


def _triple(v):
    """Accept a scalar (NumPy's too) or a per-axis triple; store a triple."""
    if isinstance(v, np.ndarray):   # a scalar, or a list to count (its length went unsaid)
        v = v.item() if v.ndim == 0 else v.tolist()
    if isinstance(v, (int, float, np.integer, np.floating)) and \
            not isinstance(v, (bool, np.bool_)):
        try:
            return (float(v),) * 3
        except OverflowError:
            raise ValueError("a number too large for a float; give a physical value") from None
    if isinstance(v, (list, tuple)) and len(v) != 3:
        raise ValueError(f"takes one value or three [xx, yy, zz], got {len(v)} ({list(v)})")
    return v


Triple = Annotated[tuple[float, float, float], Field()]


class Material(StrictModel):
    """A linear medium with diagonal tensors: each property is a scalar or [xx, yy, zz].

    The electric field component along an axis sees that axis's eps_r and sigma_e; the
    magnetic component sees mu_r and sigma_m. Relative values below 1 are rejected: the time
    step assumes nothing outruns light in vacuum.
    """

    eps_r: Triple = Field((1.0, 1.0, 1.0), description="relative permittivity (>= 1)")
    mu_r: Triple = Field((1.0, 1.0, 1.0), description="relative permeability (>= 1)")
    sigma_e: Triple = Field((0.0, 0.0, 0.0), description="electric conductivity, S/m (>= 0)")
    sigma_m: Triple = Field((0.0, 0.0, 0.0), description="magnetic conductivity, ohm/m (>= 0)")

    @field_validator("eps_r", "mu_r", "sigma_e", "sigma_m", mode="before")
    @classmethod
    def _scalar_to_triple(cls, v):
        return _triple(v)

    @field_validator("eps_r", "mu_r")
    @classmethod
    def _at_least_one(cls, v):
        if min(v) < 1.0:
            raise ValueError(f"must be >= 1 on every axis (got {list(v)}); values below 1 "
                             "would outrun light in vacuum and break the time step")
        if max(v) > MAX_RELATIVE:
            raise ValueError(f"must be at most {MAX_RELATIVE:g} on every axis (got "
                             f"{list(v)}); no medium comes near it (for a perfect conductor "
                             "use the material 'pec' or 'pmc')")
        return v

    @field_validator("sigma_e", "sigma_m")
    @classmethod
    def _non_negative(cls, v):
        if min(v) < 0.0:
            raise ValueError(f"must be >= 0 on every axis (got {list(v)}); a negative "
                             "conductivity adds energy and the run diverges")
        return v

    def axis(self, a: int) -> tuple[float, float, float, float]:
        """(eps_r, mu_r, sigma_e, sigma_m) seen by field components along axis ``a`` (0, 1
        or 2: x, y, z)."""
        from ..exceptions import ValidationError

        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a <= 2:
            raise ValidationError(f"a: an axis 0, 1 or 2 (x, y, z), not {a!r}"[:200])
        return self.eps_r[a], self.mu_r[a], self.sigma_e[a], self.sigma_m[a]


VACUUM = Material()
