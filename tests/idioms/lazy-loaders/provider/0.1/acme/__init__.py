def version():
    return "0.1"
