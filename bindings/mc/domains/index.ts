// Registers every Monte Carlo domain adapter.
import { registerMcDomain } from "../model.js";
import { ioDomain } from "./io.js";

registerMcDomain(ioDomain);

export { ioDomain };
