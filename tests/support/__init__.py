"""The fakes, fixtures and literals the test folders share, defined once.

Import them as ``support.<module>`` (``tests/`` is on the path through ``pythonpath`` in
pyproject's pytest settings): ``from support.replies import block``. A fixture several folders
use lives here and is made available by the conftest that covers those folders.
"""
