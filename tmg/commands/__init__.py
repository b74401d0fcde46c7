"""One module per `tmg` subcommand; `tmg.cli` discovers them."""
