# A match statement (structural pattern matching), which the playground does not have yet.
command = "go"
match command:
    case "go":
        print("going")
