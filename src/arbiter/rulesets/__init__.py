"""Rule systems. Each is a package with the same rooms; each registers an entry point."""
