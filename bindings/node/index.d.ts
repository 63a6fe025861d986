// libprofsql for Node: see index.js for the search order and the errors.

/** The full path of libprofsql.so (".so" included) to pass to loadExtension. */
export function getLoadablePath(): string;

/** The files getLoadablePath() tries, in order, when LIBPROFSQL_PATH is not set. */
export function searchPath(): string[];

export interface LoadOptions {
  /** Another init function, e.g. "sqlite3_profsql_noio_init" (better-sqlite3 only). */
  entryPoint?: string;
}

/** node-sqlite3: a Promise of the path. */
export function load(db: { loadExtension(path: string, callback?: (err: Error | null) => void): unknown;
                           serialize(...a: unknown[]): unknown; each(...a: unknown[]): unknown; run(...a: unknown[]): unknown },
                     options?: LoadOptions): Promise<string>;
/** better-sqlite3 (and node:sqlite's DatabaseSync): loads synchronously, returns the path. */
export function load(db: { loadExtension(path: string, entryPoint?: string): unknown }, options?: LoadOptions): string;

export const LIBRARY: "libprofsql.so";
export const ENV: "LIBPROFSQL_PATH";
