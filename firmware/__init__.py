"""MicroPython firmware of the table device (Raspberry Pi Pico): card readers, seat
buttons, seat LEDs.  Importable under CPython for tests and the device emulator."""
