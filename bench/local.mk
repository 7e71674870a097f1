## bench
