# Source: https://github.com/ericmjl/dl-workshop/blob/6ef9b7feb60dd5f6a4dbdda4dc899337e583a397/notebooks/02-jax-idioms/03-deterministic-randomness.ipynb, with the exercise answers from src/dl_workshop/jax_idioms.py of the same commit (Eric J. Ma, Magical NumPy with JAX / deep learning workshop)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); each `from dl_workshop.jax_idioms import randomness_ex_N` (the workshop's answer module, imported right after the exercise's stub so that it replaces it) replaced by that function's source from src/dl_workshop/jax_idioms.py, with the module's own imports it needs (`from functools import partial`, `from typing import Callable`); the YouTube-video cell (IPython.display) dropped; matplotlib/seaborn imports and plotting calls dropped; prints added where a cell's output was a plot: the Gaussian random walks' final values (the Python loop, lax.scan, grw_draw and the 20 vmapped walks) and the 2-D lattice walk's final position (Python loop and randomness_ex_1)

import numpy as onp  # original numpy

onp.random.seed(42)

a = onp.random.normal()
print(a)

b = onp.random.normal()
print(b)

from jax import random

key = random.PRNGKey(42)

a = random.normal(key=key)
print(a)

b = random.normal(key=key)
print(b)

k1, k2 = random.split(key)
c = random.normal(key=k2)
print(c)

k3, k4, k5 = random.split(k2, num=3)
d = random.normal(key=k3)
print(d)

from jax import vmap
key = random.PRNGKey(44)
ks = random.split(key, 20)  # we want to generate 20 draws
draws = vmap(random.normal)(ks)
print(draws)

print(random.normal(key, shape=(20,)))

num_timesteps = 100

mu = 0.0  # starting mean.
observations = [mu]

key = random.PRNGKey(44)
# Split the key num_timesteps number of times
keys = random.split(key, num_timesteps)

# Gaussian Random Walk goes here
for k in keys:
    mu = mu + random.normal(k)
    observations.append(mu)

print(mu)

from jax import lax

def new_draw(prev_val, key):
    new = prev_val + random.normal(key)
    return new, prev_val

final, draws = lax.scan(new_draw, 0.0, keys)
print(final)

def grw_draw(key, num_steps):
    keys = random.split(key, num_steps)
    final, draws = lax.scan(new_draw, 0.0, keys)
    return final, draws

final, draw = grw_draw(key, num_steps=100)
print(final)

import jax.numpy as np

starting_position = onp.array([0, 0])
n_steps = 1000

positions = [starting_position]
keys = random.split(key, n_steps)
for k in keys:
    k1, k2 = random.split(k)
    axis = random.choice(k1, np.array([0, 1]))
    direction = random.choice(k2, np.array([-1, 1]))
    x, y = positions[-1]
    if axis == 0:
        x += direction
    else:
        y += direction
    new_position = np.array([x, y])
    positions.append(new_position)
positions = np.stack(positions)
print(positions[-1])

def randomness_ex_1(keys, starting_position):
    # Your answer here!
    pass

from functools import partial

def randomness_ex_1(keys, starting_position):
    ks = vmap(random.split)(keys)
    axes = vmap(partial(random.permutation, x=np.array([0, 1])))(ks[:, 0])
    direction = vmap(partial(random.choice, a=np.array([-1, 1])))(ks[:, 1])
    change_vectors = axes * np.reshape(direction, (-1, 1))

    def new_position(previous_pos, change_vector):
        new_pos = previous_pos + change_vector
        return new_pos, new_pos

    final, history = lax.scan(new_position, starting_position, change_vectors)
    return final, history

final, history = randomness_ex_1(keys, starting_position)
print(final)

betadraw = random.beta(key, a=1, b=2)
print(betadraw)

import jax.numpy as np

num_breaks = 30
keys = random.split(key, num_breaks)
concentration = 5

sticks = []
stick_length = 1.0
for k in keys:
    breaking_fraction = random.beta(k, a=1, b=concentration)
    stick = stick_length * breaking_fraction
    sticks.append(stick)
    stick_length = stick_length - stick
result = np.array(sticks)
print(result)

def randomness_ex_2(key, num_breaks, concentration: float):
    # Your answer here!
    pass

# Comment out the import to test your answer!
def randomness_ex_2(key, num_breaks, concentration: float):
    def step(stick_length: float, key, concentration: float):
        fraction = random.beta(key, a=1, b=concentration)
        stick = stick_length * fraction
        remainder = stick_length - stick
        return remainder, stick

    step_one_conc = partial(step, concentration=concentration)
    keys = random.split(key, num_breaks)
    final, sticks = lax.scan(step_one_conc, init=1.0, xs=keys)
    return final, sticks

final, sticks = randomness_ex_2(key, num_breaks, concentration)
assert np.allclose(sticks, result)

from functools import partial

from jax import vmap

def randomness_ex_3(key, num_realizations=20, grw_draw=grw_draw):
    # Your answer here
    pass

from typing import Callable

def randomness_ex_3(key, num_realizations: int, grw_draw: Callable):
    keys = random.split(key, num_realizations)
    grw_1000_steps = partial(grw_draw, num_steps=1000)

    final, trajectories = vmap(grw_1000_steps)(keys)
    return final, trajectories

final, trajectories = randomness_ex_3(key, num_realizations=20, grw_draw=grw_draw)

print(trajectories.shape)

print(final)
