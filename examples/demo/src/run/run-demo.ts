import type { Readable, Writable } from 'node:stream'
import type { LanguageModel } from '@deepseek-ai/dsh-llm'
import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import type { JsonlSession } from '@deepseek-ai/dsh-session'
import { parseDemoArgs, USAGE, type DemoArgs } from '../cli/parse-demo-args.ts'
import { readDemoEnv } from '../cli/read-demo-env.ts'
import { DemoError } from '../errors.ts'
import { createDemoModel, DEFAULT_QUESTION } from '../model/create-demo-model.ts'
import { observeToolCalls } from '../model/observe-tool-calls.ts'
import { STORY_PROMPTS } from '../model/story-script.ts'
import { chooseApprover } from '../policy/choose-approver.ts'
import { createApprovalService } from '../policy/create-approval-service.ts'
import { createCallBoard } from '../progress/call-board.ts'
import { createPlainView } from '../progress/create-plain-view.ts'
import { createTtyView } from '../progress/create-tty-view.ts'
import type { DemoView } from '../progress/demo-view.ts'
import { wrapWords } from '../progress/wrap-words.ts'
import { summaryLines } from '../summary/print-summary.ts'
import { summarizeCalls } from '../summary/summarize-calls.ts'
import { untilAborted } from '../tools/until-aborted.ts'
import { shellQuote, timelineCommand } from '../summary/timeline-command.ts'
import { choosePaths } from './choose-paths.ts'
import { openSession } from './open-session.ts'
import { createInterrupts } from './create-interrupts.ts'
import { preparePresentation, type InstallCodeRuntime } from './install-presentation.ts'
import { openDemoAgent, POOL_SIZE, type DemoAgent } from './open-demo-agent.ts'
import { resumeSession } from './resume-session.ts'

/** Where the demo reads and writes: the process's own streams, or a test's. */
export interface DemoIo {
  readonly argv: readonly string[]
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  readonly stdin: Readable & { readonly isTTY?: boolean }
  readonly stdout: Writable & { readonly isTTY?: boolean; readonly columns?: number }
  readonly stderr: Writable
  /** The repository's docs/ folder, which the file tools serve. */
  readonly docs: string
  /** How to run the demo again, for the resume hint (`npm start --` or `node …/main.js`). */
  readonly command: string
  /** Quits at once (a second Ctrl-C). */
  readonly exit: (code: number) => never
}

/** Exit codes: done, a turn failed, bad usage, interrupted by Ctrl-C (128 + SIGINT). */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const

/**
 * The demo: parses the command line, then plays the scripted story (or asks a real model), showing
 * each call's progress, and ends with the summary. Returns the exit code; a `DemoError` is printed
 * as one line with exit code 2. Nothing here calls `process.exit` except a second Ctrl-C.
 */
export async function runDemo(io: DemoIo): Promise<number> {
  let args: DemoArgs
  let env
  try {
    args = parseDemoArgs(io.argv)
    env = readDemoEnv(io.env)
    if (args.help) {
      io.stdout.write(`${USAGE}\n`)
      return EXIT.ok
    }
    const scripted = args.scripted || !env.endpoint
    if (scripted && args.prompt !== undefined) {
      throw new DemoError({
        code: 'USAGE',
        message: `the scripted model only plays its story and cannot answer ${JSON.stringify(args.prompt)}; set DSH_API_KEY (and DSH_MODEL, DSH_BASE_URL) to ask a real model`,
      })
    }
    const installCodeRuntime = await preparePresentation(args.mode)
    return await play(io, args, { ...env, scripted, installCodeRuntime })
  } catch (error) {
    if (DemoError.isInstance(error)) {
      io.stderr.write(
        `demo: ${error.message}\n${error.code === 'USAGE' ? 'Run with --help for the options.\n' : ''}`,
      )
      return EXIT.usage
    }
    throw error
  }
}

interface PlaySettings {
  readonly slowMs: number
  readonly thinkMs: number
  readonly scripted: boolean
  readonly installCodeRuntime: InstallCodeRuntime | undefined
}

async function play(io: DemoIo, args: DemoArgs, settings: PlaySettings): Promise<number> {
  const tty = !args.noTty && io.stdout.isTTY === true && io.stdin.isTTY === true
  const { sessionPath, scratch } = choosePaths(args, io.cwd)
  const knownArgs = new Map<string, string>()
  const baseModel = createDemoModel({ scripted: settings.scripted, thinkMs: settings.thinkMs, env: io.env })
  const model: LanguageModel = observeToolCalls(baseModel, (call) => knownArgs.set(call.id, call.arguments))

  let current: DemoAgent | undefined
  // the board tells the view what changed; the view reads the board's current step to draw it
  const board = createCallBoard({
    poolSize: POOL_SIZE,
    predict: (callId, name) => {
      const raw = knownArgs.get(callId)
      return raw === undefined ? undefined : current?.predict(callId, name, raw)
    },
    notify: (notice) => shown.notify(notice),
  })
  const shown: DemoView = tty
    ? createTtyView({ stream: io.stdout, calls: board.stepCalls, model: board.model })
    : createPlainView((line) => io.stdout.write(`${line}\n`))
  const { colors } = shown
  /**
   * A line of prose, wrapped at word boundaries on a terminal (the lines after the first indented),
   * then painted line by line.
   */
  const say = (text: string, indent = 2, paint: (line: string) => string = (line) => line): void => {
    for (const line of wrapWords(text, shown.columns(), indent)) shown.line(paint(line))
  }

  const approver = chooseApprover({ yes: args.yes, tty, io, view: shown })

  let session: JsonlSession | undefined
  /** While the nightly turn plays: what it watches to press the story's Ctrl-C. */
  let story: { onEvent(event: AgentEvent): void; onRun(toolName: string): void } | undefined
  /**
   * While the story has yet to press its Ctrl-C, a job whose steps are done waits for it (the press
   * aborts the job): the jobs it interrupts wait on that event, never on a timer racing it.
   */
  let holdJobs = false
  const resumeHint = `${io.command} --resume ${shellQuote(sessionPath)}`
  const interrupts = createInterrupts({
    onStop: (source) =>
      say(
        source === 'user'
          ? 'Ctrl-C: stopping the turn. Started calls drain, the rest are cancelled (Ctrl-C again quits at once).'
          : 'The story presses Ctrl-C now: started calls drain, the rest are cancelled.',
        2,
        colors.yellow,
      ),
    onQuit: () => {
      shown.close()
      io.stdout.write(
        `Quit without waiting. The session is in ${sessionPath}; carry on with: ${resumeHint}\n`,
      )
      session?.close()
      io.exit(EXIT.interrupted)
    },
  })
  const approval = createApprovalService(approver, {
    onWaiting: (callId, waiting, outcome) => board.onApproval(callId, waiting, outcome),
    onCancel: () => interrupts.trigger('user'),
  })

  const open = (): DemoAgent => {
    session = openSession(sessionPath)
    current = openDemoAgent({
      session,
      model,
      docs: io.docs,
      scratch,
      slowMs: settings.slowMs,
      mode: args.mode,
      installCodeRuntime: settings.installCodeRuntime,
      approval,
      jobGate: (signal) => (holdJobs ? untilAborted(signal) : undefined),
      onRun: (run, running) => {
        if (run.nested) board.onNestedRun(running)
        if (running) story?.onRun(run.toolName)
      },
      log: (level, message) =>
        level === 'error'
          ? say(`  error: ${message}`, 9, colors.red)
          : say(`  note: ${message}`, 8, colors.dim),
    })
    return current
  }
  const close = (): void => {
    current?.dispose()
    current = undefined
    session?.close()
    session = undefined
  }

  let turns = 0
  let failed = false
  /** Runs one turn; false when the demo should not go on (a person interrupted it, or it failed). */
  const turn = async (prompt: string): Promise<boolean> => {
    turns += 1
    shown.line('')
    say(`› ${prompt}`, 2, colors.bold)
    try {
      await current!.agent.run(prompt, {
        signal: interrupts.signal(),
        onEvent: (event) => {
          board.onEvent(event)
          story?.onEvent(event)
        },
      })
    } catch (error) {
      failed = true
      say(`The turn failed: ${(error as Error).message}`, 2, colors.red)
      return false
    }
    return interrupts.source() !== 'user'
  }
  const carryOn = async (): Promise<boolean> => {
    const outcome = await resumeSession({
      agent: current!.agent,
      session: session!,
      signal: interrupts.signal(),
      onEvent: (event) => board.onEvent(event),
      say: (text) => say(text),
      colors,
    })
    if (outcome === 'failed') failed = true
    if (outcome !== 'carry-on') return outcome !== 'failed'
    return turn(STORY_PROMPTS.carryOn)
  }

  const engine = settings.scripted ? 'scripted model (offline)' : `${baseModel.provider} ${baseModel.modelId}`
  const asks = args.yes
    ? 'approved by --yes'
    : tty
      ? 'asked on this terminal'
      : 'denied (no terminal; --yes approves)'
  shown.line(colors.bold('dsh demo'))
  shown.line(`  model     ${engine}`)
  say(`  tools     ${args.mode}, pool of ${POOL_SIZE}; calls that ask are ${asks}`, 12)
  shown.line(`  session   ${sessionPath}`)

  try {
    open()
    if (args.resume !== undefined) {
      turns += 1
      await carryOn()
    } else if (!settings.scripted) {
      await turn(args.prompt ?? DEFAULT_QUESTION)
    } else if (await turn(STORY_PROMPTS.tour)) {
      // One slow step in, the story presses Ctrl-C: once the model's message has landed (every call
      // queued) and two jobs (`long_task`, the model's calls or a program's) have begun, so the rest
      // wait for a slot or a key. Decided by the calls' events, never by a timer, so a loaded machine
      // tells the same story. A microtask: the press follows what the loop is doing now (the second
      // job's body beginning) at once, before any timer could end a job.
      // Not when a person pressed Ctrl-C first: the turn is already stopping, and saying the story
      // pressed it would be wrong.
      let jobs = 0
      let landed = false
      let pressed = false
      const pressWhenReady = (): void => {
        if (pressed || !landed || jobs < 2) return
        pressed = true
        queueMicrotask(() => {
          if (story !== undefined && !interrupts.signal().aborted) interrupts.trigger('story')
        })
      }
      story = {
        onEvent: (event) => {
          if (event.type !== 'model-call-end') return
          landed = true
          pressWhenReady()
        },
        onRun: (toolName) => {
          if (toolName !== 'long_task') return
          jobs += 1
          pressWhenReady()
        },
      }
      holdJobs = true
      const nightly = await turn(STORY_PROMPTS.nightly)
      // a turn that ended before the story pressed (a person's Ctrl-C) must not be pressed afterwards
      story = undefined
      holdJobs = false
      if (nightly && interrupts.source() === 'story') {
        shown.line('')
        say(
          `Resuming the session as a new process would: reopen ${sessionPath}, register the tools again, resume.`,
          2,
          colors.bold,
        )
        close()
        interrupts.nextTurn()
        open()
        await carryOn()
      }
    }
  } finally {
    close()
    interrupts.dispose()
    shown.close()
  }

  const userStopped = interrupts.source() === 'user'
  shown.line('')
  for (const line of summaryLines(
    {
      summary: summarizeCalls(board.calls(), board.peakParallel()),
      poolSize: POOL_SIZE,
      turns,
      sessionPath,
      scratch,
      timeline: timelineCommand(sessionPath, io.cwd),
      resume: userStopped ? resumeHint : undefined,
    },
    colors,
    shown.columns(),
  )) {
    shown.line(line)
  }
  if (userStopped) return EXIT.interrupted
  return failed ? EXIT.failed : EXIT.ok
}
