# Python `if` on a value being differentiated inside jit: outside jit grad reads the value (as
# JAX's JVP tracers carry it), but under jit the value is abstract, so JAX refuses this too.
import jax

def f(x):
    if x > 0:
        return x * x
    return -x

print(jax.grad(f)(3.0))
print(jax.jit(jax.grad(f))(3.0))
