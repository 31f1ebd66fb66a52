"""Data files of mlcheck: JSON Schemas and the per-round rule facts (installed as ``mlcheck.schemas``)."""
