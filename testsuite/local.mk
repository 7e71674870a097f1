## testsuite
