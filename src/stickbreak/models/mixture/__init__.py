"""mixture."""
