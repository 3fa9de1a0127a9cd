return "fine"
