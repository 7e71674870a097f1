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
	  XGBOOST_LIBS='$(XGBOOST_LIBS)' COSTMODEL='$(dist_costmodel_DATA)' \
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

## The learned cost model (issue 58 item 1, search/learned.h): training data
## measured by tools/costmodel/measure.sh (bench/costmodel_bench --features
## on the corpus, the zoo and their one-step variants), the model trained by
## tools/costmodel/train.py (python3-xgboost).  `make costmodel-train`
## retrains the shipped tools/costmodel/costmodel.json from the committed
## data and prints the held-out rank correlations; `make costmodel-measure`
## measures new data (about 25 minutes a sample; see measure.sh).
EXTRA_DIST += tools/costmodel/train.py tools/costmodel/measure.sh \
	tools/costmodel/zoo_programs.py tools/costmodel/data.tsv tools/costmodel/README
.PHONY: costmodel-train costmodel-measure
costmodel-train:
	$(PYTHON) $(srcdir)/tools/costmodel/train.py $(srcdir)/tools/costmodel/data.tsv \
	  --out $(srcdir)/tools/costmodel/costmodel.json
costmodel-measure: leirc$(EXEEXT)
	$(SHELL) $(srcdir)/tools/costmodel/measure.sh '$(abs_top_builddir)' '$(LEIR_CORPUS)' \
	  costmodel-data.tsv $(COSTMODEL_SAMPLE)
