// Registers every Monte Carlo domain adapter.
import { registerMcDomain } from "../model.js";
import { ioDomain } from "./io.js";
import { k8sDomain } from "./k8s.js";

registerMcDomain(ioDomain);
registerMcDomain(k8sDomain);

export { ioDomain, k8sDomain };
