"""Course packs: a class's library made once (its lectures, segments, vectors, key phrases and
summaries), shared as one zip file, and merged into a student's library safely.

- format.py: what a pack holds (the manifest and its members, as typed values) and its limits
- reader.py: reading a pack from a stranger: sizes, counts, hashes and types checked before use
- checks.py: what the values must be (times inside the lecture, text within limits, links)
- vectors.py: the vectors as .npy, read without pickle, checked for shape and finite values
- export.py: a library's lectures written as a pack
- importer.py: a pack merged into a library, in one transaction after its vectors are saved
"""
