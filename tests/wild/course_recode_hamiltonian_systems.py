# Source: https://github.com/ImperialCollegeLondon/ReCoDE-Hamiltonian-Systems-Jax/blob/125b7a553a3ca496a897dbe60a8f629c0d8e964a/hdynamics/hdynamics.py followed by hdynamics/dynamics/harmonic_oscillator.py, hdynamics/dynamics/nbody.py and the notebooks docs/04-Simple_harmonic_oscillator_example.ipynb and docs/05-N-body-example.ipynb of the same commit (Imperial College London ReCoDE exemplar: Hamiltonian systems in JAX)
# License: BSD-3-Clause
# Changed: the package's three modules inlined in order, followed by the two notebooks converted to a script (code cells concatenated in order); the `from hdynamics.hdynamics import Dynamics`, `from hdynamics.dynamics.harmonic_oscillator import HarmonicOscillator` and `from hdynamics.dynamics.nbody import Nbody` imports dropped, since the modules are inlined; matplotlib imports and plotting calls (plt.subplots, plot_trajectory) dropped; a print of the 10-body simulation's final state added (its plot was that cell's only output)

"""Implementation of dynamics (e.g. specification of Hamiltonians)."""

from abc import ABC, abstractmethod

import jax
import jax.numpy as jnp
from jax.experimental.ode import odeint


class Dynamics(ABC):
    """Abstract base class for a Hamiltonian dynamical system.

    Attributes:
        cdim (int): Dimensionality of q and p (configuration and momentum space).
        pdim (int): Dimensionality of the phase space (2 * cdim).
    """

    def __init__(self, cdim):
        """Initialise the dynamical system.

        Args:
            cdim (int): Dimensionality of q and p (configuration and momentum space).
        """
        self.cdim = cdim
        self.pdim = cdim * 2

        self.jac_h = jax.jit(jax.grad(self.H))

    @abstractmethod
    def H(self, x):
        """Return the Hamiltonian (energy) at phase space location x.

        Args:
            x (array-like): Phase space vector of shape (pdim,).

        Returns:
            float: Scalar energy value at x.
        """
        pass

    @staticmethod
    def symplectic_form(x):
        """Return the canonical symplectic form for a phase space vector x = [q, p].

        Args:
            x (array-like): Phase space vector of shape (2*D,).

        Returns:
            jax.numpy.ndarray: Symplectic form vector of shape (2*D,).

        Raises:
            ValueError: If x is not a 1D array or does not have even length.
        """
        if len(x.shape) != 1:
            raise ValueError(f"symplectic form expects a vector of shape (M,). Got: {x.shape}.")
        if (len(x) % 2) != 0:
            raise ValueError(f"input shape should be even. Got {x.shape}.")
        D = x.shape[0] // 2
        q, p = x[:D], x[D:]
        return jnp.concatenate([p, -q])

    def get_rate_of_change(self):
        """Return a function grad_x(x, t) suitable for ODE integration.

        The returned function computes the symplectic gradient of the Hamiltonian at each state x.

        Returns:
            Callable: A function grad_x(x, t) that returns the time derivative of x.
        """

        def grad_x(x, t):
            return self.symplectic_form(self.jac_h(x))

        return jax.jit(grad_x)

    def generate_trajectory(self, initial_conditions, stepsize, n_steps=500, rtol=1e-5, atol=1e-5):
        """Simulate a single trajectory using the system's ODE and initial state.

        Args:
            initial_conditions (array-like): Initial state vector of shape (M,), where M is the phase space dimension.
            stepsize (float): Step size for integration.
            n_steps (int, optional): Number of time steps (default: 500).
            rtol (float, optional): Relative tolerance for the ODE solver (default: 1e-5).
            atol (float, optional): Absolute tolerance for the ODE solver (default: 1e-5).

        Returns:
            solution (jax.numpy.ndarray): Simulated trajectory of shape (n_steps+1, M).
            t_span (jax.numpy.ndarray): Array of time points of shape (n_steps+1,).
        """
        t_start = 0.0
        t_end = n_steps * stepsize

        t_span = jnp.linspace(t_start, t_end, n_steps + 1)

        grad_x = self.get_rate_of_change()

        solution = odeint(grad_x, initial_conditions, t_span, rtol=rtol, atol=atol)

        return solution, t_span

    def plot_trajectory(self, trajectory, t_span, ax):
        """Plot trajectory within specified t_span range."""
        raise NotImplementedError("No trajectory plotting available for this dynamical system.")


"""Implementation of simple harmonic oscillator."""


class HarmonicOscillator(Dynamics):
    """Dynamics of a one-dimensional simple harmonic oscillator.

    Models a system with Hamiltonian
        H(q, p) = p^2/(2m) + 0.5 * k * q^2,
    where q is position and p is momentum.

    Attributes:
        m (float): Mass of the oscillator.
        k (float): Spring constant.
    """

    def __init__(self, m=1.0, k=1.0):
        """Initialise the harmonic oscillator.

        Args:
            m (float): Mass of the oscillator.
            k (float): Spring constant.
        """
        super().__init__(cdim=1)
        self.m = m
        self.k = k

    def H(self, x, eps=1.0):
        """Compute the Hamiltonian (total energy) for a given state.

        Args:
            x (array-like): State vector [q, p], where q is position and p is momentum.
            eps (float, optional): Unused, included for interface compatibility.

        Returns:
            float: The total energy of the system at state x.

        Raises:
            ValueError: If x does not have shape (2,).
        """
        if x.shape[0] != 2:
            raise ValueError(f"x must have shape (2,), got shape {x.shape} and value {x}")

        q, p = x
        pot_energy = 0.5 * self.k * (q**2)
        kin_energy = (p**2) / (2 * self.m)
        return pot_energy + kin_energy

    def plot_trajectory(
        self,
        trajectory,
        t_span,
        ax,
    ):
        """Plot the position of the oscillator as a function of time.

        Args:
            trajectory (array): Array of shape (T, 2), where T is the number of time steps.
                trajectory[:, 0] contains positions.
            t_span (array): Array of time points of length T.
            ax (matplotlib.axes.Axes): Matplotlib Axes object to plot on.

        The plot shows the time evolution of the position coordinate.
        """
        # Draw line
        line = ax.plot(t_span, trajectory[:, 0])

        # Draw point at end of line
        ax.scatter([t_span[-1]], [trajectory[-1, 0]], s=20, marker="o", color=line[0].get_color())


"""Implementation of N-body system."""

import jax.numpy as jnp


class Nbody(Dynamics):
    """Dynamics of an N-body gravitational system.

    Simulates a system of N bodies interacting via Newtonian gravity in a given dimension.
    Positions and momenta are packed as (positions, momenta) in the phase space vector.
    """

    def __init__(self, dim, n_bodies, gravity=1.0, masses=1.0):
        """Initialise N-body dynamics.

        Args:
            dim (int): Number of spatial dimensions.
            n_bodies (int): Number of bodies in the system.
            gravity (float): Gravitational constant (default 1.0).
            masses (float or array): Mass of each body (scalar or array of length n_bodies).

        Raises:
            ValueError: If dim < 2 or n_bodies < 1.
        """
        if dim < 2:
            raise ValueError("dim must be at least 2 for N-body dynamics.")
        if n_bodies < 1:
            raise ValueError("n_bodies must be at least 1 for N-body dynamics.")

        phase_space_dim = dim * n_bodies
        super().__init__(phase_space_dim)

        self.dim = dim
        self.n_bodies = n_bodies
        self.gravity = gravity

        # Ensure masses is an array of shape (n_bodies,)
        if isinstance(masses, (int, float)):
            self.masses = jnp.full(self.n_bodies, masses)
        else:
            self.masses = masses

        # Precompute the outer product of masses for pairwise interactions
        self.mass_outer_product = jnp.outer(self.masses, self.masses)  # (n_bodies, n_bodies)

    def H(self, x, eps=0.1):
        """Hamiltonian (total energy) of the N-body system.

        Args:
            x (array): Phase space vector of shape (2 * n_bodies * dim,).
                First half: positions, second half: momenta.
            eps (float): Softening parameter to avoid singularities in the potential.

        Returns:
            float: The total energy (kinetic + potential) of the system.
        """
        if len(x) != self.pdim:
            raise ValueError(f"x must have length {self.pdim}. Got shape {x.shape} and value {x}")

        # Unpack phase space vector into positions and momenta
        positions, momenta = x.reshape(2, self.n_bodies, self.dim)

        # Kinetic energy: sum(p^2 / (2m)) for each body
        kinetic_energy = jnp.sum(jnp.sum(momenta**2, axis=1) / (2 * self.masses))

        # Compute pairwise displacement vectors between all bodies
        pairwise_displacements = positions.reshape(self.n_bodies, 1, self.dim) - positions.reshape(
            1, self.n_bodies, self.dim
        )  # (n_bodies, n_bodies, dim)
        # Squared distances between all pairs
        pairwise_squared_distances = jnp.sum(pairwise_displacements**2, axis=2)  # (n_bodies, n_bodies)

        # Potential energy: sum over unique pairs, softened by eps to avoid singularity
        # Use tril(..., -1) to sum only lower triangle (i < j), avoiding double-counting and self-interaction
        potential_energy = -self.gravity * jnp.sum(
            jnp.tril(
                self.mass_outer_product / jnp.sqrt(pairwise_squared_distances + (eps**2)),
                -1,
            )
        )

        hamiltonian = kinetic_energy + potential_energy
        return hamiltonian

    def plot_trajectory(
        self,
        trajectory,
        t_span,
        ax,
    ):
        """Plot the 2D trajectories of all bodies in the system.

        Args:
            trajectory (array): Array of shape (T, 2 * n_bodies), where T is the number of time steps.
                Each row contains the flattened x and y positions of all bodies at a given time.
            t_span (array): Array of time steps corresponding to the trajectory. Not used in this method,
                but included for interface consistency with related classes.
            ax (matplotlib.axes.Axes): Matplotlib Axes object to plot on.

        Raises:
            NotImplementedError: If the system dimension is not 2.
        """
        # Give an error message if the system is not 2D
        if self.dim != 2:
            raise NotImplementedError("N-body system plotting currently only supported for 2d systems")

        # Iterate over each body and plot its trajectory
        for object_i in range(self.n_bodies):
            # Extract x and y coordinates for the current object
            points_x = trajectory[:, object_i * 2]
            points_y = trajectory[:, object_i * 2 + 1]

            # Draw line
            line = ax.plot(points_x, points_y, linewidth=1, label=f"Body {object_i + 1}")

            # Draw points at end of line, using the color of the line
            ax.scatter(points_x[-1], points_y[-1], s=20, marker="o", color=line[0].get_color())

        # Set labels and legend
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.legend()


harmonic_oscillator = HarmonicOscillator(m=10, k=100)

import jax.numpy as jnp

initial_condition = jnp.array([1.0, 0.0])

trajectory, t_span = harmonic_oscillator.generate_trajectory(initial_condition, 0.01, 1000)

print(f"Trajectory shape: {trajectory.shape}")
print("Trajectory:", trajectory)

print(f"Time span shape: {t_span.shape}")
print("Time span:", t_span)


import jax.numpy as jnp


nbody = Nbody(dim=2, n_bodies=3, masses=jnp.array([10.0, 2.0, 1.0]))

import jax.numpy as jnp

initial_conditions = jnp.array([1, 2, 0, 0, 0, -1, -0.1, 0.1, 0.1, -0.2, 0, 0.1])

trajectory, t_span = nbody.generate_trajectory(initial_conditions, 0.01, 2000)

print(f"Trajectory shape: {trajectory.shape}")
print("Trajectory:", trajectory)

print(f"Time span shape: {t_span.shape}")
print("Time span:", t_span)


import jax
import jax.numpy as jnp


# Select the number of bodies
n_bodies = 10

# Create an instance of the Nbody class with the specified number of bodies
nbody = Nbody(dim=2, n_bodies=n_bodies)

# Create some random initial conditions
key = jax.random.PRNGKey(0)  
positions = jax.random.uniform(key, shape=(n_bodies * 2,), minval=0.0, maxval=10.0)
momenta = jax.random.uniform(key, shape=(n_bodies * 2,), minval=-1.0, maxval=1.0)
initial_conditions = jnp.concatenate((positions, momenta))

# Simulate the trajectory
trajectory, t_span = nbody.generate_trajectory(initial_conditions, 0.01, 2000)
print("Final state of the 10-body system:", trajectory[-1])
