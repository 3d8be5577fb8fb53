import { GCProfiler } from 'node:v8'

/**
 * Counts heap bytes allocated while `work` runs: the growth of the used heap plus what every GC in
 * between freed (GCProfiler reports the used heap before and after each collection). Node has no
 * allocation counter of its own; this is exact for the JS heap and ignores off-heap buffers.
 */
export async function countAllocatedBytes(work: () => Promise<void>): Promise<number> {
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
