## The IR, semantic analysis and the verifier.
libleir_la_SOURCES += ir/ir.h ir/ir.c ir/arena.c ir/diag.c ir/print.c \
	ir/sema.h ir/sema.c ir/shape.c ir/init.c ir/verify.c ir/decls_json.c
