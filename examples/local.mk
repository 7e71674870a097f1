## Example LEIR programs (installed as documentation).
exampledir = $(docdir)/examples
dist_example_DATA = examples/matmul.leir examples/softmax.leir examples/layernorm.leir \
	examples/conv2d.leir examples/attention.leir examples/sgemm1024.leir
## Example search policies of `leirc --tune --policy=CMD` (leirc(1), POLICY
## PROTOCOL): Python, standard library only.
examplepolicydir = $(docdir)/examples/policies
dist_examplepolicy_DATA = examples/policies/random_policy.py examples/policies/greedy_cost_policy.py \
	examples/policies/openai_policy.py

## The Python examples (python/leir; each one is run by a test of testsuite/python).
pyexampledir = $(docdir)/examples/python
dist_pyexample_DATA = examples/python/greedy.py examples/python/run_numpy.py \
	examples/python/random_rollout.py
