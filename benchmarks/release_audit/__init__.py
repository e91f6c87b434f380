"""The release audit (issue 28): what a torch release removed, renamed, re-defaulted or deprecated,
read statically from two wheels (or installs), and which catalog rule covers each item.

``benchmarks/audit.py`` is the command; these modules are its parts:

* ``sources``: a release as a folder of its ``.py``/``.pyi``/``.yaml`` files (a wheel's, extracted
  without its binaries, or an install's), and its version;
* ``model``: the audit's items, (a) removed names, (b) removed or renamed parameters and call forms,
  (c) changed defaults, (d) new deprecation texts and markers;
* ``api``: (a)-(c) from griffe's breakage finder, with the project's notion of a public name;
* ``stubs``: (a), (b) and (d) from the C functions' stubs and ``deprecated.yaml``;
* ``texts``: (d) from the Python sources, read with ``ast``;
* ``probes``: a small program that uses each item, scanned by torch-upgrade over the release
  window to find the rule that covers it;
* ``record``: the reviewed decisions, ``rules/audit/<release>.toml`` (a rule or a reason per item).

Nothing here is imported by the tool: the rule loader reads only ``rules/*.toml``, never
``rules/audit/``. Only ``api`` needs griffe; ``record`` and ``probes`` do not, so the tests can
check a stored record without griffe or the wheels.
"""
