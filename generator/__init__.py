"""genreport: roofline reports for LLM workloads (the generator side: load, evaluate, draw, render, write)."""

__version__ = "0.1.0"
