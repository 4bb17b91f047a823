"""The documentation site: its Sphinx configuration (``conf.py``) and the generator of the envs' pages."""
