// Registers every control module (blk-throttle, blk-iocost, writeback) with the
// engine. Importing the package's entry point imports this file.
import "./writeback.js";
export {};
