## The Python package `leir` (python/leir/), installed into Python's
## site-packages by `make install`.  From the build tree, without
## installing: PYTHONPATH=$(top_srcdir)/python (testsuite/check.sh does this).
leirpydir = $(pythondir)/leir
leirpy_PYTHON = python/leir/__init__.py python/leir/_lib.py python/leir/_cli.py \
	python/leir/core.py python/leir/dist.py python/leir/env.py python/leir/compile.py
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

## leirc-import(1) and leirc-dist(1), made from python/leirc-import.in and
## python/leirc-dist.in with the configured Python (Debian's, where
## python3-torch and python3-distributed live) in their #! line: the build
## tree's copies find the package in the source tree, the installed ones
## (NAME.inst, installed as bin/NAME) in $(pythondir) only, so that no build
## path ends up in a package (tools/repro-check.sh).
LEIR_IMPORT_SED = sed -e 's|@PYTHON[@]|$(PYTHON)|g'
LEIR_PY_COMMANDS = leirc-import leirc-dist
CLEANFILES += leirc-import leirc-import.inst leirc-dist leirc-dist.inst
EXTRA_DIST += python/leirc-import.in python/leirc-dist.in
if HAVE_PYTHON
noinst_SCRIPTS = leirc-import leirc-dist
all-local: leirc-import.inst leirc-dist.inst
install-exec-local: leirc-import.inst leirc-dist.inst
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	for s in $(LEIR_PY_COMMANDS); do \
	  $(INSTALL_SCRIPT) $$s.inst "$(DESTDIR)$(bindir)/$$s" || exit 1; \
	done
uninstall-local:
	for s in $(LEIR_PY_COMMANDS); do rm -f "$(DESTDIR)$(bindir)/$$s"; done
endif
leirc-import leirc-dist: %: $(srcdir)/python/%.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(LEIR_IMPORT_SED) -e 's|@LEIR_PYTHON_DIRS[@]|"$(abs_top_srcdir)/python",|g' \
	    $(srcdir)/python/$@.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
leirc-import.inst leirc-dist.inst: %.inst: $(srcdir)/python/%.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(LEIR_IMPORT_SED) -e 's|@LEIR_PYTHON_DIRS[@]|"$(pythondir)",|g' \
	    $(srcdir)/python/$*.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
