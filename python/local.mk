## The Python package `leir` (python/leir/), installed into Python's
## site-packages by `make install`.  From the build tree, without
## installing: PYTHONPATH=$(top_srcdir)/python (testsuite/check.sh does this).
leirpydir = $(pythondir)/leir
leirpy_PYTHON = python/leir/__init__.py
EXTRA_DIST += python/README.md

## The PyTorch front end (issue 36): leir.from_torch and leirc-import.
leirtorchdir = $(pythondir)/leir/torch_import
leirtorch_PYTHON = \
	python/leir/torch_import/__init__.py \
	python/leir/torch_import/__main__.py \
	python/leir/torch_import/cli.py \
	python/leir/torch_import/data.py \
	python/leir/torch_import/emit.py \
	python/leir/torch_import/errors.py \
	python/leir/torch_import/kernelbench.py \
	python/leir/torch_import/lower.py \
	python/leir/torch_import/names.py \
	python/leir/torch_import/ops.py \
	python/leir/torch_import/trace.py \
	python/leir/torch_import/values.py

## leirc-import(1): made from python/leirc-import.in with the configured Python
## (Debian's, where python3-torch lives) in its #! line; it finds the package
## installed in $(pythondir), or in the source tree when run from the build tree.
if HAVE_PYTHON
bin_SCRIPTS = leirc-import
endif
CLEANFILES += leirc-import
EXTRA_DIST += python/leirc-import.in
leirc-import: $(srcdir)/python/leirc-import.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	sed -e 's|@PYTHON[@]|$(PYTHON)|g' -e 's|@pythondir[@]|$(pythondir)|g' \
	    -e 's|@abs_top_srcdir[@]|$(abs_top_srcdir)|g' \
	    $(srcdir)/python/leirc-import.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
