# grad with argnums beyond the function's arguments.
import jax

g = jax.grad(lambda x: x * x, argnums=1)
print(g(2.0))
