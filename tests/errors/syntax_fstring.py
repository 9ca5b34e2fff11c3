# Mistakes inside f-strings: an empty field, an unclosed field, a single '}', an incomplete
# expression.
x = 1
print(f"value: {}")
print(f"value: {x")
print(f"value: }")
print(f"sum: {x +}")
