/** One tier of src/: folders that stand on every tier listed before it, and never on each other. */
export interface Tier {
  readonly name: string;
  readonly folders: readonly string[];
}
/** The tiers of src/, lowest first ('' is src/ itself). */
export declare const TIERS: readonly Tier[];
/** Every folder with a tier. */
export declare const LAYERED: readonly string[];
/** The tier index of a folder of src/, or -1 when it has none. */
export declare function tierOf(folder: string): number;
/** The folders a file in `folder` must never import. */
export declare function forbiddenFor(folder: string): string[];
