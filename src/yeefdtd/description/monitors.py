"""Monitors: point probes and plane snapshots."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveInt, field_validator, model_validator

from ..constants import MAX_STEPS
from .base import Axis, Component, Index, StrictModel, Vec

#: the most bytes (UTF-8) of a monitor's name
NAME_BYTES = 64


def _file_safe_name(v: str | None, most_bytes: int | None = NAME_BYTES) -> str | None:
    """A monitor's name names an HDF5 group and a plot's file: no '/' or '\\', no control
    characters, not only dots, no spaces at either end, at most ``most_bytes`` bytes in
    UTF-8 (64 characters of 4 bytes each, with the plot's prefix and suffix, were past the
    255 bytes a file's name may have; None: any, as results written before the limit may
    hold)."""
    if v is None:
        return v
    size = len(v.encode("utf-8", "surrogatepass"))
    if most_bytes is not None and size > most_bytes:
        raise ValueError(f"{v[:16]!r}... is {size} bytes in UTF-8; a name takes at most "
                         f"{most_bytes} (it names a plot's file): shorten it")
    if any(c in "/\\" or ord(c) < 32 or ord(c) == 127 for c in v):
        raise ValueError(f"{v!r} holds a slash or a control character; use letters, digits, "
                         "'_', '-' or '.'")
    if v.strip(".") == "" or v != v.strip():
        raise ValueError(f"{v!r} is not a usable name (only dots, or spaces at an end); use "
                         "letters, digits, '_', '-' or '.'")
    return v


class Probe(StrictModel):
    """Records components at one grid point every ``every`` steps.

    Each component is sampled at its own staggered point nearest to ``position`` (or inside
    ``cell``) and at its own time (E at whole steps, H half a step earlier); the result says
    where and when.
    """

    _ALTERNATIVES = (("position", "cell"),)

    type: Literal["probe"] = "probe"
    name: str | None = Field(None, min_length=1, max_length=64, description="unique name "
                             "(default probe<N>), at most 64 bytes in UTF-8")
    position: Vec | None = Field(None, description="location, metres")
    cell: Index | None = Field(None, description="cell index instead of position")
    components: tuple[Component, ...] | None = Field(
        None, min_length=1, description="components to record (default: all of the mode)")
    every: PositiveInt = Field(1, le=MAX_STEPS, description="record every this many steps")

    _name = field_validator("name")(_file_safe_name)

    @field_validator("components")
    @classmethod
    def _each_once(cls, v):
        # an error: the result holds one series a component, so a second was lost
        for c in v or ():
            if v.count(c) > 1:
                raise ValueError(f"{c!r} is listed {v.count(c)} times; list each component "
                                 "once")
        return v

    @model_validator(mode="after")
    def _one_location(self):
        if (self.position is None) == (self.cell is None):
            raise ValueError("give exactly one of 'position' (metres) or 'cell' (index)")
        return self


class Snapshot(StrictModel):
    """Records one component over a plane (axis = const) every ``every`` steps.

    In 2D the plane is the whole grid: leave ``axis`` at 'z' and give no position.
    """

    _ALTERNATIVES = (("position", "index"),)

    type: Literal["snapshot"] = "snapshot"
    name: str | None = Field(None, min_length=1, max_length=64, description="unique name "
                             "(default snapshot<N>), at most 64 bytes in UTF-8")
    component: Component = Field(description="component to record")
    axis: Axis = Field("z", description="the plane is normal to this axis")
    position: float | None = Field(None, description="plane location along the axis, metres "
                                   "(default: the middle)")
    index: int | None = Field(None, ge=0, description="plane as a cell index instead of a "
                              "position")
    every: PositiveInt = Field(10, le=MAX_STEPS, description="record every this many steps")

    _name = field_validator("name")(_file_safe_name)

    @model_validator(mode="after")
    def _one_location(self):
        if self.position is not None and self.index is not None:
            raise ValueError("give at most one of 'position' (metres) or 'index'")
        return self


Monitor = Annotated[Probe | Snapshot, Field(discriminator="type")]
