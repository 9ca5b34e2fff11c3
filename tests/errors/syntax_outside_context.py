# return, break and continue where they mean nothing.
return 1
break
for i in range(2):
    pass
continue
