# Coroutines and complex numbers, which the playground does not have yet.
async def fetch():
    return 1
z = 1 + 2j
