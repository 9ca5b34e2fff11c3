# Source: https://github.com/henryiii/python-performance-minicourse/blob/49f50b4bc5886131cc6b07af138ab8296dcc2cdd/06_jax.ipynb (Henry Schreiner, Python performance minicourse)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print())

# from jax.config import config
# config.update("jax_enable_x64", True)

import numpy as np

np.random.seed(42)

dist = np.hstack(
    [
        np.random.normal(loc=1, scale=2.0, size=1_000_000),
        np.random.normal(loc=1, scale=0.5, size=1_000_000),
    ]
)

def gaussian(x, μ, σ):
    return 1 / np.sqrt(2 * np.pi * σ**2) * np.exp(-((x - μ) ** 2) / (2 * σ**2))


def add(x, f_0, μ, σ, σ2):
    return f_0 * gaussian(x, μ, σ) + (1 - f_0) * gaussian(x, μ, σ2)


def nll(x, f_0, μ, σ, σ2):
    return -np.sum(np.log(add(x, f_0, μ, σ, σ2)))

print(nll(dist, *np.random.rand(4)))

print(nll(dist, *np.random.rand(4)))

import jax
import jax.numpy as jnp

def gaussian(x, μ, σ):
    return 1 / jnp.sqrt(2 * jnp.pi * σ**2) * jnp.exp(-((x - μ) ** 2) / (2 * σ**2))


def add(x, f_0, μ, σ, σ2):
    return f_0 * gaussian(x, μ, σ) + (1 - f_0) * gaussian(x, μ, σ2)


def nll(x, f_0, μ, σ, σ2):
    return -jnp.sum(jnp.log(add(x, f_0, μ, σ, σ2)))

d_dist = jnp.asarray(dist)

print(nll(d_dist, *np.random.rand(4)).block_until_ready())

print(nll(d_dist, *np.random.rand(4)).block_until_ready())

nll_jit = jax.jit(nll)

print(nll_jit(d_dist, *np.random.rand(4)).block_until_ready())

print(nll_jit(d_dist, *np.random.rand(4)).block_until_ready())
