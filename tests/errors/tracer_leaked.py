# A tracer saved in a global during tracing and used after jit returned.
import jax
import jax.numpy as jnp

saved = []

@jax.jit
def f(x):
    saved.append(x * 2)
    return x + 1

print(f(jnp.ones(2)))
print(saved[0] + 1)
