// Library side of @gsprof/cli: what the commands are built from, importable and tested on their own.
// The heavy libraries (sim-core, the profiler, DuckDB) are imported lazily inside the functions, so this stays cheap.
export * from './errors.js';
export * from './render/color.js';
export * from './render/format.js';
export * from './render/table.js';
export * from './render/chart.js';
export * from './render/histogram.js';
export * from './render/json.js';
export * from './render/ranges.js';
export * from './serve/serve-once.js';
export { buildScenario, EXAMPLES, type Scenario, type ScenarioOptions, type ExampleName } from './scenarios/index.js';
export { recordExample, type RecordExampleOptions, type RecordExampleResult } from './record/run-example.js';
export { recordProgram, type RecordProgramOptions, type RecordProgramResult } from './record/run-program.js';
export { scheduleFromFlags, type ScheduleArgs, type ScheduleFlags } from './record/schedule-flags.js';
export { tablesToModel } from './convert/tables-to-model.js';
export { convertTrace } from './views/convert.js';
