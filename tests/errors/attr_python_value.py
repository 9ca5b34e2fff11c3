# An attribute of a plain Python value.
xs = [1, 2, 3]
xs.push(4)
