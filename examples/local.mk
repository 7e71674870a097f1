## Example LEIR programs (installed as documentation).
exampledir = $(docdir)/examples
dist_example_DATA = examples/matmul.leir examples/softmax.leir examples/layernorm.leir \
	examples/conv2d.leir examples/attention.leir examples/sgemm1024.leir
