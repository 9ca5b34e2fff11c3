"""jax.example_libraries.stax: layers as (init_fun, apply_fun) pairs, and their combinators.

`init_fun(rng, input_shape)` returns `(output_shape, params)`; `apply_fun(params, inputs,
**kwargs)` returns the outputs. Convolution and pooling layers are not here yet.
"""

import functools
import operator

import jax.numpy as jnp
from jax import random
from jax.nn import elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax, softplus
from jax.nn.initializers import glorot_normal, normal, ones, zeros


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer."""

    def init_fun(rng, input_shape):
        output_shape = input_shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b

    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A layer that applies `fun` to each element."""

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def Identity():
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return inputs

    return init_fun, apply_fun


Identity = Identity()


def Flatten():
    def init_fun(rng, input_shape):
        output_shape = input_shape[0], functools.reduce(operator.mul, input_shape[1:], 1)
        return output_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


Flatten = Flatten()


def FanOut(num):
    """A layer that copies its input `num` times."""

    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num

    return init_fun, apply_fun


def FanInSum():
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return sum(inputs)

    return init_fun, apply_fun


FanInSum = FanInSum()


def FanInConcat(axis=-1):
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        out_shape = input_shape[0][:ax] + (concat_size,) + input_shape[0][ax + 1 :]
        return out_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """Keeps each input with probability `rate` (scaled by 1/rate) in training."""

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key argument. That is, "
                "instead of `apply_fun(params, inputs)`, call it like "
                "`apply_fun(params, inputs, rng)` where `rng` is a PRNG key (e.g. from "
                "`jax.random.key`)."
            )
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


def serial(*layers):
    """Layers one after another."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers):
    """Layers side by side, each on its own input of a list."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, nlayers)
        return zip(*[init(rng, shape) for init, rng, shape in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built once the input shape is known."""

    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
