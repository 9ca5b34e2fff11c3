"""jax.scipy.stats: the distributions JAX programs use most, written with jax.numpy."""

import jax.scipy.stats.norm as norm
import jax.scipy.stats.multivariate_normal as multivariate_normal
import jax.scipy.stats.t as t
import jax.scipy.stats.uniform as uniform
import jax.scipy.stats.expon as expon
import jax.scipy.stats.laplace as laplace
import jax.scipy.stats.logistic as logistic
import jax.scipy.stats.cauchy as cauchy
import jax.scipy.stats.bernoulli as bernoulli
