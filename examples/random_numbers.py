# Random numbers on the vector unit
#
# jax.random inside jit runs JAX's generator, Threefry-2x32, on the TPU itself: a dropout mask
# is a hash of every element's counter under the key, 20 rounds of uint32 adds, rotations and
# xors, about 112 vector operations per element before the bits become a uniform float and a
# comparison with the keep probability. The matrix unit has nothing to do with it. Compare the
# two programs below: `layer` is a 256×256×256 matmul with a tanh, `dropout_layer` the same layer
# with a dropout mask drawn inside. Their MXU work (mxu_macs) is the same, but the vector unit's
# busy cycles grow by the hash's 112 operations for each of the 64 vector registers the 256×256
# mask fills (8 × 128 elements each), and the program takes many times as long: drawing the
# mask costs far more than the matmul it masks. (This is why TPU users often switch JAX's
# generator to the hardware one, `jax_default_prng_impl = "rbg"`, for dropout; the playground
# models only Threefry.)

import jax
import jax.numpy as jnp


@jax.jit
def layer(x, w):
    return jnp.tanh(x @ w)


@jax.jit
def dropout_layer(key, x, w):
    h = jnp.tanh(x @ w)
    keep = jax.random.bernoulli(key, 0.9, h.shape)
    return jnp.where(keep, h / 0.9, 0.0)


x = jnp.sin(jnp.arange(256 * 256.0).reshape(256, 256))
w = jnp.cos(jnp.arange(256 * 256.0).reshape(256, 256)) * 0.06
plain = layer(x, w)
dropped = dropout_layer(jax.random.PRNGKey(0), x, w)
print("layer:        ", plain[0, :4])
print("dropout_layer:", dropped[0, :4])
print("kept:", jnp.mean(dropped != 0.0))
