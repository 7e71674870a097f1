## runtime
