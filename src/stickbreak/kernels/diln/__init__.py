"""diln."""
