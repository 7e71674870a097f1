## The leirc command line.
bin_PROGRAMS += leirc
leirc_SOURCES = driver/main.c driver/driver.h driver/io.c driver/run.c \
	driver/passes_cli.c driver/tune.h driver/tune.c driver/tune_eval.c \
	driver/steps.c driver/steps_format.h driver/steps_format.c driver/cost_cli.c \
	driver/checkstep_cli.c driver/eval.c driver/eval_authors.c driver/verify.c driver/jobs.c \
	driver/serve.h driver/serve.c driver/serve_tools.c driver/serve_store.c \
	driver/policy.h driver/policy.c
leirc_LDADD = libleircore.la libleirrt.la
