## The LEIR parser (bison, pure, %locations, %expect 0).
libleirfront_la_SOURCES += parser/leir.y parser/parse.h
BUILT_SOURCES += parser/leir.h
libleirfront_la_SOURCES += parser/parse.c
