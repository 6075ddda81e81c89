// The recorder: torch.profiler's API over WebGPU.
export { ProfilerAction, recordedRanges, schedule, type ScheduleFn, type ScheduleOptions } from './schedule.js';
export {
  profile, Profiler, ProfilerActivity, type ProfileOptions, type StructuralTracer, type TraceReadyHandler,
} from './profiler.js';
export { recordFunction, type RecordScope } from './record-function.js';
export { SpanCollector, type PreRecordedSpan, type SpanCollectorOptions } from './span-collector.js';
export { keyAverages, KeyAverages, formatTime, type KeyAverage, type TableOptions } from './key-averages.js';
export { instrumentDevice, DeviceInstrumentation, type DeviceInstrumentationStats } from './instrument.js';
export { createGpu, requestProfiledDevice, DISABLE_QUANTIZATION_TOGGLE } from './gpu.js';
export { tensorboardTraceHandler, perfettoTraceHandler, defaultWorkerName, type TensorboardHandlerOptions } from './handlers.js';
export { estimateClockAlignment, gpuToHost, type ClockAlignment, type ClockSample, type ClockAlignmentOptions } from './clock-align.js';
export { FakeClock, systemClock, type HostClock } from './host-clock.js';
export { distributedFromEnv, type DistributedInfo } from './launcher.js';
export { percentile } from './stats.js';
