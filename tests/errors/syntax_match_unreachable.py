# A case that matches anything before other cases: they could never run, which Python rejects
# before running anything.
command = "go"
match command:
    case other:
        print("anything")
    case "go":
        print("going")
