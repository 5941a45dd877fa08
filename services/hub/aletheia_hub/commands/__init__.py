"""The aletheia CLI's subcommands, each over a store opened from the command line."""
