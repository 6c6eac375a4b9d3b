def base():
    return 0
