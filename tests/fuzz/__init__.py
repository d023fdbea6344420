"""Fuzz targets (atheris), their seed corpora and the replay driver; see _common.py."""
