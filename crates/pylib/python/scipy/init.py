"""SciPy on the host: the few functions JAX programs call from it, written over NumPy with
SciPy's results and dtypes (`scipy.special`, `scipy.stats.norm`, `scipy.optimize`'s `root` and
`minimize`). Any other name says it is not supported yet."""

__version__ = "1.17.1"
