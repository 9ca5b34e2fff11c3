# An integer-array index in .at[] beside a partial slice: the playground takes array indices on
# adjacent axes beside whole axes only, and says so (it once called the int array "floats").
import jax.numpy as jnp
m = jnp.zeros((3, 4))
print(m.at[jnp.array([0, 1]), 1:].set(1.0))
