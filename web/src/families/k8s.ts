// Kubernetes incident replay: the volume lifecycle (attach/detach controller,
// kubelet volume manager, CSI) replayed from a timeline, with version and
// fix switches and the invariant that broke. Needs bindings/k8s.
import type { Family, FamilyInfo } from "./types.js";

const k8sModules = import.meta.glob("../../../bindings/k8s/index.ts");

export const k8sFamily: Family = {
  id: "k8s",
  title: "Kubernetes incidents",
  async load(): Promise<FamilyInfo> {
    const load = Object.values(k8sModules)[0] as (() => Promise<unknown>) | undefined;
    return {
      id: "k8s", title: "Kubernetes incidents", available: false,
      reason: load ? "the Kubernetes adapter does not know this API yet" : "Kubernetes incident replay is not in this build yet",
      versions: [], defaultVersion: "", versionLabel: "Kubernetes", fixes: [], files: [{ name: "timeline.yaml", syntax: "YAML" }], scenarios: [],
    };
  },
  async run() {
    throw new Error("Kubernetes incident replay is not in this build");
  },
};
