## man
dist_man_MANS += man/leir.7
