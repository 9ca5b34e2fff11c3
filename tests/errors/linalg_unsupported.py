# jnp.linalg has norm, solve, inv, det, slogdet, cholesky, matrix_power and the decompositions
# eigh, svd, qr and lstsq (with eigvalsh, svdvals, pinv, matrix_rank): the rest (eig, whose
# results are complex) is named as not supported yet.
import jax.numpy as jnp

x = jnp.eye(3)
print(jnp.linalg.eig(x))
