# Assignment to things that cannot be assigned to.
1 = x
f() = 3
a + b = 2
(a, b) += (1, 2)
