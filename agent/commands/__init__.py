"""One module per `agent` subcommand: each parses and validates, then calls a plain function."""
