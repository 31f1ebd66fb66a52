"""Renderers of a :class:`~mlcheck.model.CheckResult`; none of them looks at raw events."""
