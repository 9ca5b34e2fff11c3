# A keyword the function does not have.
def scale(x, factor=2.0):
    return x * factor

print(scale(3.0, fator=4.0))
