"""Model-independent core: additive sufficient statistics and the model protocol."""
