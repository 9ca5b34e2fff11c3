# Without x64, JAX truncates an explicitly requested 64-bit dtype to 32 bits and warns;
# NumPy integers serve as JAX's ints; timeit times callables; jax.config is no module.
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import timeit

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(repr(jax.random.uniform(jax.random.PRNGKey(0), (2,), dtype=jnp.float64)))
    print(repr(jnp.zeros(2, dtype=jnp.float64)), repr(jnp.float64(1.5)))
    print(repr(jnp.arange(3, dtype=jnp.int64)), repr(jnp.ones(2, dtype="float64")))
for w in caught:
    print(w.category.__name__, str(w.message))

x = jnp.ones((2, 3))
n = np.prod(x.shape)
print(x.reshape((n,)).shape, x.reshape(n).shape, jnp.arange(np.int64(4)), x[np.int64(1)])
print(jax.jit(lambda v: v.reshape((np.prod(v.shape),)))(x))

calls = []
t = timeit.timeit(lambda: calls.append(1), number=7)
print(len(calls), isinstance(t, float), t >= 0)
print(len(timeit.repeat(lambda: None, repeat=3, number=2)), timeit.Timer(lambda: None).timeit(number=3) >= 0)
print(timeit.default_timer is not None, timeit.timeit(number=5) >= 0)
try:
    timeit.timeit(stmt=5)
except ValueError as e:
    print(e)

try:
    import jax.config
except ModuleNotFoundError as e:
    print(e)
try:
    from jax.config import config
except ModuleNotFoundError as e:
    print(e)
jax.config.update("jax_enable_x64", False)
from jax.ad_checkpoint import checkpoint_name
print(checkpoint_name(x, "a").shape, jax.grad(lambda v: jnp.sum(checkpoint_name(jnp.sin(v), name="s")))(1.0))
