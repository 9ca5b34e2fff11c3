# Source: https://github.com/AdrienCorenflos/jax-workshop/blob/bbeec0056b116780ade259db0072506230fadc98/notebooks/randomness/prngkeyvsglobalseed.ipynb (Adrien Corenflos, JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print())

import numpy as np
from scipy.stats import norm as sp_norm
from jax.random import normal, uniform, key, split

jax_key = key(0)
print(jax_key)

jax_key = key(0, impl="rbg")
print(jax_key)

jax_key = key(0)
print(normal(jax_key))

np_gen = np.random.Generator(np.random.PCG64(0))
print(sp_norm.rvs(random_state=np_gen))

print(sp_norm.rvs(random_state=np_gen))
print(sp_norm.rvs(random_state=np_gen))  # the values change

print(normal(jax_key))
print(normal(jax_key))  # the values remain the same

jax_key, subkey = split(jax_key)
print(normal(subkey))

many_keys = split(jax_key, 42)

from jax.lax import scan, while_loop
import jax.numpy as jnp
from jax.random import normal
from jax.scipy.stats.norm import pdf

def acceptance_rejection(target_lik, proposal_lik, proposal_sampler, c, N):
    res = []
    while len(res) < N:
        y = proposal_sampler()
        u = np.random.rand()
        lik_ratio = target_lik(y) / (c * proposal_lik(y))
        if u > lik_ratio:
            continue
        else:
            res.append(y)
    return np.stack(res)

def target_lik(y):
    if y[0] ** 2 + y[1] ** 2 < 1:
        return 1 / np.pi**2
    return 0

def proposal_lik(y):
    return np.exp(-(y[0] ** 2 + y[1] ** 2) / 2) / np.sqrt(2 * np.pi)

c = np.sqrt(2 * np.pi) * np.exp(0.5) * np.pi**2

def mh(f, n=1000):
    arr = np.empty((n, 2))
    x, y = np.random.uniform(-1, 1, 2)
    p = f(x, y)
    for i in range(n):
        eps_x, eps_y = np.random.uniform(-1, 1, 2)
        xi, yi = x + eps_x, y + eps_y
        pi = f(xi, yi)
        if np.random.rand() <= pi / p:
            x, y = xi, yi
            p = pi
        arr[i] = x, y
    return arr
