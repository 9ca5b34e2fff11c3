"""jax.lax's convolution dimension numbers: `conv_dimension_numbers` and
`conv_general_permutations`, as JAX computes them (each spec as the positions of the batch and
feature dimensions, then the spatial ones in the kernel's order). `conv_general_dilated` takes
the result as it takes the three strings."""

from collections import namedtuple

ConvDimensionNumbers = namedtuple("ConvDimensionNumbers", ["lhs_spec", "rhs_spec", "out_spec"])


def conv_general_permutations(dimension_numbers):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' exactly once, got {dimension_numbers[i]}."
            )
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} == set(out_spec) - {"N", "C"}):
        raise TypeError(
            f"convolution dimension_numbers elements must each have the same set of spatial characters, got {dimension_numbers}."
        )

    def permutation(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return tuple(permutation(spec, pair) for spec, pair in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got {type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got {len(dimension_numbers)}.")
    if not all(isinstance(elt, str) for elt in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got {tuple(map(type, dimension_numbers))}.")
    for i, elt in enumerate(dimension_numbers):
        if len(elt) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, got {len(elt)} for lhs and rhs shapes {lhs_shape} and {rhs_shape}."
            )
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
