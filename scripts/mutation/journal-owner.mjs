import { readFileSync } from 'node:fs'

/**
 * Whether the `pnpm mutate` process that wrote a journal (`.mutate/journal.json`, with its `pid`) is
 * still running: then its mutant is applied on purpose, and another invocation (even `--list`) must
 * not restore the file under it. A journal without a pid, or whose process is gone, belongs to an
 * interrupted run and is restored. Where the process table cannot be read, a live pid counts as the
 * owner: the message then says how to restore by hand.
 */
export function journalOwnerAlive(journal) {
  const { pid } = journal
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    return error.code === 'EPERM'
  }
  try {
    // a pid reused by another program after the run died is not the owner
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('mutate.mjs')
  } catch {
    return true
  }
}
