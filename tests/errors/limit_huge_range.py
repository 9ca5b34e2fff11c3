# A list of a billion elements.
xs = list(range(1000000000))
