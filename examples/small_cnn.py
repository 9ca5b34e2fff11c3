# Small CNN
#
# Two 3×3 convolutions and a dense layer on a batch of 8 RGB images of 16×16, jitted into one
# program. A TPU runs a convolution on its matrix unit as a sum of matmuls, one per kernel tap:
# the Jaxpr and the assembly show nine strided slices of the padded input, each multiplied by its
# tap's weights and added up. Look at mxu_utilization: the first layer contracts over only 3 input
# channels, so each tap's weights fill 3 of the MXU's 128 rows, and the second layer's 16 channels
# fill 16. Real CNNs on TPUs use 128 or more channels for this reason (compare mxu_unused_macs
# with mxu_macs), and batch or spatial size sets how many rows stream through.

import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
k1, k2, k3, k4 = jax.random.split(key, 4)
params = {
    "conv1": jax.random.normal(k1, (3, 3, 3, 16)) * 0.3,
    "conv2": jax.random.normal(k2, (3, 3, 16, 32)) * 0.1,
    "dense": jax.random.normal(k3, (32, 10)) * 0.2,
}
images = jax.random.uniform(k4, (8, 16, 16, 3))


@jax.jit
def predict(params, x):
    nhwc = ("NHWC", "HWIO", "NHWC")
    x = jax.nn.relu(jax.lax.conv_general_dilated(x, params["conv1"], (1, 1), "SAME", dimension_numbers=nhwc))
    x = jax.nn.relu(jax.lax.conv_general_dilated(x, params["conv2"], (2, 2), "SAME", dimension_numbers=nhwc))
    features = jnp.mean(x, axis=(1, 2))  # global average pooling: (8, 32)
    return jax.nn.log_softmax(features @ params["dense"])


logits = predict(params, images)
print(logits.shape)
print(jnp.argmax(logits, axis=1))
