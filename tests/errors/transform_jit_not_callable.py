# jit of something that is not a function.
import jax

f = jax.jit(3)
print(f(1.0))
