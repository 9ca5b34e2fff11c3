# Source: https://github.com/AZhou00/montecarlo-demo/blob/4c5f72098cc0ed6081ac82547a900da79609e5f7/HMC.ipynb
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); matplotlib import and plotting calls dropped; the cells comparing with NumPyro (`import numpyro` ... the NumPyro sample overlay) dropped; smaller sizes (the L=600 leapfrog-steps sampler -> L=60)

import jax.numpy as jnp
from jax import grad, jit, vmap
from jax import random
from jax.scipy.stats import multivariate_normal
from functools import partial

# for visual purposes, no metropolis correction! see the metropolis notebook.
class hmc():
    def __init__(self, dim, logpi_q, mass, PRNGkey, dt=0.1, L=10):
        # Basic attr.
        self.dim = dim
        self.dt = dt
        self.L = L
        self.PRNGkey = PRNGkey
        
        # Read the position space posterior
        # (Potential energy)
        self.logpi_q = logpi_q
        self.negdV = grad(self.logpi_q)
        
        # Construct the momentum sampler
        self.mass = mass
        self.massinv = jnp.linalg.inv(mass)
        
    def logpi_p_q(self, p, q):
        # the log pi(p|q) (Kinetic energy)
        # -dim/2*log(2 pi) - (p^T M^-1 p) / 2
        return multivariate_normal.logpdf(p, 
                                            mean=jnp.zeros(self.dim), 
                                            cov=self.massinv)
    
    # Construct the Hamiltonian
    def H(self, p, q):
        return -self.logpi_p_q(p,q)-self.logpi_q(q)
    
    # ----------------
    # Define the leapfrog integrator
    @partial(jit, static_argnums=(0,)) # partial jit for class type argument at 0
    def _leapfrog_incre(self, q0, p0):
        # update momentum by half time step
        p_halfdt = p0 + self.dt/2*self.negdV(q0)
        # update position by full time step
        q_dt = q0 + self.dt * self.massinv@p_halfdt
        # update momentum by full time step
        p_dt = p_halfdt + self.dt/2*self.negdV(q_dt)
        return q_dt,p_dt
    
    def _leapfrog(self, q0, p0):
        # integrate L times
        for _ in range(self.L):
            q0,p0 = self._leapfrog_incre(q0,p0)
        return q0,p0
    
    # Generate 1 sample
    def next_sample(self, q0):
        self.PRNGkey, subkey = random.split(self.PRNGkey)
        p0 = random.multivariate_normal(key=subkey, mean=jnp.zeros(self.dim), cov=self.mass, method='cholesky')
        qf, pf = self._leapfrog(q0,p0)
        return qf

    # Generate N samples
    def next_Nsample(self, q0, N):
        qs = -999*jnp.ones((N,self.dim))
        for i in range(N):
            qs=qs.at[i].set(q0)
            q0 = self.next_sample(q0)
        return qs
    
    # ----------------
    # The verbose integrator
    def _leapfrog_verbose(self, q0, p0):
        # integrate L times
        qs = -999*jnp.ones((self.L,self.dim))
        ps = -999*jnp.ones((self.L,self.dim))
        for i in range(self.L):
            qs=qs.at[i].set(q0)
            ps=ps.at[i].set(p0)
            q0,p0 = self._leapfrog_incre(q0,p0)
        # return not only the final state but also the history
        return q0,p0,qs,ps
    
    # Generate 1 sample
    def next_sample_verbose(self, q0):
        self.PRNGkey, subkey = random.split(self.PRNGkey)
        p0 = random.multivariate_normal(key=subkey, mean=jnp.zeros(self.dim), cov=self.mass, method='cholesky')
        qf, pf, qs, ps = self._leapfrog_verbose(q0,p0)
        return qf, pf, qs, ps

def logpi_q(q):
    # the log posterior
    return multivariate_normal.logpdf(q, jnp.array([0,0]), jnp.array([[0.8,0],[0,1]]))

# Figure below: Log-posterior over (q1,q2) plane; elongated contours match Sigma = diag(0.8,1).
x = jnp.linspace(-3,3,100)
y = jnp.linspace(-3,3,100)
x_grid, y_grid = jnp.meshgrid(x, y)
z = logpi_q(
    jnp.swapaxes(
        jnp.swapaxes(jnp.array([x_grid,y_grid]),0,-1),
        0,1)
    )

# plotting helper func.
def quiver_2dline(q,color='k'):
    # q = [[x1, y1],[x2, y2],...]
    x,y = q.T

# Figure below: One HMC trajectory from q0=(0,0); contour with leapfrog path. No Metropolis so endpoint always accepted.
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=jnp.eye(2),
              PRNGkey=random.PRNGKey(1),
              L = 50)
# generate 1 point starting from q0 = [0,0]
qf, pf, qs, ps = sampler.next_sample_verbose(q0=jnp.zeros(2))
print('first sample:', qf)
quiver_2dline(qs)

# Figure below: N consecutive HMC steps; each path from previous endpoint with new random momentum. Chain drifts over posterior.
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=jnp.eye(2),
              PRNGkey=random.PRNGKey(1),
              dt = 0.2,
              L = 8)

qf = jnp.zeros(2)
for i in range(4):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    print(f'q_{i}:', qf)
    quiver_2dline(qs,color=f'C{i}')

# Figure below: H along leapfrog path for five trajectories; wiggles show non-conservation (no Metropolis).
qf = jnp.zeros(2)
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    h = sampler.H(qs,ps)

# Figure below (top): Mass M=100I, five trajectories; heavier mass gives shorter, stiffer paths. (bottom): H along path.
mass = jnp.eye(2)*100
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=mass,
              PRNGkey=random.PRNGKey(1),
              dt = 0.2,
              L = 30)

qf = jnp.zeros(2)
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    print(f'q_{i}:', qf)
    quiver_2dline(qs,color=f'C{i}')

qf = jnp.zeros(2)
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    h = sampler.H(qs,ps)

# Figure below (top): Large dt, L*dt=60 fixed; fewer, coarser steps, jagged paths. (bottom): H along path; strong energy drift.
mass = jnp.eye(2)
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=mass,
              PRNGkey=random.PRNGKey(1),
              dt = 1,
              L = 60)

qf = jnp.zeros(2)
qf = jnp.array([1.0,0.0])
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    print(f'q_{i}:', qf)
    quiver_2dline(qs,color=f'C{i}')

qf = jnp.zeros(2)
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    h = sampler.H(qs,ps)

# Figure below (top): Small dt, same L*dt=60; many small steps, smoother paths. (bottom): H and -U; H flatter.
mass = jnp.eye(2)
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=mass,
              PRNGkey=random.PRNGKey(1),
              dt = 0.1,
              L = 60)

qf = jnp.zeros(2)
qf = jnp.array([1.0,0.0])
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    print(f'q_{i}:', qf)
    quiver_2dline(qs,color=f'C{i}')

qf = jnp.zeros(2)
for i in range(5):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    h = sampler.H(qs,ps)
    v = -sampler.logpi_q(qs)
    # plt.plot(v,color=f'C{i}',ls=":") # potential energy

# Figure below: Posterior density for three-component mixture; three modes near (0,1), (2,0), (-1,-2).
def logpi_q(q):
    # the log posterior
    res = multivariate_normal.pdf(q, jnp.array([0,1]), jnp.array([[0.2,0],[0,0.2]]))
    res += multivariate_normal.pdf(q, jnp.array([2,0]), jnp.array([[0.2,0],[0,0.2]]))
    res += multivariate_normal.pdf(q, jnp.array([-1,-2]), jnp.array([[0.2,0],[0,0.2]]))
    return jnp.log(res)

x = jnp.linspace(-5,5,100)
y = jnp.linspace(-5,5,100)
x_grid, y_grid = jnp.meshgrid(x, y)
z = jnp.exp(logpi_q(
    jnp.swapaxes(
        jnp.swapaxes(jnp.array([x_grid,y_grid]),0,-1),
        0,1)
    ))

# Figure below: Fifteen HMC steps on mixture; whether chain reaches all three modes.
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=jnp.eye(2),
              PRNGkey=random.PRNGKey(1),
              dt = 0.2,
              L = 15)

qf = jnp.zeros(2)
for i in range(15):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    print(f'q_{i}:', qf)
    quiver_2dline(qs,color=f'C{i}')

# Figure below: Twenty steps with default mass; compare coverage and mode-hopping.
mass = jnp.array([[1,0],[0,1]])
sampler = hmc(dim=2,
              logpi_q=logpi_q,
              mass=mass,
              PRNGkey=random.PRNGKey(1),
              dt = 0.2,
              L = 30)

qf = jnp.zeros(2)
for i in range(20):
    # generate 1 point starting from q0 = [0,0]
    qf, pf, qs, ps = sampler.next_sample_verbose(q0=qf)
    print(f'q_{i}:', qf)
    quiver_2dline(qs,color=f'C{i}')
