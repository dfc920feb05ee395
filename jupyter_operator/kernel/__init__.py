"""The IPython side: the ``%operator`` / ``%%operator`` magics and the kernel's session."""
