"""Scripted players and the truth of each game's simulated table."""
