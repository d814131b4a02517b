"""Tatham's dice that never roll 7, in exact arithmetic."""
