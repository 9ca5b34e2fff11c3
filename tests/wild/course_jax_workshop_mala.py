# Source: https://github.com/AdrienCorenflos/jax-workshop/blob/bbeec0056b116780ade259db0072506230fadc98/notebooks/mixed/Metropolis-adjusted-Langevin-algorithm.ipynb (Adrien Corenflos, JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order); matplotlib/seaborn imports and plotting calls dropped; prints of the samples' mean and the acceptance rate added

from jax import jit, grad, vjp
from jax.random import PRNGKey, normal, uniform, split
from jax.lax import scan, cond
import jax.numpy as jnp

key = PRNGKey(42)
x0 = jnp.ones(2)
N = 10000
K = 500

def target_loglik(z):
    arr = jnp.array([1.0, 5.0])
    y = arr * z
    return -jnp.inner(y, y) / 2

def proposal_sampler(k, z):
    return z + normal(k, shape=z.shape)

def mh(key, target_loglikelihood, x0, proposal_sampler, n=10000):
    logp0 = target_loglikelihood(x0)

    keys = split(key, n + 1)
    logus = jnp.log(uniform(keys[0], shape=(n,)))

    def body(carry, inp):
        prev_x, prev_logp = carry
        k, logu = inp
        proposed_x = proposal_sampler(k, prev_x)
        proposed_logp = target_loglikelihood(proposed_x)

        accept_predicate = logu < proposed_logp - prev_logp
        next_x, next_loglik = cond(
            accept_predicate,
            lambda _: (proposed_x, proposed_logp),
            lambda _: (prev_x, prev_logp),
            operand=None,
        )

        return (next_x, next_loglik), (next_x, accept_predicate)

    _, (samples, acc) = scan(body, (x0, logp0), (keys[1:], logus))
    return samples, acc

mh_samples, acc_rate = mh(key, target_loglik, x0, proposal_sampler, n=N)

def mala(key, target_loglikelihood, x0, n=10000, step_size=1e-2):
    x0 = jnp.asarray(x0)
    logp0, logp0_grad_fun = vjp(target_loglikelihood, x0)
    logp0_grad = logp0_grad_fun(1.0)[0]
    keys = split(key, 2)
    logus = jnp.log(uniform(keys[0], shape=(n,)))
    noises = jnp.sqrt(2 * step_size) * normal(keys[1], shape=(n, x0.shape[0]))

    def log_proposal_loglik(y, z, grad_logp):
        diff = z - y - step_size * grad_logp
        return -0.25 * jnp.inner(diff, diff) / step_size

    def acceptance_ratio(
        prev_x, prev_logp, prev_logp_grad, proposed_x, proposed_logp, proposed_log_grad
    ):
        num = proposed_logp + log_proposal_loglik(proposed_x, prev_x, proposed_log_grad)
        den = prev_logp + log_proposal_loglik(prev_x, proposed_x, prev_logp_grad)
        return num - den

    def body(carry, inp):
        prev_x, prev_logp, prev_logp_grad = carry
        noise, logu = inp

        proposed_x = prev_x + step_size * prev_logp_grad + noise
        proposed_logp, proposed_logp_grad_fun = vjp(target_loglikelihood, proposed_x)
        proposed_logp_grad = proposed_logp_grad_fun(1.0)[0]

        accept_predicate = logu < acceptance_ratio(
            prev_x,
            prev_logp,
            prev_logp_grad,
            proposed_x,
            proposed_logp,
            proposed_logp_grad,
        )
        next_x, next_loglik, next_grad = cond(
            accept_predicate,
            lambda _: (proposed_x, proposed_logp, prev_logp_grad),
            lambda _: (prev_x, prev_logp, proposed_logp_grad),
            operand=None,
        )

        return (next_x, next_loglik, next_grad), (next_x, accept_predicate)

    _, (samples, acceptance) = scan(body, (x0, logp0, logp0_grad), (noises, logus))
    return samples, acceptance

mala_samples, acc_rate = mala(key, target_loglik, jnp.zeros(2), step_size=1e-2)
print(mala_samples.shape, jnp.mean(mala_samples, axis=0), jnp.mean(acc_rate))

