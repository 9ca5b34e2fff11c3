# A while_loop whose trip count is data, on the machine: the condition and the body are
# compiled once each and linked into one program, the loop a `while s0 … end` on the predicate
# the condition leaves in HBM (loaded into the scalar unit's s0), new carries copied over the
# old after each trip. Power iteration: multiply by the matrix until the vector's norm passes
# a bound, counting the steps.
import jax
import jax.numpy as jnp
from jax import lax

@jax.jit
def grow(m, v):
    def cond(c):
        return jnp.sum(c[0] * c[0]) < 1e4
    def body(c):
        return (m @ c[0], c[1] + 1)
    return lax.while_loop(cond, body, (v, 0))

m = jnp.eye(4) * 2.0 + 0.25
v, steps = grow(m, jnp.ones(4))
print(steps, v)
