"""Spectra of recorded time series: DFTs at chosen frequencies and resonance peaks."""

from __future__ import annotations

import math
import sys

import numpy as np

from .exceptions import ValidationError


def _series(values, times, least: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``values`` and ``times`` as float arrays: one value per time, at least ``least`` of
    them, finite, at times increasing by one step (as a probe records them); else a
    one-line ValidationError saying what to change."""
    try:
        if values is None or times is None:
            raise TypeError
        given = [np.asarray(values), np.asarray(times)]
        if any(a.dtype.kind not in "iuf" for a in given):   # text, booleans, complex
            raise TypeError   # (the float cast read "1" as 1, and dropped imaginary parts)
        with np.errstate(over="ignore"):   # an integer past float's range: inf, said below
            x, t = (a.astype(np.float64) for a in given)
    except (TypeError, ValueError, OverflowError):
        raise ValidationError(f"values, times: arrays of real numbers, not "
                              f"{_kind(values)} and {_kind(times)}") from None
    if x.ndim != 1 or t.ndim != 1 or len(x) != len(t):
        raise ValidationError(f"values, times: one value per time (shapes {x.shape} and "
                              f"{t.shape})")
    if len(t) < least:
        raise ValidationError(f"values, times: at least {least} samples, got {len(t)}")
    if not (np.isfinite(x).all() and np.isfinite(t).all()):
        raise ValidationError("values, times: NaN or infinity among them; leave those out")
    if len(t) > 1:
        steps = np.diff(t)
        # the times' own rounding spreads their steps by a few units of their last place,
        # which grows with the times (float32 times of 2.3 ps steps were refused from about
        # 16 000 samples on): allowed beside a thousandth of the step
        ulp = np.finfo(given[1].dtype).eps if given[1].dtype.kind == "f" else 0.0
        spread = max(1e-3 * steps.mean(), 8 * ulp * np.abs(t).max())
        if not (steps > 0).all() or np.ptp(steps) > spread:
            raise ValidationError("times: not evenly spaced and increasing; give a probe's "
                                  "record (its times) or resample")
        # a step below float's smallest normal number: its frequencies (1 / step) overflow
        # into infinity and NaN, and its few significant bits spread the steps
        if steps[0] < np.finfo(np.float64).tiny:
            raise ValidationError(f"times: a step of {steps[0]:.3g} s, below float's normal "
                                  f"range ({np.finfo(np.float64).tiny:.3g}), where its "
                                  "frequencies overflow; give the times in seconds")
    return x, t


def _kind(value) -> str:
    """What ``value`` is, for a message: its type, and an array's dtype."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        return type(value).__name__
    return f"{type(value).__name__} of {a.dtype}" if a.dtype.kind != "O" or \
        isinstance(value, np.ndarray) else type(value).__name__


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 48 else text[:45] + "..."


def frequencies(freqs, what: str = "freqs") -> np.ndarray:
    """``freqs`` (Hz: a number or an array of numbers) as a float64 array of at least one
    dimension; else a one-line ValidationError naming ``what``: text (NumPy would read
    "1e9" as a number), True or False, None, complex values, NaN or infinity."""
    from .description.base import real_array

    a = np.atleast_1d(real_array(freqs, what, "frequencies in Hz", _short(freqs))
                      .astype(np.float64))
    if not np.isfinite(a).all():
        raise ValidationError(f"{what}: NaN or infinity among them; give finite frequencies "
                              "in Hz")
    return a


def real_number(value, what: str, unit: str) -> float:
    """``value`` as a finite float, or a one-line ValidationError naming ``what`` and
    ``unit``: text, True or False, None, NaN or infinity."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValidationError(f"{what}: a number of {unit}, not {_short(value)}")
    try:
        v = float(value)
    except OverflowError:   # an int past float's range
        v = math.inf
    if not math.isfinite(v):
        raise ValidationError(f"{what}: a finite number of {unit}, not {_short(value)}")
    return v


def dft(values, times, freqs) -> np.ndarray:
    """X(f) = sum_n x_n exp(-2j pi f t_n) dt at the frequencies ``freqs`` (Hz).

    An approximation of the continuous transform for uniformly sampled ``times``, at
    frequencies up to the record's Nyquist frequency 1 / (2 step) either side of zero:
    past it the sum repeats one below it (an alias, not the signal's), which is refused. So
    are frequencies that all turn less than a millionth of a cycle over the record (GHz
    given where Hz go; 0 alone is the record's sum, and is taken).
    """
    x, t = _series(values, times, least=0)
    f = frequencies(freqs)
    if len(t) == 1:   # (an empty record's transform is zero)
        raise ValidationError("values, times: one sample, which has no time step; give at "
                              "least 2")
    step = t[1] - t[0] if len(t) > 1 else 1.0
    if len(t) > 1:
        nyquist = 0.5 / step
        past = np.flatnonzero(np.abs(f) > nyquist * (1 + 1e-9))
        if past.size:
            raise ValidationError(
                f"freqs: {f.flat[past[0]]:.6g} Hz is past the record's Nyquist frequency "
                f"{nyquist:.6g} Hz (1 / (2 x its {step:.4g} s step)), where its DFT repeats "
                "one at a lower frequency; give frequencies up to that, or record more often "
                "(a probe's every)")
        span = float(t[-1] - t[0])
        top = float(np.abs(f).max(initial=0.0))
        if 0 < top and top * span < 1e-6:   # GHz given where Hz go: the record's sum,
            raise ValidationError(            # without a word (a sweep from 1 Hz up is fine)
                f"freqs: every one is at most {top:.6g} Hz, which turns less than a millionth "
                f"of a cycle over the record's {span:.4g} s, so each DFT is the record's sum "
                f"(its value at 0 Hz); give frequencies in Hz ({top * 1e9:.6g} for "
                f"{top:.6g} GHz)")
    # the sum of x over its peak, scaled after: values near float's largest (a diverged
    # float64 run's) overflowed it into NaN, as they did spectrum's
    peak = float(np.abs(x).max(initial=0.0)) or 1.0
    out = np.empty(f.shape, dtype=np.complex128)
    with np.errstate(over="ignore"):   # a transform past float's range: inf, as it is
        for i, fi in enumerate(f.ravel()):
            out.flat[i] = np.dot(x / peak, np.exp(-2j * np.pi * fi * t)) * (step * peak)
    return out


def spectrum(values, times, pad: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, |X(f)|) by a zero-padded FFT, for plotting (``pad``: the FFT's length
    over the record's, at least 1)."""
    x, t = _series(values, times)
    if isinstance(pad, bool) or not isinstance(pad, (int, np.integer)) or not 1 <= pad <= 64:
        raise ValidationError(f"pad: a whole number from 1 to 64, not {pad!r}")
    n = 1 << math.ceil(math.log2(len(x) * int(pad)))   # int: np.int8's product overflowed
    step = t[1] - t[0]
    # the FFT of x over its peak, scaled after: values near float's largest (a diverged
    # float64 run's) overflowed its sums into infinity and NaN
    peak = float(np.abs(x).max()) or 1.0
    try:
        with np.errstate(over="ignore"):
            return np.fft.rfftfreq(n, step), np.abs(np.fft.rfft(x / peak, n)) * (peak * step)
    except MemoryError:   # the padded record and its transform, in float64 and complex128
        raise ValidationError(
            f"pad: the FFT of {len(x)} samples padded to {n} points does not fit in memory; "
            "give a smaller pad, or record fewer samples (a probe's every)") from None


def _ringing(x: np.ndarray) -> np.ndarray:
    """``x`` less its mean (a static offset is no resonance: its window's sidelobes came
    back as peaks) over its largest magnitude (values near float's largest overflowed the
    peak search's sums); a constant record is a one-line ValidationError."""
    top = np.abs(x).max()
    x = x / top if top > 0 else x   # scaled first: the mean's sum overflowed too
    x = x - x.mean()
    if not np.abs(x).max() > 0:
        raise ValidationError("values: constant, so no peak; record where the field rings")
    return x / np.abs(x).max()


def _windowed_power(x, t, f, w):
    return abs(np.dot(x * w, np.exp(-2j * np.pi * f * t)))


def _golden_max(fun, a: float, b: float) -> float:
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fun(c), fun(d)
    for _ in range(100):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = fun(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = fun(d)
        if b - a < 1e-13 * abs(b):
            break
    return 0.5 * (a + b)


def refine_peak(values, times, f_lo: float, f_hi: float) -> tuple[float, float]:
    """(frequency, relative height) of the strongest spectral peak between f_lo and f_hi.

    A Hann window keeps neighbouring peaks from biasing each other; the peak found on a
    zero-padded FFT is refined by maximising the windowed DTFT magnitude (golden section).
    The height is relative to the strongest peak (local maximum) of the whole spectrum
    above zero frequency. The record's mean is taken out first: a static offset, as a pulse
    with a mean leaves in a closed cavity, is no resonance (its window's sidelobes came
    back as one, and a constant record gave a "peak"). Where the band holds no peak, only
    the flank of one outside it (the highest bin at the band's edge), that is an error, not
    a frequency; so is a band whose every peak a stronger one's window sidelobes may
    account for (at most SIDELOBE_MARGIN times their envelope, or within its main lobe), as
    the band past a strong resonance holds: such a peak moves with the record's length,
    where a resonance stays. The band's strongest peak of its own is refined.
    """
    x, t = _series(values, times, least=3)   # a Hann window of 2 is zero
    f_lo, f_hi = real_number(f_lo, "f_lo", "Hz"), real_number(f_hi, "f_hi", "Hz")
    x, w, freqs, mag, sel = _windowed_band(x, t, f_lo, f_hi, ("f_lo", "f_hi"))
    sel = np.flatnonzero(sel)
    if not mag[1:].max() > 0:
        raise ValidationError("values: all zero, so no peak; record where the field rings")
    i = sel[np.argmax(mag[sel])]
    peaks = _local_maxima(mag)
    inside = peaks[(peaks >= sel[0]) & (peaks <= sel[-1])]
    if not len(inside):
        raise ValidationError(f"f_lo, f_hi: no peak between {f_lo:.6g} and {f_hi:.6g} Hz, "
                              f"only the flank of one outside (highest at {freqs[i]:.6g} Hz, "
                              "the band's edge); widen the band or record longer")
    length = len(x) * (t[1] - t[0])
    lobes = _sidelobes(freqs, mag, inside, length)
    if (lobes >= 0).all():   # every peak in the band may be a sidelobe: name the strongest
        k = np.argmax(mag[inside])
        i, lobe = inside[k], lobes[k]
        raise ValidationError(
            f"f_lo, f_hi: the strongest peak between {f_lo:.6g} and {f_hi:.6g} Hz, at "
            f"{freqs[i]:.6g} Hz, {20 * np.log10(mag[lobe] / mag[i]):.1f} dB below the one at "
            f"{freqs[lobe]:.6g} Hz, is where that one's window sidelobes reach, so it may be "
            f"one of them, not a resonance; record longer (they narrow as 1 / the record's "
            f"{length:.4g} s) or choose a band around a stronger peak")
    own = inside[lobes < 0]
    i = own[np.argmax(mag[own])]
    df = freqs[1] - freqs[0]
    f = _golden_max(lambda fr: _windowed_power(x, t, fr, w), freqs[i] - df, freqs[i] + df)
    return f, float(mag[i] / mag[peaks].max())


def _windowed_band(x: np.ndarray, t: np.ndarray, lo: float, hi: float | None,
                   names: tuple[str, str]):
    """(x less its mean, the Hann window, freqs, |spectrum| of the windowed x padded 8 times,
    the mask of the bins above zero from lo to hi) for refine_peak and peak_frequencies
    (``hi`` None: up to the Nyquist frequency); a one-line ValidationError, naming
    ``names``, for a band upside down, one past the Nyquist frequency, or one that holds no
    bin above zero."""
    if hi is not None and hi < lo:
        raise ValidationError(f"{names[0]}, {names[1]}: {lo:.6g} Hz is above {hi:.6g} Hz; "
                              "give the band's lower end first")
    if lo < 0:
        raise ValidationError(f"{names[0]}: {lo:.6g} Hz is below zero; the band starts at 0 Hz "
                              "or above")
    x = _ringing(x)
    w = np.hanning(len(x))
    # less its windowed mean, so that the windowed record holds nothing at 0 Hz: the plain
    # mean left a static step's (a pulse with a mean in a closed cavity) zero-frequency
    # term, whose first sidelobe came back as a peak at 2.35 / the record's length
    x = x - np.dot(x, w) / w.sum()
    freqs, mag = spectrum(x * w, t, pad=8)
    if lo > freqs[-1]:
        raise ValidationError(f"{names[0]}: {lo:.6g} Hz is past the record's Nyquist frequency "
                              f"{freqs[-1]:.6g} Hz, so no peak can be found there; lower it or "
                              "record more often (a probe's every)")
    hi = freqs[-1] if hi is None else hi
    sel = (freqs >= lo) & (freqs <= hi)
    sel[0] = False
    if not sel.any():
        raise ValidationError(f"{names[0]}, {names[1]}: no frequency bin above zero between "
                              f"{lo:.6g} and {hi:.6g} Hz (the bins are "
                              f"{freqs[1] - freqs[0]:.4g} Hz apart); record longer or widen "
                              "the band")
    return x, w, freqs, mag, sel


def _local_maxima(mag: np.ndarray) -> np.ndarray:
    """Indices of the spectrum's local maxima (neither end)."""
    return np.flatnonzero((mag[1:-1] > mag[:-2]) & (mag[1:-1] >= mag[2:])) + 1


#: how far apart (times 1 / the record's length) two peaks must be for the Hann window to
#: resolve them: its main lobe reaches 2 from a peak, its first sidelobe (-31.5 dB) 2.4
RESOLVED = 3.0

#: how far above the Hann window's sidelobe envelope (a factor) a weaker peak must stand
#: beside a stronger one to count as a peak of its own: the sidelobes of two peaks, or of
#: a peak and its image at minus its frequency, may add
SIDELOBE_MARGIN = 2.0


def _hann_envelope(u: np.ndarray) -> np.ndarray:
    """The Hann window's transform over its peak, at ``u`` times the reciprocal of the
    record's length from it, bounded above: 1 / (pi u |1 - u^2|) (its sidelobes, -31.5 dB
    at u = 2.4, falling as u^-3), 1 within 1.2 (its main lobe, where a second maximum is
    no peak of its own: two peaks closer than about two bins are not resolved)."""
    u = np.abs(u)
    with np.errstate(divide="ignore"):
        env = 1.0 / (np.pi * u * np.abs(1.0 - u * u))
    return np.where(u < 1.2, 1.0, np.minimum(env, 1.0))


def _sidelobes(freqs: np.ndarray, mag: np.ndarray, candidates: np.ndarray,
               length: float) -> np.ndarray:
    """For each of ``candidates`` (indices of local maxima of ``mag``), the stronger peak of
    its own whose window sidelobes (or main lobe) may account for it, as an index, or -1
    where none does (``length``: the record's, in seconds). The local maxima are taken
    strongest first, each a peak of its own unless one already taken accounts for it: a
    sidelobe accounts for nothing (taken as a source of sidelobes itself, a stronger peak's
    first sidelobe made a real peak 34 dB down, 3.5 / length away, one of its own). A
    peak's image at minus its frequency counts as well."""
    out = np.full(len(candidates), -1)
    if not len(candidates):
        return out
    peaks = _local_maxima(mag)
    peaks = peaks[mag[peaks] >= mag[candidates].min()]
    order = peaks[np.argsort(-mag[peaks], kind="stable")]
    own_f = np.empty(len(order))
    own_m = np.empty(len(order))
    own_i = np.empty(len(order), dtype=int)
    taken = 0
    source = {}
    for i in order:
        if taken:
            fs, ms = own_f[:taken], own_m[:taken]
            reach = ms * SIDELOBE_MARGIN * np.maximum(
                _hann_envelope((freqs[i] - fs) * length),
                _hann_envelope((freqs[i] + fs) * length))
            over = np.flatnonzero((reach >= mag[i]) & (ms > mag[i]))
            if len(over):
                source[i] = int(own_i[over[np.argmax(reach[over])]])
                continue
        own_f[taken], own_m[taken], own_i[taken] = freqs[i], mag[i], i
        taken += 1
    for k, i in enumerate(candidates):
        out[k] = source.get(int(i), -1)
    return out


def peak_frequencies(values, times, count: int, fmin: float = 0.0,
                     fmax: float | None = None, floor_db: float = -31.0) -> np.ndarray:
    """At most the ``count`` strongest spectral peaks of a ringing signal (Hz, ascending),
    each refined as in :func:`refine_peak`.

    The record's mean is taken out first (a static offset is no resonance; its window's
    sidelobes came back as peaks). Peaks more than ``floor_db`` below the strongest are left
    out, so fewer than ``count`` may come back: the Hann window's sidelobes reach 31.5 dB
    below their peak, so a weaker local maximum may be a sidelobe, not a resonance (a lone
    3 GHz sine in a 2 ns record gave "peaks" at 1.8 and 4.2 GHz). Lower ``floor_db`` to see
    weaker peaks, at that risk, or record longer to narrow the sidelobes. Peaks that a
    stronger one's sidelobes may account for wherever they lie (at most SIDELOBE_MARGIN
    times the window's envelope at their distance), and weaker maxima within a stronger
    peak's main lobe (two resonances closer than about 2.4 / the record's length are not
    resolved: a 7.5 ns record showed a "peak" between two modes 0.2 GHz apart), are left
    out too; a note on stderr says where two peaks found lie closer than RESOLVED / the
    record's length, which a longer record resolves.
    """
    x, t = _series(values, times, least=3)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValidationError(f"count: a whole number of at least 1, not {count!r}")
    fmin = real_number(fmin, "fmin", "Hz")
    fmax = None if fmax is None else real_number(fmax, "fmax", "Hz")
    floor_db = real_number(floor_db, "floor_db", "dB")
    if floor_db >= 0:
        raise ValidationError(f"floor_db: how far below the strongest peak (dB) a peak may "
                              f"be, a negative number such as -31, not {floor_db}")
    x, w, freqs, mag, sel = _windowed_band(x, t, fmin, fmax, ("fmin", "fmax"))
    inner = _local_maxima(mag)
    length = len(x) * (t[1] - t[0])   # the record's, for the window's lobes
    if len(inner):   # the floor is from the strongest peak anywhere, in the band or not
        inner = inner[mag[inner] >= mag[inner].max() * 10 ** (floor_db / 20)]
        inner = inner[_sidelobes(freqs, mag, inner, length) < 0]
    inner = inner[sel[inner]]
    best = inner[np.argsort(mag[inner])[::-1][:count]]
    df = freqs[1] - freqs[0]
    out = [_golden_max(lambda fr: _windowed_power(x, t, fr, w), freqs[i] - df, freqs[i] + df)
           for i in best]
    out = np.sort(np.array(out))
    close = np.flatnonzero(np.diff(out) < RESOLVED / length)
    if len(close):
        a, b = out[close[0]], out[close[0] + 1]
        print(f"note: peak_frequencies: the peaks at {a:.6g} and {b:.6g} Hz are closer than "
              f"the record resolves ({RESOLVED:g} / its {length:.4g} s = "
              f"{RESOLVED / length:.4g} Hz), so each pulls the other's frequency, and either "
              "may stand for two resonances or be a sidelobe; record longer", file=sys.stderr)
    return out
