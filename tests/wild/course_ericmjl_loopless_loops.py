# Source: https://github.com/ericmjl/dl-workshop/blob/6ef9b7feb60dd5f6a4dbdda4dc899337e583a397/notebooks/02-jax-idioms/01-loopless-loops.ipynb, with the exercise answers from src/dl_workshop/jax_idioms.py of the same commit (Eric J. Ma, Magical NumPy with JAX / deep learning workshop)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); IPython magics (%load_ext/%autoreload/%matplotlib/%config) dropped); the three imports from the workshop's answer module, which replace the exercise stubs, replaced by the answers' source from src/dl_workshop/jax_idioms.py (both `from dl_workshop.jax_idioms import loopless_loops_ex2` by `def loopless_loops_ex2`, and `from dl_workshop.jax_idioms import loopless_loops_ex3` by that file's `from functools import partial` and `def loopless_loops_ex3`); the YouTube-video cell (IPython.display) dropped

import jax.numpy as np
a = np.arange(20)   # (20,)

def square(x: float) -> float:
    return x ** 2

from jax import vmap
mapped_sq = vmap(square)  # this is a function!
print(mapped_sq(a))

def sum_vector(x: np.ndarray) -> np.ndarray:
    """Assumes `x` is a vector"""
    return np.sum(x)

a = np.arange(20).reshape((4, 5))
print(a)

# Apply `sum_vector` across each element along the 0th axis.
print(vmap(sum_vector)(a))          # shape: (4,)

# Apply `sum_vector` across each element along the 1st axis.
print(vmap(sum_vector, in_axes=1)(a))  # shape: (5,)

def softmax(x: np.ndarray) -> np.ndarray:
    """Vector-wise softmax transform."""
    return np.exp(x) / np.sum(np.exp(x))

a = np.arange(20).reshape((4, 5))
print(a)

print(vmap(softmax)(a))

def angle(opp: float, adj: float):
    return np.arctan(opp / adj)

print(angle(5, 3))

opps = np.arange(20)
adjs = np.linspace(3, 30, 20)

print(vmap(angle)(opps, adjs))

def mp(a: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Message passing operator.
    
    - `a`: An adjacency-like matrix of size (num_nodes, num_nodes).
    - `f`: A message matrix of size (num_nodes, num_feats).
    """
    
    return np.dot(a, f)

from jax import random

num_nodes = 7
num_graphs = 13
num_feats = 11

key = random.PRNGKey(90)
As = random.bernoulli(key, p=0.1, shape=(num_graphs, num_nodes, num_nodes))
Fs = random.normal(key, shape=(num_graphs, num_nodes, num_feats))

def naive_mp(As, Fs):
    res = []
    for a, f in zip(As, Fs):
        res.append(np.dot(a, f))
    return np.stack(res)

# Your answer here.
def vmapped_message_passing(As, Fs):
    """Your answer here!"""
    result = vmap(mp)(As, Fs)
    return result

result = vmapped_message_passing(As, Fs)
assert result.shape == naive_mp(As, Fs).shape
assert not np.allclose(result, Fs)

def loopless_loops_ex2(data):
    """Data is 3D, of shape (n_datasets, n_rows, n_columns)."""

    def inner(dataset):
        """dataset is 2D, of shape (n_rows, n_columns)."""
        cp = vmap(np.cumprod)(dataset)
        s = vmap(np.sum)(cp)
        return s

    return vmap(inner)(data)

data = random.normal(key, shape=(11, 31, 7))


def ex2_numpy_equivalent(data):
    result = []
    for d in data:
        cp = np.cumprod(d, axis=-1)
        s = np.sum(cp, axis=1)
        result.append(s)
    return np.stack(result)


def loopless_loops_ex2(data):
    """Your solution here!"""
    pass


# Comment out the import if you want to test your answer.
def loopless_loops_ex2(data):
    """Data is 3D, of shape (n_datasets, n_rows, n_columns)."""

    def inner(dataset):
        """dataset is 2D, of shape (n_rows, n_columns)."""
        cp = vmap(np.cumprod)(dataset)
        s = vmap(np.sum)(cp)
        return s

    return vmap(inner)(data)

assert loopless_loops_ex2(data).shape == ex2_numpy_equivalent(data).shape

num_nodes = 13
num_feats = 17
node_feats = random.normal(key, shape=(13, 17))


def ex3_numpy_equivalent(node_feats):
    result = []
    for node1 in node_feats:
        node1_concats = []
        for node2 in node_feats:
            cc = np.concatenate([node1, node2])
            node1_concats.append(cc)
        result.append(np.stack(node1_concats))

    return np.stack(result)


def loopless_loops_ex3(node_feats):
    """Your solution here!"""
    pass


# Comment out the import if you want to test your answer.
from functools import partial


def loopless_loops_ex3(node_feats):
    def concat(n1, n2):
        return np.concatenate([n1, n2])

    def concatenate(node, node_feats):
        return vmap(partial(concat, node))(node_feats)

    return vmap(partial(concatenate, node_feats=node_feats))(node_feats)

assert (
    loopless_loops_ex3(node_feats).shape
    == ex3_numpy_equivalent(node_feats).shape
)
