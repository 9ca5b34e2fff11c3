# A jitted function inside grad traces abstractly, so its Python `if` has no value to read.
import jax

step = jax.jit(lambda u: u if u > 0 else -u)
print(jax.grad(lambda v: step(v) * 2.0)(3.0))
