import type { Model, ModelOptions } from '../model/model.js';

/** One compiled model file (or built-in morph), ready to be merged into a scene. */
export interface LoadedModel {
  model: Model;
  /** Only the options the file's `<option>` set explicitly, so a scene can let user-set values win. */
  options: Partial<ModelOptions>;
  /** What the loader did that a user may want to know: ignored visual elements, filled-in defaults. */
  log: string[];
  /** The file it came from ('' for built-in morphs such as the plane). */
  sourceFile: string;
}
