"""topics."""
