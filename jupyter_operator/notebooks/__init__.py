"""Notebooks seen as cells: pure functions over notebook text (no file access).

- :mod:`.celldiff`: ``diff_notebooks(old, new)`` matches the cells of two versions of a notebook
  and describes each change (added, removed, moved, changed, with a source diff per cell).
"""
