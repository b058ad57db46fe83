"""Evaluation: question sets, retrieval metrics, the LLM judge, runs and their report."""
