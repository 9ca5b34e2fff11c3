"""scipy.stats on the host: the normal distribution (`norm`), with SciPy's `loc`/`scale`
arguments and its draws (`rvs`: `loc + scale * standard_normal`, from a `random_state`
Generator or RandomState, else NumPy's global one)."""

import math

import numpy as np
from scipy.special import erfc

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class _Norm:
    def _z(self, x, loc, scale):
        return (np.asarray(x, dtype=np.float64) - loc) / scale

    def pdf(self, x, loc=0, scale=1):
        z = self._z(x, loc, scale)
        return np.exp(-z * z / 2 - _LOG_SQRT_2PI) / scale

    def logpdf(self, x, loc=0, scale=1):
        z = self._z(x, loc, scale)
        return -z * z / 2 - _LOG_SQRT_2PI - np.log(scale)

    def cdf(self, x, loc=0, scale=1):
        return 0.5 * erfc(-self._z(x, loc, scale) / math.sqrt(2))

    def sf(self, x, loc=0, scale=1):
        return 0.5 * erfc(self._z(x, loc, scale) / math.sqrt(2))

    def rvs(self, loc=0, scale=1, size=None, random_state=None):
        if random_state is None:
            draws = np.random.standard_normal(size)
        elif isinstance(random_state, int):
            draws = np.random.RandomState(random_state).standard_normal(size)
        else:
            draws = random_state.standard_normal(size)
        return loc + scale * draws

    def mean(self, loc=0, scale=1):
        return float(loc)

    def std(self, loc=0, scale=1):
        return float(scale)

    def var(self, loc=0, scale=1):
        return float(scale) ** 2


norm = _Norm()
