"""Boundary conditions, one per face of the domain."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field, NonNegativeFloat, PositiveInt, Tag, field_validator

from .base import StrictModel

FACES = ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")


class Cpml(StrictModel):
    """Convolutional PML (Roden and Gedney, 2000) with polynomial grading.

    Over the layer's depth u in [0, 1] (0 at its inner face): sigma = sigma_max u^order with
    sigma_max = sigma_factor * 0.8 (order + 1) / (eta0 d n), n the background's index for
    waves across the face (sqrt(eps_r mu_r), per pair of E and H components; build.cpml),
    kappa = 1 + (kappa_max - 1) u^order, alpha = alpha_max (1 - u)^alpha_order. The layer is
    part of the domain (its cells count in the grid) and ends on a PEC wall.
    """

    type: Literal["cpml"] = "cpml"
    cells: PositiveInt = Field(10, description="thickness in cells")
    order: float = Field(3.0, ge=1.0, le=6.0, description="polynomial grading order of "
                         "sigma and kappa")
    sigma_factor: float = Field(1.0, gt=0.0, le=10.0, description="sigma_max as a multiple "
                                "of the optimum 0.8 (order + 1) / (eta d)")
    kappa_max: float = Field(5.0, ge=1.0, le=100.0, description="largest kappa (>= 1)")
    alpha_max: NonNegativeFloat = Field(0.05, le=10.0, description="largest alpha, S/m "
                                        "(complex-frequency shift)")
    alpha_order: float = Field(1.0, ge=0.0, le=6.0, description="grading order of alpha")


def _face_kind(v) -> str:
    return "named" if isinstance(v, str) else "cpml"


#: one face: a named condition, or a CPML (a table of its parameters)
Face = Annotated[
    Annotated[Literal["pec", "pmc", "periodic"], Tag("named")] | Annotated[Cpml, Tag("cpml")],
    Discriminator(_face_kind),
]


#: the conditions a face takes by name
NAMED_FACES = ("pec", "pmc", "periodic", "cpml")


def check_face_name(v) -> None:
    """A ValueError for a string that names no condition: pydantic's own listed 'pec',
    'pmc' and 'periodic' alone (the CPML is the other member of the union)."""
    if isinstance(v, str) and v not in NAMED_FACES:
        raise ValueError(f"input should be 'pec', 'pmc', 'periodic' or 'cpml' (or a table of "
                         f"CPML parameters), not {v!r}")


def _face(v):
    check_face_name(v)
    if v == "cpml":
        return Cpml()
    if isinstance(v, dict) and "type" not in v:
        return {"type": "cpml", **v}
    return v


class Boundaries(StrictModel):
    """What each face of the domain does: 'pec', 'pmc', 'periodic' or a CPML.

    A string 'cpml' means a CPML with the default parameters. Faces left out are CPML in 3D;
    in 2D the z faces do not exist and must be left out. Periodic faces come in pairs.
    """

    x_min: Face | None = Field(None, description="face at x = 0")
    x_max: Face | None = Field(None, description="face at x = nx dx")
    y_min: Face | None = Field(None, description="face at y = 0")
    y_max: Face | None = Field(None, description="face at y = ny dy")
    z_min: Face | None = Field(None, description="face at z = 0 (3D only)")
    z_max: Face | None = Field(None, description="face at z = nz dz (3D only)")

    @field_validator(*FACES, mode="before")
    @classmethod
    def _cpml_shorthand(cls, v):
        return _face(v)

    @classmethod
    def uniform(cls, face, ndim: int = 3) -> Boundaries:
        """The same condition on every face of a grid of ``ndim`` dimensions (2 or 3)."""
        import numpy as np

        from ..exceptions import ValidationError

        # a NumPy integer too (len(shape) of an array's is one), as elsewhere in the API
        whole = isinstance(ndim, int | np.integer) and not isinstance(ndim, bool | np.bool_)
        if not whole or int(ndim) not in (2, 3):
            raise ValidationError(f"ndim: 2 or 3 (the grid's dimensions), not {ndim!r}")
        return cls(**{f: face for f in FACES[: 2 * int(ndim)]})

    def face(self, name: str):
        """The condition on a face, with the default (a CPML) filled in."""
        if not isinstance(name, str) or name not in FACES:
            from ..exceptions import ValidationError

            raise ValidationError(f"face: {name!r} is not a face; use one of "
                                  f"{', '.join(FACES)}")
        v = getattr(self, name)
        return Cpml() if v is None else v

    def kind(self, name: str) -> str:
        v = self.face(name)
        return v if isinstance(v, str) else "cpml"
