# jacfwd of a function of a 500 x 500 matrix: the Jacobian takes 250000 one-hot tangents of
# 250000 elements each (250 GB as float32), refused before anything is allocated.
import jax
import jax.numpy as jnp

J = jax.jacfwd(lambda w: jnp.tanh(w))(jnp.ones((500, 500)))
