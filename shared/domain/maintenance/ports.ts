/** Where the walk over the table for one index layout stands. */
export interface ReindexProgress {
  /** Where the next scan page starts; absent at the start. */
  startKey?: Record<string, unknown>;
  done: boolean;
  items: number;
}

/**
 * The one-off walk over the table that moves items written before an index layout into it: the
 * progress of each layout, scan pages of the entities it concerns (stored items, as the table holds
 * them), and rewrites of index entries that never bring back a deleted item.
 */
export interface ReindexRepository {
  progress(layout: string): Promise<ReindexProgress>;
  saveProgress(layout: string, progress: ReindexProgress): Promise<void>;
  /** One page of the table's items of the re-indexed entities (`limit` items read). */
  scanPage(
    startKey: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<{ items: Record<string, unknown>[]; next: Record<string, unknown> | undefined }>;
  rewriteTimelineEntry(item: Record<string, unknown>): Promise<void>;
  rewriteAlert(item: Record<string, unknown>): Promise<void>;
}
