# A bare `*` must be followed by keyword-only parameters.
def f(x, *):
    return x
