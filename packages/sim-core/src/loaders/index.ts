/** Model loaders: MJCF and URDF files, built-in morphs, and merging entities into one scene model. */
export type { LoadedModel } from './types.js';
export { ModelFileError } from './xml.js';
export { loadMJCF } from './mjcf.js';
