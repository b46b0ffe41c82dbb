# A profile over tests/model/replay/basic.trace (reads pages 100-102 of memory
# from device pages 0-2 at t=10, touches 7 and 8 at t=20, frees 101 at t=30).
ordering ../../model/replay/basic.trace
memory 64K	# 16 pages: enough for the 3 pages the budgets below use
read 8K		# 2 distinct device pages: the 3-page read is clipped to 2
touch 4K	# 1 page: of the 2-page touch only page 7 is kept
free 0
readahead-kb 16
backing small-synthetic
note made by tests/trace/gen.sh
