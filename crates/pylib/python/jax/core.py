"""jax.typeof: an array's abstract value, as JAX prints it (`float32[3]`, `~float32[]` weakly typed)."""


class ShapedArray:
    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.weak_type = weak_type
        self.ndim = len(self.shape)

    def _type(self):
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"

    def str_short(self):
        return ("~" if self.weak_type else "") + self._type()

    def __str__(self):
        return self.str_short()

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self._type()}{weak})"

    def __eq__(self, other):
        return (
            isinstance(other, ShapedArray)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self):
        return hash((self.shape, str(self.dtype), self.weak_type))


class AbstractRef:
    """The type of a `jax.new_ref`: `Ref{float32[3]}`."""

    def __init__(self, inner):
        self.inner_aval = inner
        self.shape = inner.shape
        self.dtype = inner.dtype
        self.ndim = inner.ndim

    def __str__(self):
        return "Ref{" + self.inner_aval._type() + "}"

    __repr__ = __str__


def typeof(x):
    """The abstract value of `x` (an array, a tracer, or a Python or NumPy scalar)."""
    import jax
    import jax.numpy as jnp

    if type(x).__name__ == "Ref":
        return AbstractRef(typeof(jax.freeze(x)))
    # A typed key array is its own kind of array (`key<fry>[]`), which asarray refuses.
    if isinstance(x, jax.Array) and str(x.dtype).startswith("key<"):
        return ShapedArray(x.shape, x.dtype)
    a = jnp.asarray(x)
    # A Python number is weakly typed (it takes the type of what it meets).
    weak = a.weak_type or (isinstance(x, (int, float)) and not isinstance(x, bool))
    return ShapedArray(a.shape, a.dtype, weak)
