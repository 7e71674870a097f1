## search: the search layer of --tune (issue 58): schedule sketches, rules
## that generate multi-step moves as ordinary sequences of the strategies,
## with free factors that a search samples (search/search.h).
libleircore_la_SOURCES += search/search.h search/sketch.c search/sketch_search.c
