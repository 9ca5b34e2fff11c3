# np.linalg (norm, inv, det, solve), np.testing assertions passing and failing, and the errors NumPy raises for bad shapes and singular matrices.
import numpy as np

v = np.array([3.0, -4.0, 12.0])
print(repr(np.linalg.norm(v)), np.linalg.norm(np.array([3.0, 4.0])))
A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 2.0]])
print(repr(np.round(np.linalg.norm(A), 6)))
print(repr(np.round(np.linalg.norm(A, axis=0), 6)), repr(np.round(np.linalg.norm(A, axis=1), 6)))
print(repr(np.linalg.norm(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1, keepdims=True)))

A_inv = np.linalg.inv(A)
print(repr(np.round(A_inv, 6)))
print(repr(np.round(A @ A_inv, 6) == np.eye(3)))
print(np.allclose(A @ A_inv, np.eye(3)))
print(repr(np.round(np.linalg.det(A), 6)), round(float(np.linalg.det(np.array([[2.0, 1.0], [1.0, 3.0]]))), 6))
b = np.array([1.0, 2.0, 3.0])
sol = np.linalg.solve(A, b)
print(repr(np.round(sol, 6)))
print(np.allclose(A @ sol, b))
B = np.array([[2.0, 0.5], [1.0, 1.0], [-1.0, -1.0]])
print(repr(np.round(np.linalg.solve(A, B), 6)))
print(repr(np.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))))

np.testing.assert_allclose(A @ A_inv, np.eye(3), atol=1e-12)
np.testing.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]), rtol=1e-6)
np.testing.assert_array_equal(np.arange(3), np.array([0, 1, 2]))
print("assertions passed")

try:
    np.testing.assert_allclose(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.5, 3.0]), rtol=1e-5)
except AssertionError as e:
    print("assert_allclose failed")
    print(str(e))

try:
    np.testing.assert_allclose(np.array([0.5, 0.25]), np.array([0.5, 0.25001]), rtol=0, atol=1e-7)
except AssertionError as e:
    print(str(e))

try:
    np.testing.assert_array_equal(np.array([1, 2, 3]), np.array([1, 2, 4]))
except AssertionError as e:
    print("assert_array_equal failed")
    print(str(e))

try:
    np.testing.assert_array_equal(np.array([1, 2, 3]), np.array([1, 2]))
except AssertionError as e:
    print(str(e))

try:
    np.ones((2, 3)) + np.ones((4,))
except ValueError as e:
    print(e)

try:
    np.ones((2, 3)) @ np.ones((2, 3))
except ValueError as e:
    print(e)

try:
    np.linalg.inv(np.array([[1.0, 2.0], [2.0, 4.0]]))
except np.linalg.LinAlgError as e:
    print(type(e).__name__, e)

try:
    np.arange(6).reshape(4, 2)
except ValueError as e:
    print(e)

print(issubclass(np.linalg.LinAlgError, ValueError))
