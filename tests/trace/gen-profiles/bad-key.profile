ordering ../../model/replay/basic.trace
memory 64K
raed 8K
