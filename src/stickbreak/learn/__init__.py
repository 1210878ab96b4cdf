"""Learning algorithms, written once against the four model verbs."""
