## The LEIR lexer (flex, reentrant, bison bridge).
libleirfront_la_SOURCES += lexer/leir.l
