# A missing key in a dict of parameters.
params = {"w": 1.0, "b": 0.0}
print(params["bias"])
