# Python `if` on a value being differentiated.
import jax

def f(x):
    if x > 0:
        return x * x
    return -x

print(jax.grad(f)(3.0))
