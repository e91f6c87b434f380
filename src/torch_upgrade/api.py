"""Public API (being written)."""
