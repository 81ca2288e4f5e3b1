"""Commands: the CLI and its sub-commands (derive, sweep, diff, list, import-hf, calibrate, watch)."""
