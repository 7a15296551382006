// Reports of a run: fio JSON and text, kernel io.stat, time series, fio percentiles, the result hash.
export {
  toFioJson, fioJsonText, fioReportUnits, fioDiskUtil, latencyDistribution, ctimeUtc, DEFAULT_FIO_VERSION,
  type FioJson, type FioJobJson, type FioDirJson, type FioLatJson, type FioJsonOptions, type FioJobInfo,
  type FioReportUnit, type FioDiskUtilJson,
} from "./fio-json.js";
export { toFioText, type FioTextOptions } from "./fio-text.js";
export {
  toIoStat, ioStatFor, ioStatLine, parseIoStat, registerIoStatExtra,
  type IoStatExtra, type IoStatLineContext, type IoStatOptions,
} from "./io-stat.js";
export { toSeriesCsv, toSeriesJson, denseSeries, SERIES_CSV_HEADER, type SeriesJson, type DenseSeries } from "./series.js";
export { throttleSeries, iocostSeries, type ControlSeries, type ThrottleSeries, type RecordTimes } from "./control-series.js";
export {
  percentilesFromPlat, platIdxToVal, platValToIdx, percentileKey, FIO_DEFAULT_PERCENTILE_LIST,
  FIO_IO_U_PLAT_BITS, FIO_IO_U_PLAT_NR, FIO_IO_U_PLAT_GROUP_NR, FIO_IO_U_LIST_MAX_LEN, type Percentile,
} from "./percentiles.js";
export { num2str, cFixed, N2S_NONE, N2S_BYTE, N2S_BYTEPERSEC } from "./cformat.js";
export { canonicalJson, resultHash } from "./result-hash.js";
