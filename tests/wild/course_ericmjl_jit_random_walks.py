# Source: https://github.com/ericmjl/dl-workshop/blob/6ef9b7feb60dd5f6a4dbdda4dc899337e583a397/notebooks/02-jax-idioms/05-jit.ipynb (Eric Ma, deep learning workshop: JAX idioms, just-in-time compilation of Gaussian random walks)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order); IPython magics (%load_ext, %autoreload, %matplotlib, %config, %timeit) dropped; the three plotting-only cells (matplotlib and seaborn imports, trajectory plots) dropped; smaller sizes (N_REALIZATIONS 1_000 -> 100, N_TIMESTEPS 10_000 -> 1_000); the NumPy random walk seeded (onp.random.seed(0) added before it); prints added: selu and selu_jit on the first five draws, the first five steps of the first NumPy trajectory, and the first five final values and first trajectory's first five steps of the vmap and jit random walks
# Ignore lines matching: ^\d+\.\d+ seconds$

import jax.numpy as np


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)

from time import time

from jax import random

key = random.PRNGKey(44)
x = random.normal(key, (1000000,))

from jax import jit

selu_jit = jit(selu)
print(selu(x)[:5])
print(selu_jit(x)[:5])

import numpy as onp


def gaussian_random_walk_python(num_realizations, num_timesteps):
    rws = []
    for i in range(num_realizations):
        rw = []
        prev_draw = 0
        for t in range(num_timesteps):
            prev_draw = onp.random.normal(loc=prev_draw)
            rw.append(prev_draw)
        rws.append(rw)
    return rws

from time import time

N_REALIZATIONS = 100
N_TIMESTEPS = 1_000
onp.random.seed(0)
start = time()
trajectories_python = gaussian_random_walk_python(N_REALIZATIONS, N_TIMESTEPS)
end = time()
print(f"{end - start:.2f} seconds")
print(trajectories_python[0][:5])

from jax import lax, random

key = random.PRNGKey(44)
keys = random.split(key, N_TIMESTEPS)


def new_draw(prev_val, key):
    """lax.scannable function for drawing a new draw from the GRW."""
    new = prev_val + random.normal(key)
    return new, prev_val


def grw_draw(key, num_steps):
    """One GRW draw over a bunch of steps."""
    keys = random.split(key, num_steps)
    final, draws = lax.scan(new_draw, 0.0, keys)
    return final, draws

from functools import partial

from jax import vmap


def gaussian_random_walk_jax(num_realizations, num_timesteps):
    """Multiple GRW draws."""
    keys = random.split(key, num_realizations)
    grw_k_steps = partial(grw_draw, num_steps=num_timesteps)
    final, trajectories = vmap(grw_k_steps)(keys)
    return final, trajectories

from jax import random

key = random.PRNGKey(42)
start = time()
final_jax, trajectories_jax = gaussian_random_walk_jax(
    N_REALIZATIONS, N_TIMESTEPS
)
trajectories_jax.block_until_ready()
end = time()
print(f"{end - start:.2f} seconds")
print(final_jax[:5])
print(trajectories_jax[0, :5])

from jax import jit


def gaussian_random_walk_jit(num_realizations, num_timesteps):
    keys = random.split(key, num_realizations)
    grw_k_steps = jit(partial(grw_draw, num_steps=num_timesteps))
    final, trajectories = vmap(grw_k_steps)(keys)
    return final, trajectories

start = time()
final_jit, trajectories_jit = gaussian_random_walk_jit(
    N_REALIZATIONS, N_TIMESTEPS
)
trajectories_jit.block_until_ready()
end = time()
print(f"{end - start:.2f} seconds")
print(final_jit[:5])
print(trajectories_jit[0, :5])
