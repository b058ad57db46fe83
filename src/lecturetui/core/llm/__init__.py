"""The answer model's runtime: llama.cpp in a process of its own (worker.py, process.py), a model
server the student runs (server.py), and what both share (model.py)."""
