"""Benchmarks: the companion measured against the simulated table (``companion bench ...``).

``boards`` draws sample boards from played games, ``service`` times the serial link, the
live stream and the log, ``vision`` the reader's frame cost and its conditions, ``footprint``
what the companion costs a Pi (memory, CPU, start-up).
"""
