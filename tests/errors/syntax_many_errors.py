# Several unrelated mistakes: the parser recovers at each statement and reports all of them,
# in order, each once. (An unclosed bracket would swallow everything after it, so it comes last.)
import jax.numpy as jnp

def f(x)
    return x

z = [1, 2, 3]
if z
    print(z)
w = 1 +
s = 'done
y = 2 $ 3
v = jnp.ones((3,)
print(v)
