"""Reading texts by reference: the sutta-ID lookup, context windows around a passage, and other translations of
the same segments."""
