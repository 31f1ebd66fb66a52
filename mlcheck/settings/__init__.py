"""Settings and the CI gate: takes the config file, ``MLCHECK_*`` variables and options, and a
``CheckResult``; gives the settings (:mod:`~mlcheck.settings.config`), the result with
``--select``/``--ignore`` (:mod:`~mlcheck.settings.selection_filter`) and the waivers
(:mod:`~mlcheck.settings.waiver_table` reads them, :mod:`~mlcheck.settings.waivers` applies
them) applied, the reports written and the exit code (:mod:`~mlcheck.settings.gate`).

The checker knows nothing of settings: they act on its result afterwards, so a waiver changes
what ``check`` fails on, never a score. Used by the command line and by scripts.
"""
