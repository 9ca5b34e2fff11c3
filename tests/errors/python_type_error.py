# Adding a string and a number.
epoch = 3
print("epoch " + epoch)
