"""Python's complex numbers: literals, complex(), arithmetic with ints and floats, abs,
.real/.imag/.conjugate(), equality, hashing as dict keys, repr and str, and the errors."""
z = 3 + 4j
w = complex(1, -2)
print(z, w, 2j, -2j, 1.5j, 0j, complex(), complex(2), complex(0.5, 0))
print(repr(complex(-0.0, 1)), complex(1e20, 1e-7), complex(float("inf"), float("nan")))
print(z + w, z - w, z * w, z / w, z ** 2, w ** -1, 2 ** 1j, z ** 0.5, (1j) ** (1j))
print(z + 1, 1 - z, 2.5 * z, z / 2, 1 / z, -z, +z)
print(abs(z), abs(-2j), z.real, z.imag, z.conjugate(), (5).real, (5).imag, (2.5).imag)
print(z == 3 + 4j, z != w, 1 + 0j == 1, 2.0 == complex(2, 0), (1j) * (1j) == -1)
print({1 + 0j: "one", 2j: "two"}[1], hash(1 + 0j) == hash(1), bool(0j), bool(1j))
print(type(z).__name__, isinstance(z, complex), isinstance(1, complex), complex(1j, 1j))
print(f"{z}", str(w), [1j, 2 + 0j], (1j,), sum([1j, 2j, 3]))
print(complex(real=1.5, imag=2), 1e400j, -(0j))
for bad in [lambda: z < w, lambda: z // 2, lambda: z % 2, lambda: 1j / 0, lambda: float(z),
            lambda: int(z), lambda: complex("x", 1), lambda: complex([1]), lambda: 0j ** -1]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
