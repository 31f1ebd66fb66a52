"""Discovery and the package on disk: takes the paths a user gives, gives the logs to read and
what their place in a package says (:mod:`~mlcheck.package.discover`: ``LogRef``\\ s sorted and
grouped by org, system and benchmark), and the names and system descriptions found in a
submitter's package as plain records (:mod:`~mlcheck.package.layout`: ``PackageLayout``,
``JsonDocument``). The package rules (``mlcheck/rules/package_*.py``) judge those records and
never touch the file system; :mod:`mlcheck.judge.package_check` runs them.

Imports the reader (to sniff a file for records) and the result model, nothing above them.
"""
