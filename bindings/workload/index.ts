// Workload inputs: fio job files and fio IO logs -> iosim JobSpecs.
export {
  parseFioJobFile, BadOptions, FIO_DEFAULT_BS, FIO_DEFAULT_ENGINE, FIO_SYNC_ENGINES, DEFAULT_REGION_BYTES,
  type FioParseOptions, type FioJobFile, type FioJobMeta,
} from "./fio-jobfile.js";
export {
  parseIoLog, ioLogToJobs, IOLOG_V2_HEADER, IOLOG_V3_HEADER,
  type IoLogOptions, type IoLogFile, type ParsedIoLog, type IoLogJobOptions,
} from "./iolog.js";
export {
  parseSize, parseTimeNs, parseBool, parseSizeOrPercent, splitDirections, ValueError,
  NS_PER_US, NS_PER_MS, NS_PER_S, type KbBase, type TimeUnit,
} from "./fio-units.js";
