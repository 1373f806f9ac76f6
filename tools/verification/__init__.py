"""Checking an answer against its passages: the claim verifier, its consistency checks, segment-level evidence
and the semantic judge."""
