/** A deterministic, splittable data generator source. */
export type { GeneratorSourceOptions } from './config.js';
export { GeneratorSource } from './source/generator-source.js';
