# Numbers run into names, and an integer that does not fit 64 bits.
x = 12abc
y = 1.5e3q
z = 123456789012345678901234567890
