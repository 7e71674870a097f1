## man
dist_man_MANS += man/leir.7
## leirc(1), the command line, and leir-strategies(7), the 43 strategies.
## Keep them current as options and passes change (see debian/ and
## tools/repro-check.sh for the packaging that installs them).
dist_man_MANS += man/leirc.1 man/leir-strategies.7 man/leirc-import.1 man/leirc-dist.1
## `make check-man`: man --warnings is silent for every page, leirc(1)
## describes every option of `leirc --help`, leir-strategies(7) every
## strategy of `leirc --list-passes` (with its implemented status), and the
## pages name the package version.  Run it after adding an option or a pass.
EXTRA_DIST += man/check-man.sh
.PHONY: check-man
check-man: leirc$(EXEEXT)
	$(SHELL) '$(srcdir)/man/check-man.sh' '$(srcdir)' ./leirc$(EXEEXT) '$(PACKAGE_VERSION)'
