"""The tablet dashboard: Flask app factory, JSON API and Server-Sent Events."""
