"""The open-mem dialect: the ten mem-* tools over the same store, one module per concern."""
