# grad with respect to an integer argument.
import jax

g = jax.grad(lambda x: x * x)
print(g(3))
