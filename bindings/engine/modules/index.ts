// Registers every control module (blk-throttle, blk-iocost, writeback) with the
// engine. Importing the package's entry point imports this file.
import "./throttle.js";
import "./iocost.js";
import "./writeback.js";
export {};
