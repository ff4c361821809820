/**
 * `Promise.all(items.map(fn))` with at most `limit` calls under way at once, results in the items'
 * order. For background work whose calls each queue requests on libuv's thread pool: started all
 * at once they fill its queue (ahead of anything more urgent that needs a pool thread) and keep
 * every call's objects alive together, long enough for V8 to copy them into the old generation.
 * The first rejection rejects the whole, as Promise.all does; calls under way then still finish.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker);
  await Promise.all(workers);
  return results;
}
