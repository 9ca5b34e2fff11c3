# A custom_jvp function under jit and grad: the forward pass runs the function's own body (the
# custom_jvp_call is inlined, then fused like any elementwise chain), the backward pass the rule.
import jax
import jax.numpy as jnp

@jax.custom_jvp
def safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-6))

@safe_log.defjvp
def safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return safe_log(x), t / jnp.maximum(x, 1e-6)

@jax.jit
def loss_and_grad(x):
    return jax.value_and_grad(lambda v: safe_log(v).sum())(x)

print(loss_and_grad(jnp.array([0.5, 2.0, 0.0, 4.0])))
