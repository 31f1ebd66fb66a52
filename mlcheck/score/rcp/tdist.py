"""Student's t distribution in pure Python, enough for the RCP test (no scipy at import time).

The CDF is computed through the regularized incomplete beta function with a continued fraction
(modified Lentz), as in Press et al., Numerical Recipes §6.4; tests compare it with scipy.
"""

from __future__ import annotations

import math
from functools import lru_cache

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 500


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    # (the two steps of each iteration written out, with locals and ``abs(v) > tiny`` as two
    # comparisons: the RCP test's bisection calls this thousands of times; every arithmetic
    # operation is the one of the loop form, in its order, so the result is the same float)
    tiny, low, eps = _TINY, -_TINY, _EPS
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if d > tiny or d < low else tiny)
    result = d
    for m in range(1, _MAX_ITERATIONS + 1):
        m2 = 2 * m
        even = m * (b - m) * x / ((qam + m2) * (a + m2))
        odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + even * d
        d = 1.0 / (d if d > tiny or d < low else tiny)
        c = 1.0 + even / c
        if not (c > tiny or c < low):
            c = tiny
        result *= d * c
        d = 1.0 + odd * d
        d = 1.0 / (d if d > tiny or d < low else tiny)
        c = 1.0 + odd / c
        if not (c > tiny or c < low):
            c = tiny
        step = d * c
        result *= step
        if -eps < step - 1.0 < eps:
            break
    return result


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must lie in [0, 1], got {x}")
    if x in (0.0, 1.0):
        return x
    log_front = _log_beta_front(a, b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


@lru_cache(maxsize=1024)
def _log_beta_front(a: float, b: float) -> float:
    """``lgamma(a + b) - lgamma(a) - lgamma(b)`` (a bisection asks it for the same a and b)."""
    return math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t < 0 else 1.0 - tail


def one_sided_p_value(mean_a: float, std_a: float, n_a: int,
                      mean_b: float, std_b: float, n_b: int) -> float:
    """P-value that sample a is not smaller than sample b: a two-sample Student t-test with
    pooled variance (scipy ``ttest_ind_from_stats(equal_var=True)``), made one-sided as the RCP
    checker does (``p/2`` when t < 0, else ``1 - p/2``, which is the t CDF at t)."""
    df = n_a + n_b - 2
    pooled = ((n_a - 1) * std_a ** 2 + (n_b - 1) * std_b ** 2) / df
    denominator = math.sqrt(pooled * (1.0 / n_a + 1.0 / n_b))
    if denominator == 0:
        return 0.5 if mean_a == mean_b else (1.0 if mean_a > mean_b else 0.0)
    return t_cdf((mean_a - mean_b) / denominator, df)


def one_sided_p_above(alpha: float, mean_a: float, std_a: float, n_a: int,
                      mean_b: float, std_b: float, n_b: int) -> bool:
    """``one_sided_p_value(...) > alpha``, the same answer for every input. The p-value rises with
    t, so away from the t whose p-value is alpha (:func:`_critical_t`, once per df) the answer is
    which side t lies on; within :data:`_BAND` of it (and wherever the shortcut does not apply)
    the p-value is computed. The RCP bisection asks this some 20 times per minimum mean."""
    try:
        df = n_a + n_b - 2
        if df > 0:
            pooled = ((n_a - 1) * std_a ** 2 + (n_b - 1) * std_b ** 2) / df
            denominator = math.sqrt(pooled * (1.0 / n_a + 1.0 / n_b))
            if denominator != 0 and math.isfinite(denominator):
                t = (mean_a - mean_b) / denominator
                critical = _critical_t(float(df), alpha) if math.isfinite(t) else None
                if critical is not None:
                    band = _BAND * (1.0 + abs(critical))
                    if t > critical + band:
                        return True
                    if t < critical - band:
                        return False
    except (ArithmeticError, ValueError):
        pass  # (the p-value below raises what it raises)
    return one_sided_p_value(mean_a, std_a, n_a, mean_b, std_b, n_b) > alpha


_BAND = 1e-9
"""How close to the critical t (relative to 1 + |t|) the p-value itself decides: the computed CDF
is accurate to about 1e-15 there and its slope is above 5e-3 (df 1; 0.1 for large df), so only a
t within ~1e-12 of it could be judged differently from its side. (Folders timed in samples reach
t steps of 1e-12: their last steps are computed.)"""


@lru_cache(maxsize=256)
def _critical_t(df: float, alpha: float) -> float | None:
    """The t below 0 whose CDF (as :func:`t_cdf` computes it) is ``alpha``, found by secant
    steps (bisection where they stray); None where the shortcut of :func:`one_sided_p_above`
    does not apply: the CDF must be at most ``alpha`` at ``critical - band`` and above it at
    ``critical + band``, which is all the shortcut relies on (the CDF rises with t)."""
    if not 0.0 < alpha < 0.5:
        return None
    low, high = -1.0, 0.0  # (a bracket: CDF(low) <= alpha < CDF(high))
    while t_cdf(low, df) > alpha:
        high, low = low, low * 2.0
        if low < -1e12:
            return None
    a, b = low, high
    fa, fb = t_cdf(a, df) - alpha, t_cdf(b, df) - alpha
    critical = (a + b) / 2
    for _ in range(100):
        step = fb - fa
        guess = b - fb * (b - a) / step if step != 0 else (low + high) / 2
        if not low < guess < high:
            guess = (low + high) / 2
        value = t_cdf(guess, df) - alpha
        if value > 0:
            high = guess
        else:
            low = guess
        a, fa, b, fb = b, fb, guess, value
        critical = guess
        if high - low <= 1e-12 * (1.0 + abs(guess)) or abs(b - a) <= 1e-13 * (1.0 + abs(guess)):
            break
    band = _BAND * (1.0 + abs(critical))
    if not (t_cdf(critical - band, df) <= alpha < t_cdf(critical + band, df)):
        return None
    return critical
