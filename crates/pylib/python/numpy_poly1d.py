"""NumPy's `poly1d`, the polynomial class of its old polynomial API, ported from
numpy/lib/_polynomial_impl.py (NumPy 2.4) over the rest of NumPy on the host.

A poly1d is a 1-D array of coefficients, highest power first, with leading zeros trimmed (at
least one coefficient is kept). Arithmetic goes through the array helpers `np.polyadd`,
`np.polysub`, `np.polymul`, `np.polyder` and `np.polyint` (crates/pylib/python/numpy_more.py) and wraps
the result again, as NumPy's methods do, so dtypes follow NumPy's promotion: `poly1d([1, 2])`
keeps int64 coefficients until a float meets them.

Where this differs from NumPy's:
- `roots` (and `r`) raise NotImplementedError: NumPy takes the eigenvalues of the companion
  matrix, which the playground cannot compute (nor hold, when they are complex).
- `poly1d(A, r=True)` of a square matrix (the roots being A's eigenvalues) likewise.
- Coefficients are real: the playground has no complex arrays, so `__str__`'s complex branch is
  left out.
- There is no `__array__` (the interpreter does not consult it), so `np.asarray(p)`,
  `np.polyval(p, x)` and `np.polyadd(p, q)` do not take a poly1d; use `p.coeffs`, `p(x)` and
  `p + q`.
"""

import numpy as np


def _zero_of(dtype):
    """A NumPy scalar 0 of `dtype` (NumPy writes `dtype.type(0)`, which the playground's dtype
    objects do not have)."""
    return np.zeros(1, dtype=dtype)[0]


def _poly(seq_of_zeros):
    """The coefficients of the monic polynomial with these roots: NumPy's `np.poly` for a 1-D
    sequence, multiplying out (x - root) one root at a time with `convolve`, as NumPy does, so
    the rounding is NumPy's."""
    zeros = np.atleast_1d(seq_of_zeros)
    if zeros.ndim == 2 and zeros.shape[0] == zeros.shape[1] and zeros.shape[0] != 0:
        raise NotImplementedError("numpy.poly1d(A, r=True) of a square matrix (the roots being A's eigenvalues) "
                                  "is not supported by the playground yet")
    if zeros.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    # NumPy's mintypecode: float32 roots stay float32, any other real dtype becomes float64.
    dtype = np.float32 if zeros.dtype.name == "float32" else np.float64
    zeros = zeros.astype(dtype)
    if zeros.shape[0] == 0:
        return 1.0
    a = np.ones((1,), dtype=dtype)
    for zero in zeros:
        a = np.convolve(a, np.array([1, -zero], dtype=dtype), mode="full")
    return a


def _polyval(coeffs, x):
    """Horner's scheme, as NumPy's `polyval`: a poly1d `x` gives the composition (the sum starts
    at the int 0, so the first step is poly1d arithmetic), anything else is an array whose
    dtype the sum starts from."""
    if isinstance(x, poly1d):
        y = 0
    else:
        x = np.asarray(x)
        y = np.zeros_like(x)
    for pv in coeffs:
        y = y * x + pv
    # NumPy's arithmetic on 0-d arrays gives a NumPy scalar; make sure of that here too.
    if isinstance(y, np.ndarray) and y.ndim == 0:
        return y[()]
    return y


def _polydiv(u, v):
    """Quotient and remainder of two coefficient arrays, as NumPy's `polydiv` (long division,
    then the remainder's leading near-zeros dropped), both as poly1d."""
    u = np.atleast_1d(u) + 0.0
    v = np.atleast_1d(v) + 0.0
    w = u[0] + v[0]  # the common dtype
    m = u.shape[0] - 1
    n = v.shape[0] - 1
    scale = 1.0 / v[0]
    q = np.zeros((max(m - n + 1, 1),), w.dtype)
    r = u.astype(w.dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] -= d * v
    while np.allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1:
        r = r[1:]
    return poly1d(q), poly1d(r)


def _raise_power(astr, wrap=70):
    """Lifts each `**n` of `astr` onto a line above, as NumPy's `_raise_power` does with the
    regex `\\*\\*([0-9]*)` (scanned by hand here: the playground has no `re`), starting a new
    pair of lines where either would pass `wrap` characters."""
    n = 0
    line1 = ""
    line2 = ""
    output = " "
    while True:
        start = astr.find("**", n)
        if start < 0:
            break
        end = start + 2
        while end < len(astr) and astr[end] in "0123456789":
            end += 1
        power = astr[start + 2:end]
        partstr = astr[n:start]
        n = end
        toadd2 = partstr + " " * (len(power) - 1)
        toadd1 = " " * (len(partstr) - 1) + power
        if len(line2) + len(toadd2) > wrap or len(line1) + len(toadd1) > wrap:
            output += line1 + "\n" + line2 + "\n "
            line1 = toadd1
            line2 = toadd2
        else:
            line2 += partstr + " " * (len(power) - 1)
            line1 += " " * (len(partstr) - 1) + power
    output += line1 + "\n" + line2
    return output + astr[n:]


def _fmt_float(q):
    # `float` first: the playground formats Python floats with CPython's rules, and for an
    # integer or bool coefficient `%.4g` goes through float in CPython too.
    s = f"{float(q):.4g}"
    return s.removesuffix(".0000")


class poly1d:
    """A one-dimensional polynomial: `poly1d([1, 2, 3])` is x**2 + 2x + 3, `poly1d([1, 2], True)`
    is (x - 1)(x - 2)."""

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            # Shares the other's coefficient array, as NumPy's does.
            self._variable = c_or_r._variable
            self._coeffs = c_or_r._coeffs
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = _poly(c_or_r)
        c_or_r = np.atleast_1d(c_or_r)
        if c_or_r.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c_or_r = np.trim_zeros(c_or_r, trim="f")
        if c_or_r.shape[0] == 0:
            c_or_r = np.array([0], dtype=c_or_r.dtype)
        self._coeffs = c_or_r
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        """The coefficients, highest power first."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        # Only the same array may be put back, which makes `p.coeffs *= 2` legal.
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self):
        """The name of the variable `str` prints."""
        return self._variable

    @property
    def order(self):
        """The degree: the number of coefficients less one."""
        return self._coeffs.shape[0] - 1

    @property
    def roots(self):
        raise NotImplementedError("numpy.poly1d.roots is not supported by the playground yet (numpy.roots needs "
                                  "the eigenvalues of the companion matrix, possibly complex)")

    # NumPy's aliases.
    r = roots
    c = coef = coefficients = coeffs
    o = order

    def __repr__(self):
        # The coefficient array's repr with `array` replaced: its continuation lines keep
        # `array(`'s indent, one short of `poly1d(`'s, as in NumPy.
        vals = repr(self._coeffs)[6:-1]
        return f"poly1d({vals})"

    def __len__(self):
        return self.order

    def __str__(self):
        """Two lines, the exponents above their terms: `str(poly1d([1, 2, 3]))` is
        '   2\\n1 x + 2 x + 3'. Terms are written `c x**n` and `_raise_power` lifts the `**n`."""
        thestr = "0"
        var = self._variable
        # Leading zeros go (`__setitem__` can leave some); an all-zero polynomial prints 0.
        coeffs = self._coeffs
        first = 0
        while first < coeffs.shape[0] and coeffs[first] == 0:
            first += 1
        coeffs = coeffs[first:]
        N = coeffs.shape[0] - 1
        for k, coeff in enumerate(coeffs):
            coefstr = _fmt_float(coeff)
            power = N - k
            if power == 0:
                if coefstr != "0":
                    newstr = f"{coefstr}"
                elif k == 0:
                    newstr = "0"
                else:
                    newstr = ""
            elif power == 1:
                # NumPy also tests coefstr == 'b', which '%.4g' never gives; kept for fidelity.
                if coefstr == "0":
                    newstr = ""
                elif coefstr == "b":
                    newstr = var
                else:
                    newstr = f"{coefstr} {var}"
            elif coefstr == "0":
                newstr = ""
            elif coefstr == "b":
                newstr = "%s**%d" % (var, power)
            else:
                newstr = "%s %s**%d" % (coefstr, var, power)

            if k > 0:
                if newstr != "":
                    if newstr.startswith("-"):
                        thestr = f"{thestr} - {newstr[1:]}"
                    else:
                        thestr = f"{thestr} + {newstr}"
            else:
                thestr = newstr
        return _raise_power(thestr)

    def __call__(self, val):
        return _polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if np.isscalar(other):
            return poly1d(self._coeffs * other)
        other = poly1d(other)
        return poly1d(np.polymul(self._coeffs, other._coeffs))

    def __rmul__(self, other):
        if np.isscalar(other):
            return poly1d(other * self._coeffs)
        other = poly1d(other)
        return poly1d(np.polymul(self._coeffs, other._coeffs))

    def __add__(self, other):
        other = poly1d(other)
        return poly1d(np.polyadd(self._coeffs, other._coeffs))

    def __radd__(self, other):
        other = poly1d(other)
        return poly1d(np.polyadd(self._coeffs, other._coeffs))

    def __pow__(self, val):
        if not np.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = [1]
        # A float power such as 2.0 passes the test above and is range()'s TypeError, as in NumPy.
        for _ in range(val):
            res = np.polymul(self._coeffs, res)
        return poly1d(res)

    def __sub__(self, other):
        other = poly1d(other)
        return poly1d(np.polysub(self._coeffs, other._coeffs))

    def __rsub__(self, other):
        other = poly1d(other)
        return poly1d(np.polysub(other._coeffs, self._coeffs))

    def __truediv__(self, other):
        if np.isscalar(other):
            return poly1d(self._coeffs / other)
        other = poly1d(other)
        return _polydiv(self._coeffs, other._coeffs)

    def __rtruediv__(self, other):
        if np.isscalar(other):
            return poly1d(other / self._coeffs)
        other = poly1d(other)
        return _polydiv(other._coeffs, self._coeffs)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return (self._coeffs == other._coeffs).all()

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val):
        """The coefficient of x**val: 0 (of the coefficients' dtype) beyond the order or below 0."""
        ind = self.order - val
        if val > self.order or val < 0:
            return _zero_of(self._coeffs.dtype)
        return self._coeffs[ind]

    def __setitem__(self, key, val):
        """Sets the coefficient of x**key, growing the polynomial with zeros when key is past
        its order (a zero there then stays a leading zero, as in NumPy)."""
        ind = self.order - key
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            zr = np.zeros(key - self.order, self._coeffs.dtype)
            self._coeffs = np.concatenate((zr, self._coeffs))
            ind = 0
        self._coeffs[ind] = val

    def __iter__(self):
        return iter(self._coeffs)

    def integ(self, m=1, k=0):
        """An antiderivative, integrated m times with constants k (see `np.polyint`)."""
        return poly1d(np.polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        """The m-th derivative (see `np.polyder`)."""
        return poly1d(np.polyder(self._coeffs, m=m))
