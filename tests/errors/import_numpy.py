# NumPy on the host raises NumPy's own errors: arrays that do not broadcast.
import numpy as np

x = np.ones(3) + np.ones(4)
