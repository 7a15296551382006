// Real-kernel traces: readers, replay, scoring, explanations; registers the
// trace handlers. Importing the package's entry point imports this file.
export * from "./registry.js";
export * from "./traces.js";
export * from "./replay.js";
export * from "./score.js";
export * from "./compare.js";
export * from "./decisions.js";
export { idealDevice, WORK_LATENCY_NS, DEVICE_LATENCY_NS } from "./device.js";
export { scenarioFromThrotlJson } from "./throtl-scenario.js";
export { explainDecisions, explainText } from "./explain.js";
export { blktestsThrotl, type BlktestCase } from "./blktests.js";
import "./iocost.js";
export { isRecordIocost, replayRecordIocost, scoreRecordIocost, formatRecordIocost, explainRecordIocost, type RecordIocostScore } from "./record-iocost.js";
import "./writeback.js";
import "./rqos.js";
export { readBufTrace, compareBufTrace, formatBufScore, type BufScore } from "./bufread.js";
