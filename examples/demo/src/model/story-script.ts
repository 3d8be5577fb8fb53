import type { Message } from '@deepseek-ai/dsh-llm'
import { pastCalls, stepsSince, userText, type PastCall } from './read-history.ts'
import { STORY_PROGRAMS } from './story-programs.ts'

/** The user's side of the story: each prompt starts a scene the scripted model knows. */
export const STORY_PROMPTS = {
  tour: 'Give me a tour of the docs folder, and leave a note in the scratch folder with what you found.',
  nightly: 'Now run the nightly jobs.',
  carryOn: 'Carry on where you were interrupted.',
} as const

/** What the model says and asks for in one step. */
export interface StoryMove {
  readonly text: string
  readonly calls: readonly { readonly name: string; readonly args: Record<string, unknown> }[]
}

const say = (text: string): StoryMove => ({ text, calls: [] })

/** Results that mean "this did not get to run or finish", whatever the reason (abort, a stopped process). */
const INTERRUPTED = /was aborted|was cancelled before it started|was interrupted/

function find(
  calls: readonly PastCall[],
  name: string,
  test: (args: Record<string, unknown>) => boolean = () => true,
) {
  return calls.find((past) => past.call.name === name && test(past.args))
}

function outcome(past: PastCall | undefined): string {
  if (past?.result === undefined) return 'no answer'
  return past.result.text
}

/** The tour told as two `run_code` programs, then an answer quoting what they reported. */
function tourInCode(messages: readonly Message[], at: number, step: number): StoryMove {
  const calls = pastCalls(messages, at, messages.length)
  switch (step) {
    case 0:
      return {
        text: 'I will look around docs/ with one program: its reads run side by side, and it tries a few other things.',
        calls: [
          {
            name: 'run_code',
            args: { description: 'Read the docs and try a few tools', code: STORY_PROGRAMS.tour },
          },
        ],
      }
    case 1:
      return {
        text: 'Now a program that writes the note (it needs your approval) between two reads.',
        calls: [
          { name: 'run_code', args: { description: 'Write the tour note', code: STORY_PROGRAMS.note } },
        ],
      }
    default:
      return say(['Here is what my programs reported.', ...calls.map((past) => outcome(past))].join('\n\n'))
  }
}

function tour(messages: readonly Message[], at: number, step: number, code: boolean): StoryMove {
  if (code) return tourInCode(messages, at, step)
  const calls = pastCalls(messages, at, messages.length)
  switch (step) {
    case 0:
      return {
        text: 'I will look around docs/ first: several reads at once, and a few other things while they run.',
        calls: [
          { name: 'list_docs', args: {} },
          { name: 'read_doc', args: { path: 'architecture.md', lines: 12 } },
          { name: 'read_doc', args: { path: 'pipeline.md', lines: 12 } },
          { name: 'grep_docs', args: { text: 'barrier' } },
          { name: 'calculate', args: { expression: '(3 + 4) * 6' } },
          { name: 'clock', args: { timeZone: 'UTC' } },
          { name: 'long_task', args: { job: 'index', steps: 2 } },
          { name: 'long_task', args: { job: 'reindex', steps: 50 } },
          { name: 'check_service', args: { name: 'status' } },
          { name: 'read_doc', args: { path: '../.env' } },
          { name: 'calculate', args: { expression: 6 * 7 } },
        ],
      }
    case 1: {
      const listing = find(calls, 'list_docs')?.result
      const files =
        listing?.isError === false ? listing.text.split('\n').map((line) => line.split(' ')[0]) : []
      const grep = find(calls, 'grep_docs')?.result?.text.split('\n')[0] ?? 'no grep result'
      const sum = find(calls, 'calculate', (args) => typeof args['expression'] === 'string')?.result?.text
      const note = [
        '# A tour of docs/',
        '',
        `Files: ${files.join(', ') || 'none listed'}`,
        `"barrier": ${grep}`,
        `Arithmetic: ${sum ?? 'not computed'}`,
        `Time: ${find(calls, 'clock')?.result?.text ?? 'unknown'}`,
        '',
      ].join('\n')
      return {
        text: 'Now I will write the note; it needs your approval, and it runs alone, between two more reads.',
        calls: [
          { name: 'read_doc', args: { path: 'code-mode.md', lines: 8 } },
          { name: 'write_note', args: { name: 'tour.md', text: note } },
          { name: 'grep_docs', args: { text: 'abort' } },
        ],
      }
    }
    default: {
      const first = pastCalls(messages, at, messages.length)
      const lines = [
        'Here is the tour.',
        `- docs/ lists: ${outcome(find(first, 'list_docs')).split('\n').join('; ')}`,
        `- grep "barrier": ${outcome(find(first, 'grep_docs', (args) => args['text'] === 'barrier')).split('\n')[0]}`,
        `- ${outcome(find(first, 'calculate', (args) => typeof args['expression'] === 'string'))}`,
        `- The slow "index" job: ${outcome(find(first, 'long_task', (args) => args['job'] === 'index'))}`,
        `- The "reindex" job: ${outcome(find(first, 'long_task', (args) => args['job'] === 'reindex'))}`,
        `- check_service: ${outcome(find(first, 'check_service'))}`,
        `- Reading ../.env: ${outcome(find(first, 'read_doc', (args) => args['path'] === '../.env'))}`,
        `- My calculate call with a number: ${outcome(find(first, 'calculate', (args) => typeof args['expression'] !== 'string'))}`,
        `- The note: ${outcome(find(first, 'write_note'))}`,
      ]
      return say(lines.join('\n'))
    }
  }
}

function nightly(messages: readonly Message[], at: number, step: number, code: boolean): StoryMove {
  if (step === 0 && code) {
    return {
      text: 'Starting the nightly jobs in one program. The two backup runs share a job, so the second waits for the first.',
      calls: [
        { name: 'run_code', args: { description: 'Run the nightly jobs', code: STORY_PROGRAMS.nightly } },
      ],
    }
  }
  if (step === 0) {
    return {
      text: 'Starting the nightly jobs. The two backup runs share a job, so the second waits for the first.',
      calls: [
        { name: 'long_task', args: { job: 'backup', steps: 3 } },
        { name: 'long_task', args: { job: 'stats', steps: 3 } },
        { name: 'long_task', args: { job: 'backup', steps: 2 } },
        { name: 'clock', args: {} },
      ],
    }
  }
  const calls = pastCalls(messages, at, messages.length)
  const failed = calls.filter((past) => past.result?.isError !== false)
  return say(
    failed.length === 0
      ? 'All nightly jobs finished.'
      : `The nightly jobs did not all finish: ${failed.map((past) => `${past.call.name} (${outcome(past)})`).join('; ')}`,
  )
}

function carryOn(messages: readonly Message[], at: number, step: number, code: boolean): StoryMove {
  // `at - 1` is this prompt; the turn before it starts after the previous user message
  const prompt = at - 1
  let previous = prompt - 1
  while (previous >= 0 && userText(messages[previous]) === undefined) previous -= 1
  const interrupted = pastCalls(messages, previous + 1, prompt).filter(
    (past) => past.result !== undefined && past.result.isError && INTERRUPTED.test(past.result.text),
  )
  if (interrupted.length === 0) {
    const before = userText(messages[previous])
    // the interruption came while the model was still thinking: take that scene up again
    if (before !== undefined && stepsSince(messages.slice(0, prompt), previous + 1) === 0) {
      const scene = sceneOf(before)
      if (scene !== undefined && scene !== carryOn) return scene(messages, at, step, code)
    }
    return say('I found nothing that was interrupted, so there is nothing to carry on with.')
  }
  if (step === 0) {
    return {
      text: `${interrupted.length} call${interrupted.length === 1 ? ' was' : 's were'} interrupted; running ${interrupted.length === 1 ? 'it' : 'them'} again.`,
      calls: interrupted.map((past) => ({ name: past.call.name, args: past.args })),
    }
  }
  const again = pastCalls(messages, at, messages.length)
  const ok = again.filter((past) => past.result?.isError === false).length
  return say(`Carried on: ${ok} of ${again.length} interrupted calls now finished.`)
}

type Scene = (messages: readonly Message[], at: number, step: number, code: boolean) => StoryMove

function sceneOf(prompt: string): Scene | undefined {
  if (prompt === STORY_PROMPTS.tour) return tour
  if (prompt === STORY_PROMPTS.nightly) return nightly
  if (prompt === STORY_PROMPTS.carryOn) return carryOn
  return undefined
}

/**
 * The scripted model's next step, decided from the history alone (as a real model would), so a
 * session reopened by another process carries on with the story: the scene is the last prompt the
 * model knows, the step is how many times it has answered since. With `code` (the request offers
 * `run_code`: Code Mode) the tour and the nightly jobs are `run_code` programs.
 */
export function nextStoryMove(
  messages: readonly Message[],
  options: { readonly code?: boolean } = {},
): StoryMove {
  const code = options.code === true
  for (let at = messages.length - 1; at >= 0; at -= 1) {
    const prompt = userText(messages[at])
    if (prompt === undefined) continue
    const scene = sceneOf(prompt)
    if (scene !== undefined) return scene(messages, at + 1, stepsSince(messages, at + 1), code)
  }
  return say(
    'I am the demo’s scripted model and only know its story. Set DSH_API_KEY (and DSH_MODEL, DSH_BASE_URL) to talk to a real model.',
  )
}
