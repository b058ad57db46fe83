"""From hits to a cited answer: evidence, the prompt within the time budget, the
answer model (llama.cpp or a local server), translation, the guess, and the question pipeline."""
