"""One module per graph node; each returns only the state keys it changes."""
