// The public types name GPUDevice and friends: consumers get the WebGPU type declarations with these.
/// <reference types="@webgpu/types" preserve="true" />
/**
 * @gsprof/sim-core: a batched articulated rigid-body simulator with Genesis World's API in camelCase.
 *
 *   import * as gs from '@gsprof/sim-core';
 *   await gs.init({ backend: 'cpu', precision: '64' });
 *   const scene = new gs.Scene({ rigidOptions: { dt: 0.01 } });
 *   scene.addEntity(gs.morphs.Plane());
 *   const franka = scene.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
 *   await scene.build({ nEnvs: 20 });
 *   franka.controlDofsPosition(gs.tile(gs.tensor([0, 0, 0, -1, 0, 1, 0, 0.02, 0.02]), [20, 1]));
 *   scene.step();
 */
export {
  init, destroy, isInitialized, backend, device, precision, performanceMode, seed, GPU_NOT_BUILT, cpu, gpu,
} from './api/init.js';
export type { InitOptions } from './api/init.js';
export { Scene, SimulationError, URDF_DEFAULT_KP, URDF_DEFAULT_KV } from './api/scene.js';
export type { BuildOptions, ErrorReport } from './api/scene.js';
export { Entity, Joint } from './api/entity.js';
export type { Contact, DofsArgs, LinksArgs, QsArgs, JointKind, VelocityRef } from './api/entity.js';
export { morphs } from './api/morphs.js';
export type { Morph, PlaneMorph, MJCFMorph, URDFMorph } from './api/morphs.js';
export { Tensor, tensor, tile, zeros, formatShape } from './api/tensor.js';
export type { DType, TensorData, TensorOptions, NestedNumbers } from './api/tensor.js';
export { DEFAULT_OPTIONS } from './api/options.js';
export type { SceneOptions, SimOptions, RigidOptions, ProfilingOptions, ResolvedOptions } from './api/options.js';
export { FPSTracker, fpsLine } from './api/fps.js';
export { logger, captureLogs, consoleSink } from './api/logger.js';
export type { LogLevel, LogRecord, LogSink } from './api/logger.js';
export type { IndexInput, ValueInput } from './api/indices.js';

export { registerBackend, ERR_NAN, ERR_BLOWUP, ERR_OVERFLOW } from './backend/backend.js';
import { registerBackend } from './backend/backend.js';
import { gpuBackendFactory } from './backend/gpu.js';
// The WebGPU backend loads Dawn only when gs.init asks for it, so registering it costs nothing.
registerBackend('gpu', gpuBackendFactory);
export type {
  Backend, BackendFactory, BackendInitOptions, BackendBuildOptions, BackendKind, DeviceDescription, DofField,
  EnvErrors, SimInstance, ValueBlock,
} from './backend/backend.js';

export { setTracer, getTracer, EXTERNAL_RECORDER } from './instrument.js';
export type { SimTracer, SpanArgs, ExternalRecorder, TracedThread } from './instrument.js';
export { TIMER_SLOTS } from './data/data.js';
export { PHYSICS_COUNTERS, ENV_EVENTS, ENV_EVENT_CATEGORY, MAX_NOT_CONVERGED_EVENTS_PER_STEP, stepTotals } from './api/env-report.js';
export type { EnvEventCounts, ResetReason, StepTotals } from './api/env-report.js';
export { TIMER_LABELS } from './solver/timers.js';
export type { TimerLabel } from './solver/timers.js';
export type { Data, Precision } from './data/data.js';
export type { Model } from './model/model.js';
