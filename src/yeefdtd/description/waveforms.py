"""Source waveforms: dimensionless time functions w(t) with peak magnitude about 1.

The source's ``amplitude`` carries the units. Each waveform evaluates at an array of times
(seconds) and reports its spectrum ``W(f) = integral w(t) exp(-2j pi f t) dt`` in closed
form (numerically for the part of a Gaussian-family pulse before a ``t_end`` inside it; a
frequency that the numerical spectrum cannot resolve is refused).
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field, NonNegativeFloat, PositiveFloat, field_validator

from .base import StrictModel, real_array


def _trapezoid_of(numpy):
    """The trapezoid rule of this NumPy: ``trapezoid``, or ``trapz`` before NumPy 2."""
    return getattr(numpy, "trapezoid", None) or numpy.trapz


_trapezoid = _trapezoid_of(np)


class _Waveform(StrictModel):
    def __call__(self, t):
        """w(t) at the times ``t`` (seconds), as a float64 array; NaN where parameters out
        of range overflow (the sources refuse those, in one line: build/plans.py)."""
        t = real_array(t, "t", "times in seconds").astype(np.float64)
        with np.errstate(all="ignore"):
            try:
                out = np.asarray(self._value(t), dtype=np.float64) * np.ones_like(t)
            except (OverflowError, ZeroDivisionError):
                return np.full_like(t, np.nan)
        # a NaN time has no value (a waveform zero before t = 0 gave 0 for it)
        nan = np.isnan(t)
        return np.where(nan, np.nan, out) if nan.any() else out

    def _value(self, t):
        raise NotImplementedError

    def support(self) -> tuple[float, float]:
        """Times (s) outside which w(t) is negligible (below about 1e-9 of its peak)."""
        raise NotImplementedError

    def max_frequency(self) -> float:
        """Frequency (Hz) above which the spectrum is below about 1e-3 of its peak."""
        raise NotImplementedError

    def spectrum(self, freqs, t_end: float | None = None):
        """Complex spectrum W(f) at the frequencies ``freqs`` (Hz; an array's shape is kept)
        of the waveform up to ``t_end`` (seconds; default: the end of its support): in
        closed form (the sine up to any t_end; a pulse or samples where t_end does not end
        them early), else numerically. Frequencies or a t_end that are not finite numbers
        are a one-line ValidationError naming the argument."""
        from ..exceptions import ValidationError
        from ..spectra import frequencies, real_number

        f = frequencies(freqs)
        t0, end = self.support()
        t1 = end if t_end is None else real_number(t_end, "t_end", "seconds")
        if t1 <= t0:
            raise ValidationError(f"t_end: {t1:.4g} s is not after the waveform's start "
                                  f"({t0:.4g} s)")
        if f.size == 0:
            return np.empty(f.shape, dtype=np.complex128)
        with np.errstate(all="ignore"):   # far past the band: magnitudes that underflow
            exact = self._form_to(f, t1)
        out = exact if exact is not None else self._numerical(f, t0, t1, t_end is not None)
        bad = ~np.isfinite(out)
        if bad.any():   # parameters far out of range (samples 1e300 s apart)
            raise ValidationError(f"waveform: its spectrum overflows at {f[bad].flat[0]:.4g} "
                                  f"Hz ({np.count_nonzero(bad)} of the frequencies asked); "
                                  "give it times and frequencies of the grid's scale")
        return out

    def _closed_form(self, f: np.ndarray):
        """W(f) of the whole waveform at ``f`` (a float64 array), or None where there is no
        closed form."""
        return None

    def _form_to(self, f: np.ndarray, t1: float):
        """W(f) of the waveform up to ``t1`` in closed form, or None: a pulse's closed form
        is of all of it, so a t1 inside its support asks for the numerical transform of
        the part up to t1."""
        return self._closed_form(f) if t1 >= self.support()[1] else None

    def _numerical(self, f: np.ndarray, t0: float, t1: float, chosen: bool) -> np.ndarray:
        """W(f) by the trapezoid rule over [t0, t1] (``chosen``: t1 is the caller's)."""
        from ..exceptions import ValidationError

        asked = float(np.max(np.abs(f)))
        fmax = max(asked, self.max_frequency())
        need = 40 * fmax * (t1 - t0)   # samples: 40 a period of the highest frequency
        if need > self.MAX_SAMPLES:   # fewer samples would alias, not sample
            top = self.MAX_SAMPLES / (40 * (t1 - t0))
            if asked > top:
                raise ValidationError(f"freqs: {asked:.4g} Hz is past what a numerical "
                                      f"spectrum of this {self.type} waveform resolves over "
                                      f"its {t1 - t0:.4g} s ({top:.4g} Hz); ask for lower "
                                      "frequencies")
            if chosen:
                raise ValidationError(f"t_end: {t1 - t0:.4g} s is {fmax * (t1 - t0):.3g} "
                                      f"periods of {fmax:.4g} Hz, more than a numerical "
                                      f"spectrum takes ({self.MAX_SAMPLES // 40}); give a "
                                      "shorter t_end")
            raise ValidationError(f"waveform: {t1 - t0:.4g} s of this {self.type} waveform "
                                  f"is {fmax * (t1 - t0):.3g} periods of its {fmax:.4g} Hz, "
                                  "more than a numerical spectrum takes "
                                  f"({self.MAX_SAMPLES // 40}); give a t_end")
        n = int(min(max(need, 4000), self.MAX_SAMPLES))
        t = np.linspace(t0, t1, n + 1)
        w = self(t)
        out = np.empty(f.shape, dtype=np.complex128)
        for i, fi in enumerate(f.flat):
            out.flat[i] = _trapezoid(w * np.exp(-2j * np.pi * fi * t), t)
        return out

    #: the most samples a numerical spectrum takes (a longer span would alias, not sample)
    MAX_SAMPLES: ClassVar[int] = 400_000


def _gauss_ft(f, tau):
    return tau * math.sqrt(math.pi) * np.exp(-(np.pi * f * tau) ** 2)


def _delayed(mag, f, delay):
    """``mag`` times the phase of a delay, exp(-2 pi i f delay); 0 where ``mag`` is (far
    past the band, where f delay may overflow the phase into NaN) or overflowed there
    (a power of f times an exponential that underflowed)."""
    mag = np.asarray(mag, dtype=np.complex128)
    out = np.zeros(np.shape(mag), dtype=np.complex128)
    live = np.isfinite(mag) & (mag != 0)
    out[live] = mag[live] * np.exp(-2j * np.pi * np.asarray(f)[live] * delay)
    return out


class Gaussian(_Waveform):
    """exp(-((t - t0)/tau)^2); its spectrum falls to 1/e at f = 1/(pi tau)."""

    type: Literal["gaussian"] = "gaussian"
    tau: PositiveFloat = Field(description="1/e half-width, seconds")
    t0: NonNegativeFloat | None = Field(None, description="time of the peak, seconds "
                                        "(default 5 tau)")

    @property
    def delay(self) -> float:
        return 5.0 * self.tau if self.t0 is None else self.t0

    def _value(self, t):
        return np.exp(-(((t - self.delay) / self.tau) ** 2))

    def support(self):
        return self.delay - 4.6 * self.tau, self.delay + 4.6 * self.tau

    def max_frequency(self):
        return math.sqrt(math.log(1e3)) / (math.pi * self.tau)

    def _closed_form(self, f):
        return _delayed(_gauss_ft(f, self.tau), f, self.delay)


class DiffGaussian(Gaussian):
    """The time derivative of a Gaussian, scaled to peak 1: no DC content. It crosses zero
    at t0, between its peak (+1, tau / sqrt(2) before t0) and its trough (-1, as long
    after)."""

    type: Literal["diff_gaussian"] = "diff_gaussian"
    t0: NonNegativeFloat | None = Field(None, description="time of its zero crossing, "
                                        "between its peak and its trough, seconds "
                                        "(default 5 tau)")

    def _value(self, t):
        u = (t - self.delay) / self.tau
        return -math.sqrt(2 * math.e) * u * np.exp(-(u**2))

    def max_frequency(self):
        return 1.2 * super().max_frequency()

    def _closed_form(self, f):
        mag = math.sqrt(2 * math.e) * 0.5 * self.tau * (2j * np.pi * f) * \
            _gauss_ft(f, self.tau)
        return _delayed(mag, f, self.delay)


class Ricker(_Waveform):
    """The Ricker (Mexican-hat) wavelet of peak frequency f: (1 - 2a s^2) exp(-a s^2)."""

    type: Literal["ricker"] = "ricker"
    frequency: PositiveFloat = Field(description="peak frequency of the spectrum, Hz")
    t0: NonNegativeFloat | None = Field(None, description="time of the peak, seconds "
                                        "(default 1.5 / frequency)")

    @property
    def delay(self) -> float:
        return 1.5 / self.frequency if self.t0 is None else self.t0

    def _value(self, t):
        a = (np.pi * self.frequency) ** 2
        s2 = (t - self.delay) ** 2
        return (1.0 - 2.0 * a * s2) * np.exp(-a * s2)

    def support(self):
        return self.delay - 1.6 / self.frequency, self.delay + 1.6 / self.frequency

    def max_frequency(self):
        return 3.2 * self.frequency

    def _closed_form(self, f):
        r = f / self.frequency   # as a ratio: fp^3 overflows a float past 5.6e102 Hz
        mag = 2.0 / math.sqrt(math.pi) * r * r / self.frequency * np.exp(-r * r)
        return _delayed(mag, f, self.delay)


class ModulatedGaussian(_Waveform):
    """cos(2 pi f (t - t0)) exp(-((t - t0)/tau)^2): a band around the carrier f."""

    type: Literal["modulated_gaussian"] = "modulated_gaussian"
    frequency: PositiveFloat = Field(description="carrier frequency, Hz")
    tau: PositiveFloat | None = Field(None, description="1/e half-width of the envelope, "
                                      "seconds (default 1 / frequency)")
    t0: NonNegativeFloat | None = Field(None, description="time of the peak, seconds "
                                        "(default 5 tau)")

    @property
    def width(self) -> float:
        return 1.0 / self.frequency if self.tau is None else self.tau

    @property
    def delay(self) -> float:
        return 5.0 * self.width if self.t0 is None else self.t0

    def _value(self, t):
        s = t - self.delay
        return np.cos(2 * np.pi * self.frequency * s) * np.exp(-((s / self.width) ** 2))

    def support(self):
        return self.delay - 4.6 * self.width, self.delay + 4.6 * self.width

    def max_frequency(self):
        return self.frequency + math.sqrt(math.log(1e3)) / (math.pi * self.width)

    def _closed_form(self, f):
        env = 0.5 * (_gauss_ft(f - self.frequency, self.width)
                     + _gauss_ft(f + self.frequency, self.width))
        return _delayed(env, f, self.delay)


class Sine(_Waveform):
    """sin(2 pi f t + phase), switched on smoothly over ``ramp`` seconds (raised cosine)."""

    type: Literal["sine"] = "sine"
    frequency: PositiveFloat = Field(description="frequency, Hz")
    phase: float = Field(0.0, description="phase at t = 0, radians")
    ramp: NonNegativeFloat | None = Field(None, description="duration of the smooth "
                                          "switch-on, seconds (default three periods)")

    @property
    def ramp_time(self) -> float:
        return 3.0 / self.frequency if self.ramp is None else self.ramp

    def _value(self, t):
        w = np.sin(2 * np.pi * self.frequency * t + self.phase)
        tr = self.ramp_time
        if tr > 0:
            env = np.where(t >= tr, 1.0, 0.5 * (1.0 - np.cos(np.pi * np.clip(t, 0, tr) / tr)))
        else:
            env = 1.0
        return np.where(t >= 0, w * env, 0.0)

    def support(self):
        return 0.0, self.ramp_time + 20.0 / self.frequency

    def max_frequency(self):
        return 2.0 * self.frequency

    def _form_to(self, f, t1):
        """The transform over [0, t1], exactly: the sine is two complex exponentials, and
        the raised cosine three over the ramp and one after it, so the product is a sum of
        exponentials, each integrated in closed form."""
        w, ramp = 2 * np.pi * self.frequency, self.ramp_time
        tr = min(ramp, t1)   # the ramp's end, or t1 within it
        pieces = [(0.0, tr, ((0.5, 0.0), (-0.25, np.pi / ramp), (-0.25, -np.pi / ramp)))] \
            if ramp > 0 else []
        if t1 > tr:
            pieces.append((tr, t1, ((1.0, 0.0),)))
        total = np.zeros(f.shape, dtype=np.complex128)
        for a, b, env in pieces:
            for c, r in env:
                for s in (1.0, -1.0):   # sin x = (e^{ix} - e^{-ix}) / 2i
                    k = 1j * (s * w + r - 2 * np.pi * f)
                    total += c * s * np.exp(1j * s * self.phase) / 2j * _span(k, a, b)
        # far past the band (2 pi f overflowing) the transform, about 1 / (2 pi f), is 0
        return np.where(np.isfinite(total), total, 0)


def _span(k, a, b):
    """The integral of exp(k t) over [a, b] for complex rates ``k`` (an array), computed
    as exp(k a) (b - a) (exp(z) - 1) / z with z = k (b - a), by its series where z is
    small."""
    z = k * (b - a)
    small = np.abs(z) < 1e-4
    with np.errstate(all="ignore"):
        ratio = np.where(small, 1 + z / 2 + z * z / 6 + z**3 / 24, np.expm1(z) / z)
    return np.exp(k * a) * (b - a) * ratio


class Samples(_Waveform):
    """User samples at ``start + k dt``, linearly interpolated, zero outside their span."""

    type: Literal["samples"] = "samples"
    dt: PositiveFloat = Field(description="interval between samples, seconds")
    values: Annotated[tuple[float, ...], Field(min_length=2)] = Field(
        description="sample values (at least two)")
    start: float = Field(0.0, description="time of the first sample, seconds")

    @field_validator("values")
    @classmethod
    def _not_huge(cls, v):
        if max(abs(x) for x in v) > 1e20:
            raise ValueError("has values above 1e20; scale them down and use the source's "
                             "amplitude instead")
        return v

    def _value(self, t):
        vals = np.asarray(self.values, dtype=np.float64)
        grid = self.start + self.dt * np.arange(len(vals))
        return np.interp(t, grid, vals, left=0.0, right=0.0)

    def support(self):
        return self.start, self.start + self.dt * (len(self.values) - 1)

    def max_frequency(self):
        return 0.5 / self.dt

    def _closed_form(self, f):
        """The transform of the samples joined by straight lines, exactly: each sample
        times a triangle of half-width dt (dt sinc^2(f dt)), less the halves of the first
        and last triangles that lie outside the span (where the waveform is zero)."""
        v = np.asarray(self.values, dtype=np.float64)
        dt, n = self.dt, len(v)
        x = 2 * np.pi * f * dt
        full = dt * np.sinc(f * dt) ** 2
        small = np.abs(x) < 1e-3   # (x - sin x) / x^2, by its series where it cancels
        with np.errstate(all="ignore"):
            g = np.where(small, x / 6 - x**3 / 120, (x - np.sin(x)) / x**2)
        right, left = 0.5 * (full - 2j * dt * g), 0.5 * (full + 2j * dt * g)
        total = np.zeros(f.shape, dtype=np.complex128)
        flat = f.reshape(-1)
        rows = max(1, SUM_ENTRIES // n)   # frequencies a chunk, so that it holds SUM_ENTRIES
        for a in range(0, flat.size, rows):
            fa = flat[a:a + rows, None]
            total.reshape(-1)[a:a + rows] = np.exp(-2j * np.pi * fa * dt * np.arange(n)) @ v
        total = total * np.exp(-2j * np.pi * f * self.start)
        end = self.start + dt * (n - 1)
        return full * total - v[0] * left * np.exp(-2j * np.pi * f * self.start) \
            - v[-1] * right * np.exp(-2j * np.pi * f * end)


#: the most phase factors Samples' exact transform holds at once (16 bytes each)
SUM_ENTRIES = 1 << 22


Waveform = Annotated[
    Gaussian | DiffGaussian | Ricker | ModulatedGaussian | Sine | Samples,
    Field(discriminator="type"),
]
