# A string doubled in a loop through an f-string: refused at the playground's sequence limit
# rather than growing until memory runs out.
s = "ab"
while True:
    s = f"{s}{s}"
