// Registers every Monte Carlo domain adapter.
import { registerMcDomain } from "../model.js";
import { ioDomain } from "./io.js";
import { k8sDomain } from "./k8s.js";
import { multiDomain } from "./multi.js";

registerMcDomain(ioDomain);
registerMcDomain(k8sDomain);
registerMcDomain(multiDomain);

export { ioDomain, k8sDomain, multiDomain };
