// Registers every trace handler. Importing the package's entry point imports this file.
export * from "./registry.js";
import "./writeback.js";
