"""truncation_free."""
