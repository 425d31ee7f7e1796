"""The simulated table: a world apart that holds the truth (hands, deck order,
where every piece really stands) and reaches the companion only through camera
frames, serial bytes, GPIO pins and tablet requests."""
