## passes
