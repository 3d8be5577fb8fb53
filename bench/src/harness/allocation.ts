import { GCProfiler } from 'node:v8'
import { forceGc } from './gc.ts'

/**
 * Counts heap bytes allocated while `work` runs: the growth of the used heap plus what every GC in
 * between freed (GCProfiler reports the used heap before and after each collection). Node has no
 * allocation counter of its own; this is exact for the JS heap and ignores off-heap buffers.
 *
 * A collection already under way when the profiler starts (incremental marking begun by earlier
 * work) finishes inside `work` unreported, and its freed bytes are then missing: the count can come
 * out negative (seen in CI: -65 KB per call). So a full GC runs first, which finishes any collection
 * in progress; and a count that is still negative is measured again rather than reported.
 */
export async function countAllocatedBytes(work: () => Promise<void>, attempts = 3): Promise<number> {
  let last = 0
  for (let attempt = 0; attempt < attempts; attempt++) {
    forceGc()
    last = await countOnce(work)
    if (last >= 0) return last
  }
  throw new Error(
    `countAllocatedBytes: the heap count came out negative ${attempts} times in a row (last ${last} bytes); ` +
      'a collection escaped the profiler, so no figure is reported',
  )
}

async function countOnce(work: () => Promise<void>): Promise<number> {
  const profiler = new GCProfiler()
  const before = process.memoryUsage().heapUsed
  profiler.start()
  await work()
  const after = process.memoryUsage().heapUsed
  const report = profiler.stop()
  let freed = 0
  for (const gc of report?.statistics ?? []) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
  }
  return after - before + freed
}
