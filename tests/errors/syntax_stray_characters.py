# Characters that are not Python: a dollar sign, a question mark, a multiplication sign pasted
# from a paper, and a backtick.
x = 2 $ 3
y = x ? 1
z = 2 × 3
w = `x`
