"""Evidence search: an SQLite FTS5 index of packets (later checkpoints and observations) and ranked, explained answers.

CLI-only: nothing on a hook's path imports this package (importing the package itself loads nothing).
"""
