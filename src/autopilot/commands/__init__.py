"""CLI adapters: each module parses its command's arguments, calls the operation, prints the result."""
