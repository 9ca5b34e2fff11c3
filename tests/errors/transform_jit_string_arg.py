# A string passed to a jitted function (not a JAX type; mark it static instead).
import jax

@jax.jit
def f(x, mode):
    return x * 2

print(f(1.0, "double"))
