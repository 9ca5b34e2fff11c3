# make_jaxpr of a function writing a ref: JAX prints Ref{...} inputs and `<-` effects, which the
# playground's jaxprs do not have, so it refuses (at the call) rather than print another jaxpr.
import jax
import jax.numpy as jnp

r = jax.new_ref(jnp.zeros(3))

def bump(x):
    r[...] += x
    return x

print(jax.make_jaxpr(bump)(1.0))
