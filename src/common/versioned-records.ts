/** A stored record and its version: every write that lands makes it one higher. */
export interface VersionedRecord {
  json: string;
  version: number;
}

/**
 * JSON records under keys, each with a version, written only while the stored version is still the one
 * read (compare-and-set): a read-modify-write shared by replicas (or by two requests of one process) loses
 * no change, the loser reads the fresh record and does its change again. Memory: under a per-key lock;
 * Redis: one script per write, atomic for every replica.
 */
export interface VersionedRecords {
  /** The record under `key` and its version (at least 1), or undefined when absent or expired. */
  read(key: string): Promise<VersionedRecord | undefined>;
  /**
   * Writes `json` as version `expected + 1`, for `ttlMs`, only when the stored version is still `expected`
   * (0: no record). False when someone else wrote first: read again and redo the change.
   */
  write(key: string, json: string, expected: number, ttlMs: number): Promise<boolean>;
}
