thing = 1
