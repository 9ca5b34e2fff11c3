# Source: https://github.com/ericmjl/dl-workshop/blob/6ef9b7feb60dd5f6a4dbdda4dc899337e583a397/notebooks/02-jax-idioms/02-loopy-carry.ipynb, with the exercise answers from src/dl_workshop/jax_idioms.py of the same commit (Eric J. Ma, Magical NumPy with JAX / deep learning workshop)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); the two imports from the workshop's answer module, which replace the exercise stubs defined just above them, replaced by the answers' source from src/dl_workshop/jax_idioms.py (`from dl_workshop.jax_idioms import lax_scan_ex_1 as wealth_at_time` by `def lax_scan_ex_1` followed by `wealth_at_time = lax_scan_ex_1`, and `from dl_workshop.jax_idioms import lax_scan_ex_2` by `def lax_scan_ex_2`); the YouTube-video cell (IPython.display) dropped; matplotlib import and plotting calls dropped, a print of the last three simulated wealths of accounts 1-3 added in place of their plot

import jax.numpy as np

a = np.array([1, 2, 3, 5, 7, 11, 13, 17])

result = []
res = 0
for el in a:
    res += el
    result.append(res)
print(np.array(result))

print(np.cumsum(a))

from jax import lax

def cumsum(res, el):
    """
    - `res`: The result from the previous loop.
    - `el`: The current array element.
    """
    res = res + el
    return res, res  # ("carryover", "accumulated")

result_init = 0
final, result = lax.scan(cumsum, result_init, a)
print(result)

wealth_record = []
starting_wealth = 100.0
interest_factor = 1.01
num_timesteps = 100
prev_wealth = starting_wealth

for t in range(num_timesteps):
    new_wealth = prev_wealth * interest_factor
    wealth_record.append(prev_wealth)
    prev_wealth = new_wealth

wealth_record = np.array(wealth_record)

from functools import partial

def wealth_at_time(prev_wealth, time, interest_factor):
    # The lax.scannable function to compute wealth at a given time.
    # your answer here
    pass

# Comment out the import to test your answer
def lax_scan_ex_1(prev_wealth, time, interest_factor):
    new_wealth = prev_wealth * interest_factor
    return new_wealth, prev_wealth

wealth_at_time = lax_scan_ex_1

wealth_func = partial(wealth_at_time, interest_factor=interest_factor)
timesteps = np.arange(num_timesteps)
final, result = lax.scan(wealth_func, init=starting_wealth, xs=timesteps)

assert np.allclose(wealth_record, result)

from jax import vmap

def simulate_compound_interest(
    starting_wealth: np.ndarray, timesteps: np.ndarray
):
    final, result = lax.scan(wealth_func, init=starting_wealth, xs=timesteps)
    return final, result

num_timesteps = np.arange(200)
starting_wealths = np.arange(300).astype(float)

simulation_func = partial(simulate_compound_interest, timesteps=np.arange(200))

final, growth = vmap(simulation_func)(starting_wealths)
print(growth.shape)

print(growth[1:4, -1])

# NumPy equivalent

num_breaks = 30
breaking_fraction = 0.1

sticks = []
stick_length = 1.0
for i in range(num_breaks):
    stick = stick_length * breaking_fraction
    sticks.append(stick)
    stick_length = stick_length - stick
sticks = np.array(sticks)
print(sticks)

def lax_scan_ex_2(num_breaks: int, frac: float):
    # Your answer goes here!
    pass

# Comment out the import if you want to test your answer.
def lax_scan_ex_2(num_breaks: int, frac: float) -> np.ndarray:
    def step(stick_length: float, frac: float):
        stick = stick_length * frac
        remainder = stick_length - stick
        return remainder, stick

    fracs = np.array([frac] * num_breaks)
    final, sticks = lax.scan(step, init=1.0, xs=fracs)
    return sticks

sticksres = lax_scan_ex_2(num_breaks, breaking_fraction)
assert np.allclose(sticksres, sticks)
