"""Sources: a point excitation of one field component (a line source in 2D)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .base import Component, Index, StrictModel, Vec
from .waveforms import Waveform


class PointSource(StrictModel):
    """Drives one field component at one grid point with ``amplitude * waveform(t)``.

    ``soft`` adds an impressed current through the source term of the update equations:
    ``amplitude`` is an electric current density in A/m^2 for an E component (a current
    moment of amplitude*dx*dy*dz A m in 3D, a line current of amplitude*dx*dy A in 2D) or a
    magnetic current density in V/m^2 for an H component (J and M in curl H = eps dE/dt +
    sigma_e E + J and curl E = -mu dH/dt - sigma_m H - M). ``hard`` sets the field itself
    (V/m or A/m) every step, which reflects whatever arrives there.

    The point is given either by ``position`` (metres, snapped to the nearest grid point of
    that component) or by ``cell`` (an index: the component's point inside that cell).
    """

    _ALTERNATIVES = (("position", "cell"),)

    type: Literal["point"] = "point"
    component: Component = Field(description="the driven component: ex, ey, ez, hx, hy, hz")
    position: Vec | None = Field(None, description="location in metres, [x, y, z] "
                                 "([x, y] in 2D)")
    cell: Index | None = Field(None, description="cell index [i, j, k] ([i, j] in 2D); "
                               "instead of position")
    kind: Literal["soft", "hard"] = Field("soft", description="'soft' (impressed current) "
                                          "or 'hard' (field set)")
    amplitude: float = Field(1.0, description="A/m^2 (soft E), V/m^2 (soft H), V/m (hard E) "
                             "or A/m (hard H)")
    waveform: Waveform = Field(description="time function")

    @model_validator(mode="after")
    def _one_location(self):
        if (self.position is None) == (self.cell is None):
            raise ValueError("give exactly one of 'position' (metres) or 'cell' (index)")
        return self


#: the source types a scene may hold (one so far; ``type`` may be left out)
Source = PointSource
