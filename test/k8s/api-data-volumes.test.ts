// A pod as `kubectl get pod -o yaml` shows it carries volumes of API data:
// the projected kube-api-access-* volume every pod gets (1.22+), and often a
// configMap, a secret and a downwardAPI volume. The replay loads them and runs
// them through the kubelet as the local plugins they are upstream
// (kubernetes.io/configmap, secret, projected, downward-api: nothing to attach,
// a directory SetUp writes and TearDown removes, volume/clouddisk.ts
// createLocalPlugin), beside the claim, on every release, across a kubelet
// restart (reconstruction finds their directories).
import { describe, expect, it } from "vitest";
import { loadK8sScenario, runK8sScenario } from "../../bindings/k8s/index.js";

const yaml = `name: api-data
version: "1.25"
duration: 10m
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: PersistentVolume
    metadata: {name: pv1}
    spec: {accessModes: [ReadWriteOnce], csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}}
  - kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}
  - kind: Pod
    metadata: {name: web-0}
    spec:
      nodeName: n1
      containers:
        - name: web
          volumeMounts:
            - {name: data, mountPath: /data}
            - {name: config, mountPath: /etc/config}
            - {name: tls, mountPath: /etc/tls}
            - {name: kube-api-access-7x2kq, mountPath: /var/run/secrets/kubernetes.io/serviceaccount, readOnly: true}
            - {name: podinfo, mountPath: /etc/podinfo}
      volumes:
        - {name: data, persistentVolumeClaim: {claimName: data}}
        - {name: config, configMap: {name: web-config}}
        - {name: tls, secret: {secretName: web-tls}}
        - name: kube-api-access-7x2kq
          projected:
            sources:
              - serviceAccountToken: {expirationSeconds: 3607, path: token}
              - configMap: {name: kube-root-ca.crt, items: [{key: ca.crt, path: ca.crt}]}
        - {name: podinfo, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}}
timeline:
  - {at: 60s, action: deletePod, pod: web-0}
  - {at: 62s, action: restartKubelet, node: n1, down: 3s}
expect:
  - podGone: web-0
`;

describe("volumes of API data (configMap, secret, projected, downwardAPI)", () => {
  const sc = loadK8sScenario(yaml, "api-data.yaml");
  for (const version of ["1.12", "1.21", "1.25", "1.35"])
    it(`${version}: mount beside the claim, the pod runs, and everything is torn down after a kubelet restart`, () => {
      const r = runK8sScenario(sc, { version });
      expect(r.violations).toEqual([]);
      const text = r.logs.map((l) => l.text).join("\n");
      for (const kind of ["configmap", "secret", "projected", "downward-api"]) {
        expect(text).toMatch(new RegExp(`MountVolume.SetUp succeeded for volume .*kubernetes.io/${kind}/[0-9a-f-]+-`));
        expect(text).toMatch(new RegExp(`UnmountVolume.TearDown succeeded for volume .*kubernetes.io/${kind}/`));
      }
    });
  it("refuses a secret without secretName and a configMap without name, at their line", () => {
    expect(() => loadK8sScenario(yaml.replace("secret: {secretName: web-tls}", "secret: {}"), "bad.yaml")).toThrow(
      /^bad\.yaml:\d+: objects\[3\]\.spec\.volumes\[2\]\.secret\.secretName: expected a non-empty string/,
    );
    expect(() => loadK8sScenario(yaml.replace("configMap: {name: web-config}", "configMap: {}"), "bad.yaml")).toThrow(
      /objects\[3\]\.spec\.volumes\[1\]\.configMap\.name: expected a non-empty string/,
    );
  });
});
