## interp
