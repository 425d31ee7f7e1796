"""The edges that sense the table: the serial device (card readers, seat buttons,
seat LEDs) and the Pi's own GPIO (turn button, status LED, buzzer)."""
