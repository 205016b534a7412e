"""One module per `polo-lineup` subcommand; each defines ``register(subparsers)``."""
