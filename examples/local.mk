## Example LEIR programs (installed as documentation).
exampledir = $(docdir)/examples
dist_example_DATA = examples/matmul.leir examples/softmax.leir examples/layernorm.leir \
	examples/conv2d.leir examples/attention.leir examples/sgemm1024.leir
## The Python examples (python/leir; each one is run by a test of testsuite/python).
pyexampledir = $(docdir)/examples/python
dist_pyexample_DATA = examples/python/greedy.py examples/python/run_numpy.py \
	examples/python/random_rollout.py
