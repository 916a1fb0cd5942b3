"""Recorded worlds: replay stored episodes deterministically, and refresh tasks when live servers drift."""
