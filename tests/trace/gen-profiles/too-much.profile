ordering ../../model/replay/basic.trace
memory 64K
read 8K
touch 40K
