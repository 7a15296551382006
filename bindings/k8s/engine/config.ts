// Every period and timeout of the modelled loops, in one object (upstream names
// in the comments). Tests shrink them; scenarios may override any of them under
// `settings.timers`.

export interface TimerConfig {
  /** ADC reconciler: DefaultTimerConfig.ReconcilerLoopPeriod (wait.Until) */
  ADC_RECONCILER_LOOP_PERIOD_MS: number;
  /** ADC: ReconcilerMaxWaitForUnmountDuration, hard-coded 6 min */
  ADC_MAX_WAIT_FOR_UNMOUNT_MS: number;
  /** ADC DSW populator: DesiredStateOfWorldPopulatorLoopSleepPeriod */
  ADC_DSWP_LOOP_SLEEP_MS: number;
  /** ADC DSW populator: DesiredStateOfWorldPopulatorListPodsRetryDuration */
  ADC_DSWP_LIST_PODS_RETRY_MS: number;
  /** ADC reconciler sync (VerifyVolumesAreAttached): --attach-detach-reconcile-sync-period */
  ADC_SYNC_PERIOD_MS: number;
  /** kubelet volume manager reconciler: reconcilerLoopSleepPeriod */
  KUBELET_RECONCILER_LOOP_MS: number;
  /** kubelet DSW populator: desiredStateOfWorldPopulatorLoopSleepPeriod */
  KUBELET_DSWP_LOOP_MS: number;
  /** kubelet: podAttachAndMountTimeout (WaitForAttachAndMount) = 2m3s */
  POD_ATTACH_AND_MOUNT_TIMEOUT_MS: number;
  /** kubelet: podAttachAndMountRetryInterval (poll) */
  POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_MS: number;
  /** kubelet: waitForAttachTimeout (MountVolume waiting for the device) */
  WAIT_FOR_ATTACH_TIMEOUT_MS: number;
  /** kubelet: --node-status-update-frequency (carries volumesInUse) */
  NODE_STATUS_UPDATE_FREQUENCY_MS: number;
  /** node lifecycle controller: --node-monitor-grace-period before Ready=Unknown */
  NODE_MONITOR_GRACE_PERIOD_MS: number;
  /** kubelet pod worker requeue after a sync error (backOffPeriod, jitter 0.5) */
  POD_WORKER_BACKOFF_MS: number;
  /** kubelet housekeeping (orphaned pod dirs cleanup) */
  HOUSEKEEPING_PERIOD_MS: number;
  /** CSI attacher: csiTimeout waiting for a VolumeAttachment (2 min) [U] */
  CSI_TIMEOUT_MS: number;
  /** external-attacher: --timeout, its ControllerPublish/Unpublish deadline (15 s) [U] */
  EXTERNAL_ATTACHER_TIMEOUT_MS: number;
  /** external-attacher: --retry-interval-start / --retry-interval-max [U] */
  EXTERNAL_ATTACHER_RETRY_START_MS: number;
  EXTERNAL_ATTACHER_RETRY_MAX_MS: number;
  /** external-resizer: --timeout, its ControllerExpandVolume deadline (10 s), and its workqueue's retry interval [U] */
  EXTERNAL_RESIZER_TIMEOUT_MS: number;
  EXTERNAL_RESIZER_RETRY_START_MS: number;
  EXTERNAL_RESIZER_RETRY_MAX_MS: number;
  /** exponentialbackoff: initialDurationBeforeRetry / maxDurationBeforeRetry */
  INITIAL_DURATION_BEFORE_RETRY_MS: number;
  MAX_DURATION_BEFORE_RETRY_MS: number;
  /** default watch delivery latency of every informer */
  WATCH_LATENCY_MS: number;
  /** container runtime: time to start the containers of a pod */
  CONTAINER_START_MS: number;
  /** container runtime: default time a container takes to exit after SIGTERM */
  CONTAINER_STOP_MS: number;
  /** kubelet restart: time from process start until its informers list */
  KUBELET_STARTUP_MS: number;
}

export const DEFAULT_TIMERS: Readonly<TimerConfig> = Object.freeze({
  ADC_RECONCILER_LOOP_PERIOD_MS: 100,
  ADC_MAX_WAIT_FOR_UNMOUNT_MS: 6 * 60_000,
  ADC_DSWP_LOOP_SLEEP_MS: 60_000,
  ADC_DSWP_LIST_PODS_RETRY_MS: 180_000,
  ADC_SYNC_PERIOD_MS: 60_000,
  KUBELET_RECONCILER_LOOP_MS: 100,
  KUBELET_DSWP_LOOP_MS: 100,
  POD_ATTACH_AND_MOUNT_TIMEOUT_MS: 2 * 60_000 + 3_000,
  POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_MS: 300,
  WAIT_FOR_ATTACH_TIMEOUT_MS: 10 * 60_000,
  NODE_STATUS_UPDATE_FREQUENCY_MS: 10_000,
  NODE_MONITOR_GRACE_PERIOD_MS: 40_000,
  POD_WORKER_BACKOFF_MS: 10_000,
  HOUSEKEEPING_PERIOD_MS: 2_000,
  CSI_TIMEOUT_MS: 2 * 60_000,
  EXTERNAL_ATTACHER_TIMEOUT_MS: 15_000,
  EXTERNAL_ATTACHER_RETRY_START_MS: 1_000,
  EXTERNAL_ATTACHER_RETRY_MAX_MS: 5 * 60_000,
  EXTERNAL_RESIZER_TIMEOUT_MS: 10_000,
  EXTERNAL_RESIZER_RETRY_START_MS: 1_000,
  EXTERNAL_RESIZER_RETRY_MAX_MS: 5 * 60_000,
  INITIAL_DURATION_BEFORE_RETRY_MS: 500,
  MAX_DURATION_BEFORE_RETRY_MS: 2 * 60_000 + 2_000,
  WATCH_LATENCY_MS: 20,
  CONTAINER_START_MS: 1_000,
  CONTAINER_STOP_MS: 1_000,
  KUBELET_STARTUP_MS: 2_000,
});
