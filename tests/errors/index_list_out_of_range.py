# A list index past the end.
layers = [1, 2, 3]
print(layers[3])
