"""What vulture cannot see the runtime use (tests/test_host_size.py runs vulture on
runtime/ with this file, in vulture's whitelist form: a bare use per name)."""

from types import SimpleNamespace

used = SimpleNamespace()
used.dont_write_bytecode  # noqa: B018 - runtime/__main__.py sets it on sys
used.drive  # noqa: B018 - merge_catalog.drive: run by the driver's entry (gitsetup/driver.py)
used.EXIT_OK  # noqa: B018 - errors.py: 0, named beside the exit codes it stands with
used.__getattr__  # noqa: B018 - store/stores.py: a module __getattr__ (PEP 562), stores.ROOT
