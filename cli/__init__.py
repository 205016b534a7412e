"""Command-line interface: one `polo-lineup` program, one thin module per subcommand."""
