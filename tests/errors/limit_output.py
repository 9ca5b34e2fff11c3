# Printing more than the output limit (4 MiB) ends the script with the limit named, whether in
# one print or many (a print loop stops at the print that would cross it).
print("x" * 5000000)
