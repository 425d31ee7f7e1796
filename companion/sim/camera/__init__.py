"""The simulated table's cameras: they draw what the world put on the table.

This is the world's side of the lens. ``render`` paints a flat camera frame (board print,
pieces, lamp, noise, an arm), ``conditions`` spoils it the ways a real table does (casts,
glare, blur, lenses, hands), ``source`` feeds those frames to the service like a camera.
The companion's runtime never imports this package (tests/test_layering.py holds that).
"""
