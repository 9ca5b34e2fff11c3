# jax.scipy has only what the playground already computes (logsumexp, softmax, expit, erf).
import jax

y = jax.scipy.special.gammaln(1.0)
