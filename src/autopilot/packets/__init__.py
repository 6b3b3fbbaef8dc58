"""packets."""
