"""Raw job output beyond checking it, the library side of two commands: takes a console log
and gives result files (:mod:`~mlcheck.raw.split`: one ``result_<i>.txt`` per run, as the
logging rank printed the records) or the findings of a run while the job is still writing it
(:mod:`~mlcheck.raw.watch`: follows the file, judges the partial run at each checkpoint with
the checker's own :func:`~mlcheck.checker.judge_run`; :mod:`~mlcheck.raw.watch_paths`: whether the path
can be followed). The commands are in :mod:`mlcheck.cli.raw`.
"""
