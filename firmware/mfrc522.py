"""A small MFRC522 driver for MicroPython: enough to read a card's UID (ISO 14443A).

Only what the table needs: REQA then one anticollision loop, cascade level 1
(4-byte UIDs of MIFARE Classic / NTAG stickers).  Register map and command
sequence per the NXP MFRC522 data sheet.
"""

COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x06, 0x09, 0x0A
BIT_FRAMING, MODE, TX_CONTROL, TX_ASK = 0x0D, 0x11, 0x14, 0x15
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x2A, 0x2B, 0x2C, 0x2D
IDLE, TRANSCEIVE, SOFT_RESET = 0x00, 0x0C, 0x0F
REQA, ANTICOLL_CL1 = 0x26, 0x93


class MFRC522:
    def __init__(self, spi, cs):
        self.spi = spi
        self.cs = cs
        self.cs.value(1)
        self.write(COMMAND, SOFT_RESET)
        self.write(T_MODE, 0x8D)
        self.write(T_PRESCALER, 0x3E)
        self.write(T_RELOAD_L, 30)
        self.write(T_RELOAD_H, 0)
        self.write(TX_ASK, 0x40)
        self.write(MODE, 0x3D)
        self.write(TX_CONTROL, self.read(TX_CONTROL) | 0x03)  # antenna on

    def write(self, reg, value):
        self.cs.value(0)
        self.spi.write(bytes([(reg << 1) & 0x7E, value]))
        self.cs.value(1)

    def read(self, reg):
        self.cs.value(0)
        self.spi.write(bytes([((reg << 1) & 0x7E) | 0x80]))
        value = self.spi.read(1)[0]
        self.cs.value(1)
        return value

    def transceive(self, data, bits=0):
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)
        self.write(FIFO_LEVEL, 0x80)
        for byte in data:
            self.write(FIFO_DATA, byte)
        self.write(BIT_FRAMING, bits)
        self.write(COMMAND, TRANSCEIVE)
        self.write(BIT_FRAMING, self.read(BIT_FRAMING) | 0x80)
        for _ in range(2000):
            irq = self.read(COM_IRQ)
            if irq & 0x30 or irq & 0x01:
                break
        self.write(BIT_FRAMING, self.read(BIT_FRAMING) & 0x7F)
        if not irq & 0x30 or self.read(ERROR) & 0x13:
            return None
        count = self.read(FIFO_LEVEL)
        return bytes(self.read(FIFO_DATA) for _ in range(count))

    def read_uid(self):
        """The UID of the card on the reader, or None."""
        if self.transceive(bytes([REQA]), bits=0x07) is None:
            return None
        answer = self.transceive(bytes([ANTICOLL_CL1, 0x20]))
        if answer is None or len(answer) != 5:
            return None
        check = 0
        for byte in answer[:4]:
            check ^= byte
        return answer[:4] if check == answer[4] else None
