## The wheel (issue 60): `make wheel` builds wheel/leir-VERSION-py3-none-
## manylinux_2_NN_x86_64.whl in the build tree (tools/make-wheel.sh says
## what it holds and how): the package leir, libleir.so.0 and leirc relinked
## from this build's objects over one library of the compiler and LLVM's
## static libraries (leir/libleircore.so.0), the man pages and the schemas.  It needs PyPI (pip) once for its tools (wheel, auditwheel:
## a virtualenv in wheel/venv) and patchelf.  `make check-wheel` builds it,
## installs it into fresh virtualenvs and compares what it does with this
## build tree (testsuite/wheel/check-wheel.sh).  Neither is part of `make
## check`.
EXTRA_DIST += tools/make-wheel.sh testsuite/wheel/check-wheel.sh
WHEEL_MAN_PAGES = man/leirc.1 man/leirc-import.1 man/leir.7 \
	man/leir-strategies.7 man/libleir.3
.PHONY: wheel check-wheel clean-wheel
wheel: libleir.la leirc$(EXEEXT) $(srcdir)/tools/make-wheel.sh
	@CC='$(CC)' CFLAGS='$(CFLAGS)' LDFLAGS='$(LDFLAGS)' LIBS='$(LIBS)' \
	  LLVM_CONFIG='$(LLVM_CONFIG)' PYTHON='$(PYTHON)' VERSION='$(PACKAGE_VERSION)' \
	  JANSSON_LIBS='$(JANSSON_LIBS)' SAN_LDFLAGS='$(SAN_LDFLAGS)' \
	  LEIRC_OBJECTS='$(leirc_OBJECTS)' LIBLEIR_OBJECTS='$(libleir_la_OBJECTS)' \
	  RT_OBJECTS='$(libleirrt_la_OBJECTS)' \
	  PY_FILES='$(leirpy_PYTHON) $(leirtorch_PYTHON)' \
	  MAN_PAGES='$(WHEEL_MAN_PAGES)' SCHEMAS='$(dist_schemas_DATA)' \
	  $(SHELL) '$(srcdir)/tools/make-wheel.sh' '$(srcdir)' wheel
check-wheel: wheel leirc$(EXEEXT) libleir.la leirc-import
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  PYTHON='$(PYTHON)' PACKAGE_VERSION='$(PACKAGE_VERSION)' \
	  $(SHELL) '$(srcdir)/testsuite/wheel/check-wheel.sh'
clean-local: clean-wheel
clean-wheel:
	-rm -rf wheel
