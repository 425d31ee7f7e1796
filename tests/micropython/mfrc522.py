# A stand-in card reader for running firmware/main.py on the unix port.
class MFRC522:
    def __init__(self, spi, cs):
        pass

    def read_uid(self):
        return None
