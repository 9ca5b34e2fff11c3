# Source: https://github.com/forgi86/jax-tutorial/blob/2504bc2429737cc752a1459bd1e0b90ce08dd36e/00_from_zero_to_noob.ipynb (Marco Forgione, JAX tutorial: from zero to noob)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); only the pure-JAX cells kept: the two jaxopt cells (BFGS, Levenberg-Marquardt) and the Flax cells (`from flax import linen as nn` and the CustomRNNCell modules, their init/apply and the lax.scan over them) dropped, with the `import jaxopt`; the two `%%timeit` cells (IPython cell magics timing value_and_grad, whose assignments do not persist) dropped; matplotlib import and plotting calls dropped (plt.plot/plt.figure; the last of them was a cell's displayed expression); `onp.random.seed(0)` added after the imports, since the notebook draws its data and parameters from the unseeded global NumPy random state

from functools import partial
import jax
import jax.numpy as jnp
import numpy as onp
import jax.random as jr
onp.random.seed(0)

a = jnp.ones((2))
b = jnp.array([1.0, 2.0])
print(a + b)

print(jnp.sin(a**2 + b**2)) # really feels like numpy so far!

# this would work in ordinary numpy, but throws an error in jax.numpy
# a[1] = 2.0 

# In JAX, we need the following syntax to achieve a *similar* result:
a = a.at[1].set(2.0)
print(a)

c = onp.random.randn((2))

print(a + c)

# A linear model as a pure function
def linear_model(params, x):
    y = x * params[0] + params[1]
    return y

y = linear_model(jnp.array([1.0, 2.0]), jnp.array([1.0])); print(y)

# Similar to linear_model, but with side-effects
z  = jnp.array([0.0])
def non_pure_function(params, x):
    y = x * params[0] + params[1]
    y = y + z # the function output depends on a global variable z. Not allowed in pure functions!
    z = z + 1 # this modifies the global variable z, which is also side-effect!
    print("This is not a pure function, printing is also a side-effect!")
    return y 

# A linear model as a pure function
def linear_model(params, x):
    y = x * params[0] + params[1]
    return y

params_true = jnp.array([1.0, 2.0]) # true, unknown value
params_init = onp.random.randn(2,) # initial guess (initialized with ordinary numpy, we still dont know random numbers in JAX)

N = 100
x = jnp.linspace(-2, 2, 100)
y = linear_model(params_true, x) + onp.random.randn(N) * 0.1

def loss_fn(p, y, x):
    y_hat = linear_model(p, x)
    loss = jnp.mean((y - y_hat) ** 2)
    return loss


print(loss_fn(params_init, y, x))

loss_grad_fn = jax.grad(loss_fn) # by defaul, gradient wrt first argument (p)

print(loss_grad_fn(params_init, y, x)) # calling the gradient function with some data, we get the gradient value!

params_opt = params_init

lr = 1e-2
for _ in range(200):
    g = loss_grad_fn(params_opt, y, x)
    params_opt = params_opt - lr * g

print(params_opt, params_true)  # almost there...

# Let us build a model that acts on a single element.
def linear_model(weight, input):
    return weight @ input


in_feat = 3
out_feat = 10

W = onp.random.randn(out_feat, in_feat)  # 10 outputs, 3 inputs
x = onp.random.randn(in_feat)
y = linear_model(W, x)

# What if we have a vector of examples?
batch_size = 32
X = onp.random.randn(batch_size, in_feat)

# In pytorch, we would end up re-writing the linear layer in a less straightforward fashion:
Y = X @ W.T # :-(
Y.shape

# In jax, we would rather harness the power of vmap!
Y_vmap = jax.vmap(linear_model, in_axes=(None, 0))(W, X) # :-)
print(jnp.allclose(Y, Y_vmap, rtol=1e-4)) # equivalent up to some numerical difference

# Here (like above), we vectorize on the second argument only (the data)
# This makes sense when we apply the same model to different data batches
batched_linear_model = jax.vmap(linear_model, in_axes=(None, 0))
Y_vmap = batched_linear_model(W, X)

# This is the converse: different models (an ensemble?) acting on the same data!
W_many = onp.random.randn(batch_size, out_feat, in_feat)
many_linear_models_same_data = jax.vmap(linear_model, in_axes=(0, None))
Y_many = many_linear_models_same_data(W_many, x)
print(Y_many.shape)

# By default, we vectorize on all arguments. We simulate several models over several datasets in parallel!
many_linear_models = jax.vmap(linear_model)
Y_many = many_linear_models(W_many, X)

# Let us implement a MLP from scratch!
nn_sizes = [3, 16, 10]  # 3 inputs, 16 hidden layers, 10 outputs

params_nn = {
    "layer0": {
        "W": onp.random.randn(nn_sizes[1], nn_sizes[0]),
        "b": onp.random.randn(nn_sizes[1]),
    },
    "layer1": {
        "W": onp.random.randn(nn_sizes[2], nn_sizes[1]),
        "b": onp.random.randn(nn_sizes[2]),
    },
}

def nn_model(p, input):
    z = jax.nn.sigmoid(p["layer0"]["W"] @ input + p["layer0"]["b"])
    out = p["layer1"]["W"] @ z + p["layer1"]["b"]
    return out

x = onp.random.randn(
    nn_sizes[0],
)
y_nn = nn_model(params_nn, x)
print(y_nn.shape)

# batched execution of the MLP with vmap
X = onp.random.randn(batch_size, nn_sizes[0])
Y = jax.vmap(nn_model, in_axes=(None, 0))(params_nn, X)
print(Y.shape)

# batched loss computation
def loss_fn(p, input, target):
    predicted = jax.vmap(nn_model, in_axes=(None, 0))(p, input)
    error = target - predicted
    return jnp.mean(error**2)

Y_true = onp.random.randn(batch_size, nn_sizes[-1]) # some fake data
print(loss_fn(params_nn, X, Y_true))

params_sq = jax.tree.map(lambda x : x**2, params_nn) # all parameters squared (unary op)

params_sum = jax.tree.map(lambda x, y: x + y, params_nn, params_sq) # sum of two pytrees (binary op)

#params_flat, unflatten_pars = jax.flatten_util.ravel_pytree(params_nn) # flat vector, unflatten function

grad_fn_jit = jax.jit(jax.value_and_grad(loss_fn))

key = jr.key(1234)

print(jr.normal(key))

print(jr.normal(key, shape=(2,))) # same key=same result! It's a pure function.

key, subkey = jr.split(key, 2)
print(jr.normal(key, shape=(2,)), jr.normal(subkey, shape=(2,)))

# same arguments, different results. The random.randn in ordinary numpy is not a pure function!
print(onp.random.randn(2), onp.random.randn(2))

# same arguments, same results. This is a pure function!
print(jr.normal(key, shape=(2,)), jr.normal(key, shape=(2,)))

nx = 4
ny = 3
nu = 2
seq_len = 100

x0 = jnp.ones(nx) # initial state
u0 = jnp.ones(nu) # initial input (just to simulate the first step)
u = jnp.ones((seq_len, nu)) # input sequence
