// Registers every control module (blk-throttle, blk-iocost, writeback) with the
// engine. Importing the package's entry point imports this file.
import "./throttle.js";
// blk-iolatency before blk-iocost: io.stat prints the policies' fields in
// registration order (block/Makefile: blk-iolatency.o before blk-iocost.o)
import "./iolatency.js";
import "./iocost.js";
import "./writeback.js";
export {};
