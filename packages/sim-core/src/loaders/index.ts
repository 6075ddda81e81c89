/** Model loaders: MJCF and URDF files, built-in morphs, and merging entities into one scene model. */
export type { LoadedModel } from './types.js';
export { ModelFileError } from './xml.js';
export { loadMJCF } from './mjcf.js';
export { loadURDF, type URDFOptions } from './urdf.js';
export { planeModel } from './plane.js';
export { mergeModels, type EntityRange, type MergedModel } from './merge.js';
export { ASSETS_DIR, resolveAsset } from './assets.js';
