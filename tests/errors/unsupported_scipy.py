# jax.scipy is not available.
import jax

y = jax.scipy.special.erf(1.0)
