import { describeThrown } from '@deepseek-ai/dsh-tools'
import { PermissionsError } from '../errors.ts'
import { compileGlob } from '../paths/glob.ts'
import type { PathContext } from '../paths/normalize-path.ts'
import {
  permissionEngineConfigSchema,
  type PermissionEngineConfig,
  type ResolvedEngineConfig,
} from '../rules/config-schema.ts'
import { formatIssues } from '../rules/format-issues.ts'
import { validateConfig } from '../rules/validate-config.ts'
import {
  LAYER_NAMES,
  permissionRuleSchema,
  type LayerName,
  type PermissionDecision,
  type PermissionRule,
  type RuleOrder,
} from '../rules/rule-schema.ts'
import type { PermissionCall, PermissionEngine, PermissionExplanation, PermissionVerdict } from '../types.ts'
import { compileLayer } from './compile-layer.ts'
import type { CompileContext, CompiledRule } from './compile-rule.ts'
import { decideCall, explainCall, type Evaluation, type ToolPlan } from './evaluate.ts'
import type { ArgumentKinds } from './read-subjects.ts'

/** Plans are cached per tool name; explain() can be asked about any name, so the cache is bounded. */
const MAX_CACHED_PLANS = 1024

interface Snapshot {
  readonly rules: { readonly [L in LayerName]: readonly PermissionRule[] }
  readonly compiled: readonly (readonly CompiledRule[])[]
  readonly plans: Map<string, ToolPlan>
}

interface ArgumentDeclaration {
  readonly matches: (toolName: string) => boolean
  readonly paths: readonly string[]
  readonly command: string | undefined
  readonly url: string | undefined
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

/** Reads a call defensively: a hostile object must not make decide() throw. */
function readCall(call: PermissionCall): { readonly toolName: string; readonly args: unknown } | string {
  try {
    const toolName = call.toolName
    if (typeof toolName !== 'string') return 'the call has no tool name'
    return { toolName, args: call.args }
  } catch (error) {
    return `the call could not be read (${describeThrown(error)})`
  }
}

/**
 * The rule engine, without a ctx: validates the config with zod (errors name the layer, the
 * rule's index, the field and the value), compiles every rule once, and answers `decide` (the
 * hot path) and `explain` (the same decision, spelled out) for any call. The session layer can
 * change at run time; each decision reads one consistent set of rules.
 */
export function createPermissionEngine(config: PermissionEngineConfig): PermissionEngine {
  const where = 'createPermissionEngine(config)'
  return engineFromResolved(validateConfig(where, permissionEngineConfigSchema, config), where)
}

/** The engine for a config the schema accepted; rules that do not compile (`~` without homeDir) throw. */
export function engineFromResolved(config: ResolvedEngineConfig, where: string): PermissionEngine {
  const context: PathContext = {
    root: config.workspaceRoot,
    home: config.homeDir,
    caseSensitive: config.caseSensitive ?? true,
    followSymlinks: config.followSymlinks ?? false,
  }
  const defaultDecision: PermissionDecision = config.defaultDecision ?? 'ask'
  const declarations: ArgumentDeclaration[] = Object.entries(config.toolArguments ?? {}).map(
    ([glob, kinds]) => ({
      matches: compileGlob(glob, true),
      paths: kinds.paths ?? [],
      command: kinds.command,
      url: kinds.url,
    }),
  )
  const compileContext: CompileContext = {
    paths: context,
    claudeTools: new Map(
      Object.entries(config.claudeTools ?? {}).map(([name, globs]) => [
        name,
        typeof globs === 'string' ? [globs] : globs,
      ]),
    ),
  }
  const orders = {} as { [L in LayerName]: RuleOrder }
  for (const layer of LAYER_NAMES) {
    const order = config.ruleOrder
    orders[layer] = (typeof order === 'string' ? order : order?.[layer]) ?? 'deny-ask-allow'
  }

  const problems: string[] = []
  const rules = {} as { [L in LayerName]: readonly PermissionRule[] }
  const compiled: CompiledRule[][] = []
  for (const layer of LAYER_NAMES) {
    const given = deepFreeze(structuredClone(config.layers?.[layer] ?? []))
    const result = compileLayer(layer, given, compileContext, orders[layer])
    problems.push(...result.problems)
    rules[layer] = Object.freeze(given)
    compiled.push(result.compiled)
  }
  if (problems.length > 0) {
    throw new PermissionsError({ code: 'INVALID_CONFIG', message: `${where}: ${problems.join('; ')}` })
  }

  let snapshot: Snapshot = { rules: Object.freeze(rules), compiled, plans: new Map() }

  function kindsFor(toolName: string): ArgumentKinds {
    const paths: string[] = []
    const commands: string[] = []
    const urls: string[] = []
    for (const declaration of declarations) {
      if (!declaration.matches(toolName)) continue
      for (const p of declaration.paths) if (!paths.includes(p)) paths.push(p)
      if (declaration.command !== undefined && !commands.includes(declaration.command)) {
        commands.push(declaration.command)
      }
      if (declaration.url !== undefined && !urls.includes(declaration.url)) urls.push(declaration.url)
    }
    return { paths, commands, urls }
  }

  function evaluation(current: Snapshot, toolName: string, args: unknown): Evaluation {
    let plan = current.plans.get(toolName)
    if (plan === undefined) {
      plan = {
        layers: current.compiled.map((layer) => layer.filter((rule) => rule.matchesTool(toolName))),
        kinds: kindsFor(toolName),
      }
      if (current.plans.size >= MAX_CACHED_PLANS) current.plans.clear()
      current.plans.set(toolName, plan)
    }
    return { plan, toolName, args, context, defaultDecision }
  }

  function setSession(next: readonly PermissionRule[]): void {
    const result = compileLayer('session', next, compileContext, orders.session)
    if (result.problems.length > 0) {
      throw new PermissionsError({ code: 'INVALID_RULE', message: result.problems.join('; ') })
    }
    const sessionIndex = LAYER_NAMES.indexOf('session')
    const layers = snapshot.compiled.map((layer, i) => (i === sessionIndex ? result.compiled : layer))
    snapshot = {
      rules: Object.freeze({ ...snapshot.rules, session: Object.freeze([...next]) }),
      compiled: layers,
      plans: new Map(),
    }
  }

  /** zod validation of rules given at run time, numbered as they would sit in the layer. */
  function validateSessionRules(given: readonly unknown[], firstIndex: number): PermissionRule[] {
    const problems: string[] = []
    const out: PermissionRule[] = []
    given.forEach((rule, offset) => {
      const parsed = permissionRuleSchema.safeParse(rule)
      const label = `session rule ${firstIndex + offset}`
      if (parsed.success) out.push(deepFreeze(structuredClone(parsed.data)))
      else problems.push(...formatIssues(parsed.error.issues, rule, () => ({ label, depth: 0 }), label))
    })
    if (problems.length > 0) {
      throw new PermissionsError({ code: 'INVALID_RULE', message: problems.join('; ') })
    }
    return out
  }

  return {
    decide(call: PermissionCall): PermissionVerdict {
      const read = readCall(call)
      if (typeof read === 'string') return { type: 'deny', reason: read }
      try {
        return decideCall(evaluation(snapshot, read.toolName, read.args))
      } catch (error) {
        return { type: 'deny', reason: `the permission rules failed (${describeThrown(error)})` }
      }
    },
    explain(call: PermissionCall): PermissionExplanation {
      const read = readCall(call)
      if (typeof read === 'string') return failedExplanation('', read)
      try {
        return explainCall(evaluation(snapshot, read.toolName, read.args))
      } catch (error) {
        return failedExplanation(read.toolName, `the permission rules failed (${describeThrown(error)})`)
      }
    },
    rules: () => snapshot.rules,
    session: {
      list: () => snapshot.rules.session,
      add(rule, options = {}) {
        const current = snapshot.rules.session
        const at = options.at ?? current.length
        if (!Number.isInteger(at) || at < 0 || at > current.length) {
          throw new PermissionsError({
            code: 'INVALID_ARGUMENT',
            message: `session.add(rule, { at }): at must be an integer from 0 to ${current.length}, got ${String(at)}`,
          })
        }
        const [added] = validateSessionRules([rule], at)
        setSession([...current.slice(0, at), added!, ...current.slice(at)])
        return () => {
          const now = snapshot.rules.session
          const index = now.indexOf(added!)
          if (index >= 0) setSession([...now.slice(0, index), ...now.slice(index + 1)])
        }
      },
      replace(next) {
        if (!Array.isArray(next)) {
          throw new PermissionsError({
            code: 'INVALID_ARGUMENT',
            message: 'session.replace(rules): rules must be an array',
          })
        }
        setSession(validateSessionRules(next, 0))
      },
      clear() {
        setSession([])
      },
    },
  }
}

function failedExplanation(toolName: string, reason: string): PermissionExplanation {
  return {
    toolName,
    decision: 'deny',
    reason,
    decisiveSubject: 0,
    subjects: [
      {
        subject: { kind: 'call' },
        decision: 'deny',
        decidedBy: null,
        layers: { deployment: null, project: null, session: null },
      },
    ],
  }
}
