# A NumPy name the playground lacks says so, as a JAX one does; a name NumPy does not have
# either is Python's AttributeError.
import numpy as np

w = np.linalg.eig(np.eye(2))
