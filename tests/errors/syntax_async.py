# Coroutines, which the playground does not have yet.
async def fetch():
    return 1
