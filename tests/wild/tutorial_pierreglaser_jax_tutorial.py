# Source: https://github.com/pierreglaser/jax-tutorial/blob/071c923c082e8dbd7aea54b220052283dc3dbe9d/tutorial_with_solutions.ipynb (Pierre Glaser, JAX tutorial with exercise solutions: kernels, the kernel Stein discrepancy, PRNG keys, control flow, pytrees)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the Colab `!pip install` cell and the 4 %timeit cells dropped); only the pure-JAX cells are kept: the cells from the first `from flax import struct` on (a Flax and NumPyro mixture-of-Gaussians example) dropped; of the cell whose saved output is an error (the exercise stub `random_walk_kernel` raises NotImplemented), the raising call `x1 = random_walk_kernel(x0, key)` and the two statements after it that use it dropped, the `x0` and `key` definitions kept; synthetic data seeded (np.random.seed(0) added after the imports, for the unseeded np.random.randn draws); smaller sizes (the kernel-matrix data X, Y 100x2, 200x2 -> 10x2, 20x2, since the naive Gram matrix loops over every pair; sample_sizes (50, ..., 5000) -> (50, 100) in both KSD loops); matplotlib import and plotting calls dropped (the np.polyfit fit that fed the plots kept), a print of ksd_vals and of the fitted coefficients added in place of each plot

import numpy as np

import jax
import jax.numpy as jnp
from jax import jit, grad, vmap
np.random.seed(0)

def gaussian_kernel(x, y):
    sigma = 2
    z = x - y
    return jnp.exp(-jnp.sum(jnp.square(z)) / sigma ** 2)

x_input = jnp.ones((2,))  # [0., 0.]
y_input = jnp.zeros((2,))  # [1., 1.]
retval = gaussian_kernel(x_input, y_input)
print(retval)

# just-in-time compilation
jitted_gaussian_kernel = jit(gaussian_kernel)
assert gaussian_kernel(x_input, y_input) == gaussian_kernel(x_input, y_input)

# automatic differentiation
d_dx_gaussian_kernel=grad(gaussian_kernel, argnums=0)  # compute the partial derivative of gaussian_kernel w.r.t x
print(d_dx_gaussian_kernel(x_input, y_input))  # returns a 2-d vector

vmapped_gaussian_kernel = vmap(gaussian_kernel, in_axes=(0, None))

batch_of_x_inputs = jnp.stack((jnp.zeros((2,)), jnp.ones((2,))))
print(vmapped_gaussian_kernel(batch_of_x_inputs, y_input))

print(jit(vmap(grad(gaussian_kernel), in_axes=(0, None)))(batch_of_x_inputs, y_input))

import numpy as np
random_state = np.random.RandomState(42)
X = random_state.randn(10, 2)
Y = random_state.randn(20, 2)

def compute_gram_matrix_naively(X, Y):
    gram_matrix = np.empty((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            kij = gaussian_kernel(X[i], Y[j])  # note the interoperability between jax and numpy arrays within **untransformed** jax funtions
            gram_matrix[i, j] = kij
    return gram_matrix

M_naive = compute_gram_matrix_naively(X, Y)

def gaussian_kernel_explicit_reduction_axes(x, y):
    sigma = 2
    z = x - y
    # we add a axis=-1 to prevent numpy from summing over all axes when giving gaussian_kernel a stack of tensors.
    # return jnp.exp(-jnp.sum(jnp.square(z)) / sigma ** 2)
    return jnp.exp(-jnp.sum(jnp.square(z), axis=-1) / sigma ** 2)

def compute_gram_matrix_bcast_semantics(X, Y):
    return gaussian_kernel_explicit_reduction_axes(X[:, None, :], Y[None, :, :])

M_bcast = compute_gram_matrix_bcast_semantics(X, Y)
assert np.allclose(M_naive, M_bcast)

# Exercise: combine of vmap and gaussian_kernel within compute_gram_matrix_using_vmap to compute the gram matrix between X and Y
def compute_gram_matrix_using_vmap(X, Y):
    # raise NotImplemented
    return vmap(vmap(gaussian_kernel, in_axes=(None, 0)), in_axes=(0, None))(X, Y)

M_vmap = compute_gram_matrix_using_vmap(X, Y)
assert np.allclose(M_vmap, M_bcast)

jitted_gaussian_kernel = jit(gaussian_kernel)
_ = jitted_gaussian_kernel(jnp.ones((2,)), jnp.zeros((2,))).block_until_ready()

def p(x):
    return jnp.exp(-0.5 * jnp.sum(jnp.square(x))) #  unnormalized standard normal density

s = ...  # compute the score function

# Solution
s = grad(lambda x: jnp.log(p(x)))

# You will need the jacobian function transformation of jax, which computes the jacobian of a vector-valued function
from jax import jacobian

def stein_kernel(x, y):
    k = gaussian_kernel
    term_1 = jnp.dot(s(x), s(y)) * k(x, y)
    term_2 = jnp.dot(s(x), grad(k, argnums=1)(x, y))
    term_3 = jnp.dot(grad(k, argnums=0)(x, y), s(y))
    
    # Solution
    term_4 = jnp.trace(jacobian(grad(k, argnums=1), argnums=0)(x, y))
    
    return term_1 + term_2 + term_3 + term_4

def compute_gram_matrix_stein_kernel(X):
    return vmap(vmap(stein_kernel, in_axes=(None, 0)), in_axes=(0, None))(X, X)

def ksd(X):
    N = X.shape[0]
    return jnp.sqrt(jnp.sum(compute_gram_matrix_stein_kernel(X)) / (N **2))

from jax import random
key = random.PRNGKey(0)
X = random.normal(key, (5000,2))

sample_sizes = (50, 100)
random_state = np.random.RandomState(40)

ksd_vals = []
for N in sample_sizes:
    ksd_vals_this_iter = []
    for rs in range(5):
        X = random_state.randn(N, 2)
        ksd_vals_this_iter.append(ksd(jnp.array(X)))
    ksd_vals.append(jnp.mean(jnp.array(ksd_vals_this_iter)))

coef = np.polyfit(1 / jnp.sqrt(jnp.array(sample_sizes)),ksd_vals,1)
poly1d_fn = np.poly1d(coef) 
# poly1d_fn is now a function which takes in x and returns an estimate for y
print(ksd_vals)
print(coef)

def draw_one_random_variable():
    return np.random.randn()

print(draw_one_random_variable(), draw_one_random_variable())  # two different outputs for the same input (Φ): 

def draw_one_random_variable_RandomState(rs):
    return rs.randn()

rs = np.random.RandomState(42)
orig_state = rs.get_state()

draw_one_random_variable_RandomState(rs)
print(np.allclose(rs.get_state()[1], orig_state[1]))

#                                           key 
#                                           | 
#                                           |  random.split(key)
#                                           | 
#                             ---------------------------
#                             |                          |
#                             |                          |
#                             |                          |
#                           subkey1                    subkey2
#                              | 
#     random.split(subkey1)    |                         |  random.split(subkey2)
#                              |                         | 
#                        --------------            --------------
#                        |            |            |            |
#                        |            |            |            |
#                        |            |            |            |
#                       subkey1.1   subkey1.2   subkey2.1      subkey2.2
#

from jax import random
key = random.PRNGKey(42)

key, subkey = random.split(key)
# provide a one-shot "RandomState"-like subkey to generate a random variable.
x1 = random.normal(subkey)

# From now on, subkey cannot be used since it was used to generate randomness in random.normal
x1_same = random.normal(subkey)
assert x1_same == x1

# You're left with an "untouched" new key that can be split to generate new randomness
key, subkey = random.split(subkey)

x2 = random.normal(subkey)
assert x2 != x1

from jax import random

sample_sizes = (50, 100)

key = random.PRNGKey(0)

ksd_vals = []
for N in sample_sizes:
    ksd_vals_this_iter = []
    for rs in range(5):
        key, subkey = random.split(key)
        X = jax.random.normal(key, (N, 2))
        ksd_vals_this_iter.append(jit(ksd)(jnp.array(X)))
    ksd_vals.append(jnp.mean(jnp.array(ksd_vals_this_iter)))

coef = np.polyfit(1 / jnp.sqrt(jnp.array(sample_sizes)),ksd_vals,1)
poly1d_fn = np.poly1d(coef) 
# poly1d_fn is now a function which takes in x and returns an estimate for y
print(ksd_vals)
print(coef)

def f(x):
    if x > 0:
        return jnp.ones((2,))
    else:
        return jnp.ones((3,))

def f(x):
    if x.shape[0] == 2:
        return jnp.ones((2,))
    elif x.shape[0] == 3:
        return jnp.ones((3,))
    else:
        raise ValueError

def f(x):
    if x > 0:
        return jnp.ones((2,))
    else:
        return jnp.zeros((2,))

import jax.lax

def f(x):
    return jax.lax.cond(x > 0, lambda: jnp.ones((2,)), lambda: jnp.zeros((2,)))

print(f"{f(-1.)=}")
print(f"{f(2.)=}")

def f(x):
    for i in range(100):
        x = x+1
    return x

import jax.lax

def f_fori_loop(x):
    def body_fun(i, x):
        return x+1
    return jax.lax.fori_loop(0, 100, body_fun, x)

assert f(1) == f_fori_loop(1)

def p(x):
    
    # the unnormalized density of interest
    sigma = 1.
    return jnp.exp(-0.5/sigma**2 * jnp.sum(jnp.square(x - jnp.ones((2,)))))

# the proposal distribution q(\cdot | x)
def q(x, y):
    return jnp.exp(-0.5/sigma**2 * jnp.sum(jnp.square(x - y)))

def random_walk_kernel(x, key, sigma=1):
    # 1. generate x' from q(x, \cdot). Hint: use a shifted and scaled sample from random.normal.
    # 2. compute \alpha
    # 3. return x or x'.
    raise NotImplemented

x0 = jnp.zeros((2,))
key = random.PRNGKey(0)

def rw_mcmc(num_steps, x0, key):
    x = x0
    iterates = [x]
    for i in range(steps):
        key, subkey = random.split(key)
        x = random_walk_kernel(x, subkey)
        iterates.append(x)
    return iterates

def rw_mcmc_jax_control_flow(num_steps, x0, key):
    x = x0
    iterates = [x]
    
    def step_fn(carry, input_):
        output = ...  # do a MH kernel step
        return output, output
    
    # call jax.lax.scan using step_fn as its step function.
    _, iterates  = jax.lax.scan(...)
    return iterates

# Example
some_pytree = {'a': jnp.ones((2,)), 'b': jnp.ones((2,))}

def f():
    return jax.lax.cond(True, lambda: [jnp.ones((2,)), jnp.ones((3,))], lambda: [jnp.ones((3,)), jnp.ones((3,))])

def f(tree):
    return 2 * tree['a']['c'] * tree['b']

grad_f = grad(f)
print(grad_f({'a': {'c': 10.}, 'b': -2.}))

vmapped_f = vmap(f)
print(vmapped_f({'a': {'c': 10. * jnp.ones((10,))}, 'b': -2. * jnp.arange(10)}))

vmapped_f_partial = vmap(f, in_axes=({'a': {'c': 0}, 'b': None}, ))  # a bit error-prone: this is currently a jax usability weak spot.
print(vmapped_f_partial({'a': {'c': 10. * jnp.ones((10,))}, 'b': -2.}))

from typing import NamedTuple
class MyAlgorithmConfig(NamedTuple):
    learning_rate: int = 0.01
    regularization_val: int = 0.001
    # careful! if the training loop was implememted as a jax.lax.scan loop,
    # num_iter will have to be static, as it impacts the output shape of the scan loop
    # num_iter = 100
    ...

def train_my_network(X, y, my_algorithm_config: MyAlgorithmConfig,
                     # num_iter = 100
                    ):
    ...
    
# instead of
def train_my_network(X, y, learning_rate, regularization_val, 
                     # num_iter = 100
                    ):
    ...
