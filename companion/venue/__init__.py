"""A venue of many tables over MQTT: each table publishes, ``companion venue`` shows the room.

See docs/mqtt.md for the topic tree.
"""
