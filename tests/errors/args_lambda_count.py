# A lambda given to grad with the wrong number of parameters.
import jax

g = jax.grad(lambda x, y: x * y)
print(g(2.0))
