# Source: https://github.com/AdrienCorenflos/jax-workshop/blob/bbeec0056b116780ade259db0072506230fadc98/notebooks/parallelisation/vectorisation.ipynb (Adrien Corenflos, JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); IPython %timeit magics dropped; 3 cell(s) whose saved output is an error dropped); synthetic data seeded (np.random.seed(0) added after `import numpy as np`; the notebook's np.random data was unseeded)

import inspect

from jax import vmap, make_jaxpr
import jax.numpy as jnp

import numpy as np

np.random.seed(0)

def indexing_function(x, y):
    # Here x is a vector of floats, and y is a vector of ints
    return x[y]

N = 10

print(indexing_function(np.random.randn(N), np.random.randint(N)))

B = 3

def complicated_indexing_function(x, y):
    # Here x is a vector of floats, and y is a vector of ints
    return x[..., y]

print(complicated_indexing_function(np.random.randn(B, N), np.random.randint(N)))

print(complicated_indexing_function(np.random.randn(B, N), np.random.randint(N, size=B)))

np_vectorised_indexing_function = np.vectorize(
    indexing_function, signature="(n),()->()"
)

print(np_vectorised_indexing_function(np.random.randn(B, N), np.random.randint(N)))

jax_vectorised_indexing_function = jnp.vectorize(
    indexing_function, signature="(n),()->()"
)

print(jax_vectorised_indexing_function(np.random.randn(B, N), np.random.randint(N)))

batch_input = np.random.randn(10000, N)
batch_index = np.random.randint(N, size=10000)

jax_batch_input = jnp.asarray(batch_input)
jax_batch_index = jnp.asarray(batch_index)

vmapped_indexing = vmap(indexing_function, in_axes=(1, 0))
# here we are saying that the input will be batched along
# the second dimension for the input, and the first for the index, this helps with not having to do shape arithmetics.

print(vmapped_indexing(np.random.randn(N, 3), np.random.randint(N, size=3)))

def just_a_function(x, y):
    a = x[..., 0] * y[..., 1]
    b = x[..., 1] * y[..., 0]
    return a + b

print(just_a_function(np.random.randn(4, 3, 2), np.random.randn(4, 3, 2)))

from functools import partial

from jax import make_jaxpr, jvp, vmap
import jax.numpy as jnp
from jax.random import normal, PRNGKey

import numpy as np

def fun(x):
    return jnp.sin(jnp.sum(x))

def jvp_fun(x, key, d=100):
    n = x.shape[0]
    vectors = normal(key, shape=(n, d))
    return jvp(fun, (x,), (vectors,))

def jvp_fun(x, key, d=20):
    n = x.shape[0]
    vectors = normal(key, shape=(n, d))
    return jvp(fun, (jnp.repeat(x.reshape(-1, 1), d, 1),), (vectors,))[1]

print(jvp_fun(jnp.array([0.0, 1.0]), PRNGKey(42)))

# make_jaxpr(jvp_fun)(jnp.array([0., 1.]), PRNGKey(42))

def vmap_jvp_fun(x, key, d=20):
    n = x.shape[0]
    vectors = normal(key, shape=(n, d))
    local_fun = lambda vec: jvp(fun, (x,), (vec,))[1]
    return vmap(local_fun, in_axes=(1,))(vectors)

print(vmap_jvp_fun(jnp.array([0.0, 1.0]), PRNGKey(42)))

# make_jaxpr(vmap_jvp_fun)(jnp.array([0., 1.]), PRNGKey(42))
