# A string whose closing quote is missing: reported at the opening quote.
print("hello)
print('world')
