"""numpy.cov and numpy.corrcoef on the host: jax._statistics's code run over numpy."""

import numpy as np
from jax._statistics import correlation, covariance


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    return covariance(np, m, y, rowvar, bias, ddof, fweights, aweights, dtype)


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    return correlation(np, x, y, rowvar, dtype)
