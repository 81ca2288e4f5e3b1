"""Evaluate: one stage that computes every number of a report, once."""
