/**
 * One body's timeout in a `DeadlineQueue`: the queue links it in place (no allocation per call) and
 * calls `expire` once `deadlineAt` (a `performance.now()` reading) has passed, unless it was
 * disarmed first.
 */
export interface Deadline {
  deadlineAt: number
  deadlinePrev: Deadline | undefined
  deadlineNext: Deadline | undefined
  /** The list it is linked in while armed. */
  deadlineList: DeadlineList | undefined
  expire(): void
}

/** The armed deadlines of one duration, oldest first: the same duration armed later expires later. */
interface DeadlineList {
  readonly ms: number
  head: Deadline | undefined
  tail: Deadline | undefined
}

/**
 * T17/T47/T48 with one timer instead of one per call. Every call has a timeout by default (five
 * minutes), and a timer armed and cleared per call cost more than a trivial call itself; almost
 * every call ends long before its deadline. The queue keeps the armed deadlines in one list per
 * duration (so arming and disarming are a link and an unlink) and one runtime timer for the
 * earliest of them. That timer is referenced while any deadline is armed, so a hung body keeps the
 * process alive until its timeout as before; once none is, it is cleared, not at once but when the
 * current run of microtasks is over (`process.nextTick`), so back-to-back calls share one timer
 * instead of arming and clearing one each. A deadline never expires early: the timer may fire
 * before it (it is set for the earliest deadline armed at the time), and then the queue sets it
 * again. The global `setTimeout` is read whenever the timer is set, so fake timers installed by a
 * test are used from the next deadline on.
 */
export interface DeadlineQueue {
  /** Arms `entry` to expire `ms` from now (`ms` ≥ 0, finite). */
  arm(entry: Deadline, ms: number): void
  /** Disarms `entry` if it is armed. */
  disarm(entry: Deadline): void
}

type SetTimer = typeof setTimeout
type ClearTimer = typeof clearTimeout

/** Runs `task` once the current run of microtasks is over (Node), or as a microtask elsewhere. */
const afterMicrotasks: (task: () => void) => void =
  typeof process === 'object' && typeof process?.nextTick === 'function'
    ? (task) => process.nextTick(task)
    : (task) => queueMicrotask(task)

export function createDeadlineQueue(): DeadlineQueue {
  const lists = new Map<number, DeadlineList>()
  /** The list of the last duration armed: most calls have the same one (the default). */
  let last: DeadlineList | undefined
  let armed = 0
  let timer: ReturnType<SetTimer> | undefined
  /** When `timer` fires; Infinity when there is none. */
  let timerAt = Infinity
  /** The `setTimeout` that set `timer`, and the `clearTimeout` of the same (real or fake) clock. */
  let setWith: SetTimer | undefined
  let clearWith: ClearTimer | undefined
  let releasing = false

  const setTimer = (at: number): void => {
    if (timer !== undefined) clearWith!(timer)
    setWith = setTimeout
    clearWith = clearTimeout
    timerAt = at
    timer = setWith(fire, Math.max(1, Math.ceil(at - performance.now())))
  }

  const stopTimer = (): void => {
    if (timer === undefined) return
    clearWith!(timer)
    timer = undefined
    timerAt = Infinity
  }

  const unlink = (entry: Deadline): void => {
    const list = entry.deadlineList!
    const { deadlinePrev: prev, deadlineNext: next } = entry
    if (prev === undefined) list.head = next
    else prev.deadlineNext = next
    if (next === undefined) list.tail = prev
    else next.deadlinePrev = prev
    entry.deadlinePrev = undefined
    entry.deadlineNext = undefined
    entry.deadlineList = undefined
    armed--
  }

  /** The timer for the earliest armed deadline, or none. Empty lists are dropped here. */
  const setForEarliest = (): void => {
    let earliest = Infinity
    for (const list of lists.values()) {
      if (list.head === undefined) {
        if (list !== last) lists.delete(list.ms)
      } else if (list.head.deadlineAt < earliest) earliest = list.head.deadlineAt
    }
    if (earliest === Infinity) stopTimer()
    else setTimer(earliest)
  }

  function fire(): void {
    timer = undefined
    timerAt = Infinity
    const now = performance.now()
    for (const list of lists.values()) {
      for (let entry = list.head; entry !== undefined && entry.deadlineAt <= now; entry = list.head) {
        unlink(entry)
        // may arm again (a timeout that progress restarts): later than now, so this loop ends
        entry.expire()
      }
    }
    setForEarliest()
  }

  /** Nothing is armed: the timer goes once the current microtasks are done, if nothing is armed by then. */
  const release = (): void => {
    releasing = false
    if (armed === 0) forget()
  }

  const forget = (): void => {
    stopTimer()
    lists.clear()
    last = undefined
  }

  return {
    arm(entry, ms) {
      if (entry.deadlineList !== undefined) unlink(entry)
      const at = performance.now() + ms
      let list = last
      if (list === undefined || list.ms !== ms) {
        list = lists.get(ms)
        if (list === undefined) lists.set(ms, (list = { ms, head: undefined, tail: undefined }))
        last = list
      }
      entry.deadlineAt = at
      entry.deadlineList = list
      entry.deadlinePrev = list.tail
      entry.deadlineNext = undefined
      if (list.tail === undefined) list.head = entry
      else list.tail.deadlineNext = entry
      list.tail = entry
      armed++
      // a fake clock installed since the timer was set: set it again on that clock
      if (timer === undefined || at < timerAt || setWith !== setTimeout) setTimer(at)
    },
    disarm(entry) {
      if (entry.deadlineList === undefined) return
      unlink(entry)
      if (armed === 0 && !releasing && timer !== undefined) {
        releasing = true
        afterMicrotasks(release)
      }
    },
  }
}
