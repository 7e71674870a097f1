## The Python package `leir` (python/leir/), installed into Python's
## site-packages by `make install`.  From the build tree, without
## installing: PYTHONPATH=$(top_srcdir)/python (testsuite/check.sh does this).
leirpydir = $(pythondir)/leir
leirpy_PYTHON = python/leir/__init__.py python/leir/_lib.py python/leir/core.py \
	python/leir/env.py
EXTRA_DIST += python/README.md
