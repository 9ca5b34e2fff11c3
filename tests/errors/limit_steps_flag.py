# The step budget is a setting: `tpu run --max-steps 2000` stops this loop, which the default
# budget (10 million steps) would let finish.
# tpu-args: --max-steps 2000
total = 0
for i in range(100000):
    total += i
print(total)
