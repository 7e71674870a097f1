## The Python package `leir` (python/leir/), installed into Python's
## site-packages by `make install`.  From the build tree, without
## installing: PYTHONPATH=$(top_srcdir)/python (testsuite/check.sh does this).
leirpydir = $(pythondir)/leir
leirpy_PYTHON = python/leir/__init__.py python/leir/_lib.py python/leir/_cli.py \
	python/leir/core.py python/leir/env.py python/leir/compile.py
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

## leirc-import(1), made from python/leirc-import.in with the configured
## Python (Debian's, where python3-torch lives) in its #! line: the build
## tree's copy finds the package in the source tree, the installed one
## (leirc-import.inst, installed as bin/leirc-import) in $(pythondir) only, so
## that no build path ends up in a package (tools/repro-check.sh).
LEIR_IMPORT_SED = sed -e 's|@PYTHON[@]|$(PYTHON)|g'
CLEANFILES += leirc-import leirc-import.inst
EXTRA_DIST += python/leirc-import.in
if HAVE_PYTHON
noinst_SCRIPTS = leirc-import
all-local: leirc-import.inst
install-exec-local: leirc-import.inst
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_SCRIPT) leirc-import.inst '$(DESTDIR)$(bindir)/leirc-import'
uninstall-local:
	rm -f '$(DESTDIR)$(bindir)/leirc-import'
endif
leirc-import: $(srcdir)/python/leirc-import.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(LEIR_IMPORT_SED) -e 's|@LEIR_PYTHON_DIRS[@]|"$(abs_top_srcdir)/python",|g' \
	    $(srcdir)/python/leirc-import.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
leirc-import.inst: $(srcdir)/python/leirc-import.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(LEIR_IMPORT_SED) -e 's|@LEIR_PYTHON_DIRS[@]|"$(pythondir)",|g' \
	    $(srcdir)/python/leirc-import.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
