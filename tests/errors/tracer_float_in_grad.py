# float() of a value being differentiated: JAX's tracers give their value to bool(), int() and
# .item(), not to float(), so this fails in JAX too.
import jax

def loss(x):
    print(int(x))
    return x * float(x)

print(jax.grad(loss)(3.0))
