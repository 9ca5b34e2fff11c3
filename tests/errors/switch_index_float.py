# lax.switch picks a branch by an integer index; a float one is refused as JAX refuses it.
import jax
from jax import lax

branches = [lambda x: x + 1.0, lambda x: x * 2.0]
print(jax.jit(lambda i, x: lax.switch(i, branches, x))(1.0, 3.0))
