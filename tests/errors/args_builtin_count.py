# len of two things.
print(len([1, 2], [3]))
