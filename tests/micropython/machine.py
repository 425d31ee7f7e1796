# A stand-in for MicroPython's machine module, so firmware/main.py runs on the unix port.
class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2

    def __init__(self, *args, **kwargs):
        pass

    def value(self, v=None):
        return 1


class SPI:
    def __init__(self, *args, **kwargs):
        pass
